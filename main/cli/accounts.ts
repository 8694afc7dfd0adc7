// `seller-tray accounts list|add|rename|pause|resume|remove`: the accounts this computer serves, as
// the app keeps them (the settings' list, each secret in the keychain under its own marketplace, each
// account's own pause beside the list), changed as the app changes them (core/account/account-list.ts).
// `add` reads the secret from standard input; adding a listed label again reconnects it; `pause`
// holds one account's notifications (the app's and `watch`'s) as its row in Settings does; `remove` refuses while the account has
// statuses to deliver, unless --force discards them; a running app is handed it over first
// (core/account/account-list.ts).

import { createInterface } from 'node:readline/promises';
import { plural } from '../../preload/counted';
import { escapedControls } from '../../preload/marketplace-text';
import { isUntilResumed, PAUSE_CHOICES, PAUSE_WORDS, pausedUntil } from '../../preload/pause';
import {
  AccountListError,
  addAccount,
  chosenForAdding,
  chosenForRemoval,
  findAccount,
  removeAccount,
  renameAccount,
  withAccountPause,
} from '../core/account/account-list';
import { accountRef, commandFor, keychainEntry } from '../core/account/account-ref';
import { type AccountChoice, interruptedRemovals, settleRemovals } from '../core/account/removal-notes';
import type { Log } from '../core/log';
import { credentialName, KeychainUnavailableError } from '../core/secrets';
import { accountChoice, type CliStores, cliConnection, shadowedNote } from './account';
import { localTime, row, table, terminalJson } from './format';
import { Refusal, UsageError } from './refusals';
import { readSecret } from './secret-input';
import { CLIENT_SECRET_PROMPT } from './session';

export interface AccountsOptions {
  /** `--account LABEL` or `--id ID`: the account, in place of the LABEL operand. */
  account?: string | undefined;
  id?: string | undefined;
  baseUrl?: string | undefined;
  clientId?: string | undefined;
  json: boolean;
  force: boolean;
  /** `accounts pause`'s --for: a pause choice's word (PAUSE_CHOICES); none: until resumed. */
  for?: string | undefined;
  log: Log;
  /** Whether stdout is a terminal: `list` then prints a header and lines its columns up (`table`). */
  terminal: boolean;
}

const USAGE = `accounts list | accounts add LABEL --base-url URL --client-id ID | accounts rename LABEL NEW | accounts pause LABEL [--for ${PAUSE_WORDS.join('|')}] | accounts resume LABEL | accounts remove LABEL (an account by its id: --id ID in place of LABEL)`;

/** Runs `accounts <list|add|rename|remove> …`; answers what to print. */
export async function accountsCommand(
  args: readonly string[],
  stores: CliStores,
  options: AccountsOptions,
): Promise<string> {
  const { action, rest, flagged, which, operands } = chosen(args, options);
  // Whatever a removal killed midway left is ended first (removal-notes.ts).
  settleRemovals(stores.dataRoot, stores.settings.load().settings.accounts, options.log);
  try {
    if (action === 'list' && rest.length === 0 && !flagged) return await list(stores, options);
    if (action === 'add' && which && operands.length === 0) return await add(which, stores, options);
    if (action === 'rename' && which && operands.length === 1)
      return rename(which, operands[0] ?? '', stores);
    if (action === 'remove' && which && operands.length === 0)
      return await remove(which, stores, options.force);
    if (action === 'pause' && which && operands.length === 0) return pause(which, stores, options.for);
    if (action === 'resume' && which && operands.length === 0 && options.for === undefined)
      return pause(which, stores, null);
  } catch (error) {
    if (!(error instanceof AccountListError)) throw error;
    if (error.code === 'invalid-input') throw new UsageError(error.message, `Usage: seller-tray ${USAGE}`);
    throw new Refusal(error.code, error.message);
  }
  throw new UsageError(USAGE);
}

