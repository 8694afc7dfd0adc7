// The client secret lives in the OS keychain and nowhere else (design notes §3): no settings file, no
// log, no plaintext fallback when the keychain is missing. (The CLI as a service also reads systemd's
// credentials, the service manager's store, before the keychain: credentials.ts.) Without a keychain the app says so and
// asks the user to fix it, because a secret silently written to disk would outlive that choice.
//
// A secret is bound to the marketplace it was entered for: its keychain entry is keyed by the base
// URL's origin and the client id, so pointing the app (or the CLI) at another address finds no
// secret there and asks for one, instead of sending this one along.
import { createHash } from 'node:crypto';
import { LIMITS } from '../../preload/contract';
import { APP_ID } from './app-identity';

/** Whose secret it is: a client id at one marketplace (the base URL's origin). */
export interface SecretOwner {
  origin: string;
  clientId: string;
}

/** The owner of the secret for this base URL (a checked one: settings, or checkBaseUrl's) and client id. */
export function secretOwner(baseUrl: string, clientId: string): SecretOwner {
  return { origin: new URL(baseUrl).origin, clientId };
}

/**
 * Seller Tray 0.1 stored the secret under the client id alone: it belongs to the account the
 * settings name, the one marketplace it has been sent to. So it is adopted for that account only,
 * by the app at start and by the CLI, never for an address given later.
 */
export async function adoptUnboundSecret(
  secrets: SecretStore,
  saved: { baseUrl: string; clientId: string; demoMode: boolean },
): Promise<void> {
  if (saved.baseUrl && saved.clientId && !saved.demoMode) {
    await secrets.adoptUnbound(secretOwner(saved.baseUrl, saved.clientId));
  }
}

/** Why no secret goes out: none was entered for this marketplace and client id (any other stays put). */
export function noSecretFor(owner: SecretOwner): string {
  return `No client secret is stored for client ${owner.clientId} at ${owner.origin}: Seller Tray sends a secret only to the marketplace it was entered for.`;
}

/** The core's port for the client secret, keyed by its owner. */
export interface SecretStore {
  /** The stored secret, or undefined when this owner has none. */
  get(owner: SecretOwner): Promise<string | undefined>;
  /** Stores the secret, replacing any previous one of this owner. */
  set(owner: SecretOwner, secret: string): Promise<void>;
  /** True when a secret was removed, false when there was none. */
  delete(owner: SecretOwner): Promise<boolean>;
  /**
   * Seller Tray 0.1 kept the secret under the client id alone. Moves such an entry to `owner` (the
   * marketplace the settings name, where it has been in use); true when one was moved.
   */
  adoptUnbound(owner: SecretOwner): Promise<boolean>;
}

/** The part of the `keytar` module this store uses. */
export interface KeytarApi {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

/** What the user has to provide, per platform, for the secret to be stored. */
function missingKeychainHint(platform: NodeJS.Platform): string {
  switch (platform) {
    case 'darwin':
      return 'The macOS Keychain is not available: unlock your login keychain and allow Seller Tray to use it';
    case 'win32':
      return 'Windows Credential Manager is not available to Seller Tray';
    default:
      return 'No OS keychain is available (Secret Service over D-Bus): install and unlock gnome-keyring or KWallet';
  }
}

/** Node found no keytar package (a file run away from its package's node_modules), as against a keychain out of reach. */
function keytarNotInstalled(cause: unknown): boolean {
  const error = cause as NodeJS.ErrnoException | undefined;
  return error?.code === 'ERR_MODULE_NOT_FOUND' && /'keytar'/.test(error.message);
}

/**
 * The OS keychain cannot be reached (not installed, locked, no D-Bus session, or the native keytar
 * module failed to load). The message says what to fix; `cause` keeps the underlying error.
 */
export class KeychainUnavailableError extends Error {
  override readonly name = 'KeychainUnavailableError';
  /** What to fix, in plain words (the window shows the reason behind "Details"). */
  readonly advice: string;
  /** What the keychain (or keytar) said. */
  readonly reason: string;

  /** `elsewhere`: where else the secret was looked for (credentials.ts); by default, nowhere. */
  constructor(cause: unknown, platform: NodeJS.Platform = process.platform, elsewhere?: string) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    // Said of every secret (a client's, an automation's signing secret or chat address): any may be the one stored.
    const missing = keytarNotInstalled(cause)
      ? "The keytar module, by which Seller Tray reaches the keychain, is not installed beside it: install Seller Tray's package (for the CLI: npm install --global seller-tray-VERSION.tgz, docs/cli.md), not a copy of one of its files"
      : missingKeychainHint(platform);
    const advice = elsewhere
      ? `${missing}. ${elsewhere}`
      : `${missing}; Seller Tray keeps its secrets nowhere else.`;
    super(`${advice} (Keychain error: ${reason})`, { cause });
    this.advice = advice;
    this.reason = reason;
  }
}

