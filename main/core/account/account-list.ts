// The settings' list of accounts changed the same way by the app (the bridge) and the CLI
// (`accounts add|remove|rename`): adding checks the secret with a token request before anything
// is saved, so a typo never is; a listed label added again reconnects it (its new secret checked,
// then stored); removing deletes the keychain entry and the data folder, and refuses while the
// account has marked statuses not yet delivered unless they are to be discarded. A command names
// an account by its label or by its id (`AccountChoice`); advice names it by id (`commandFor`).

import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CodedError } from '../../../preload/coded-error';
import { plural } from '../../../preload/counted';
import type { AccountEntry } from '../../../preload/settings-declaration';
import { SellerApiClient } from '../api/client';
import type { RetryPolicy } from '../api/retry';
import { addressShown, checkBaseUrl, type Transport } from '../api/transport';
import { forgetAutomationSecrets, shareAutomationSecrets } from '../automation/ports';
import type { Log } from '../log';
import type { SecretStore } from '../secrets';
import { accountLabelProblem, checkAccounts, DEFAULT_SETTINGS, labelKey, type Settings } from '../settings';
import { DATABASE_FILE } from '../store/account-store';
import { openElsewhere } from '../store/database';
import {
  type AccountId,
  type AccountRef,
  accountFolder,
  accountLog,
  accountRef,
  clientOptionsFor,
  commandFor,
  keychainEntry,
} from './account-ref';
import {
  type AccountChoice,
  dropRemovalNote,
  interruptedRemoval,
  isChosen,
  type RemovalNote,
  removalNoted,
  removalTrash,
  takeRemovalLock,
  writeRemovalNote,
} from './removal-notes';
import { AccountSession } from './session';

/**
 * Why a change of the list was not made; the message says what to do instead. `invalid-input`:
 * the request itself is wrong; `undelivered-statuses`: the account still has statuses to send;
 * `in-use`: another process (the app, `seller-tray run`) has its store open; `being-removed`:
 * another removal held this one up past its wait; `lock-unusable`: the file removals take turns on
 * cannot be used; `removal-unfinished`: a removal failed past the point where it is undone, and is
 * to be run again.
 */
export class AccountListError extends CodedError<
  | 'invalid-input'
  | 'undelivered-statuses'
  | 'in-use'
  | 'being-removed'
  | 'lock-unusable'
  | 'removal-unfinished'
> {}

export interface AccountListPorts {
  secrets: SecretStore;
  dataRoot: string;
  transport?: Transport | undefined;
  /** How the client checking a secret retries (the CLI's tries a refused connection once). */
  retry?: Partial<RetryPolicy> | undefined;
  log?: Log | undefined;
}

export interface AddPorts extends AccountListPorts {
  /** The settings as they are now: read again once another removal under way has ended. */
  settings: () => Settings;
}

export interface RemovalPorts extends AddPorts {
  /**
   * Changes and saves the settings as they are now, at each step of a removal: so the list never
   * shows an account whose data is gone, and (the CLI's) an app that watches the file closes its
   * store of it.
   */
  updateSettings: (change: (current: Settings) => Settings) => Settings;
  /** How long a removal waits for another process to close the account's store; HAND_OVER_MS by default. */
  handOverMs?: number | undefined;
  /** How long it waits for another removal under way to end; REMOVAL_WAIT_MS by default. */
  removalWaitMs?: number | undefined;
}

/** How long a removal waits for the app to close the account's store once it left the settings file. */
const HAND_OVER_MS = 10_000;

/** How long a removal waits for another one under way: longer than one takes, its hand-over included. */
const REMOVAL_WAIT_MS = HAND_OVER_MS + 20_000;

/** The listed account chosen, or a refusal naming the labels there are. */
export function findAccount(settings: Settings, which: AccountChoice): AccountEntry {
  const entry = listed(settings, which);
  if (entry) return entry;
  // Answered in the terms asked: an id is told the ids there are (with their labels).
  const known = settings.accounts.map((a) => ('id' in which ? `${accountRef(a).id} (${a.label})` : a.label));
  const none =
    'id' in which ? `there is no account of id ${which.id}` : `there is no account labelled "${which.label}"`;
  throw new AccountListError(
    'invalid-input',
    known.length === 0 ? `${none}: none is saved yet` : `${none}: the accounts are ${known.join(', ')}`,
  );
}

const listed = (settings: Settings, which: AccountChoice): AccountEntry | undefined =>
  settings.accounts.find((a) => isChosen(a, listedId(settings, a), which));