/** An `accounts` command line: its action, and the account it names (`--account`/`--id`, else its first operand). */
function chosen(args: readonly string[], options: Pick<AccountsOptions, 'account' | 'id'>) {
  const [action, ...rest] = args;
  const flagged = options.id !== undefined || options.account !== undefined;
  const which: AccountChoice | undefined = flagged
    ? accountChoice(options)
    : rest[0] === undefined
      ? undefined
      : { label: rest[0] };
  return { action, rest, flagged, which, operands: flagged ? rest : rest.slice(1) };
}

/**
 * `accounts add` as advice prints it to run again (its secret refused): a saved account, or one
 * whose removal was noted, by its id; a new one as typed, its label quoted for a shell. None for
 * another command, or one `add` itself refuses (it says why).
 */
export function addAgain(
  args: readonly string[],
  stores: CliStores,
  options: Pick<AccountsOptions, 'account' | 'id' | 'baseUrl' | 'clientId'>,
): string | undefined {
  try {
    const { action, which } = chosen(args, options);
    if (action !== 'add' || !which) return undefined;
    const { known, noted } = chosenForAdding(stores.settings.load().settings, which, stores.dataRoot);
    const entry = known ?? noted?.entry;
    if (entry) return commandFor(accountRef(entry).id, 'accounts add');
    if (!('label' in which) || !options.baseUrl || !options.clientId) return undefined;
    return `seller-tray accounts add ${labelWord(which.label)} --base-url ${options.baseUrl} --client-id ${options.clientId}`;
  } catch (error) {
    if (error instanceof AccountListError || error instanceof UsageError) return undefined;
    throw error;
  }
}

/**
 * A label as a shell reads it back: as is where it is plain, else in single quotes (literal in a
 * POSIX shell and in PowerShell; one holding a quote, which they escape apart, is left for the
 * person to type: LABEL); one that begins with "-" is given to --account (docs/cli.md).
 */
function labelWord(label: string): string {
  const word = /^[\w.-]+$/.test(label)
    ? label
    : label.includes("'")
      ? 'LABEL'
      : `'${escapedControls(label)}'`;
  return label.startsWith('-') ? `--account=${word}` : word;
}

/** Where an account's secret comes from, as `accounts list` tells it. */
type SecretSource = 'demo' | 'credential' | 'keychain' | 'none' | 'keychain unavailable';

