// The CLI commands that keep state where the app keeps it: `login` stores the secret in the
// keychain and the account in the settings; `watch` runs the core's poller, so two home
// directories behave as two laptops.
import { plural } from '../../preload/counted';
import { escapedControls } from '../../preload/marketplace-text';
import { type AccountRef, accountName, keychainEntry } from '../core/account/account-ref';
import { AccountSession } from '../core/account/session';
import { adviceFor } from '../core/advice';
import { SellerApiClient } from '../core/api/client';
import { automationPortsFor } from '../core/automation/ports';
import type { AutomationPorts } from '../core/automation/runner';
import type { Log } from '../core/log';
import { parseSettingsPatch } from '../core/settings';
import { type Account, type CliStores, clientOptions, cliNetwork, refuseManaged } from './account';
import type { Headless } from './automations';
import { describeProblem, row, terminalJson } from './format';
import { UsageError } from './refusals';
import { readSecret } from './secret-input';

/** What a terminal is told when `login` or `accounts add` waits for the client secret. */
export const CLIENT_SECRET_PROMPT = 'Client secret (not shown as you type or paste it), then Enter: ';

/**
 * An account's automations from the CLI: deliveries through its network client; an order's link
 * names the account while several are listed, as `orders get` names it.
 */
export function cliAutomationPorts(ref: AccountRef, stores: CliStores): AutomationPorts {
  const named = stores.settings.load().settings.accounts.length > 1;
  return automationPortsFor(ref, { ...stores, post: cliNetwork().post, named: () => named });
}

/** Checks the credentials with a token request, then stores them; a typo is never saved. */
export async function login(account: Account, stores: CliStores, log: Log): Promise<string> {
  const { clientId } = account.ref;
  if (!clientId) throw new UsageError('login needs --client-id (or SELLER_CLIENT_ID)');
  const patch = parseSettingsPatch({ baseUrl: account.ref.baseUrl, clientId });
  if (!patch.ok) throw new UsageError(patch.message);
  const secret = await readSecret(CLIENT_SECRET_PROMPT);
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

export interface WatchOptions {
  once: boolean;
  intervalSeconds?: number | undefined;
  json: boolean;
  /** Told of each poll, delivery, announcement and failed call (--verbose). */
  log: Log;
  /** `run` and `listen`: the automations run for each new order (`watch` runs none). */
  automations?: Headless | undefined;
}

/**
 * Polls like the app, printing a line (or a JSON object) per new order. The first run on a
 * laptop records the backlog silently, as the app does. Several accounts are watched at once,
 * each on its own schedule and backoff, and every line then names its account: one refusing its
 * secret or down is told and leaves the others watching.
 */
export async function watch(
  accounts: readonly Account[],
  stores: CliStores,
  options: WatchOptions,
): Promise<void> {
  if (options.intervalSeconds)
    refuseManaged('--interval', { pollIntervalSeconds: options.intervalSeconds }, stores.policies);
  const saved = stores.settings.load().settings;
  const headless = options.automations;
  const settings = {
    ...saved,
    ...(options.intervalSeconds ? { pollIntervalSeconds: options.intervalSeconds } : {}),
    // The one place that runs them: whatever the app's switch on this computer says.
    ...(headless ? { automationsEnabled: true, automations: headless.automations } : {}),
  };
  // Ctrl+C or SIGTERM, from the first poll on: each core then closes its store before the exit.
  const stopped = new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  const sessions: AccountSession[] = [];
  try {
    for (const account of accounts) {
      const automations = headless && cliAutomationPorts(account.ref, stores);
      sessions.push(
        await AccountSession.open(account.ref, {
          dataRoot: stores.dataRoot,
          clientSecret: account.clientSecret,
          settings: () => settings,
          log: options.log,
          transport: cliNetwork().transport,
          surface: 'terminal',
          automations:
            automations && headless?.secret !== undefined
              ? { ...automations, secret: async () => headless.secret }
              : automations,
        }),
      );
    }
    const named = sessions.length > 1;
    const failed = await Promise.all(
      sessions.map((session) => watchAccount(session, named, options, stopped)),
    );
    if (options.once && failed.includes(true)) throw new WatchFailed();
  } finally {
    // Every way out of watch closes the stores (waiting, bounded, for the work under way).
    await Promise.all(sessions.map((session) => session.close()));
  }
}

/**
 * One account's part of a watch; answers whether it ended on a problem. Its secret refused ends
 * it: alone, as a usage error (log in again); among several, told on stderr.
 */
async function watchAccount(
  session: AccountSession,
  named: boolean,
  options: WatchOptions,
  stopped: Promise<void>,
): Promise<boolean> {
  const { core, firstRun, ref } = session;
  const label = accountName(ref);
  const tell = (problem: { message: string; details?: readonly string[] | undefined }) =>
    process.stderr.write(
      describeProblem(named ? { ...problem, message: `${label}: ${problem.message}` } : problem),
    );
  // Printed as the core raises them, before it marks them raised: a watch killed in between
  // prints them again on its next run, never loses one. A connection problem is told once,
  // in words, while it lasts.
  let problemTold: string | undefined;
  core.on((event) => {
    if (event.type === 'problem') tell(event);
    if (event.type === 'state-changed') {
      const { problem } = event.status;
      if (problem && problem.message !== problemTold) tell(problem);
      problemTold = problem?.message;
    }
    if (event.type !== 'orders-arrived') return;
    for (const orderId of event.orderIds) {
      const brief = core.brief(orderId);
      const cells = [orderId, brief.buyer, brief.product, brief.total];
      process.stdout.write(
        options.json
          ? terminalJson(named ? { account: label, ...brief } : brief, 0)
          : row(named ? [label, ...cells] : cells),
      );
    }
  });
  const rejected = new Promise<'rejected'>((resolve) => {
    core.on((event) => {
      if (event.type === 'state-changed' && event.status.connection === 'credentials-rejected')
        resolve('rejected');
    });
  });
  /** The secret refused: alone, a usage error (log in again); among several, told, and the others go on. */
  const refused = (): true => {
    const message = `the marketplace rejected client ${ref.clientId}: ${adviceFor('terminal', ref).enterSecret}`;
    if (!named) throw new UsageError(message);
    tell({ message });
    return true;
  };
  if ((await Promise.race([core.start(), rejected, stopped])) === 'rejected') return refused();
  const { problem } = core.status();
  if (firstRun && !problem) {
    const { total } = core.orders({ filter: 'all', search: '', offset: 0, limit: 1 });
    process.stderr.write(
      `seller-tray: ${named ? `${escapedControls(label)}: ` : ''}first run on this computer: recorded ${plural(total, 'existing order')} without printing them; new orders are printed from now on.\n`,
    );
  }
  if (options.once) return problem !== null;
  return (await Promise.race([stopped, rejected])) === 'rejected' && refused();
}