/** A listed account's id, the demo's included (as `accounts list` shows it). */
const listedId = (settings: Settings, entry: AccountEntry): AccountId =>
  accountRef({ ...entry, demo: isDemo(settings, entry) }).id;

/** The first account while the app is in demo mode is the demo's: the app alone starts and leaves it. */
const isDemo = (settings: Settings, entry: AccountEntry): boolean =>
  settings.demoMode && entry === settings.accounts[0];

export interface Added {
  settings: Settings;
  entry: AccountEntry;
  sellerId: number | null;
  reconnected: boolean;
}

interface AddInput {
  which: AccountChoice;
  baseUrl?: string | undefined;
  clientId?: string | undefined;
  secret: string;
}

/**
 * Adds an account at the end of the list, or reconnects the listed one chosen (its address may be
 * left out). Answers the settings to save; the secret is stored already. By id, only a listed
 * account or one whose removal was interrupted (an id is not chosen, it follows from the address).
 * Adding an account with a removal noted (the one chosen, or the client's under any label) waits
 * for the removals' turn (takeRemovalLock), then reads the list again: a removal of it under way
 * would otherwise go on to delete the secret and the folder just brought back.
 */
export async function addAccount(input: AddInput, ports: AddPorts): Promise<Added> {
  const { which, baseUrl, clientId } = input;
  const { noted } = chosenForAdding(ports.settings(), which, ports.dataRoot);
  const clientNoted =
    baseUrl && clientId && removalNoted(ports.dataRoot, accountRef({ baseUrl, clientId }).id);
  if (!noted && !clientNoted) return addNow(ports.settings(), input, ports);
  const what = noted
    ? `${noted.entry.label} was not brought back`
    : `${'label' in which ? which.label : which.id} was not added`;
  const release = await removalTurn(ports.dataRoot, REMOVAL_WAIT_MS, what);
  try {
    return await addNow(ports.settings(), input, ports);
  } finally {
    release();
  }
}

async function addNow(settings: Settings, input: AddInput, ports: AccountListPorts): Promise<Added> {
  const { which } = input;
  const { known, noted } = chosenForAdding(settings, which, ports.dataRoot);
  const label = 'label' in which ? which.label : (known?.label ?? noted?.entry.label ?? '');
  const baseUrl = input.baseUrl ?? known?.baseUrl ?? noted?.entry.baseUrl;
  // As the list keeps it (trimmed), so the same client typed with spaces is found listed.
  const clientId = (input.clientId ?? known?.clientId ?? noted?.entry.clientId)?.trim();
  if (!baseUrl || !clientId)
    throw new AccountListError('invalid-input', 'a new account needs a base URL and a client id');
  if (known && accountRef(known).id !== accountRef({ baseUrl, clientId }).id)
    throw new AccountListError(
      'invalid-input',
      `${known.label} is already the account of client ${known.clientId} at ${known.baseUrl}: choose another label, or remove it first`,
    );
  if (known && isDemo(settings, known))
    throw new AccountListError('invalid-input', `${known.label} is the demo, whose secret is its own`);
  const returning = noted && accountRef(noted.entry).id === accountRef({ baseUrl, clientId }).id;
  if (noted && !returning) throw labelOfInterruptedRemoval(noted.entry);
  if (!known) refuseLabel(settings, label);
  const address = checkBaseUrl(baseUrl);
  if (!address.ok) {
    // Its scheme and host only: an address refused for carrying credentials is not repeated whole.
    const shown = addressShown(baseUrl);
    throw new AccountListError(
      'invalid-input',
      `the base URL ${shown === '?' ? '' : `${shown} `}is not usable: ${address.problem}`,
    );
  }
  const twin = settings.accounts.find((a) => accountRef(a).id === accountRef({ baseUrl, clientId }).id);
  if (!known && twin)
    throw new AccountListError(
      'invalid-input',
      `client ${twin.clientId} at ${twin.baseUrl} is listed already, as ${twin.label}: reconnect or relabel that account instead`,
    );
  const added = returning ? { ...noted.entry, label } : { label, baseUrl, clientId };
  const at = returning ? Math.min(noted.at, settings.accounts.length) : settings.accounts.length;
  const accounts = known ? settings.accounts : checkedList(settings.accounts.toSpliced(at, 0, added));
  const entry = known ?? accounts[at];
  if (!entry) throw new AccountListError('invalid-input', 'a new account needs a label');
  if (!input.secret) throw new AccountListError('invalid-input', 'the client secret is empty');
  const ref = accountRef(entry, settings.api);
  const client = new SellerApiClient(
    clientOptionsFor(ref, async () => input.secret, {
      transport: ports.transport,
      retry: ports.retry,
      log: ports.log && accountLog(ports.log, ref),
    }),
  );
  const { sellerId } = await client.authenticate();
  await ports.secrets.set(keychainEntry(ref), input.secret);
  const refs = accounts.map((account) => accountRef(account, settings.api));
  await shareAutomationSecrets(ports.secrets, settings.automations ?? [], refs, [ref], ports.log);
  dropRemovalNote(ports.dataRoot, ref.id, ports.log);
  return { settings: { ...settings, accounts }, entry, sellerId, reconnected: known !== undefined };
}

