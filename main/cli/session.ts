// The CLI commands that keep state where the app keeps it: `login` stores the secret in the
// keychain and the account in the settings; `watch` runs the core's poller, so two home
// directories behave as two laptops.
import { plural } from '../../preload/counted';
import { escapedControls } from '../../preload/marketplace-text';
import { type AccountRef, accountName, keychainEntry } from '../core/account/account-ref';
import { REOPEN_SCHEDULE, reopenWaitMs } from '../core/account/reopen-wait';
import { AccountSession } from '../core/account/session';
import { adviceFor, type TerminalSurface } from '../core/advice';
import { SellerApiClient } from '../core/api/client';
import { automationPortsFor } from '../core/automation/ports';
import type { AutomationPorts } from '../core/automation/runner';
import { explainFailure } from '../core/failure-words';
import { failureFields, type Log } from '../core/log';
import type { Timers } from '../core/poller';
import { parseSettingsPatch, type Settings } from '../core/settings';
import {
  type Account,
  type CliStores,
  clientOptions,
  cliNetwork,
  refuseManaged,
  shadowedNote,
} from './account';
import type { Headless } from './automations';
import { describeProblem, row, terminalJson } from './format';
import { isOutputClosed, outputClosed, printLine } from './output';
import { UsageError } from './refusals';
import { readSecret } from './secret-input';

/** What a terminal is told when `login` or `accounts add` waits for the client secret. */
export const CLIENT_SECRET_PROMPT = 'Client secret (not shown as you type or paste it), then Enter: ';

/**
 * An account's automations from the CLI: deliveries through its network client; an order's link
 * names the account while several are listed, as `orders get` names it.
 */
export function cliAutomationPorts(
  ref: AccountRef,
  stores: CliStores,
  named: () => boolean,
): AutomationPorts {
  return automationPortsFor(ref, {
    ...stores,
    post: cliNetwork().post,
    named,
    policies: () => stores.policies,
  });
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
  return `Logged in as client ${clientId}${sellerId === null ? '' : ` of seller ${sellerId}`}; the secret is in the system keychain.${shadowedNote(stores, keychainEntry(account.ref))}\n`;
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
  /** `run`: the accounts to serve, asked again whenever the settings file changes. */
  follow?: (() => Account[]) | undefined;
  /** What the tries of a store that could not be opened wait on (tests pass a quicker one). */
  timers?: Timers | undefined;
}

/**
 * Polls like the app, printing a line (or a JSON object) per new order. The first run on a
 * laptop records the backlog silently, as the app does. Several accounts are watched at once,
 * each on its own schedule and backoff, and every line then names its account: one refusing its
 * secret or down is told and leaves the others watching. With `follow` (`run`), the settings file
 * is read again whenever it changes: its automations and settings apply from then on, and the
 * accounts `follow` names then are served (one added opened, one removed or renamed closed).
 */
