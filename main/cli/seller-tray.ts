// `seller-tray`: the headless command line over the Seller API client, for ops scripts and
// black-box tests. Output is built whole before it is written: a failure leaves stdout empty.
import { parseArgs } from 'node:util';
import { escapedControls } from '../../preload/marketplace-text';
import { SellerApiClient } from '../core/api/client';
import { SellerApiError } from '../core/api/errors';
import { PAGE } from '../core/api/routes';
import { APP_VERSION } from '../core/app-identity';
import { diagnose, formatDiagnosis } from '../core/diagnosis';
import { lineLog, silentLog } from '../core/log';
import { KeychainUnavailableError } from '../core/secrets';
import { clientOptions, cliStores, markedBy, resolveAccount } from './account';
import { runCommand, UsageError } from './commands';
import { describeUnread, describeWindows, formatItems, terminalJson } from './format';
import { login, WatchFailed, watch } from './session';

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
                     posted as the app posts it: "Provisioning started by NAME.", your words
                     after it; NAME is --as, else the app's "Your name", else this computer's
                     account. Failed needs --description and --detail: what failed, and why
  login              reads the client secret from standard input into the system keychain,
                     and saves --base-url and --client-id for the app and later commands;
                     it ends the app's demo mode
  watch [--once] [--interval SECONDS]
                     polls like the app; prints one line (with --json one object) per new order;
                     the first run on a computer records the orders already there, unprinted
  doctor             tries each operation the app reads with and reports what answered, how
                     long it took, and where the marketplace differs from the spec (for support:
                     no secret or token in it); exit 1 when an operation failed

Options:
  --base-url URL     the Seller API (or SELLER_API_BASE_URL, or what login saved)
  --client-id ID     the API client id (or SELLER_CLIENT_ID, or what login saved); the secret
                     comes from SELLER_CLIENT_SECRET or the keychain, never from a flag
  --json             machine-readable JSON: the API's objects; for lists an array of all items fetched
  --all              every page of a list; otherwise one page (--offset, --limit)
  --offset N --limit N
  --order ID --description TEXT --detail TEXT --as NAME
  --verbose          what the app would log, on stderr: failed calls (operation, HTTP status,
                     request id), polls, deliveries, announcements; never a secret or token
  --help`;

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    process.stderr.write(`seller-tray: ${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  // Help needs no marketplace.
  if (values.help || (positionals[0] === 'help' && positionals.length === 1)) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // Only with --verbose: stderr otherwise carries the failure alone.
  const log = values.verbose ? lineLog((line) => process.stderr.write(`seller-tray: ${line}\n`)) : silentLog;
  try {
    const stores = cliStores();
    const account = resolveAccount({ baseUrl: values['base-url'], clientId: values['client-id'] }, stores);
    if (positionals[0] === 'login' && positionals.length === 1) {
      process.stdout.write(await login(account, stores, log));
      return 0;
    }
    if (positionals[0] === 'watch' && positionals.length === 1) {
      const intervalSeconds = integerOption(values.interval, 'interval', 30);
      await watch(account, stores, {
        once: values.once ?? false,
        intervalSeconds,
        json: values.json ?? false,
        log,
      });
      return 0;
    }
    const connection = clientOptions(account, log);
    if (positionals[0] === 'doctor' && positionals.length === 1) {
      const diagnosis = await diagnose(connection);
      process.stdout.write(values.json ? terminalJson(diagnosis) : formatDiagnosis(diagnosis, APP_VERSION));
      return diagnosis.steps.some((s) => s.outcome === 'failed') ? 1 : 0;
    }
    const client = new SellerApiClient(connection);
    const { result, ...unread } = await runCommand(client, positionals, {
      all: values.all ?? false,
      offset: integerOption(values.offset, 'offset', 0) ?? PAGE.defaultOffset,
      limit: integerOption(values.limit, 'limit', 1) ?? PAGE.defaultLimit,
      order: values.order,
      description: values.description,
      detail: values.detail,
      actor: () => markedBy(values.as, stores.settings.load().settings),
      json: values.json,
    });
    const value =
      result.kind === 'ping' ? { ...result.value, credentials: result.credentials } : result.value;
    process.stdout.write(values.json ? terminalJson(value) : formatItems(result));
    if (unread.aside.length + unread.ofUnknownOrder.length > 0) process.stderr.write(describeUnread(unread));
    process.stderr.write(describeWindows(client.resultWindows));
    return result.kind === 'ping' && result.credentials.outcome === 'rejected' ? 1 : 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`seller-tray: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof WatchFailed) return 1;
    if (error instanceof KeychainUnavailableError) {
      process.stderr.write(`seller-tray: ${error.message}\n`);
      return 1;
    }
    if (error instanceof SellerApiError) {
      process.stderr.write(`seller-tray: ${describeFailure(error)}\n`);
      if (values.json) process.stderr.write(terminalJson({ error: error.toJSON() }, 0));
      return 1;
    }
    // Such as a poll's last error in `watch --once`, which may quote the server.
    process.stderr.write(`seller-tray: ${escapedControls((error as Error).message)}\n`);
    return 1;
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      'base-url': { type: 'string' },
      'client-id': { type: 'string' },
      json: { type: 'boolean' },
      all: { type: 'boolean' },
      offset: { type: 'string' },
      limit: { type: 'string' },
      order: { type: 'string' },
      description: { type: 'string' },
      detail: { type: 'string' },
      as: { type: 'string' },
      once: { type: 'boolean' },
      interval: { type: 'string' },
      verbose: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

function integerOption(raw: string | undefined, name: string, min: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min)
    throw new UsageError(`--${name} must be an integer of at least ${min}`);
  return Number(raw);
}

/** What failed, the server's words (escaped), and the request id support needs. */
function describeFailure(error: SellerApiError): string {
  const lines = [escapedControls(error.message)];
  if (error.credentialsRejected)
    lines.push('the client id or secret was rejected: check them in the Seller Console');
  return lines.join('\n');
}

process.exitCode = await main(process.argv.slice(2));
