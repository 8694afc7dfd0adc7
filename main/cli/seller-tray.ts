// `seller-tray`: the headless command line over the Seller API client, for ops scripts and
// black-box tests. Output is built whole before it is written: a failure leaves stdout empty.
import { parseArgs } from 'node:util';
import { escapedControls } from '../../preload/marketplace-text';
import { canonicalOrderId } from '../../preload/order-link';
import { PAUSE_WORDS } from '../../preload/pause';
import {
  type AccountRef,
  accountFolder,
  accountName,
  accountRef,
  commandFor,
} from '../core/account/account-ref';
import { adviceFor, capitalized, loginCommand, type TerminalSurface } from '../core/advice';
import { SellerApiClient } from '../core/api/client';
import { SellerApiError } from '../core/api/errors';
import { PAGE } from '../core/api/routes';
import { APP_VERSION } from '../core/app-identity';
import { diagnose, formatDiagnosis } from '../core/diagnosis';
import { explainFailure, isLocalFileFailure } from '../core/failure-words';
import { lineLog, silentLog } from '../core/log';
import { NO_POLICIES, policyProblems, policyReport } from '../core/policy/layers';
import { policySourceFor } from '../core/policy/sources';
import { PolicyWatcher, readPolicies } from '../core/policy/watcher';
import { KeychainUnavailableError } from '../core/secrets';
import { DEFAULT_SETTINGS } from '../core/settings';
import { AccountStore } from '../core/store/account-store';
import {
  type Account,
  clientOptions,
  cliStores,
  markedBy,
  refuseManaged,
  resolveAccount,
  resolveAccounts,
  secretFrom,
  terminalSurface,
} from './account';
import { accountsCommand, addAgain } from './accounts';
import {
  listAutomations,
  listen,
  listRuns,
  runAutomationOnce,
  runHeadless,
  runsTable,
  storeAutomationSecret,
} from './automations';
import { runCommand } from './commands';
import {
  describeProblem,
  describeUnread,
  describeWindows,
  formatItems,
  NAMES_ITS_ACCOUNT,
  terminalJson,
} from './format';
import { PREFIX_PAGES } from './order-id';
import { guardOutput, outputFailure } from './output';
import { Refusal, UsageError } from './refusals';
import { SecretCancelled } from './secret-input';
import { login, WatchFailed, watch } from './session';
import { exportStatuses } from './statuses';

