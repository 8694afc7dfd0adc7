// The client secret lives in the OS keychain and nowhere else (design notes §3): no settings file, no
// log, no plaintext fallback when the keychain is missing. Without a keychain the app says so and
// asks the user to fix it, because a secret silently written to disk would outlive that choice.
import { APP_ID } from './app-identity';

/** The core's port for the client secret, keyed by client id. */
export interface SecretStore {
  /** The stored secret, or undefined when this client id has none. */
  get(clientId: string): Promise<string | undefined>;
  /** Stores the secret, replacing any previous one for this client id. */
  set(clientId: string, secret: string): Promise<void>;
  /** True when a secret was removed, false when there was none. */
  delete(clientId: string): Promise<boolean>;
}

/** The part of the `keytar` module this store uses. */
export interface KeytarApi {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

/** Client ids are short tokens issued by the Seller Console; anything longer is a paste gone wrong. */
export const MAX_CLIENT_ID_LENGTH = 256;
/** Generous for any issued secret, and far below what keychains accept. */
export const MAX_SECRET_LENGTH = 4096;

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

/**
 * The OS keychain cannot be reached (not installed, locked, no D-Bus session, or the native keytar
 * module failed to load). The message says what to fix; `cause` keeps the underlying error.
 */
export class KeychainUnavailableError extends Error {
  override readonly name = 'KeychainUnavailableError';

  constructor(cause: unknown, platform: NodeJS.Platform = process.platform) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `${missingKeychainHint(platform)}; the client secret is never stored anywhere else. (Keychain error: ${reason})`,
      { cause },
    );
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
  if (clientId.length > MAX_CLIENT_ID_LENGTH) {
    throw new SecretInputError(
      `Client id is too long (${clientId.length} characters; at most ${MAX_CLIENT_ID_LENGTH}).`,
    );
  }
  if (CONTROL_CHARACTERS.test(clientId)) {
    throw new SecretInputError('Client id must not contain control characters.');
  }
  return clientId;
}

function checkSecret(secret: unknown): string {
  if (typeof secret !== 'string' || secret.trim() === '') {
    throw new SecretInputError('Client secret is required: it must be a non-empty string.');
  }
  if (secret.length > MAX_SECRET_LENGTH) {
    throw new SecretInputError(
      `Client secret is too long (${secret.length} characters; at most ${MAX_SECRET_LENGTH}).`,
    );
  }
  if (secret.includes('\u0000')) {
    // keytar hands the secret to the keychain as a C string: it would be cut at the NUL, silently.
    throw new SecretInputError('Client secret must not contain a NUL character.');
  }
  return secret;
}

/** keytar is CommonJS: its functions arrive on `default` under Node's ESM loader. */
async function importKeytar(): Promise<KeytarApi> {
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

/** Secrets in the OS keychain through keytar: service = APP_ID, account = client id. */
export class KeytarSecretStore implements SecretStore {
  readonly service = APP_ID;
  readonly #loadKeytar: () => Promise<KeytarApi>;

  constructor(options: KeytarSecretStoreOptions = {}) {
    this.#loadKeytar = options.loadKeytar ?? importKeytar;
  }

  async get(clientId: string): Promise<string | undefined> {
    const account = checkClientId(clientId);
    const secret = await this.#withKeychain((keytar) => keytar.getPassword(this.service, account));
    // An empty entry (written by another tool) is as good as none: it cannot authenticate.
    return secret === null || secret === '' ? undefined : secret;
  }

  async set(clientId: string, secret: string): Promise<void> {
    const account = checkClientId(clientId);
    const value = checkSecret(secret);
    await this.#withKeychain((keytar) => keytar.setPassword(this.service, account, value), value);
  }

  async delete(clientId: string): Promise<boolean> {
    const account = checkClientId(clientId);
    return this.#withKeychain((keytar) => keytar.deletePassword(this.service, account));
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
