// The CLI's automations (issue 24): `run` (poll and run the settings' automations headless, the
// one place a team runs them), `listen` (ad hoc, like Stripe CLI: forward each new order to a URL
// or a command), and `automations list | test NAME --order ID | secret NAME`. Automations come
// from the settings file only; their secrets from the keychain (or, for `listen`, one made for
// the session).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  AUTOMATION_LIMITS,
  type AutomationRun,
  type AutomationSetting,
  automationAccounts,
  automationNamed,
  describeAutomation,
  runOutcome,
} from '../../preload/automations';
import { plural } from '../../preload/counted';
import { escapedControls } from '../../preload/marketplace-text';
import { canonicalOrderId } from '../../preload/order-link';
import {
  type AccountRef,
  accountFolder,
  accountRef,
  privateAccountFolder,
} from '../core/account/account-ref';
import { AccountSession } from '../core/account/session';
import { adviceFor, capitalized, secretCommand } from '../core/advice';
import { SellerApiClient } from '../core/api/client';
import { runsFor, webhookUrlProblem } from '../core/automation/automation-settings';
import { automationAccount, automationSecretEntry, heldAutomationSecrets } from '../core/automation/ports';
import type { Log } from '../core/log';
import { automationsForbidden } from '../core/policy/layers';
import { credentialName, KeychainUnavailableError } from '../core/secrets';
import { AccountStore, DATABASE_FILE } from '../core/store/account-store';
import { type Account, type CliStores, clientOptions, shadowedNote } from './account';
import { row, table } from './format';
import { orderIdArgument, resolveOrderId } from './order-id';
import { Refusal, UsageError } from './refusals';
import { readSecret } from './secret-input';
import { cliAutomationPorts, watch } from './session';

/** What `run` and `listen` run: the settings' automations, or the one `listen` makes up. */
export interface Headless {
  /** The automations to run; left out, the settings file's, followed while it changes (`run`). */
  automations?: AutomationSetting[];
  /** A secret for the session's own automation (`listen --forward-to`), instead of the keychain's. */
  secret?: string | undefined;
}

/**
 * `run`: polls like the app and runs the settings' automations until SIGTERM or Ctrl+C, for every
 * account `accounts` names (all listed, or the one chosen). The settings file is followed: an
 * automation or account added, changed or removed there (by hand or in the app's Settings)
 * applies without a restart. So none declared yet is said, not refused: a refusal would be a
 * restart loop under a service manager, and the first one added runs without a restart.
 */
export function runHeadless(
  accounts: () => Account[],
  stores: CliStores,
  options: { intervalSeconds?: number | undefined; json: boolean; log: Log },
) {
  // Said, not refused, as above: the organization may allow them again while run runs.
  const forbidden = automationsForbidden(stores.policies);
  if (forbidden)
    process.stderr.write(
      `seller-tray: ${forbidden}: run polls and prints new orders, and runs no automation\n`,
    );
  else if (stores.settings.load().settings.automations.length === 0) {
    process.stderr.write(
      'seller-tray: no automation is declared yet in the settings file; run polls and prints new orders meanwhile, and it follows the settings file: automations added there run from the next new order on (docs/automations.md)\n',
    );
  }
  return watch(accounts(), stores, { ...options, once: false, automations: {}, follow: accounts });
}

