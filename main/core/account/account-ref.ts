// What an account is: one Seller API client at one marketplace. Its id, its data folder, its
// keychain entry and how a client reaches it are derived here and nowhere else, so the app, the
// CLI and the tests can never disagree about where an account lives.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { ApiSection } from '../../../preload/model';
import type { SellerApiClientOptions } from '../api/client';
import type { RetryPolicy } from '../api/retry';
import type { RouteOverrides } from '../api/routes';
import { checkBaseUrl, type Transport } from '../api/transport';
import type { Log, LogFields } from '../log';
import { ensurePrivateDir } from '../paths';
import { type SecretOwner, secretOwner } from '../secrets';

/** An account's id: the name of its data folder. Only `accountId` and `DEMO_ACCOUNT_ID` make one. */
export type AccountId = string & { readonly __brand: 'AccountId' };

/** The demo's address changes from run to run; its history should not, so its id is fixed. */
export const DEMO_ACCOUNT_ID = 'demo' as AccountId;

/** One account, as everything that serves it reads it. */
export interface AccountRef {
  readonly id: AccountId;
  /** The Seller API's base URL, in the form `checkBaseUrl` gives it where it can. */
  readonly baseUrl: string;
  readonly clientId: string;
  /** Where this marketplace's routes and page size differ from the built-in ones (settings `api`). */
  readonly api: ApiSection | null;
  /** The built-in demo marketplace: its public secret skips the keychain. */
  readonly demo: boolean;
  /** The short name the user gave it ("EU", "US", "Test"), where it is in the settings' list. */
  readonly label?: string | undefined;
}

/**
 * A real account's id: a hash of its base URL and client id, so switching to another seller
 * neither mixes histories nor notifies the old one's orders (the folder names of 0.x, kept).
 */
export function accountId(baseUrl: string, clientId: string): AccountId {
  return createHash('sha256').update(`${baseUrl}\n${clientId}`).digest('hex').slice(0, 16) as AccountId;
}

/**
 * An account as the settings list it (or as flags name it). `settingsApi`: the settings' routes,
 * which an account without routes of its own follows.
 */
export function accountRef(
  account: {
    baseUrl: string;
    clientId: string;
    api?: ApiSection | null | undefined;
    demo?: boolean | undefined;
    label?: string | undefined;
  },
  settingsApi?: ApiSection | null,
): AccountRef {
  const checked = checkBaseUrl(account.baseUrl);
  // An address that cannot be checked stays as given: the client refuses it, in words, at its first call.
  const baseUrl = checked.ok ? checked.url : account.baseUrl;
  const demo = account.demo ?? false;
  return {
    id: demo ? DEMO_ACCOUNT_ID : accountId(baseUrl, account.clientId),
    baseUrl,
    clientId: account.clientId,
    api: account.api ?? settingsApi ?? null,
    demo,
    ...(account.label === undefined ? {} : { label: account.label }),
  };
}

/**
 * The account as people read it (the CLI's lines, notifications, automations): its label where it
 * has one, else the demo, or its client at its marketplace's host. Never its secret.
 */
export function accountName(ref: AccountRef): string {
  if (ref.label !== undefined) return ref.label;
  if (ref.demo) return 'the demo';
  return `${ref.clientId} at ${URL.canParse(ref.baseUrl) ? new URL(ref.baseUrl).host : ref.baseUrl}`;
}

/** Where the accounts' folders are, under the user data directory. */
export const accountsFolder = (dataRoot: string): string => join(dataRoot, 'accounts');

/** Where an account keeps its cursor, history and outbox, under the user data directory. */
export function accountFolder(dataRoot: string, id: AccountId): string {
  return join(accountsFolder(dataRoot), id);
}

/** The account's folder, made (with the accounts' folder) private to this user; throws for another user's (paths.ts). */
export function privateAccountFolder(dataRoot: string, id: AccountId): string {
  ensurePrivateDir(accountsFolder(dataRoot));
  return ensurePrivateDir(accountFolder(dataRoot, id));
}

/**
 * A command for a person to run about one account, naming it by its id (`--id`): hex or `demo`,
 * so it needs no quoting in any shell and never reads as an option, and it names that very account
 * where a label may since have been given to another (a label stays prose, cleaned by its caller).
 */
export const commandFor = (id: AccountId, command: string): string => `seller-tray ${command} --id ${id}`;

/** The keychain entry of the account's secret: its base URL's origin and client id (secrets.ts). */
export function keychainEntry(ref: AccountRef): SecretOwner {
  return secretOwner(ref.baseUrl, ref.clientId);
}

/** How a client reaches the account: its address, routes and page size, the secret read at use. */
export function clientOptionsFor(
  ref: AccountRef,
  clientSecret: () => Promise<string>,
  extra: {
    transport?: Transport | undefined;
    log?: Log | undefined;
    retry?: Partial<RetryPolicy> | undefined;
  } = {},
): SellerApiClientOptions {
  return {
    baseUrl: ref.baseUrl,
    credentials: { clientId: ref.clientId, clientSecret },
    // The operations were checked when the settings were read.
    ...(ref.api?.routes ? { routes: ref.api.routes as RouteOverrides } : {}),
    ...(ref.api?.pageSize ? { pageSize: ref.api.pageSize } : {}),
    ...(extra.transport ? { transport: extra.transport } : {}),
    ...(extra.retry ? { retry: extra.retry } : {}),
    ...(extra.log ? { log: extra.log } : {}),
  };
}

/** A log whose every line names the account, by its label where it has one (appended, so a line's own fields read first). */
export function accountLog(log: Log, ref: AccountRef): Log {
  const named = (fields?: LogFields): LogFields => ({ ...fields, account: ref.label ?? ref.id });
  return {
    info: (message, fields) => log.info(message, named(fields)),
    warn: (message, fields) => log.warn(message, named(fields)),
    error: (message, fields) => log.error(message, named(fields)),
  };
}