/** A client id or secret that cannot be stored as given. Never quotes the secret. */
export class SecretInputError extends Error {
  override readonly name = 'SecretInputError';
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is rejected.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

function checkClientId(clientId: unknown): string {
  if (typeof clientId !== 'string' || clientId.trim() === '') {
    throw new SecretInputError('Client id is required: it must be a non-empty string.');
  }
  if (clientId !== clientId.trim()) {
    // A different account in the keychain than the one the user meant: refuse rather than guess.
    throw new SecretInputError('Client id must not start or end with whitespace.');
  }
  if (clientId.length > LIMITS.clientId) {
    throw new SecretInputError(
      `Client id is too long (${clientId.length} characters; at most ${LIMITS.clientId}).`,
    );
  }
  if (CONTROL_CHARACTERS.test(clientId)) {
    throw new SecretInputError('Client id must not contain control characters.');
  }
  return clientId;
}

/** The keychain account of an owner: unambiguous, as an origin never holds an "@". */
function accountOf(owner: SecretOwner): string {
  const clientId = checkClientId(owner.clientId);
  const origin =
    typeof owner.origin === 'string' && /^https?:\/\/[^@\s/]+$/.test(owner.origin) ? owner.origin : '';
  if (!origin) throw new SecretInputError('The marketplace address of the secret is not an http(s) origin.');
  return `${clientId}@${origin}`;
}

/**
 * The systemd credential (LoadCredential=NAME:FILE) that stands for an owner's keychain entry
 * (credentials.ts): its keychain account with each byte but [A-Za-z0-9.-] written `_hh`, so one
 * entry has one name, and the name needs no quoting in a unit file (no ":", "/", "%" or space).
 */
export function credentialName(owner: SecretOwner): string {
  const escaped = Array.from(new TextEncoder().encode(accountOf(owner)), (byte) => {
    const char = String.fromCharCode(byte);
    return /[A-Za-z0-9.-]/.test(char) ? char : `_${byte.toString(16).padStart(2, '0')}`;
  }).join('');
  // systemd's limit is a file name's; past it, one name still stands for one entry.
  return escaped.length <= 255
    ? escaped
    : `seller-tray-${createHash('sha256').update(escaped).digest('hex')}`;
}

function checkSecret(secret: unknown): string {
  if (typeof secret !== 'string' || secret.trim() === '') {
    throw new SecretInputError('Client secret is required: it must be a non-empty string.');
  }
  if (secret.length > LIMITS.secret) {
    throw new SecretInputError(
      `Client secret is too long (${secret.length} characters; at most ${LIMITS.secret}).`,
    );
  }
  if (secret.includes('\u0000')) {
    // keytar hands the secret to the keychain as a C string: it would be cut at the NUL, silently.
    throw new SecretInputError('Client secret must not contain a NUL character.');
  }
  return secret;
}

/** keytar is CommonJS: its functions arrive on `default` under Node's ESM loader. */
export async function importKeytar(): Promise<KeytarApi> {
  const module = (await import('keytar')) as KeytarApi & { default?: KeytarApi };
  return module.default ?? module;
}

/** Keychain errors never quote the secret, but make sure of it before anything shows or logs one. */
function withoutSecret(error: unknown, secret: string | undefined): unknown {
  if (secret === undefined || !(error instanceof Error) || !error.message.includes(secret)) return error;
  return new Error(error.message.replaceAll(secret, '[redacted]'));
}

export interface KeytarSecretStoreOptions {
  /** Loads keytar; replaceable so a missing native module can be exercised. Defaults to `import('keytar')`. */
  loadKeytar?: () => Promise<KeytarApi>;
}

/** Secrets in the OS keychain through keytar: service = APP_ID, account = "<client id>@<origin>". */
export class KeytarSecretStore implements SecretStore {
  readonly service = APP_ID;
  readonly #loadKeytar: () => Promise<KeytarApi>;

  constructor(options: KeytarSecretStoreOptions = {}) {
    this.#loadKeytar = options.loadKeytar ?? importKeytar;
  }

  async get(owner: SecretOwner): Promise<string | undefined> {
    const account = accountOf(owner);
    return this.#withKeychain((keytar) => this.#read(keytar, account));
  }

  async set(owner: SecretOwner, secret: string): Promise<void> {
    const account = accountOf(owner);
    const value = checkSecret(secret);
    await this.#withKeychain((keytar) => keytar.setPassword(this.service, account, value), value);
  }

  async delete(owner: SecretOwner): Promise<boolean> {
    const account = accountOf(owner);
    return this.#withKeychain((keytar) => keytar.deletePassword(this.service, account));
  }

  async adoptUnbound(owner: SecretOwner): Promise<boolean> {
    const account = accountOf(owner);
    return this.#withKeychain(async (keytar) => {
      const unbound = await this.#read(keytar, owner.clientId);
      if (unbound === undefined) return false;
      // A secret entered since for this marketplace is newer: the unbound one only goes.
      const moved = (await this.#read(keytar, account)) === undefined;
      if (moved) await keytar.setPassword(this.service, account, unbound);
      await keytar.deletePassword(this.service, owner.clientId);
      return moved;
    });
  }

  /** An empty entry (written by another tool) is as good as none: it cannot authenticate. */
  async #read(keytar: KeytarApi, account: string): Promise<string | undefined> {
    const secret = await keytar.getPassword(this.service, account);
    return secret === null || secret === '' ? undefined : secret;
  }

  /** Loads keytar lazily, so a missing or broken native module is reported like a missing keychain. */
  async #withKeychain<T>(operation: (keytar: KeytarApi) => Promise<T>, secret?: string): Promise<T> {
    try {
      return await operation(await this.#loadKeytar());
    } catch (error) {
      throw new KeychainUnavailableError(withoutSecret(error, secret));
    }
  }
}