/** `listen --forward-to URL` or `listen --exec -- CMD ARGS…`: one made-up automation, for this session only. */
export function listen(
  account: Account,
  stores: CliStores,
  options: { forwardTo?: string | undefined; exec?: string[] | undefined; json: boolean; log: Log },
) {
  const base = {
    name: 'listen',
    enabled: true,
    products: [],
    orderTypes: [],
    accounts: 'all' as const,
    reportStatus: null,
  };
  // Its only work is an automation: told at once, not a session that silently runs nothing.
  const forbidden = automationsForbidden(stores.policies);
  if (forbidden) throw new Refusal('managed', `${forbidden}: listen runs nothing here`);
  let headless: Headless;
  if (options.forwardTo !== undefined && !options.exec?.length) {
    const problem = webhookUrlProblem(options.forwardTo);
    if (problem) throw new UsageError(`--forward-to ${problem}`);
    const secret = `whsec_${randomBytes(24).toString('base64url')}`;
    process.stderr.write(
      `seller-tray: forwarding new orders to ${options.forwardTo}, signed with this session's secret ${secret}\n`,
    );
    headless = { automations: [{ ...base, action: { type: 'webhook', url: options.forwardTo } }], secret };
  } else if (options.exec?.length && options.forwardTo === undefined) {
    headless = {
      automations: [
        {
          ...base,
          action: {
            type: 'command',
            command: options.exec,
            // Typed at a prompt: run where it was typed, so ./provision.sh is found as the shell finds it.
            cwd: process.cwd(),
            timeoutSeconds: AUTOMATION_LIMITS.timeoutSeconds.default,
          },
        },
      ],
    };
    process.stderr.write(
      `seller-tray: running ${options.exec.join(' ')} for each new order (the order's JSON on its standard input)\n`,
    );
  } else {
    throw new UsageError('listen needs either --forward-to URL or --exec -- COMMAND ARGUMENTS…');
  }
  return watch([account], stores, { ...options, once: false, automations: headless });
}

/**
 * `automations list`: each automation, what it does, for which orders, and whether its secret is
 * stored; as text, and as the declarations with their secret's state (for --json).
 */
export async function listAutomations(
  account: Account,
  stores: CliStores,
): Promise<{ text: string; items: (AutomationSetting & { secret: string })[] }> {
  const { automations, automationsEnabled } = stores.settings.load().settings;
  // Shown by their labels; the one served here under its own where the list does not have it.
  const known = [...listedAccounts(stores), account.ref].map((ref) => ({
    id: ref.id as string,
    label: automationAccount(ref).label,
  }));
  if (automations.length === 0)
    return { text: 'No automations are declared in the settings file (docs/automations.md).\n', items: [] };
  const forbidden = automationsForbidden(stores.policies);
  const lines = [
    forbidden
      ? `${capitalized(forbidden)}: neither the app nor seller-tray run runs them.\n`
      : `This computer's app ${automationsEnabled ? 'runs' : 'does not run'} them (Settings → Automations); seller-tray run always does.\n`,
    row(['NAME', 'ON', 'ACTION', 'FOR', 'ACCOUNTS', 'REPORTS', 'SECRET']),
  ];
  // Where this account's secrets could come from on a server: the credential each is read from.
  const credentials: string[] = [];
  const items: (AutomationSetting & { secret: string })[] = [];
  for (const a of automations) {
    const entry = automationSecretEntry(account.ref, a.name);
    const loaded = stores.credentials.shadowing(entry);
    const secret =
      a.action.type === 'command'
        ? '-'
        : await stores.secrets.get(entry).then(
            (value) => (value ? (loaded ? 'credential' : 'stored') : 'missing'),
            () => 'keychain unavailable',
          );
    if (
      a.action.type !== 'command' &&
      (stores.credentials.directory !== undefined || secret === 'keychain unavailable')
    )
      credentials.push(
        `${a.name}'s secret for ${automationAccount(account.ref).label}: credential ${credentialName(entry)} (${loaded ? 'loaded' : 'not loaded'})\n`,
      );
    items.push({ ...a, secret });
    const { action, orders } = describeAutomation(a);
    lines.push(
      row([
        a.name,
        a.enabled ? 'on' : 'off',
        action,
        orders,
        automationAccounts(a, known),
        a.reportStatus ?? 'no',
        secret,
      ]),
    );
  }
  return { text: [...lines, ...credentials].join(''), items };
}