const USAGE = `Usage: seller-tray <command> [options]

Commands:
  help               this text
  ping               says whether the marketplace answers and, when credentials are given,
                     whether it accepts them (exit 1 when it rejects them)
  events new | events all
  orders list        newest first, with each order's status (--limit N of them, default 50;
                     --all for every one)
  orders get <orderId>
                     one order to read: status, buyer, contact, total, validity, its lines, and
                     its history with who marked each status
  licenses list [--order <orderId>] | licenses get <licenseId>
  status <orderId> <InProgress|Completed|Failed> [--description TEXT] [--detail TEXT] [--as NAME]
         [--force]   posted as the app posts it: "Provisioning started by NAME.", your words
                     after it; NAME is --as, else the app's "Your name", else this computer's
                     account. Failed needs --description and --detail: what failed, and why.
                     What the window asks about first (a step out of the usual New → In
                     progress → Completed or Failed, Failed → In progress; the status the
                     order already has) is refused (exit 1) unless --force. The status may
                     also be given as orders list prints it ("In progress"), in any case
  accounts list      the accounts this computer serves: label, id, base URL, client id,
                     whether its secret is stored; the first is the one the app's window shows
  accounts add LABEL --base-url URL --client-id ID
                     reads the client secret from standard input, checks it with the
                     marketplace, stores it in the keychain and adds the account to the list;
                     a label already listed (without the options) is reconnected: its new
                     secret checked and stored; accounts add --id ID reconnects that account,
                     or brings back one whose removal was interrupted
  accounts rename LABEL NEW
                     gives a listed account another label
  accounts pause LABEL [--for ${PAUSE_WORDS.join('|')}]
                     holds that account's notifications (the app's, watch's) for an hour, four
                     hours, until tomorrow 08:00, or until resumed (no --for), as its row in the
                     app's Settings does; it is still polled, and the others still announce
  accounts resume LABEL
                     ends that account's own pause; what came meanwhile is told in one summary
  accounts remove LABEL [--force]
                     asks first at a terminal (not when piped), then deletes the account's
                     keychain secret and its data on this computer;
                     refused (exit 1) while it has marked statuses not yet delivered, unless
                     --force discards them; a removal that stopped midway (killed, or a
                     step failed) is finished by running it again
  login              reads the client secret from standard input into the system keychain,
                     and saves --base-url and --client-id for the app and later commands;
                     it ends the app's demo mode
  watch [--once] [--interval SECONDS]
                     polls like the app; prints one line (with --json one object) per new order;
                     the first run on a computer records the orders already there, unprinted.
                     With several accounts saved (and none named), watches them all, each on
                     its own schedule, each line starting with the account's label
  run [--interval SECONDS]
                     polls like the app and runs the automations of the settings file for each
                     new order, with no window, logging to stderr, until SIGTERM or Ctrl+C (the
                     one place a team runs them; docs/automations.md has a systemd unit and a
                     launchd plist); serves every saved account (or the one named) and follows
                     the settings file: automations and accounts changed there apply at once
  listen --forward-to URL | listen --exec -- COMMAND ARGUMENTS...
                     like run, but only for this session: each new order's JSON posted to URL
                     (signed with a secret printed at the start) or given to COMMAND on stdin
  automations list   the automations, what each does, for which orders, whether its secret is stored
  automations test NAME --order ID
                     runs NAME once for the order now (event order.test); marks no status;
                     exit 1 when it failed
  automations runs [--order ID]
                     the runs waiting or failed on this computer (or every run of one order):
                     state, attempts, next try, last result, delivery id
  automations run-again NAME --order ID
                     the order page's Run again: a real run (order.created) under a new
                     delivery id, reporting its status as declared; exit 1 when it failed
  automations secret NAME
                     reads a webhook's signing secret (none: one is made and shown) or a Slack or
                     Teams incoming webhook address from standard input into the system keychain
  statuses export [--since DATE] [--format csv|json] [--output FILE]
                     proof of delivery: every status marked on this computer (by the app or
                     watch) with who, when held and sent, the request id, the marketplace's
                     answer (HTTP status, event id) and when a poll read it back; from this
                     computer's store, no marketplace call; kept 400 days
  doctor             tries each operation the app reads with and reports what answered, how
                     long it took, and where the marketplace differs from the spec (for support:
                     no secret or token in it), and the organization's policies in force and
                     ignored; exit 1 when an operation failed

An <orderId> may be the beginning of one (at least 4 hex digits) when no other order's id
begins so, as git takes a commit's; it costs a read of the orders listing, at most ${PREFIX_PAGES} pages (${PREFIX_PAGES * PAGE.maxLimit} orders).

Options:
  --account LABEL    one of the saved accounts (accounts list), for any command; its secret
                     comes from the keychain only, never from SELLER_CLIENT_SECRET. A label
                     that begins with "-" is given as --account=LABEL
  --id ID            one of the saved accounts by its id (accounts list shows it), wherever
                     --account LABEL or an accounts command's LABEL goes; advice names accounts so
  --base-url URL     the Seller API (or SELLER_API_BASE_URL, or what login saved)
  --client-id ID     the API client id (or SELLER_CLIENT_ID, or what login saved); the secret
                     comes from SELLER_CLIENT_SECRET or the keychain, never from a flag
  --json             machine-readable JSON: the API's objects; for lists an array of all items fetched
  --all              every page of a list; otherwise one page (--offset, --limit)
  --offset N --limit N
  --order ID --description TEXT --detail TEXT --as NAME --force --forward-to URL --exec
  --verbose          what the app would log, on stderr: failed calls (operation, HTTP status,
                     request id), polls, deliveries, announcements; never a secret or token
  --help`;

