// `seller-tray watch --once --json` as a laptop runs it (its config home, and its credentials or
// saved accounts, in `env`), killed with SIGKILL after `killAfterMs` unless it ended by then.
import { endedOrKilled, spawnTs } from './processes';

/** An order `watch` announced: with its account's label while several accounts are watched. */
export interface Announced {
  account?: string;
  orderId: string;
}

export interface WatchRun {
  announced: Announced[];
  /** Whether the kill landed (the run had not ended by itself). */
  killed: boolean;
}

export async function watchOnce(env: NodeJS.ProcessEnv, killAfterMs?: number): Promise<WatchRun> {
  const { stdout, killed } = await endedOrKilled(
    spawnTs('main/cli/seller-tray.ts', ['watch', '--once', '--json'], env),
    killAfterMs,
  );
  const announced = stdout
    .split('\n')
    .filter((line) => line.startsWith('{') && line.endsWith('}'))
    .map((line) => JSON.parse(line) as Announced)
    .map(({ account, orderId }) => (account === undefined ? { orderId } : { account, orderId }));
  return { announced, killed };
}