async function list(stores: CliStores, { json, terminal }: AccountsOptions): Promise<string> {
  const { accounts, demoMode, accountPauses } = stores.settings.load().settings;
  const now = Date.now();
  const rows = await Promise.all(
    accounts.map(async (entry, index) => {
      const demo = demoMode && index === 0;
      const ref = accountRef({ ...entry, demo });
      const owner = keychainEntry(ref);
      // The demo's secret is public and lives in the app; the others' in a credential or the keychain.
      const source: SecretSource = demo
        ? 'demo'
        : await stores.secrets.get(owner).then(
            (secret) =>
              secret === undefined ? 'none' : stores.credentials.shadowing(owner) ? 'credential' : 'keychain',
            (error: unknown) => {
              // A server without an unlocked keyring still lists its accounts, and the credentials to load.
              if (error instanceof KeychainUnavailableError) return 'keychain unavailable';
              throw error;
            },
          );
      return {
        ...entry,
        id: ref.id,
        secretStored: source === 'demo' || source === 'credential' || source === 'keychain',
        // The systemd credential a service loads for it (docs/automations.md).
        ...(demo ? {} : { credential: credentialName(owner) }),
        window: index === 0,
        // Its own pause while it is ahead (accounts pause); the app's pause is not the account's.
        notificationsPausedUntil: pausedUntil(accountPauses[ref.id] ?? null, now)?.toISOString() ?? null,
        source,
      };
    }),
  );
  const interrupted = interruptedRemovals(stores.dataRoot, accounts).map(({ entry }) => entry);
  if (json)
    return terminalJson([
      ...rows.map(({ source, ...row }) => row),
      ...interrupted.map((entry) => ({ ...entry, removalInterrupted: true })),
    ]);
  if (rows.length === 0 && interrupted.length === 0)
    return 'No account is saved yet: seller-tray accounts add LABEL adds one.\n';
  const listed = rows.map((r) => [
    r.label,
    r.id,
    r.baseUrl,
    r.clientId,
    secretColumn(r.source, r.credential, stores),
    r.window ? "the window's" : '',
    ...(r.notificationsPausedUntil ? [pausedCell(r.notificationsPausedUntil)] : []),
  ]);
  // A removal killed midway: the account's data or secret may be left; either command ends that.
  const unfinished = interrupted.map((entry) => {
    const { id } = accountRef(entry);
    return {
      cells: [entry.label, id, entry.baseUrl, entry.clientId, 'removal interrupted'],
      advice: `  ${commandFor(id, 'accounts remove')} finishes it; ${commandFor(id, 'accounts add')} brings it back with what is left of its data`,
    };
  });
  // A pipe reads each interrupted removal's advice under its row; a terminal, under the lined-up list.
  if (!terminal)
    return [...listed.map(row), ...unfinished.map(({ cells, advice }) => row(cells) + row([advice]))].join(
      '',
    );
  const header = ['LABEL', 'ID', 'BASE URL', 'CLIENT ID', 'SECRET', 'WINDOW'];
  if (rows.some((r) => r.notificationsPausedUntil)) header.push('NOTIFICATIONS');
  const lines = table(header, [...listed, ...unfinished.map(({ cells }) => cells)], true);
  return lines + unfinished.map(({ advice }) => row([advice])).join('');
}

/** The list's last column (NOTIFICATIONS at a terminal) while an account's own pause holds. */
function pausedCell(until: string): string {
  const end = new Date(until);
  return `paused until ${isUntilResumed(end) ? 'resumed' : localTime(end)}`;
}

/** The list's secret column: the credential named where one is read, or could be. */
function secretColumn(source: SecretSource, credential: string | undefined, stores: CliStores): string {
  if (source === 'credential') return `secret from credential ${credential}`;
  const unloaded = ` (credential ${credential} not loaded)`;
  if (source === 'keychain unavailable') return `keychain unavailable${unloaded}`;
  const said = source === 'none' ? 'no secret stored' : 'secret stored';
  return source !== 'demo' && stores.credentials.directory !== undefined ? `${said}${unloaded}` : said;
}

async function add(which: AccountChoice, stores: CliStores, options: AccountsOptions): Promise<string> {
  // The address is checked before the secret is read: a mistyped command asks for nothing.
  const { known, noted } = chosenForAdding(stores.settings.load().settings, which, stores.dataRoot);
  if (!known && !noted && (!options.baseUrl || !options.clientId))
    throw new UsageError('accounts add needs --base-url and --client-id');
  const secret = await readSecret(CLIENT_SECRET_PROMPT);
  if (!secret)
    throw new UsageError('accounts add reads the client secret from standard input, and it was empty');
  // The list as it is once the secret is typed (and a removal under way has ended), not before.
  const added = await addAccount(
    { which, baseUrl: options.baseUrl, clientId: options.clientId, secret },
    { ...stores, settings: () => stores.settings.load().settings, log: options.log, ...cliConnection() },
  );
  if (!added.reconnected) stores.settings.save(added.settings);
  const { entry, sellerId } = added;
  const seller = sellerId === null ? '' : ` of seller ${sellerId}`;
  return `${added.reconnected ? 'Reconnected' : 'Added'} account ${escapedControls(entry.label)}: client ${entry.clientId}${seller} at ${entry.baseUrl}; the secret is in the system keychain.${shadowedNote(stores, keychainEntry(accountRef(entry)))}\n`;
}