/**
 * parseArgs' refusal of an unknown option, where a known one is a typo away (`--jsn`): that one
 * named. Else its own words stand (they say how to give an argument that begins with "-").
 */
function typoOf(refusal: string): string | undefined {
  const typed = /^Unknown option '--([^'=]+)/.exec(refusal)?.[1];
  if (!typed) return undefined;
  // A short word is one edit from many: the longer the word, the more edits a typo may be.
  const most = Math.min(2, Math.floor(typed.length / 3));
  const [meant] = Object.keys(OPTIONS)
    .map((name) => ({ name, edits: typoDistance(typed, name) }))
    .filter(({ edits }) => edits <= most)
    .sort((a, b) => a.edits - b.edits);
  return meant && `unknown option --${typed}: did you mean --${meant.name}?`;
}

/** Edits (a character added, left out or replaced) from one word to another. */
function typoDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(
        (row[j] ?? 0) + 1,
        (next[j - 1] ?? 0) + 1,
        (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    row = next;
  }
  return row[b.length] ?? 0;
}

/**
 * The part of the help about a command (`status`, `orders get`): its entries in USAGE's list of
 * commands, those of its first two words where there are such, else of its first; none for a word
 * no entry begins with.
 */
function commandHelp(words: readonly string[]): string | undefined {
  const start = USAGE.indexOf('Commands:\n') + 'Commands:\n'.length;
  // An entry: its line two spaces in, and the lines indented further under it.
  const entries = USAGE.slice(start, USAGE.indexOf('\n\n', start)).split(/\n(?= {2}\S)/);
  const of = (count: number) =>
    entries.filter((entry) => entry.trim().split(/\s+/, count).join(' ') === words.slice(0, count).join(' '));
  const matching = words.length > 1 && of(2).length > 0 ? of(2) : of(1);
  if (matching.length === 0) return undefined;
  return `Usage: seller-tray <command> [options], where <command> is:\n${matching.join('\n')}\n\nseller-tray --help lists every command and option`;
}

/**
 * A usage error as stderr tells it: its line, then the one command's usage where there is one, else
 * where the commands are listed (the whole help would bury the line). It may quote what was typed
 * or a label from the settings: escaped for the terminal.
 */
