// A server's secrets as systemd credentials (docs/security.md): a service given
// `LoadCredential=NAME:FILE` (or `LoadCredentialEncrypted=`) finds each as a file in
// $CREDENTIALS_DIRECTORY, readable by that service alone. The CLI reads a secret there first, under
// the name its keychain entry has (credentialName), and else from the keychain; writing goes to the
// keychain only, as the credentials are the service manager's, read-only to the service.
import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIMITS } from '../../preload/contract';
import { credentialName, KeychainUnavailableError, type SecretOwner, type SecretStore } from './secrets';

/** A credential that is loaded but cannot serve: its name and file are told, never its content. */
export class CredentialUnreadableError extends Error {
  override readonly name = 'CredentialUnreadableError';
}

/** A credential loaded for an owner: its name in the unit and its file here. */
export interface LoadedCredential {
  name: string;
  file: string;
}

/** The credentials directory systemd gave this process, if any (an empty variable counts as unset). */
export const credentialsDirectory = (env: NodeJS.ProcessEnv): string | undefined =>
  env.CREDENTIALS_DIRECTORY || undefined;

export class CredentialSecretStore implements SecretStore {
  /** `directory`: $CREDENTIALS_DIRECTORY, or undefined where none was given (the keychain alone, its errors naming the credential). */
  constructor(
    readonly directory: string | undefined,
    readonly keychain: SecretStore,
  ) {}

  /** The credential loaded for this owner, which is read before its keychain entry; undefined when none is. */
  shadowing(owner: SecretOwner): LoadedCredential | undefined {
    if (this.directory === undefined) return undefined;
    const name = credentialName(owner);
    const file = join(this.directory, name);
    return existsSync(file) ? { name, file } : undefined;
  }

  async get(owner: SecretOwner): Promise<string | undefined> {
    const loaded = this.shadowing(owner);
    if (loaded) return read(loaded);
    try {
      return await this.keychain.get(owner);
    } catch (error) {
      if (!(error instanceof KeychainUnavailableError)) throw error;
      // Where a server's secret goes instead: the error names the credential to load.
      const name = credentialName(owner);
      const elsewhere =
        this.directory === undefined
          ? `On a server, give it to the service as the systemd credential ${name} (docs/automations.md).`
          : `No credential ${name} is in ${this.directory} ($CREDENTIALS_DIRECTORY) either: load it with LoadCredential=${name}:FILE (docs/automations.md).`;
      throw new KeychainUnavailableError(error.cause, process.platform, elsewhere);
    }
  }

  set(owner: SecretOwner, secret: string): Promise<void> {
    return this.keychain.set(owner, secret);
  }

  delete(owner: SecretOwner): Promise<boolean> {
    return this.keychain.delete(owner);
  }

  /** The 0.1 entry is the keychain's to move; an owner served by a credential needs no keychain. */
  async adoptUnbound(owner: SecretOwner): Promise<boolean> {
    return this.shadowing(owner) ? false : this.keychain.adoptUnbound(owner);
  }
}

/** A credential's bytes at most: LIMITS.secret characters of up to 4 bytes in UTF-8, and a line ending. */
const MOST_BYTES = LIMITS.secret * 4 + 2;

/**
 * The credential's content, less one line ending (as `echo secret > file` leaves one). Errors
 * name the credential and its file: the content may be the secret, or part of it. Only a regular
 * file of a secret's size is read: a FIFO or device (opened without waiting for a writer) would
 * block or fill memory, a large file is the wrong one.
 */
function read({ name, file }: LoadedCredential): string {
  const told = `The credential ${name} (${file})`;
  const tooLong = new CredentialUnreadableError(
    `${told} holds more than a secret can (at most ${LIMITS.secret} characters): check the file LoadCredential= names.`,
  );
  let content: string;
  try {
    const fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile())
        throw new CredentialUnreadableError(
          `${told} is not a file: LoadCredential= must name a file holding the secret alone.`,
        );
      if (stat.size > MOST_BYTES) throw tooLong;
      content = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (error instanceof CredentialUnreadableError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new CredentialUnreadableError(
      `${told} could not be read (${code ?? 'error'}): check the file LoadCredential= names and that the service's user may read it.`,
    );
  }
  const secret = content.replace(/\r?\n$/, '');
  if (secret.length > LIMITS.secret) throw tooLong;
  if (secret.trim() === '')
    throw new CredentialUnreadableError(
      `${told} is empty: put the secret in the file LoadCredential= names, or drop that line to use the keychain.`,
    );
  if (secret.includes('\u0000'))
    throw new CredentialUnreadableError(
      `${told} holds a NUL character: it is not a secret Seller Tray can send.`,
    );
  return secret;
}
