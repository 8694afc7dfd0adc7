// The systemd credentials a service was given (LoadCredential=), read as files in a real temporary
// directory standing for $CREDENTIALS_DIRECTORY, over a keychain that counts what it is asked.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../../preload/contract';
import { accountRef } from './account/account-ref';
import { automationSecretEntry } from './automation/ports';
import { CredentialSecretStore, CredentialUnreadableError } from './credentials';
import { credentialName, KeychainUnavailableError, type SecretOwner, type SecretStore } from './secrets';

const EU: SecretOwner = { origin: 'https://eu.market.example', clientId: 'eu-client' };
const US: SecretOwner = { origin: 'http://127.0.0.1:8443', clientId: 'us client_1' };

/** A keychain in memory; `unavailable` makes it fail as a server without an unlocked keyring. */
class MemoryKeychain implements SecretStore {
  readonly entries = new Map<string, string>();
  unavailable = false;
  readonly #key = (owner: SecretOwner) => `${owner.clientId}@${owner.origin}`;
  #reach(): void {
    if (this.unavailable) throw new KeychainUnavailableError(new Error('no D-Bus session'), 'linux');
  }
  async get(owner: SecretOwner) {
    this.#reach();
    return this.entries.get(this.#key(owner));
  }
  async set(owner: SecretOwner, secret: string) {
    this.#reach();
    this.entries.set(this.#key(owner), secret);
  }
  async delete(owner: SecretOwner) {
    this.#reach();
    return this.entries.delete(this.#key(owner));
  }
  async adoptUnbound() {
    this.#reach();
    return false;
  }
}

let dir: string;
let keychain: MemoryKeychain;
let store: CredentialSecretStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'credentials-'));
  keychain = new MemoryKeychain();
  store = new CredentialSecretStore(dir, keychain);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('credentialName', () => {
  it('is a name systemd takes in LoadCredential= (no colon, slash, space or %) and one per keychain entry', () => {
    const hook = automationSecretEntry(
      accountRef({ baseUrl: 'https://eu.market.example/api', clientId: 'eu-client' }),
      'CRM hook',
    );
    const names = [
      EU,
      US,
      { ...EU, origin: 'http://eu.market.example' },
      { ...EU, clientId: 'eu_client' },
      hook,
    ].map(credentialName);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9._-]{1,255}$/);
    expect(new Set(names).size).toBe(names.length);
    expect(credentialName(EU)).toBe('eu-client_40https_3a_2f_2feu.market.example');
    // Readable enough to be told apart in a unit file: the client id comes first.
    expect(credentialName(US)).toBe('us_20client_5f1_40http_3a_2f_2f127.0.0.1_3a8443');
  });
});