/** `automations secret NAME`: its webhook's signing secret or chat address from stdin into the keychain. */
export async function storeAutomationSecret(
  account: Account,
  stores: CliStores,
  given: string,
): Promise<string> {
  const automation = named(stores, given);
  const { name } = automation;
  if (automation.action.type === 'command')
    throw new UsageError(`the automation ${name} runs a command: it has no secret`);
  const label = (ref: AccountRef) => automationAccount(ref).label;
  if (!runsFor(automation, account.ref.id))
    throw new UsageError(
      `the automation ${name} does not run for the account ${label(account.ref)}: its accounts are in seller-tray automations list`,
    );
  // The others it runs for, and what each holds; read before anything is asked or made, so a
  // keychain out of reach fails the command (saying so) rather than making a second secret.
  // Nothing given: the one they all hold, as the app sets one for all.
  const { held, shared } = await heldAutomationSecrets(
    stores.secrets,
    automation,
    listedAccounts(stores),
    new Set([account.ref.id]),
  ).catch((error: unknown) => {
    if (!(error instanceof KeychainUnavailableError)) throw error;
    throw new Error(
      `the keychain could not be read for the other accounts of ${name}, so nothing was stored or made (one made now could differ from theirs): ${error.advice} (Keychain error: ${error.reason})`,
    );
  });
  const kind = automation.action.type === 'webhook' ? 'signing secret' : 'incoming webhook address';
  // At a terminal: what it waits for (typed or pasted without echo, as a password is).
  const asIs = shared !== undefined ? 'to have the one its other accounts hold' : 'to have one made';
  let value = await readSecret(
    automation.action.type === 'webhook' || shared !== undefined
      ? `Paste the ${kind} and press Enter (it is not shown); or press Enter at once ${asIs}: `
      : `Paste the ${automation.action.type === 'slack' ? 'Slack' : 'Teams'} incoming webhook address and press Enter (it is not shown): `,
  );
  let told = '';
  if (value === '' && shared !== undefined) {
    value = shared;
    told = `It is the ${kind} its other accounts hold.\n`;
  } else if (automation.action.type === 'webhook') {
    // Like Stripe's: made here when none is given, shown once for the receiver's configuration.
    if (value === '') {
      value = `whsec_${randomBytes(24).toString('base64url')}`;
      told = `The signing secret, for your receiver (shown once): ${value}\n`;
    }
  } else {
    const problem = value === '' ? 'was not given on standard input' : webhookUrlProblem(value);
    if (problem) throw new UsageError(`the incoming webhook address ${problem}`);
  }
  const entry = automationSecretEntry(account.ref, name);
  await stores.secrets.set(entry, value);
  // Each account holds its own: the others this automation runs for that still have none are told
  // how to get this same one.
  const lacking = held
    .filter(({ secret }) => secret === undefined)
    .map(
      ({ ref }) =>
        `${label(ref)} has none yet: ${secretCommand(ref, name) ?? adviceFor(account.surface, ref).automationSecret(name)}\n`,
    );
  const one = held.every(({ secret }) => secret === undefined || secret === value);
  const same =
    lacking.length > 0 && one ? 'Its other accounts get this same one with nothing on standard input:\n' : '';
  return `${told}The ${kind} of ${name} is in the system keychain for the account ${label(account.ref)}.${shadowedNote(stores, entry)}\n${same}${lacking.join('')}`;
}

/**
 * `automations test NAME --order ID` (event order.test, never marks a status) and `automations
 * run-again NAME --order ID` (the order page's Run again): runs the automation once for the order
 * now under a new delivery id, whether this computer runs automations or not.
 */