function usageError(error: UsageError): string {
  return `seller-tray: ${escapedControls(error.message)}\n${error.usage ? `\n${error.usage}\n` : 'seller-tray --help lists the commands\n'}`;
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    // parseArgs words some refusals in several lines: one line, as every usage error is.
    const message = (error as Error).message.replaceAll('\n', ' ');
    process.stderr.write(usageError(new UsageError(typoOf(message) ?? message)));
    return 2;
  }
  const { values, positionals } = parsed;
  // Help needs no marketplace. A command's (`status --help`, `help status`) is its part of it.
  if (values.help || positionals[0] === 'help') {
    const command = positionals[0] === 'help' ? positionals.slice(1) : positionals;
    process.stdout.write(`${(command.length > 0 && commandHelp(command)) || USAGE}\n`);
    return 0;
  }
  // Only with --verbose (and always for the automations' services): stderr otherwise carries the failure alone.
  const logged = values.verbose || ['run', 'listen'].includes(positionals[0] ?? '');
  const log = logged ? lineLog((line) => process.stderr.write(`seller-tray: ${line}\n`)) : silentLog;
  // The command's account, once known: a refused secret's advice names it.
  let account: Account | undefined;
  // Where no account is known (`accounts add`), advice is this command line's: once the settings
  // and policies are read, theirs.
  let surface = terminalSurface(DEFAULT_SETTINGS, NO_POLICIES, secretFrom());
  // The accounts listed: an order one of them has not may be another's.
  let listed: AccountRef[] = [];
  try {
    // `run` is a service, running for weeks: it watches the policies, as the app does.
    const stores = cliStores(
      process.env,
      positionals[0] === 'run'
        ? await PolicyWatcher.start(policySourceFor(), { log })
        : await readPolicies(policySourceFor(), log),
    );
    // As they were at the start: the commands other than run end before IT changes them.
    const { policies } = stores;
    // Items or settings of the file left out (an account, an automation), or a file that cannot be
    // used: told once, whatever the command, else "no account" is all one reads, or an automation
    // just vanishes. The first read is the one that tells it.
    const { settings: saved, problem, unusable } = stores.settings.load();
    if (problem) process.stderr.write(`seller-tray: ${escapedControls(problem)}\n`);
    // Not the user's settings but the defaults: no command acts on them (run would serve no account).
    if (unusable) return 1;
    surface = terminalSurface(saved, policies, secretFrom());
    listed = saved.accounts.map((entry) => accountRef(entry));
    if (positionals[0] === 'accounts') {
      const options = {
        account: values.account,
        id: values.id,
        baseUrl: values['base-url'],
        clientId: values['client-id'],
        json: values.json ?? false,
        force: values.force ?? false,
        for: values.for,
        log,
        terminal: process.stdout.isTTY === true,
      };
      // An account added where the organization sets the marketplace would point the app elsewhere.
      if (positionals[1] === 'add')
        refuseManaged(
          'accounts add',
          {
            ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
            ...(options.clientId ? { clientId: options.clientId } : {}),
          },
          policies,
        );
      // `add` reads the secret: a refused one is given by running it again, as advice prints it.
      const again = addAgain(positionals.slice(1), stores, options);
      if (again) surface = { ...surface, readsSecret: again };
      process.stdout.write(await accountsCommand(positionals.slice(1), stores, options));
      return 0;
    }
    const flags = {
      baseUrl: values['base-url'],
      clientId: values['client-id'],
      account: values.account,
      id: values.id,
    };
    if (positionals[0] === 'watch' && positionals.length === 1) {
      const intervalSeconds = integerOption(values.interval, 'interval', 30);
      await watch(resolveAccounts(flags, stores), stores, {
        once: values.once ?? false,
        intervalSeconds,
        json: values.json ?? false,
        log,
      });
      return 0;
    }
    account = resolveAccount(flags, stores);
    if (positionals[0] === 'login' && (flags.account ?? flags.id) !== undefined)
      throw new UsageError(
        `login sets the first account; a listed one gets its new secret with ${commandFor(account.ref.id, 'accounts add')}`,
      );
    if (positionals[0] === 'login' && positionals.length === 1) {
      const { surface: typed, ref } = account;
      account = { ...account, surface: { ...typed, readsSecret: loginCommand(typed, ref) } };
      process.stdout.write(await login(account, stores, log));
      return 0;
    }
    const headless = {
      intervalSeconds: integerOption(values.interval, 'interval', 30),
      json: values.json ?? false,
      log,
    };
    if (positionals[0] === 'run' && positionals.length === 1) {
      await runHeadless(() => resolveAccounts(flags, stores), stores, headless);
      return 0;
    }
    if (positionals[0] === 'listen') {
      await listen(account, stores, {
        ...headless,
        forwardTo: values['forward-to'],
        exec: values.exec ? positionals.slice(1) : undefined,
      });
      return 0;
    }
    if (positionals[0] === 'automations') {
      const [, sub, name] = positionals;
      if (sub === 'list' && positionals.length === 2) {
        const { text, items } = await listAutomations(account, stores);
        process.stdout.write(values.json ? terminalJson(items) : text);
        tellWhose(account.ref, listed.length);
        return 0;
      }
      if (sub === 'secret' && name && positionals.length === 3) {
        process.stdout.write(await storeAutomationSecret(account, stores, name));
        return 0;
      }
      if (sub === 'test' && name && positionals.length === 3) {
        const { text, run } = await runAutomationOnce(account, stores, name, values.order, log, 'test');
        process.stdout.write(values.json ? terminalJson(run) : text);
        return run.state === 'succeeded' ? 0 : 1;
      }
      if (sub === 'run-again' && name && positionals.length === 3) {
        const { text, run } = await runAutomationOnce(account, stores, name, values.order, log, 'again');
        process.stdout.write(values.json ? terminalJson(run) : text);
        return run.state === 'succeeded' ? 0 : 1;
      }
      if (sub === 'runs' && positionals.length === 2) {
        const runs = listRuns(account, stores, values.order);
        process.stdout.write(
          values.json ? terminalJson(runs) : runsTable(runs, process.stdout.isTTY === true),
        );
        tellWhose(account.ref, listed.length);
        return 0;
      }
      throw new UsageError(
        'automations takes list, runs [--order ID], test NAME --order ID, run-again NAME --order ID, or secret NAME',
      );
    }
    if (positionals[0] === 'statuses') {
      if (positionals[1] !== 'export' || positionals.length !== 2)
        throw new UsageError('statuses takes export [--since DATE] [--format csv|json] [--output FILE]');
      process.stdout.write(
        await exportStatuses(account, stores, {
          since: values.since,
          format: values.format ?? (values.json ? 'json' : undefined),
          output: values.output,
        }),
      );
      tellWhose(account.ref, listed.length);
      return 0;
    }
    const connection = clientOptions(account, log);
    if (positionals[0] === 'doctor' && positionals.length === 1) {
      const diagnosis = {
        ...(await diagnose(connection)),
        account: account.ref.label,
        lastSuccessfulPoll:
          AccountStore.lastSuccessfulPollIn(accountFolder(stores.dataRoot, account.ref.id)) ?? null,
      };
      const inForce = policyReport(policies);
      process.stdout.write(
        values.json
          ? terminalJson({
              ...diagnosis,
              // Every report names its account for a script, an unlabelled one as the CLI's lines name it.
              account: accountName(account.ref),
              policies: { inForce: policies.inForce, ...policyProblems(policies) },
            })
          : `${formatDiagnosis(diagnosis, APP_VERSION)}${inForce.length > 0 ? `\n${inForce.map(escapedControls).join('\n')}\n` : ''}`,
      );
      return diagnosis.steps.some((s) => s.outcome === 'failed') ? 1 : 0;
    }
    const client = new SellerApiClient(connection);
    tellRetries(client, account.ref, listed.length);
    const { result, ...unread } = await runCommand(client, positionals, {
      all: values.all ?? false,
      offset: integerOption(values.offset, 'offset', 0) ?? PAGE.defaultOffset,
      limit: integerOption(values.limit, 'limit', 1) ?? PAGE.defaultLimit,
      order: values.order === undefined ? undefined : canonicalOrderId(values.order),
      description: values.description,
      detail: values.detail,
      actor: () => markedBy(values.as, stores.settings.load().settings, policies),
      json: values.json,
      force: values.force,
    });
    const value =
      result.kind === 'ping'
        ? { ...result.value, credentials: result.credentials }
        : // A post answered with only its event's id prints that much.
          result.kind === 'mark' && result.value === undefined && result.eventId !== undefined
          ? { eventId: result.eventId }
          : result.value;
    // While several are listed, the account is named (an order's link, a mark's confirmation): an order id may be in two.
    const { ref } = account;
    process.stdout.write(
      values.json
        ? terminalJson(value)
        : formatItems(
            result,
            namedAmong(ref, listed.length) ? ref : undefined,
            process.stdout.isTTY === true,
          ),
    );
    if (values.json || !NAMES_ITS_ACCOUNT.has(result.kind)) tellWhose(account.ref, listed.length);
    tellUnread(unread);
    process.stderr.write(describeWindows(client.resultWindows));
    return result.kind === 'ping' && result.credentials.outcome === 'rejected' ? 1 : 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(usageError(error));
      return 2;
    }
    if (error instanceof WatchFailed) return 1;
    // Ctrl+C at a secret's prompt: as a shell reports an interrupted command.
    if (error instanceof SecretCancelled) {
      process.stderr.write(`seller-tray: ${error.message}\n`);
      return 130;
    }
    if (error instanceof Refusal) {
      process.stderr.write(describeProblem(error));
      if (error.code === 'no-such-order') process.stderr.write(elsewhere(account?.ref, listed));
      tellUnread(error.unread);
      if (values.json)
        process.stderr.write(terminalJson({ error: { code: error.code, message: error.message } }, 0));
      return 1;
    }
    if (error instanceof KeychainUnavailableError) {
      process.stderr.write(`seller-tray: ${error.message}\n`);
      return 1;
    }
    if (error instanceof SellerApiError) {
      process.stderr.write(
        `seller-tray: ${describeFailure(error, account?.ref, account?.surface ?? surface, listed.length)}\n`,
      );
      if (error.operation === 'getOrder' && error.status === 404)
        process.stderr.write(elsewhere(account?.ref, listed));
      if (values.json) process.stderr.write(terminalJson({ error: error.toJSON() }, 0));
      return 1;
    }
    // This computer's files (a read-only or full disk): in words first, as the app says it.
    if (isLocalFileFailure(error))
      process.stderr.write(
        `seller-tray: ${explainFailure(error, adviceFor(account?.surface ?? surface, account?.ref)).message}\n`,
      );
    // Such as a poll's last error in `watch --once`, which may quote the server.
    process.stderr.write(`seller-tray: ${escapedControls((error as Error).message)}\n`);
    return 1;
  }
}