function rename(which: AccountChoice, to: string, stores: CliStores): string {
  const { settings } = stores.settings.load();
  const from = findAccount(settings, which).label;
  stores.settings.save(renameAccount(settings, which, to, stores.dataRoot));
  return `Renamed account ${escapedControls(from)} to ${escapedControls(to.trim())}.\n`;
}

/**
 * `accounts pause` (`word`: its --for, undefined until resumed) and `accounts resume` (null): that
 * account's notifications alone held, as its row in the app's Settings holds them; a running app
 * follows the file. Its polls, marks and deliveries go on.
 */
function pause(which: AccountChoice, stores: CliStores, word: string | undefined | null): string {
  const choice = word === null ? null : PAUSE_CHOICES.find((c) => c.word === word);
  if (choice === undefined)
    throw new UsageError(
      `--for must be one of ${PAUSE_WORDS.join(', ')}, or left out to pause until resumed`,
    );
  const { settings } = stores.settings.load();
  const entry = findAccount(settings, which);
  // Keyed as the app serves it: the demo (first, in demo mode) by the demo's own id.
  const { id } = accountRef({ ...entry, demo: settings.demoMode && settings.accounts[0] === entry });
  const until = choice === null ? null : choice.until(new Date()).toISOString();
  stores.settings.save(withAccountPause(settings, id, until));
  const label = escapedControls(entry.label);
  if (until === null) return `Resumed notifications of account ${label}.\n`;
  const end = isUntilResumed(new Date(until))
    ? `until you resume them (${commandFor(id, 'accounts resume')})`
    : `until ${localTime(new Date(until))}`;
  return `Paused notifications of account ${label} ${end}; its orders are still read, and the other accounts' notifications go on.\n`;
}

/**
 * A step that cannot be undone, asked about at a terminal as the app's Settings asks (the answer
 * read as typed, no by default); a script (its standard input not a terminal) is not asked.
 */
async function confirmedAtTerminal(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return true;
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
  } finally {
    prompt.close();
  }
}

async function remove(which: AccountChoice, stores: CliStores, force: boolean): Promise<string> {
  const { settings } = stores.settings.load();
  // Named now: a refused removal drops the note by which an unlisted account is found.
  const { entry } = chosenForRemoval(settings, which, stores.dataRoot);
  const { id } = accountRef(entry);
  const shown = escapedControls(entry.label);
  const asked = `Remove account ${shown}? Its secret leaves the keychain and its data leaves this computer; the marketplace keeps everything.`;
  if (!(await confirmedAtTerminal(asked))) return `Kept account ${shown}: nothing was removed.\n`;
  // The list is saved by the removal itself, as the file is at each step (the app may write it meanwhile).
  const removed = await removeAccount(which, force, {
    ...stores,
    settings: () => stores.settings.load().settings,
    updateSettings: (change) => {
      const changed = change(stores.settings.load().settings);
      stores.settings.save(changed);
      return changed;
    },
  }).catch((error: unknown) => {
    if (!(error instanceof AccountListError && error.code === 'undelivered-statuses')) throw error;
    // Put back (or never taken off): the account is listed, so a watch of it by id delivers them.
    throw new Refusal(
      'undelivered-statuses',
      `${error.message}: run ${commandFor(id, 'watch --once')} until they are, or remove it with --force to discard them`,
      error.details,
    );
  });
  const discarded =
    removed.discarded > 0
      ? `; ${plural(removed.discarded, 'undelivered status', 'undelivered statuses')} ${removed.discarded === 1 ? 'was' : 'were'} discarded`
      : '';
  const label = escapedControls(removed.entry.label);
  // Two removals take turns: the one that waited finds the account already gone.
  return removed.byAnother
    ? `Account ${label} was removed meanwhile by another Seller Tray process (the app or another command): its secret left the keychain and its data on this computer is deleted.\n`
    : `Removed account ${label}: its secret left the keychain and its data on this computer is deleted${discarded}.\n`;
}
