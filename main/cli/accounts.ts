// `seller-tray accounts list|add|remove`: the accounts this computer serves, as the app keeps
// them (the settings' list, each secret in the keychain under its own marketplace). Adding (or
// reconnecting: adding a listed label again) checks the secret with a token request first, so a
// typo is never saved; removing refuses while the account still has statuses to deliver, unless
// --force discards them.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { AccountEntry } from '../../preload/settings-declaration';
import { type AccountRef, accountFolder, accountRef, keychainEntry } from '../core/account/account-ref';
import { AccountSession } from '../core/account/session';
import { SellerApiClient } from '../core/api/client';
import type { Log } from '../core/log';
import { DEFAULT_SETTINGS, parseSettingsPatch } from '../core/settings';
import { type CliStores, clientOptions, findAccount } from './account';
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

/** Runs `accounts <list|add|remove> [LABEL]`; answers what to print. */
export async function accountsCommand(
  args: readonly string[],
  stores: CliStores,
  options: AccountsOptions,
): Promise<string> {
  const [action, label, ...rest] = args;
  if (rest.length > 0) throw new UsageError('accounts takes one label');
  if (action === 'list' && label === undefined) return list(stores, options.json);
  if (action === 'add' && label !== undefined) return add(label, stores, options);
  if (action === 'remove' && label !== undefined) return remove(label, stores, options.force);
  throw new UsageError(
    'accounts list | accounts add LABEL --base-url URL --client-id ID | accounts remove LABEL',
  );
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
  if (json) return terminalJson(rows);
  if (rows.length === 0) return 'No account is saved yet: seller-tray accounts add LABEL adds one.\n';
  return rows
    .map((r) =>
      row([
        r.label,
        r.baseUrl,
        r.clientId,
        r.secretStored ? 'secret stored' : 'no secret stored',
        r.window ? "the window's" : '',
      ]),
    )
    .join('');
}

/** Adds an account, or (its label already listed) reconnects it: its secret checked and stored anew. */
async function add(label: string, stores: CliStores, options: AccountsOptions): Promise<string> {
  const { settings } = stores.settings.load();
  const listed = settings.accounts.find((a) => a.label.toLowerCase() === label.trim().toLowerCase());
  const baseUrl = options.baseUrl ?? listed?.baseUrl;
  const clientId = options.clientId ?? listed?.clientId;
  if (!baseUrl || !clientId) throw new UsageError('accounts add needs --base-url and --client-id');
  const accounts = listed
    ? settings.accounts
    : checkedList([...settings.accounts, { label, baseUrl, clientId }]);
  const entry = listed ?? accounts[accounts.length - 1];
  if (!entry) throw new UsageError('accounts add needs a label');
  if (listed && accountRef(listed).id !== accountRef({ baseUrl, clientId }).id)
    throw new UsageError(
      `${listed.label} is already the account of client ${listed.clientId} at ${listed.baseUrl}: choose another label, or remove it first`,
    );
  const secret = await readStdin();
  if (!secret)
    throw new UsageError('accounts add reads the client secret from standard input, and it was empty');
  const ref = accountRef({ ...entry, api: settings.api });
  const client = new SellerApiClient(clientOptions({ ref, clientSecret: async () => secret }, options.log));
  const { sellerId } = await client.authenticate();
  await stores.secrets.set(keychainEntry(ref), secret);
  if (!listed) stores.settings.save({ ...settings, accounts });
  const seller = sellerId === null ? '' : ` of seller ${sellerId}`;
  return `${listed ? 'Reconnected' : 'Added'} account ${entry.label}: client ${entry.clientId}${seller} at ${entry.baseUrl}; the secret is in the system keychain.\n`;
}

/** The list as the settings check it (each account and label once), or a refusal in their words. */
function checkedList(accounts: AccountEntry[]): AccountEntry[] {
  const patch = parseSettingsPatch({ accounts });
  if (!patch.ok) throw new UsageError(patch.message);
  return patch.patch.accounts ?? [];
}

async function remove(label: string, stores: CliStores, force: boolean): Promise<string> {
  const { settings } = stores.settings.load();
  const entry = findAccount(settings, label);
  if (settings.demoMode && entry === settings.accounts[0])
    throw new UsageError(`${entry.label} is the app's demo: leave it in the app`);
  const ref = accountRef(entry);
  const folder = accountFolder(stores.dataRoot, ref.id);
  const pending = existsSync(folder) ? await pendingStatuses(ref, stores.dataRoot) : 0;
  if (pending > 0 && !force) {
    throw new Refusal(
      'undelivered-statuses',
      `${entry.label} has ${pending} marked status(es) not yet delivered to its marketplace: run seller-tray watch --once --account ${entry.label} until they are, or remove it with --force to discard them`,
    );
  }
  await stores.secrets.delete(keychainEntry(ref));
  await rm(folder, { recursive: true, force: true });
  stores.settings.save({ ...settings, accounts: settings.accounts.filter((a) => a !== entry) });
  const discarded = pending > 0 ? `; ${pending} undelivered status(es) were discarded` : '';
  return `Removed account ${entry.label}: its secret left the keychain and its data on this computer is deleted${discarded}.\n`;
}

/** The account's statuses still to deliver, from its store (opened without polling). */
async function pendingStatuses(ref: AccountRef, dataRoot: string): Promise<number> {
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