/** The options, each command's and every command's. */
const OPTIONS = {
  'base-url': { type: 'string' },
  'client-id': { type: 'string' },
  account: { type: 'string' },
  id: { type: 'string' },
  json: { type: 'boolean' },
  all: { type: 'boolean' },
  offset: { type: 'string' },
  limit: { type: 'string' },
  order: { type: 'string' },
  description: { type: 'string' },
  detail: { type: 'string' },
  as: { type: 'string' },
  force: { type: 'boolean' },
  for: { type: 'string' },
  once: { type: 'boolean' },
  interval: { type: 'string' },
  'forward-to': { type: 'string' },
  exec: { type: 'boolean' },
  verbose: { type: 'boolean' },
  since: { type: 'string' },
  format: { type: 'string' },
  output: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parse(argv: string[]) {
  const parsed = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    tokens: true,
    options: OPTIONS,
  });
  // An option given twice with two values (an alias's --account, then the script's): which was
  // meant is not for the command to guess, as parseArgs would, taking the last. Nor one given empty.
  const given = new Map<string, string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option' || token.value === undefined) continue;
    // Empty (a script's unset "$URL"): taken as absent, another marketplace or account would be used.
    if (token.value === '')
      throw new UsageError(`--${token.name} was given empty: give it a value, or leave it out`);
    const first = given.get(token.name);
    if (first !== undefined && first !== token.value)
      throw new UsageError(`--${token.name} was given twice (${first}, then ${token.value}): give it once`);
    given.set(token.name, token.value);
  }
  return parsed;
}