/**
 * The account `accounts add` chose: a listed one (reconnected), else one whose removal was
 * interrupted (it comes back where it was, with its address and routes), else none (a new one).
 * An id names an account there is: else the refusal names the ids there are.
 */
export function chosenForAdding(
  settings: Settings,
  which: AccountChoice,
  dataRoot: string,
): { known?: AccountEntry | undefined; noted?: RemovalNote | undefined } {
  const { entry: known, noted } = listedOrNoted(settings, which, dataRoot);
  if ('id' in which && !known && !noted) findAccount(settings, which);
  return { known, noted };
}

/**
 * The settings with one account's own pause (by its id, as the app serves it) ending at `until`
 * (ISO time), or ended (null): the window's, the CLI's and a removal's one way to change it.
 */
export function withAccountPause(settings: Settings, id: string, until: string | null): Settings {
  const { [id]: _ended, ...others } = settings.accountPauses;
  return { ...settings, accountPauses: until === null ? others : { ...others, [id]: until } };
}

/** Gives a listed account another label (not one an interrupted removal still goes by). */
export function renameAccount(
  settings: Settings,
  which: AccountChoice,
  to: string,
  dataRoot: string,
): Settings {
  const entry = findAccount(settings, which);
  const noted = interruptedRemoval(dataRoot, settings.accounts, { label: to });
  if (noted) throw labelOfInterruptedRemoval(noted.entry);
  refuseLabel(settings, to, entry);
  return {
    ...settings,
    accounts: checkedList(settings.accounts.map((a) => (a === entry ? { ...a, label: to } : a))),
  };
}

/**
 * Refuses a label, for the one who typed it, that cannot be used or is another account's (`self`,
 * renamed, may keep its own in another case). The list's own check (checkedList) stays the rule.
 */
function refuseLabel(settings: Settings, typed: string, self?: AccountEntry): void {
  const label = typed.trim();
  const problem = accountLabelProblem(label);
  if (problem) throw new AccountListError('invalid-input', problem);
  const other = settings.accounts.find((a) => a !== self && labelKey(a.label) === labelKey(label));
  if (other)
    throw new AccountListError(
      'invalid-input',
      `"${label}" is the label of ${other.label} already: choose another`,
    );
}

/**
 * A label still taken by an interrupted removal: given to another account, `accounts remove` or
 * `add` of that label would act on the new account, not finish or bring back the removed one.
 */
function labelOfInterruptedRemoval(entry: AccountEntry): AccountListError {
  const { id } = accountRef(entry);
  return new AccountListError(
    'invalid-input',
    `${entry.label} is the label of an account whose removal was interrupted (client ${entry.clientId} at ${entry.baseUrl}): run ${commandFor(id, 'accounts remove')} to finish it, or ${commandFor(id, 'accounts add')} to bring that account back, or choose another label`,
  );
}

/** A removal done: the list was saved without the account along the way (`updateSettings`). */
export interface Removed {
  entry: AccountEntry;
  /** Marked statuses not yet delivered that went with it. */
  discarded: number;
  /** Another removal (the app's, another command's) removed it while this one waited its turn. */
  byAnother: boolean;
}

/**
 * Removes a listed account: its data folder, its keychain entry and its automations' go. While it
 * has statuses not yet delivered it is refused, unless `discardUndelivered`. This process's
 * session of it must be closed first. Another process that has its store open (the app, for
 * the CLI) is handed it over first: the file is saved without it and its folder goes
 * once that process closed its store (deleted under it, its next write would bring the folder
 * back and what it marked meanwhile would be lost). Still open after the hand-over (`seller-tray
 * run` does not follow the file), or any step failing before its folder is moved aside, the
 * account is put back where it was, as it was, and the removal refused. Once its folder is moved
 * aside (its statuses counted) the removal is never undone: a later step failing keeps its note
 * and says to run it again. A removal noted and killed midway (removal-notes.ts) is finished by
 * the next removal of that account. Removals take turns (takeRemovalLock): one that waited for
 * another finds the account as that one left it (gone, put back, or still to finish).
 * `interruptedOnly` (finishing a removal noted earlier): an account listed again by its turn
 * (brought back meanwhile) is left alone.
 */