export async function watch(
  accounts: readonly Account[],
  stores: CliStores,
  options: WatchOptions,
): Promise<void> {
  if (options.intervalSeconds)
    refuseManaged('--interval', { pollIntervalSeconds: options.intervalSeconds }, stores.policies);
  const headless = options.automations;
  const inForce = (saved: Settings): Settings => ({
    ...saved,
    ...(options.intervalSeconds ? { pollIntervalSeconds: options.intervalSeconds } : {}),
    // The one place that runs them: whatever the app's switch on this computer says.
    ...(headless ? { automationsEnabled: true, automations: headless.automations ?? saved.automations } : {}),
  });
  // Watched before the first read: a change saved while the accounts open is read once they are.
  let changedMeanwhile = false;
  let changed = () => {
    changedMeanwhile = true;
  };
  // `run` follows the policies as it follows the file: IT's change applies without a restart.
  const unwatchers = options.follow
    ? [stores.settingsChanges(() => changed()), stores.policyChanges(() => changed())]
    : [];
  const unwatch = () => {
    for (const stop of unwatchers) stop();
  };
  let settings = inForce(stores.settings.load().settings);
  // Ctrl+C, SIGTERM or its terminal closing (SIGHUP), from the first poll on: each core then
  // closes its store before the exit.
  let stopping = false;
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      stopping = true;
      resolve();
    };
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, stop);
    // Its reader gone (`| head`, a closed terminal): nothing more can be printed.
    void outputClosed.then(stop);
  });
  const served = new Map<string, Served>();
  const named = () => served.size > 1;
  // A lone account's refused secret ends the watch (a usage error): heard here for every account served.
  let failed: (error: unknown) => void = () => {};
  const failure = new Promise<never>((_, reject) => {
    failed = reject;
  });
  failure.catch(() => {});
  const open = (account: Account) => {
    const automations =
      headless && cliAutomationPorts(account.ref, stores, () => settings.accounts.length > 1);
    return AccountSession.open(account.ref, {
      dataRoot: stores.dataRoot,
      clientSecret: account.clientSecret,
      settings: () => settings,
      log: options.log,
      transport: cliNetwork().transport,
      // One poll, no retry: its failure's words say so, not that Seller Tray keeps trying.
      surface: options.once ? { ...account.surface, triesOnce: 'watch --once' } : account.surface,
      automations:
        automations && headless?.secret !== undefined
          ? { ...automations, secret: async () => headless.secret }
          : automations,
    });
  };
  const timers: Timers = options.timers ?? {
    setTimeout,
    clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  };
  /** The accounts whose store could not be opened (not under --once): their failed tries, and the timer of the next. */
  const unopened = new Map<string, { tries: number; timer: unknown }>();
  const forget = (key: string) => {
    timers.clearTimeout(unopened.get(key)?.timer);
    unopened.delete(key);
  };
  const shownName = (account: Account) => account.ref.label ?? account.ref.baseUrl;
  /**
   * An account of several that cannot be opened (its store a newer version's, its folder
   * unwritable): told, it costs no other. When `retried`, it is tried again by itself (a service has
   * nobody to press Check now), told here once, each failed try in the log.
   */
  const cannotServe = (account: Account, error: unknown, retried: boolean) => {
    const why = explainFailure(error, adviceFor(account.surface, account.ref)).message;
    const again = !retried
      ? ''
      : options.follow
        ? `; run tries again ${REOPEN_SCHEDULE}, and at each change of the settings file`
        : `; watch tries again ${REOPEN_SCHEDULE}`;
    process.stderr.write(
      describeProblem({
        message: `${shownName(account)} could not be served: ${again ? why.replace(/\.$/, '') : why}${again}`,
      }),
    );
    if (retried) tryAgainLater(account, error);
  };
  /** The watch is ending: nothing more is tried. */
  let ended = false;
  const tryAgainLater = (account: Account, error: unknown) => {
    if (ended) return;
    const key = servedKey(account);
    const tries = (unopened.get(key)?.tries ?? 0) + 1;
    forget(key);
    const waitMs = reopenWaitMs(tries);
    options.log.warn("an account's store could not be opened: it is tried again later", {
      account: shownName(account),
      tries,
      tryAgainInSeconds: waitMs / 1000,
      ...failureFields(error),
    });
    const timer = timers.setTimeout(() => {
      following = following.then(() => reopen(account)).catch(failed);
    }, waitMs);
    unopened.set(key, { tries, timer });
  };
  /** A try of an account whose store could not be opened: served once it opens. */
  const reopen = async (account: Account) => {
    const key = servedKey(account);
    // Stopped, served meanwhile (a settings change), or no longer listed: nothing to try.
    if (stopping || ended || served.has(key) || !unopened.has(key)) return;
    let session: AccountSession;
    try {
      session = await open(account);
    } catch (error) {
      tryAgainLater(account, error);
      return;
    }
    forget(key);
    if (stopping) return void (await session.close());
    serve(account, session);
    process.stderr.write(
      `seller-tray: ${escapedControls(shownName(account))} is served now: its store opened\n`,
    );
    options.log.info("an account's store opened: it is served", { account: shownName(account) });
  };
  /** Watches an open session's account until the watch stops or the account leaves. */
  const serve = (account: Account, session: AccountSession) => {
    let leave = () => {};
    const left = new Promise<void>((resolve) => {
      leave = resolve;
    });
    const done = watchAccount(session, account.surface, named, options, Promise.race([stopped, left]));
    done.catch(failed);
    served.set(servedKey(account), { session, leave, done });
  };
  /** Leaves an account: its watch ends, its store closes (waiting, bounded, for the work under way). */
  let cutShort = 0;
  const close = async (key: string, entry: Served) => {
    served.delete(key);
    entry.leave();
    await entry.done.catch(() => {});
    await entry.session.close();
    cutShort += entry.session.core.runsCutShort;
  };
  let following = Promise.resolve();
  try {
    // All open before any is watched: every line then knows whether to name its account.
    const opened: [Account, AccountSession][] = [];
    const unopenable: [Account, unknown][] = [];
    try {
      for (const account of accounts) {
        try {
          opened.push([account, await open(account)]);
        } catch (error) {
          // A lone account's is the watch's failure, in its words; run's is tried again (a service
          // ended for it would be restarted in a loop).
          if (accounts.length === 1 && !options.follow) throw error;
          unopenable.push([account, error]);
        }
      }
    } catch (error) {
      await Promise.all(opened.map(([, session]) => session.close()));
      throw error;
    }
    // Tried again while others are served, or by run; a watch with none served ends (exit 1), as
    // a lone account's does: its user is at the terminal, and a watch of nothing helps nobody.
    const retried = !options.once && (options.follow !== undefined || opened.length > 0);
    for (const [account, error] of unopenable) cannotServe(account, error, retried);
    for (const [account, session] of opened) serve(account, session);
    if (!options.follow) {
      const failures = await Promise.all([...served.values()].map((entry) => entry.done));
      if (opened.length < accounts.length && (options.once || opened.length === 0)) throw new WatchFailed();
      if (options.once && failures.includes(true)) throw new WatchFailed();
      return;
    }
    const follow = options.follow;
    const readAgain = async () => {
      // Read without side effects: a half-saved file is never kept aside from under its writer.
      const { settings: saved, problem } = stores.settings.reread?.() ?? { settings: undefined };
      // Told as the load's problem is at the start, once per change of it.
      if (problem) process.stderr.write(`seller-tray: ${escapedControls(problem)}\n`);
      if (saved === undefined) return;
      settings = inForce(saved);
      let wanted: Account[];
      try {
        wanted = follow();
      } catch (error) {
        // The account run was started for, or every account, gone from the list: let go, served again once back.
        process.stderr.write(
          `seller-tray: no account to serve now: ${(error as Error).message}; run waits for one in the settings file\n`,
        );
        wanted = [];
      }
      if (stopping) return;
      const keys = new Set(wanted.map(servedKey));
      for (const [key, entry] of served) if (!keys.has(key)) await close(key, entry);
      for (const key of unopened.keys()) if (!keys.has(key)) forget(key);
      for (const account of wanted.filter((a) => !served.has(servedKey(a)))) {
        // A stop while the change is read: nothing more is opened, nor started (no call after it).
        if (stopping) return;
        try {
          const session = await open(account);
          forget(servedKey(account));
          if (stopping) {
            await session.close();
            return;
          }
          serve(account, session);
        } catch (error) {
          cannotServe(account, error, retried);
        }
      }
      options.log.info('settings read again', {
        accounts: [...served.values()]
          .map((entry) => entry.session.ref.label ?? entry.session.ref.baseUrl)
          .join(', '),
        automations: settings.automations.filter((a) => a.enabled).length,
      });
    };
    changed = () => {
      following = following.then(readAgain).catch(failed);
    };
    if (changedMeanwhile) changed();
    await Promise.race([stopped, failure]);
  } finally {
    ended = true;
    unwatch();
    for (const key of [...unopened.keys()]) forget(key);
    await following.catch(() => {});
    // Every way out of watch closes the stores (waiting, bounded, for the work under way).
    await Promise.all([...served].map(([key, entry]) => close(key, entry)));
    if (stopping && headless) process.stderr.write(`seller-tray: ${stoppedWords(cutShort)}\n`);
  }
}

