// `seller-tray watch --once --json` as a laptop runs it (its config home, and its credentials or
// saved accounts, in `env`), killed with SIGKILL after `killAfterMs` unless it ended by then.
import { spawnTs } from './processes';

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
  const child = spawnTs('main/cli/seller-tray.ts', ['watch', '--once', '--json'], env);
  let stdout = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  const signal = await new Promise<string | null>((resolve) => child.once('exit', (_, sig) => resolve(sig)));
  clearTimeout(timer);
  const announced = stdout
    .split('\n')
    .filter((line) => line.startsWith('{') && line.endsWith('}'))
    .map((line) => JSON.parse(line) as Announced)
    .map(({ account, orderId }) => (account === undefined ? { orderId } : { account, orderId }));
  return { announced, killed: signal === 'SIGKILL' };
}