/**
 * An order the account has not, while other accounts are listed: it may be one of theirs (an
 * operator of two gave the other's), each named by id as advice names accounts, its label as prose.
 */
function elsewhere(account: AccountRef | undefined, listed: readonly AccountRef[]): string {
  const others = listed.filter((other) => other.id !== account?.id);
  if (account?.label === undefined || others.length === 0) return '';
  const named = others.map((other) => `--id ${other.id} (${other.label})`).join(' or ');
  return `seller-tray: ${escapedControls(`Account ${account.label} has no such order; it may be another account's: add ${named}.`)}\n`;
}

/** Whether output or a failure must say whose it is: while several accounts are saved (each has a label). */
function namedAmong(
  account: AccountRef | undefined,
  saved: number,
): account is AccountRef & { label: string } {
  return account?.label !== undefined && saved > 1;
}

/** The account's label, as a terminal may show it, where it must be named; otherwise undefined. */
function labelAmong(account: AccountRef | undefined, saved: number): string | undefined {
  return namedAmong(account, saved) ? escapedControls(account.label) : undefined;
}

/** The account's marketplace, in a sentence: by the account's label while several are saved. */
function marketplaceOf(account: AccountRef | undefined, saved: number): string {
  const label = labelAmong(account, saved);
  return label === undefined ? 'the marketplace' : `the marketplace of account ${label}`;
}

