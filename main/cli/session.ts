// The CLI commands that keep state where the app keeps it: `login` stores the secret in the
// keychain and the account in the settings; `watch` runs the core's poller, so two home
// directories behave as two laptops.
import { SellerApiClient } from '../core/api/client';
import type { Log } from '../core/log';
import { secretOwner } from '../core/secrets';
import { SellerCore } from '../core/seller-core';
import { accountDir } from '../core/service';
import { parseSettingsPatch } from '../core/settings';
import { type Account, type CliStores, clientOptions } from './account';
import { UsageError } from './commands';
import { describeProblem, row, terminalJson } from './format';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Checks the credentials with a token request, then stores them; a typo is never saved. */
export async function login(account: Account, stores: CliStores, log: Log): Promise<string> {
  if (!account.clientId) throw new UsageError('login needs --client-id (or SELLER_CLIENT_ID)');
  const patch = parseSettingsPatch({ baseUrl: account.baseUrl, clientId: account.clientId });
  if (!patch.ok) throw new UsageError(patch.message);
  const secret = await readStdin();
  if (!secret) throw new UsageError('login reads the client secret from standard input, and it was empty');
  const client = new SellerApiClient({
    ...clientOptions(account, log),
    credentials: { clientId: account.clientId, clientSecret: async () => secret },
  });
  const { sellerId } = await client.authenticate();
  await stores.secrets.set(secretOwner(client.baseUrl, account.clientId), secret);
  const { settings } = stores.settings.load();
  stores.settings.save({ ...settings, ...patch.patch });
  return `Logged in as client ${account.clientId}${sellerId === null ? '' : ` of seller ${sellerId}`}; the secret is in the system keychain.\n`;
}

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
  const client = new SellerApiClient(clientOptions(account, options.log));
  const core = await SellerCore.open({
    client,
    dataDir: accountDir(stores.dataRoot, account.baseUrl, account.clientId),
    settings: () => settings,
    log: options.log,
  });
  // Printed as the core raises them, before it marks them raised: a watch killed in between
  // prints them again on its next run, never loses one.
  core.on((event) => {
    if (event.type === 'problem') process.stderr.write(describeProblem(event));
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
          new UsageError(`the marketplace rejected client ${account.clientId}: run seller-tray login again`),
        );
      }
    });
  });
  failure.catch(() => undefined); // also observed below; never an unhandled rejection
  await Promise.race([core.start(), failure]);
  if (options.once) {
    const { lastError } = core.status();
    await core.close();
    if (lastError) throw new Error(lastError);
    return;
  }
  await new Promise<void>((resolve, reject) => {
    failure.catch(reject);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  await core.close();
}