export async function removeAccount(
  which: AccountChoice,
  discardUndelivered: boolean,
  ports: RemovalPorts,
  { interruptedOnly = false } = {},
): Promise<Removed> {
  // Named by its id before waiting: a label given to another account meanwhile is not the one asked.
  const before = ports.settings();
  const chosen = chosenForRemoval(before, which, ports.dataRoot).entry;
  if (isDemo(before, chosen))
    throw new AccountListError('invalid-input', `${chosen.label} is the demo: leave the demo instead`);
  const waitMs = ports.removalWaitMs ?? REMOVAL_WAIT_MS;
  const release = await removalTurn(ports.dataRoot, waitMs, `${chosen.label} was not removed`);
  try {
    const settings = ports.settings();
    const { entry, noted } = foundForRemoval(settings, { id: accountRef(chosen).id }, ports.dataRoot);
    if (!entry || (interruptedOnly && !noted)) return { entry: chosen, discarded: 0, byAnother: true };
    return await removeNow(settings, entry, noted, discardUndelivered, ports);
  } finally {
    release();
  }
}

/**
 * The removals' turn (takeRemovalLock), else why `what` was not done: another removal held it past
 * `waitMs`, or its lock file cannot be used.
 */
async function removalTurn(dataRoot: string, waitMs: number, what: string): Promise<() => void> {
  const release = await takeRemovalLock(dataRoot, waitMs).catch((error: unknown) => {
    throw Object.assign(new AccountListError('lock-unusable', `${what}: ${(error as Error).message}`), {
      cause: error,
    });
  });
  if (release) return release;
  throw new AccountListError(
    'being-removed',
    `${what}: another removal under way on this computer did not end within ${Math.round(waitMs / 1000)} s; try again in a moment`,
  );
}

/** removeAccount's steps, its turn taken. */
async function removeNow(
  settings: Settings,
  entry: AccountEntry,
  noted: RemovalNote | undefined,
  discardUndelivered: boolean,
  ports: RemovalPorts,
): Promise<Removed> {
  const { updateSettings, dataRoot } = ports;
  const ref = accountRef(entry);
  const folder = accountFolder(dataRoot, ref.id);
  const others = (list: readonly AccountEntry[]) => list.filter((a) => accountRef(a).id !== ref.id);
  const refuseUndelivered = async () => {
    const pending = existsSync(folder) ? await undelivered(ref, dataRoot) : [];
    if (pending.length > 0 && !discardUndelivered)
      throw new AccountListError(
        'undelivered-statuses',
        `${entry.label} has ${plural(pending.length, 'marked status', 'marked statuses')} not yet delivered to its marketplace`,
        { details: pending },
      );
    return pending.length;
  };
  const automations = [
    ...new Set([...(settings.automations ?? []).map((a) => a.name), ...(noted?.automations ?? [])]),
  ];
  // Finishing, the count is made after the hand-over alone: a refusal then puts the account back.
  let pending = noted ? 0 : await refuseUndelivered();
  const at = noted?.at ?? settings.accounts.indexOf(entry);
  writeRemovalNote(dataRoot, { entry, at, automations });
  // Its pause goes with it (put back, it announces again): added again later, it is not found paused.
  updateSettings((current) => ({
    ...withAccountPause(current, ref.id, null),
    accounts: others(current.accounts),
  }));
  try {
    if (await stillOpenElsewhere(join(folder, DATABASE_FILE), ports.handOverMs ?? HAND_OVER_MS))
      throw new AccountListError(
        'in-use',
        `${entry.label} is still open in another Seller Tray process (seller-tray run or watch, or an app that did not let it go): stop it and remove the account again`,
      );
    // What that process marked before it closed counts too.
    pending = await refuseUndelivered();
    await moveAside(folder, removalTrash(dataRoot, ref.id));
  } catch (error) {
    // Nothing is deleted yet: the account goes back as it was. A kill between these two steps
    // leaves it listed with its note, which settleRemovals drops. A list that cannot take it back
    // (its label given to another account meanwhile) leaves it an interrupted removal, its note
    // kept, and the reason it was refused is what is told.
    try {
      updateSettings((current) => {
        const accounts = others(current.accounts);
        accounts.splice(Math.min(at, accounts.length), 0, entry);
        return { ...current, accounts };
      });
    } catch (putBack) {
      ports.log?.warn('a refused removal could not put its account back', {
        reason: (putBack as Error).message,
      });
      throw error;
    }
    dropRemovalNote(dataRoot, ref.id, ports.log);
    throw error;
  }
  try {
    await deleteAccountData(ref, automations, ports);
  } catch (error) {
    // Its data is gone: put back, it would be an account with an empty store. Its note stays, so
    // the list and the app say the removal is unfinished, and running it again finishes it. The
    // cause is kept for words of the app's own (it ships without the CLI).
    throw Object.assign(
      new AccountListError(
        'removal-unfinished',
        `the removal of ${entry.label} did not finish: ${(error as Error).message}; Seller Tray finishes it when it next starts, as ${commandFor(ref.id, 'accounts remove')} does now`,
      ),
      { cause: error },
    );
  }
  dropRemovalNote(dataRoot, ref.id, ports.log);
  return { entry, discarded: pending, byAnother: false };
}

