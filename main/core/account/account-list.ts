// The settings' list of accounts changed the same way by the app (the bridge) and the CLI
// (`accounts add|remove|rename`): adding checks the secret with a token request before anything
// is saved, so a typo never is; a listed label added again reconnects it (its new secret checked,
// then stored); removing deletes the keychain entry and the data folder, and refuses while the
// account has marked statuses not yet delivered unless they are to be discarded.

import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CodedError } from '../../../preload/coded-error';
import type { AccountEntry } from '../../../preload/settings-declaration';
import { SellerApiClient } from '../api/client';
import type { Transport } from '../api/transport';
import { forgetAutomationSecrets, shareAutomationSecrets } from '../automation/ports';
import type { Log } from '../log';
import type { SecretStore } from '../secrets';
import { checkAccounts, DEFAULT_SETTINGS, type Settings } from '../settings';
import { DATABASE_FILE } from '../store/account-store';
import { openElsewhere } from '../store/database';
import {
  type AccountRef,
  accountFolder,
  accountLog,
  accountRef,
  clientOptionsFor,
  keychainEntry,
  labelArgument,
} from './account-ref';
import { dropRemovalNote, interruptedRemoval, removalTrash, writeRemovalNote } from './removal-notes';
import { AccountSession } from './session';

/** Why a change of the list was not made; the message says what to do instead. */
/**
 * `invalid-input`: the request itself is wrong; `undelivered-statuses`: the account still has
 * statuses to send; `in-use`: another process (the app, `seller-tray run`) has its store open.
 */
export class AccountListError extends CodedError<'invalid-input' | 'undelivered-statuses' | 'in-use'> {}

export interface AccountListPorts {
  secrets: SecretStore;
  dataRoot: string;
  transport?: Transport | undefined;
  log?: Log | undefined;
  /**
   * Changes the settings file as it is now, for a removal to hand the account over: an app that
   * watches the file closes its store of it. Absent (the app removing its own), the caller saves.
   */
  updateSettings?: ((change: (current: Settings) => Settings) => Settings) | undefined;
  /** How long a removal waits for another process to close the account's store; HAND_OVER_MS by default. */
  handOverMs?: number | undefined;
}

/** How long a removal waits for the app to close the account's store once it left the settings file. */
const HAND_OVER_MS = 10_000;

/** The listed account of a label (any case), or a refusal naming the labels there are. */
export function findAccount(settings: Settings, label: string): AccountEntry {
  const entry = listed(settings, label);
  if (entry) return entry;
  const labels = settings.accounts.map((a) => a.label);
  throw new AccountListError(
    'invalid-input',
    labels.length === 0
      ? `there is no account labelled "${label}": none is saved yet`
      : `there is no account labelled "${label}": the accounts are ${labels.join(', ')}`,
  );
}

const listed = (settings: Settings, label: string): AccountEntry | undefined =>
  settings.accounts.find((a) => a.label.toLowerCase() === label.trim().toLowerCase());

/** The first account while the app is in demo mode is the demo's: the app alone starts and leaves it. */
const isDemo = (settings: Settings, entry: AccountEntry): boolean =>
  settings.demoMode && entry === settings.accounts[0];

export interface Added {
  settings: Settings;
  entry: AccountEntry;
  sellerId: number | null;
  reconnected: boolean;
}

/**
 * Adds an account at the end of the list, or reconnects the listed one of that label (its
 * address may be left out). Answers the settings to save; the secret is stored already.
 */
export async function addAccount(
  settings: Settings,
  input: { label: string; baseUrl?: string | undefined; clientId?: string | undefined; secret: string },
  ports: AccountListPorts,
): Promise<Added> {
  const known = listed(settings, input.label);
  // An account whose removal was interrupted comes back where it was, with its address and routes.
  const noted = known ? undefined : interruptedRemoval(ports.dataRoot, settings.accounts, input.label);
  const baseUrl = input.baseUrl ?? known?.baseUrl ?? noted?.entry.baseUrl;
  const clientId = input.clientId ?? known?.clientId ?? noted?.entry.clientId;
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
  const added = returning
    ? { ...noted.entry, label: input.label }
    : { label: input.label, baseUrl, clientId };
  const at = returning ? Math.min(noted.at, settings.accounts.length) : settings.accounts.length;
  const accounts = known ? settings.accounts : checkedList(settings.accounts.toSpliced(at, 0, added));
  const entry = known ?? accounts[at];
  if (!entry) throw new AccountListError('invalid-input', 'a new account needs a label');
  if (!input.secret) throw new AccountListError('invalid-input', 'the client secret is empty');
  const ref = accountRef(entry, settings.api);
  const client = new SellerApiClient(
    clientOptionsFor(ref, async () => input.secret, {
      transport: ports.transport,
      log: ports.log && accountLog(ports.log, ref),
    }),
  );
  const { sellerId } = await client.authenticate();
  await ports.secrets.set(keychainEntry(ref), input.secret);
  const refs = accounts.map((account) => accountRef(account, settings.api));
  await shareAutomationSecrets(ports.secrets, settings.automations ?? [], refs, [ref], ports.log);
  dropRemovalNote(ports.dataRoot, ref.id);
  return { settings: { ...settings, accounts }, entry, sellerId, reconnected: known !== undefined };
}

/** Gives a listed account another label (not one an interrupted removal still goes by). */
export function renameAccount(settings: Settings, label: string, to: string, dataRoot: string): Settings {
  const entry = findAccount(settings, label);
  const noted = interruptedRemoval(dataRoot, settings.accounts, to);
  if (noted) throw labelOfInterruptedRemoval(noted.entry);
  return {
    ...settings,
    accounts: checkedList(settings.accounts.map((a) => (a === entry ? { ...a, label: to } : a))),
  };
}

