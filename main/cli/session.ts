// The CLI commands that keep state where the app keeps it: `login` stores the secret in the
// keychain and the account in the settings; `watch` runs the core's poller, so two home
// directories behave as two laptops.
import { keychainEntry } from '../core/account/account-ref';
import { AccountSession } from '../core/account/session';
import { SellerApiClient } from '../core/api/client';
import type { Log } from '../core/log';
import { parseSettingsPatch } from '../core/settings';
import { type Account, type CliStores, clientOptions } from './account';
import { describeProblem, row, terminalJson } from './format';
import { UsageError } from './refusals';

/** The secret `login` and `accounts add` read: standard input, its one trailing line break dropped. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Checks the credentials with a token request, then stores them; a typo is never saved. */
export async function login(account: Account, stores: CliStores, log: Log): Promise<string> {
  const { clientId } = account.ref;
  if (!clientId) throw new UsageError('login needs --client-id (or SELLER_CLIENT_ID)');
  const patch = parseSettingsPatch({ baseUrl: account.ref.baseUrl, clientId });
  if (!patch.ok) throw new UsageError(patch.message);
  const secret = await readStdin();
  if (!secret) throw new UsageError('login reads the client secret from standard input, and it was empty');
  const client = new SellerApiClient(clientOptions({ ...account, clientSecret: async () => secret }, log));
  const { sellerId } = await client.authenticate();
  await stores.secrets.set(keychainEntry(account.ref), secret);
  const { settings } = stores.settings.load();
  // A real account ends the demo, in the app too: its next start uses this marketplace.
  stores.settings.save({ ...settings, ...patch.patch, demoMode: false });
  return `Logged in as client ${clientId}${sellerId === null ? '' : ` of seller ${sellerId}`}; the secret is in the system keychain.\n`;
}

/** `watch --once` could not check: what went wrong is already on stderr, in words. */
export class WatchFailed extends Error {}

const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

export interface WatchOptions {
  once: boolean;
  intervalSeconds?: number | undefined;
  json: boolean;
  /** Told of each poll, delivery, announcement and failed call (--verbose). */
  log: Log;
}

/**
 * Polls like the app, printing a line (or a JSON object) per new order. The first run on a
 * laptop records the backlog silently, as the app does.
 */
export async function watch(account: Account, stores: CliStores, options: WatchOptions): Promise<void> {
  const saved = stores.settings.load().settings;
  const settings = {
    ...saved,
    ...(options.intervalSeconds ? { pollIntervalSeconds: options.intervalSeconds } : {}),
  };
  const session = await AccountSession.open(account.ref, {
    dataRoot: stores.dataRoot,
    clientSecret: account.clientSecret,
    settings: () => settings,
    log: options.log,
  });
  const { core, firstRun } = session;
  // Printed as the core raises them, before it marks them raised: a watch killed in between
  // prints them again on its next run, never loses one. A connection problem is told once,
  // in words, while it lasts.
  let problemTold: string | undefined;
  core.on((event) => {
    if (event.type === 'problem') process.stderr.write(describeProblem(event));
    if (event.type === 'state-changed') {
      const { problem } = event.status;
      if (problem && problem.message !== problemTold) process.stderr.write(describeProblem(problem));
      problemTold = problem?.message;
    }
    if (event.type !== 'orders-arrived') return;
    for (const orderId of event.orderIds) {
      const brief = core.brief(orderId);
      process.stdout.write(
        options.json ? terminalJson(brief, 0) : row([orderId, brief.buyer, brief.product, brief.total]),
      );
    }
  });
  const failure = new Promise<never>((_, reject) => {
    core.on((event) => {
      if (event.type === 'state-changed' && event.status.connection === 'credentials-rejected') {
        reject(
          new UsageError(
            `the marketplace rejected client ${account.ref.clientId}: run seller-tray login again`,
          ),
        );
      }
    });
  });
  failure.catch(() => undefined); // also observed below; never an unhandled rejection
  // Ctrl+C or SIGTERM, from the first poll on: the core then closes its store before the exit.
  const stopped = new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  try {
    await Promise.race([core.start(), failure, stopped]);
    const { problem } = core.status();
    if (firstRun && !problem) {
      const { total } = core.orders({ filter: 'all', search: '', offset: 0, limit: 1 });
      process.stderr.write(
        `seller-tray: first run on this computer: recorded ${plural(total, 'existing order')} without printing them; new orders are printed from now on.\n`,
      );
    }
    if (options.once) {
      if (problem) throw new WatchFailed();
      return;
    }
    await Promise.race([stopped, failure]);
  } finally {
    // Every way out of watch closes the store (waiting, bounded, for the work under way).
    await session.close();
  }
}