/** `run`'s stop in words: what it ended, and when that runs again. */
function stoppedWords(cutShort: number): string {
  if (cutShort === 0) return 'stopped: no automation run was under way';
  const runs =
    cutShort === 1
      ? '1 automation run under way was ended; it runs'
      : `${cutShort} automation runs under way were ended; they run`;
  return `stopped: ${runs} again at the next start, under the same delivery id`;
}

/** An account being watched: its session, how to make it leave, and its watch's end. */
interface Served {
  session: AccountSession;
  leave: () => void;
  done: Promise<boolean>;
}

/** An account is served again when its marketplace, client or label changed (its lines and links name it). */
const servedKey = (account: Account): string => `${account.ref.id}\u0000${account.ref.label ?? ''}`;

/**
 * One account's part of a watch; answers whether it ended on a problem. Its secret refused ends
 * it: alone, as a usage error (log in again); among several, told on stderr. Under `run` (follow)
 * it is told and the account kept: its core reads the secret again at the poll interval and polls
 * once it changed, so a service is not restarted in a loop for want of a new secret.
 */
async function watchAccount(
  session: AccountSession,
  surface: TerminalSurface,
  named: () => boolean,
  options: WatchOptions,
  stopped: Promise<void>,
): Promise<boolean> {
  const { core, firstRun, ref } = session;
  const label = accountName(ref);
  const tell = (problem: { message: string; details?: readonly string[] | undefined }) =>
    // Standard output gone, the watch stops: the poll its line failed is no problem to tell.
    !isOutputClosed() &&
    process.stderr.write(
      describeProblem(named() ? { ...problem, message: `${label}: ${problem.message}` } : problem),
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
      printLine(
        options.json
          ? terminalJson(named() ? { account: label, ...brief } : brief, 0)
          : row(named() ? [label, ...cells] : cells),
      );
    }
  });
  const rejected = new Promise<'rejected'>((resolve) => {
    core.on((event) => {
      if (event.type === 'state-changed' && event.status.connection === 'credentials-rejected')
        resolve('rejected');
    });
  });
  /** The secret refused: alone under watch, a usage error (log in again); else told, and the others go on. */
  const refused = (): true => {
    const advice = adviceFor(surface, ref).enterSecret;
    // The environment's secret is read at the start only: a new one needs a restart (a
    // credential's, copied at the service's start, says so in its advice).
    const waits =
      options.follow && surface.secretFrom !== 'credential'
        ? surface.secretFrom === 'variable'
          ? ', then start run again'
          : '; run tries it again once the secret stored for it changes'
        : '';
    const message = `the marketplace rejected client ${ref.clientId}: ${advice}${waits}`;
    if (!named() && !options.follow) throw new UsageError(message);
    tell({ message });
    return true;
  };
  if ((await Promise.race([core.start(), rejected, stopped])) === 'rejected') return refused();
  const { problem } = core.status();
  if (firstRun && !problem) {
    const { total } = core.orders({ filter: 'all', search: '', offset: 0, limit: 1 });
    process.stderr.write(
      `seller-tray: ${named() ? `${escapedControls(label)}: ` : ''}first run on this computer: recorded ${plural(total, 'existing order')} without printing them; new orders are printed from now on.\n`,
    );
  }
  if (options.once) return problem !== null;
  return (await Promise.race([stopped, rejected])) === 'rejected' && refused();
}