/**
 * While several accounts are saved, output that does not say whose it is (a listing's rows, any
 * JSON) is named on stderr, apart from the rows a script reads: their columns stay as they are.
 */
function tellWhose(account: AccountRef, saved: number): void {
  const label = labelAmong(account, saved);
  if (label === undefined) return;
  process.stderr.write(
    `seller-tray: from account ${label}; ${saved} accounts are saved (--account LABEL reads another).\n`,
  );
}

/**
 * Each retry of a failure that may pass (the client's backoff, by design), told as it starts to
 * wait where stderr is a terminal: its person sees why the command has not ended yet. Elsewhere (a
 * script, cron) stderr stays empty when the command succeeds (docs/cli.md).
 */
function tellRetries(client: SellerApiClient, account: AccountRef, saved: number): void {
  if (!process.stderr.isTTY) return;
  client.onRetry((error, delayMs, next) =>
    process.stderr.write(
      `seller-tray: ${marketplaceOf(account, saved)}: ${escapedControls(error.summary)}; trying again in ${seconds(delayMs)}${next ? ` (try ${next.attempt} of at most ${next.of})` : ''}\n`,
    ),
  );
}

/** A wait in seconds, to a tenth. */
const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** What a command read but could not, on stderr (nothing when it read everything). */
function tellUnread(unread: Parameters<typeof describeUnread>[0]): void {
  if (unread.aside.length + unread.ofUnknownOrder.length > 0) process.stderr.write(describeUnread(unread));
}

function integerOption(raw: string | undefined, name: string, min: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min)
    throw new UsageError(`--${name} must be an integer of at least ${min}`);
  return Number(raw);
}

/**
 * What failed, the server's words (escaped), and the request id support needs. `account`: the
 * command's, whose advice names how it gets its current secret (advice.ts); `saved`: how many
 * accounts are, so a marketplace that failed is named by its account's label among several.
 */
function describeFailure(
  error: SellerApiError,
  account: AccountRef | undefined,
  surface: TerminalSurface,
  saved: number,
): string {
  // Whose marketplace failed, whatever the failure, while several accounts are saved.
  const label = labelAmong(account, saved);
  const lines = [`${label === undefined ? '' : `account ${label}: `}${escapedControls(error.message)}`];
  const advice = adviceFor(surface, account);
  const lasting = `if it lasts, ${advice.diagnose} and send the result to the marketplace`;
  const marketplace = capitalized(marketplaceOf(account, saved));
  // Told at once (the client tries it once here: clientOptions), what else may pass after its retries.
  if (error.connectionRefused)
    lines.push(
      `${marketplace} refused the connection: nothing answers at ${account?.baseUrl ?? 'its base URL'}, so it was not tried again. Check that the marketplace is up; otherwise, ${advice.checkBaseUrl}; ${lasting}.`,
    );
  else if (error.transient)
    lines.push(`${marketplace} did not answer as it should (said above): try again later; ${lasting}.`);
  if (error.credentialsRejected)
    lines.push(
      `the client id or secret was rejected: check them in the Seller Console, then ${advice.enterSecret}`,
    );
  // Refused again with a fresh token: a permission this client lacks, said as the app says it.
  if (error.permissionRefused) lines.push(escapedControls(explainFailure(error, advice).message));
  if (error.kind === 'tls')
    lines.push(
      "the certificate is not one this computer trusts: where your network inspects TLS, set NODE_EXTRA_CA_CERTS to your organization's CA certificate (a PEM file), or install it in the system's certificate store",
    );
  return lines.join('\n');
}

guardOutput();
process.exitCode = await main(process.argv.slice(2));
// A request the bounded close gave up on (watch stopped in the middle of a post) would keep the
// process alive until the server answers: the store is closed by now, so the process ends once
// what it printed is flushed.
for (const stream of [process.stdout, process.stderr]) await new Promise((done) => stream.write('', done));
// A failed write is told by an 'error' event after its callback.
await new Promise(setImmediate);
process.exitCode = outputFailure() ?? process.exitCode;
process.exit();