describe('CredentialSecretStore', () => {
  it('serves each owner its own credential before the keychain, and the keychain for the others', async () => {
    keychain.entries.set('eu-client@https://eu.market.example', 'from-the-keychain');
    await writeFile(join(dir, credentialName(EU)), 'eu-from-credential\n');
    await writeFile(join(dir, credentialName(US)), 'us-from-credential');
    expect(await store.get(EU)).toBe('eu-from-credential');
    expect(await store.get(US)).toBe('us-from-credential');
    expect(await store.get({ ...EU, clientId: 'other' })).toBeUndefined();
    keychain.entries.set('other@https://eu.market.example', 'kept');
    expect(await store.get({ ...EU, clientId: 'other' })).toBe('kept');
  });

  it('needs no keychain for an owner whose credential is loaded, and names the credential when neither has it', async () => {
    keychain.unavailable = true;
    await writeFile(join(dir, credentialName(EU)), 'eu-from-credential');
    expect(await store.get(EU)).toBe('eu-from-credential');
    // The adoption of a 0.1 entry asks the keychain only for an owner without a credential.
    expect(await store.adoptUnbound(EU)).toBe(false);
    const error = await store.get(US).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeychainUnavailableError);
    expect((error as Error).message).toContain(
      `No credential ${credentialName(US)} is in ${dir} ($CREDENTIALS_DIRECTORY)`,
    );
    expect((error as Error).message).toContain('no D-Bus session');
  });

  it('refuses an empty or unreadable credential, naming it and its file and never its content', async () => {
    await writeFile(join(dir, credentialName(EU)), '\n');
    const empty = await store.get(EU).catch((e: unknown) => e);
    expect(empty).toBeInstanceOf(CredentialUnreadableError);
    expect((empty as Error).message).toBe(
      `The credential ${credentialName(EU)} (${join(dir, credentialName(EU))}) is empty: put the secret in the file LoadCredential= names, or drop that line to use the keychain.`,
    );
    // A socket where the file should be: opening it fails (as an unreadable file would, under a non-root user).
    const socket = createServer();
    await new Promise<void>((listening) => socket.listen(join(dir, credentialName(US)), listening));
    const unreadable = await store.get(US).catch((e: unknown) => e);
    socket.close();
    expect(unreadable).toBeInstanceOf(CredentialUnreadableError);
    expect((unreadable as Error).message).toMatch(
      new RegExp(
        `^The credential ${credentialName(US)} \\(${join(dir, credentialName(US))}\\) could not be read \\(ENXIO\\)`,
      ),
    );
    const secret = `never-print-${randomUUID()}`;
    await writeFile(join(dir, credentialName(EU)), `${secret}\u0000`);
    const withNul = await store.get(EU).catch((e: unknown) => e);
    expect(withNul).toBeInstanceOf(CredentialUnreadableError);
    expect((withNul as Error).message).not.toContain(secret);
  });

  it('refuses a credential longer than any secret, unread into memory and unquoted', async () => {
    // A LoadCredential= line naming the wrong file (a log, a dump): not sent, not held whole.
    const content = `never-print-${randomUUID()}`.repeat(100_000);
    await writeFile(join(dir, credentialName(EU)), content);
    const tooLong = await store.get(EU).catch((e: unknown) => e);
    expect(tooLong).toBeInstanceOf(CredentialUnreadableError);
    expect((tooLong as Error).message).toBe(
      `The credential ${credentialName(EU)} (${join(dir, credentialName(EU))}) holds more than a secret can (at most ${LIMITS.secret} characters): check the file LoadCredential= names.`,
    );
    // Its size in bytes could be a secret's in UTF-8; its characters are one too many.
    await writeFile(join(dir, credentialName(EU)), `${'s'.repeat(LIMITS.secret + 1)}\n`);
    expect(await store.get(EU).catch((e: unknown) => e)).toEqual(tooLong);
  });

  it('refuses a credential that is not a file without waiting on it (a FIFO no one writes, a directory)', async () => {
    execFileSync('mkfifo', [join(dir, credentialName(EU))]);
    await mkdir(join(dir, credentialName(US)));
    for (const owner of [EU, US]) {
      const notAFile = await store.get(owner).catch((e: unknown) => e);
      expect(notAFile).toBeInstanceOf(CredentialUnreadableError);
      expect((notAFile as Error).message).toBe(
        `The credential ${credentialName(owner)} (${join(dir, credentialName(owner))}) is not a file: LoadCredential= must name a file holding the secret alone.`,
      );
    }
  });

  it('writes and deletes in the keychain, and tells which credential shadows an entry', async () => {
    await writeFile(join(dir, credentialName(EU)), 'eu-from-credential');
    await store.set(EU, 'typed');
    expect(keychain.entries.get('eu-client@https://eu.market.example')).toBe('typed');
    expect(await store.get(EU)).toBe('eu-from-credential');
    expect(store.shadowing(EU)).toEqual({ name: credentialName(EU), file: join(dir, credentialName(EU)) });
    expect(store.shadowing(US)).toBeUndefined();
    expect(await store.delete(EU)).toBe(true);
    expect(keychain.entries.size).toBe(0);
  });
});
