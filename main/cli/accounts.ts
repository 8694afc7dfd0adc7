// `seller-tray accounts list|add|rename|remove`: the accounts this computer serves, as the app
// keeps them (the settings' list, each secret in the keychain under its own marketplace), changed
// as the app changes them (core/account/account-list.ts). `add` reads the secret from standard
// input; adding a listed label again reconnects it; `remove` refuses while the account has
// statuses to deliver, unless --force discards them; a running app is handed it over first
// (core/account/account-list.ts).

import {
  AccountListError,
  addAccount,
  findAccount,
  removeAccount,
  renameAccount,
} from '../core/account/account-list';
import { accountRef, keychainEntry, labelArgument } from '../core/account/account-ref';
import { interruptedRemoval, interruptedRemovals } from '../core/account/removal-notes';
import type { Log } from '../core/log';
import type { CliStores } from './account';
import { row, terminalJson } from './format';
import { Refusal, UsageError } from './refusals';
import { readStdin } from './session';

export interface AccountsOptions {
  baseUrl?: string | undefined;
  clientId?: string | undefined;
  json: boolean;
  force: boolean;
  log: Log;
}

const USAGE =
  'accounts list | accounts add LABEL --base-url URL --client-id ID | accounts rename LABEL NEW | accounts remove LABEL';

/** Runs `accounts <list|add|rename|remove> …`; answers what to print. */
export async function accountsCommand(
  args: readonly string[],
  stores: CliStores,
  options: AccountsOptions,
): Promise<string> {
  const [action, label, to, ...rest] = args;
  if (rest.length > 0) throw new UsageError(USAGE);
  try {
    if (action === 'list' && label === undefined) return await list(stores, options.json);
    if (action === 'add' && label !== undefined && to === undefined) return await add(label, stores, options);
    if (action === 'rename' && label !== undefined && to !== undefined) return rename(label, to, stores);
    if (action === 'remove' && label !== undefined && to === undefined)
      return await remove(label, stores, options.force);
  } catch (error) {
    if (!(error instanceof AccountListError)) throw error;
    if (error.code === 'invalid-input') throw new UsageError(error.message);
    if (error.code === 'in-use') throw new Refusal('in-use', error.message);
    throw new Refusal(
      'undelivered-statuses',
      `${error.message}: run seller-tray watch --once --account ${labelArgument(label ?? '')} until they are, or remove it with --force to discard them`,
    );
  }
  throw new UsageError(USAGE);
}

async function list(stores: CliStores, json: boolean): Promise<string> {
  const { accounts, demoMode } = stores.settings.load().settings;
  const rows = await Promise.all(
    accounts.map(async (entry, index) => {
      const demo = demoMode && index === 0;
      const ref = accountRef({ ...entry, demo });
      return {
        ...entry,
        id: ref.id,
        // The demo's secret is public and lives in the app; the others' in the keychain.
        secretStored: demo || (await stores.secrets.get(keychainEntry(ref))) !== undefined,
        window: index === 0,
      };
    }),
  );
  const interrupted = interruptedRemovals(stores.dataRoot, accounts).map(({ entry }) => entry);
  if (json)
    return terminalJson([...rows, ...interrupted.map((entry) => ({ ...entry, removalInterrupted: true }))]);
  if (rows.length === 0 && interrupted.length === 0)
    return 'No account is saved yet: seller-tray accounts add LABEL adds one.\n';
  const listed = rows.map((r) =>
    row([
      r.label,
      r.baseUrl,
      r.clientId,
      r.secretStored ? 'secret stored' : 'no secret stored',
      r.window ? "the window's" : '',
    ]),
  );
  // A removal killed midway: the account's data or secret may be left; either command ends that.
  const unfinished = interrupted.map(
    (entry) =>
      row([entry.label, entry.baseUrl, entry.clientId, 'removal interrupted']) +
      row([
        `  seller-tray accounts remove ${labelArgument(entry.label)} finishes it; seller-tray accounts add ${labelArgument(entry.label)} brings it back with what is left of its data`,
      ]),
  );
  return [...listed, ...unfinished].join('');
}

async function add(label: string, stores: CliStores, options: AccountsOptions): Promise<string> {
  const { settings } = stores.settings.load();
  // The address is checked before the secret is read: a mistyped command asks for nothing.
  const listed =
    settings.accounts.some((a) => a.label.toLowerCase() === label.trim().toLowerCase()) ||
    interruptedRemoval(stores.dataRoot, settings.accounts, label) !== undefined;
  if (!listed && (!options.baseUrl || !options.clientId))
    throw new UsageError('accounts add needs --base-url and --client-id');
  const secret = await readStdin();
  if (!secret)
    throw new UsageError('accounts add reads the client secret from standard input, and it was empty');
  const added = await addAccount(
    settings,
    { label, baseUrl: options.baseUrl, clientId: options.clientId, secret },
    { ...stores, log: options.log },
  );
  if (!added.reconnected) stores.settings.save(added.settings);
  const { entry, sellerId } = added;
  const seller = sellerId === null ? '' : ` of seller ${sellerId}`;
  return `${added.reconnected ? 'Reconnected' : 'Added'} account ${entry.label}: client ${entry.clientId}${seller} at ${entry.baseUrl}; the secret is in the system keychain.\n`;
}

function rename(label: string, to: string, stores: CliStores): string {
  const { settings } = stores.settings.load();
  const from = findAccount(settings, label).label;
  stores.settings.save(renameAccount(settings, label, to, stores.dataRoot));
  return `Renamed account ${from} to ${to.trim()}.\n`;
}

async function remove(label: string, stores: CliStores, force: boolean): Promise<string> {
  const { settings } = stores.settings.load();
  // The list is saved by the removal itself, as the file is at each step (the app may write it meanwhile).
  const removed = await removeAccount(settings, label, force, {
    ...stores,
    updateSettings: (change) => {
      const changed = change(stores.settings.load().settings);
      stores.settings.save(changed);
      return changed;
    },
  });
  const discarded =
    removed.discarded > 0 ? `; ${removed.discarded} undelivered status(es) were discarded` : '';
  return `Removed account ${removed.entry.label}: its secret left the keychain and its data on this computer is deleted${discarded}.\n`;
}