export async function runAutomationOnce(
  account: Account,
  stores: CliStores,
  name: string,
  orderId: string | undefined,
  log: Log,
  trigger: 'again' | 'test',
): Promise<{ text: string; run: AutomationRun }> {
  if (!orderId)
    throw new UsageError(`automations ${trigger === 'test' ? 'test' : 'run-again'} needs --order ID`);
  const given = orderIdArgument(orderId);
  const saved = stores.settings.load().settings;
  const { name: declared } = named(stores, name);
  // A beginning of an id is looked up in the marketplace's listing, as every command takes it.
  const { orderId: order } = await resolveOrderId(
    new SellerApiClient(clientOptions(account, log)),
    given,
    new AbortController().signal,
  );
  const session = await AccountSession.open(account.ref, {
    dataRoot: stores.dataRoot,
    clientSecret: account.clientSecret,
    settings: () => saved,
    log,
    automations: cliAutomationPorts(account.ref, stores, () => saved.accounts.length > 1),
    surface: account.surface,
  });
  try {
    const run = await session.core.runAutomationToEnd(order, declared, trigger);
    return { text: describeRun(run), run };
  } finally {
    await session.close();
  }
}

/**
 * `automations runs [--order ID]`: from this computer's store (no marketplace call), the runs
 * waiting or failed, newest first, or every run of one order; a line each: automation, order,
 * state, attempts, next try, last result, delivery id.
 */
export function listRuns(account: Account, stores: CliStores, orderId: string | undefined): AutomationRun[] {
  const dataDir = accountFolder(stores.dataRoot, account.ref.id);
  // No store yet: nothing ran here (and a read creates none).
  if (!existsSync(join(dataDir, DATABASE_FILE))) return [];
  const { store } = AccountStore.open(privateAccountFolder(stores.dataRoot, account.ref.id));
  try {
    return orderId === undefined ? store.runsWaitingOrFailed() : store.runsFor(wholeOrderId(orderId));
  } finally {
    store.close();
  }
}

/** `automations runs`: a line each (escaped for the terminal), under a header at one (`table`). */
export function runsTable(runs: AutomationRun[], terminal: boolean): string {
  const cells = runs.map((run) => {
    const { code, detail } = runOutcome(run);
    return [
      run.automation,
      run.orderId,
      run.state,
      plural(run.attempts, 'attempt'),
      run.state === 'queued' ? run.dueAt : '-',
      [code, detail].filter(Boolean).join(': ') || '-',
      run.deliveryId,
    ];
  });
  return table(
    ['AUTOMATION', 'ORDER', 'STATE', 'ATTEMPTS', 'NEXT TRY', 'LAST RESULT', 'DELIVERY'],
    cells,
    terminal,
  );
}

/** An order's whole id (the store is read without the marketplace, which a beginning needs). */
function wholeOrderId(given: string): string {
  if (!orderIdArgument(given).whole)
    throw new UsageError('automations runs --order takes the whole order id (orders list shows it)');
  return canonicalOrderId(given);
}

/** A run for a terminal: its outcome, then its output (cleaned already; escaped for the terminal). */
export function describeRun(run: AutomationRun): string {
  const { code, detail } = runOutcome(run);
  const lines = [
    `${run.automation}: ${run.state}${code ? ` ${code}` : ''}${detail ? ` — ${detail}` : ''}`,
    `delivery ${run.deliveryId}, ${run.attempts > 0 ? `attempt ${run.attempts}` : 'not started'}`,
  ];
  if (run.output) lines.push('', ...run.output.split('\n'));
  return `${lines.map(escapedControls).join('\n')}\n`;
}

/** The accounts of the settings' list. */
function listedAccounts(stores: CliStores): AccountRef[] {
  const { accounts, demoMode } = stores.settings.load().settings;
  return accounts.map((entry, index) => accountRef({ ...entry, demo: demoMode && index === 0 }));
}

function named(stores: CliStores, name: string): AutomationSetting {
  const automation = automationNamed(stores.settings.load().settings.automations, name);
  if (!automation)
    throw new UsageError(
      `no automation is named ${name} in the settings file (seller-tray automations list)`,
    );
  return automation;
}