/**
 * A label still taken by an interrupted removal: given to another account, the advice to finish
 * that removal ("accounts remove EU") would remove the new account instead.
 */
function labelOfInterruptedRemoval(entry: AccountEntry): AccountListError {
  const argument = labelArgument(entry.label);
  return new AccountListError(
    'invalid-input',
    `${entry.label} is the label of an account whose removal was interrupted (client ${entry.clientId} at ${entry.baseUrl}): run seller-tray accounts remove ${argument} to finish it, or seller-tray accounts add ${argument} to bring that account back, or choose another label`,
  );
}

export interface Removed {
  settings: Settings;
  entry: AccountEntry;
  /** Marked statuses not yet delivered that went with it. */
  discarded: number;
}

/**
 * Removes a listed account: its data folder, its keychain entry and its automations' go. While it
 * has statuses not yet delivered it is refused, unless `discardUndelivered`. This process's
 * session of it must be closed first. With `updateSettings` (the CLI), a process that has its
 * store open (the app) is handed it over first: the file is saved without it and its folder goes
 * once that process closed its store (deleted under it, its next write would bring the folder
 * back and what it marked meanwhile would be lost). Still open after the hand-over (`seller-tray
 * run` does not follow the file), or any step failing, the account is put back where it was and
 * the removal refused. A removal noted and killed midway (removal-notes.ts) is finished by the
 * next removal of its label.
 */
export async function removeAccount(
  settings: Settings,
  label: string,
  discardUndelivered: boolean,
  ports: AccountListPorts,
): Promise<Removed> {
  const { updateSettings, dataRoot } = ports;
  // A removal the CLI began and did not finish is finished (its account no longer listed).
  const noted =
    updateSettings && !listed(settings, label)
      ? interruptedRemoval(dataRoot, settings.accounts, label)
      : undefined;
  const entry = noted?.entry ?? findAccount(settings, label);
  if (isDemo(settings, entry))
    throw new AccountListError('invalid-input', `${entry.label} is the demo: leave the demo instead`);
  const ref = accountRef(entry);
  const folder = accountFolder(dataRoot, ref.id);
  const others = (list: readonly AccountEntry[]) => list.filter((a) => accountRef(a).id !== ref.id);
  const refuseUndelivered = async () => {
    const pending = existsSync(folder) ? await undelivered(ref, dataRoot) : 0;
    if (pending > 0 && !discardUndelivered)
      throw new AccountListError(
        'undelivered-statuses',
        `${entry.label} has ${pending} marked status(es) not yet delivered to its marketplace`,
      );
    return pending;
  };
  const automations = [
    ...new Set([...(settings.automations ?? []).map((a) => a.name), ...(noted?.automations ?? [])]),
  ];
  // Finishing, the count is made after the hand-over alone: a refusal then puts the account back.
  let pending = noted ? 0 : await refuseUndelivered();
  if (!updateSettings) {
    await deleteAccountData(ref, folder, automations, ports);
    return { settings: { ...settings, accounts: others(settings.accounts) }, entry, discarded: pending };
  }
  const at = noted?.at ?? settings.accounts.indexOf(entry);
  writeRemovalNote(dataRoot, { entry, at, automations });
  const saved = updateSettings((current) => ({ ...current, accounts: others(current.accounts) }));
  try {
    if (await stillOpenElsewhere(join(folder, DATABASE_FILE), ports.handOverMs ?? HAND_OVER_MS))
      throw new AccountListError(
        'in-use',
        `${entry.label} is still open in another Seller Tray process (seller-tray run or watch, or an app that did not let it go): stop it and remove the account again`,
      );
    // What that process marked before it closed counts too.
    pending = await refuseUndelivered();
    await deleteAccountData(ref, folder, automations, ports);
  } catch (error) {
    updateSettings((current) => {
      const accounts = others(current.accounts);
      accounts.splice(Math.min(at, accounts.length), 0, entry);
      return { ...current, accounts };
    });
    dropRemovalNote(dataRoot, ref.id);
    throw error;
  }
  return { settings: saved, entry, discarded: pending };
}

/**
 * Its folder first (what can fail on a file still open), moved out of the account's way in one
 * step, then its secret and its automations'; its removal note last (removal-notes.ts).
 */
async function deleteAccountData(
  ref: AccountRef,
  folder: string,
  automations: readonly string[],
  ports: AccountListPorts,
): Promise<void> {
  const trash = removalTrash(ports.dataRoot, ref.id);
  await rm(trash, { recursive: true, force: true });
  if (existsSync(folder)) {
    await mkdir(dirname(trash), { recursive: true, mode: 0o700 });
    await rename(folder, trash);
  }
  await rm(trash, { recursive: true, force: true });
  await ports.secrets.delete(keychainEntry(ref));
  await forgetAutomationSecrets(
    ports.secrets,
    automations.map((name) => ({ name })),
    ref,
    ports.log,
  );
  dropRemovalNote(ports.dataRoot, ref.id);
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

/** The account's statuses still to deliver, from its store (opened without polling). */
async function undelivered(ref: AccountRef, dataRoot: string): Promise<number> {
  const session = await AccountSession.open(ref, {
    dataRoot,
    clientSecret: () => Promise.reject(new Error('no call is made while counting')),
    settings: () => DEFAULT_SETTINGS,
  });
  try {
    return session.core.status().pendingOutbox;
  } finally {
    await session.close();
  }
}