/** The listed account chosen, else the one whose removal was interrupted (no longer listed). */
export function chosenForRemoval(
  settings: Settings,
  which: AccountChoice,
  dataRoot: string,
): { entry: AccountEntry; noted?: RemovalNote | undefined } {
  const { entry, noted } = foundForRemoval(settings, which, dataRoot);
  return { entry: entry ?? findAccount(settings, which), noted };
}

function foundForRemoval(
  settings: Settings,
  which: AccountChoice,
  dataRoot: string,
): { entry?: AccountEntry | undefined; noted?: RemovalNote | undefined } {
  const { entry, noted } = listedOrNoted(settings, which, dataRoot);
  return { entry: entry ?? noted?.entry, noted };
}

/** The listed account chosen, or else the note of its interrupted removal (no longer listed). */
function listedOrNoted(
  settings: Settings,
  which: AccountChoice,
  dataRoot: string,
): { entry?: AccountEntry | undefined; noted?: RemovalNote | undefined } {
  const entry = listed(settings, which);
  return { entry, noted: entry ? undefined : interruptedRemoval(dataRoot, settings.accounts, which) };
}

/**
 * The account's folder out of its way in one step (what can fail on a file still open), so a
 * kill while it is deleted never leaves half a store where the account would open it again.
 */
async function moveAside(folder: string, trash: string): Promise<void> {
  await rm(trash, { recursive: true, force: true });
  if (!existsSync(folder)) return;
  await mkdir(dirname(trash), { recursive: true, mode: 0o700 });
  await rename(folder, trash);
}

/**
 * Its folder moved aside, then its secret and its automations' (removal-notes.ts). The secret is
 * kept while another listed account uses it: the same client at the same marketplace under
 * another API path is another account (id) with the same keychain entry (origin and client).
 */
async function deleteAccountData(
  ref: AccountRef,
  automations: readonly string[],
  ports: AddPorts,
): Promise<void> {
  await rm(removalTrash(ports.dataRoot, ref.id), { recursive: true, force: true });
  const owner = keychainEntry(ref);
  const shared = ports.settings().accounts.some((a) => {
    const other = accountRef(a);
    const { origin, clientId } = keychainEntry(other);
    return other.id !== ref.id && origin === owner.origin && clientId === owner.clientId;
  });
  if (!shared) await ports.secrets.delete(owner);
  await forgetAutomationSecrets(
    ports.secrets,
    automations.map((name) => ({ name })),
    ref,
    ports.log,
  );
}

/** Waits until no other process has the store open, at most `withinMs`; whether one still has. */
async function stillOpenElsewhere(database: string, withinMs: number): Promise<boolean> {
  const end = Date.now() + withinMs;
  for (;;) {
    const open = existsSync(database) && openElsewhere(database);
    if (!open || Date.now() >= end) return open;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The list as the settings check it (each account and label once), or a refusal in their words. */
function checkedList(accounts: AccountEntry[]): AccountEntry[] {
  const checked = checkAccounts(accounts);
  if (!checked.ok) throw new AccountListError('invalid-input', checked.message);
  return checked.accounts;
}

/** The account's statuses still to deliver, each in words, from its store (opened without polling). */
async function undelivered(ref: AccountRef, dataRoot: string): Promise<string[]> {
  const session = await AccountSession.open(ref, {
    dataRoot,
    clientSecret: () => Promise.reject(new Error('no call is made while counting')),
    settings: () => DEFAULT_SETTINGS,
    // It only counts: none of its messages reaches a person, on either surface.
    surface: 'app',
  });
  try {
    return session.core.undeliveredStatuses();
  } finally {
    await session.close();
  }
}
