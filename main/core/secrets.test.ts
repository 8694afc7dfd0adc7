// Runs against the real Secret Service: `npm test` starts a private D-Bus session with an unlocked
// gnome-keyring (test/with-keychain.sh), so nothing here touches a developer's own keychain.
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../../preload/contract';
import { keytar } from '../../test/support/keychain';
import { APP_ID } from './app-identity';
import {
  KeychainUnavailableError,
  KeytarSecretStore,
  SecretInputError,
  type SecretOwner,
  secretOwner,
} from './secrets';

const store = new KeytarSecretStore();
const MARKETPLACE = 'https://marketplace.example';
const used: string[] = [];

/** A client id no other test (or earlier run) uses, at MARKETPLACE or `origin`; deleted after each test. */
function clientId(origin = MARKETPLACE): SecretOwner {
  const id = `test-client-${randomUUID()}`;
  used.push(id);
  return { origin, clientId: id };
}
const at = (clientId: string): SecretOwner => ({ origin: MARKETPLACE, clientId });

afterEach(async () => {
  for (const id of used.splice(0)) {
    for (const { account } of await keytar.findCredentials(APP_ID)) {
      if (account.startsWith(id)) await keytar.deletePassword(APP_ID, account);
    }
  }
});

describe('KeytarSecretStore against the real Secret Service', () => {
  it('returns what was set, and nothing once deleted', async () => {
    const id = clientId();
    await store.set(id, 's3cret-value');
    expect(await store.get(id)).toBe('s3cret-value');
    expect(await store.delete(id)).toBe(true);
    expect(await store.get(id)).toBeUndefined();
  });

  it('answers undefined for a client id it never stored', async () => {
    expect(await store.get(clientId())).toBeUndefined();
  });

  it('reports false when deleting a secret that is not there', async () => {
    expect(await store.delete(clientId())).toBe(false);
  });

  it('keeps the secrets of two client ids apart', async () => {
    const first = clientId();
    const second = clientId();
    await store.set(first, 'secret-one');
    await store.set(second, 'secret-two');
    expect(await store.get(first)).toBe('secret-one');
    expect(await store.get(second)).toBe('secret-two');
    await store.delete(first);
    expect(await store.get(first)).toBeUndefined();
    expect(await store.get(second)).toBe('secret-two');
  });

  it('replaces the secret when set again', async () => {
    const id = clientId();
    await store.set(id, 'old-secret');
    await store.set(id, 'new-secret');
    expect(await store.get(id)).toBe('new-secret');
    const entries = (await keytar.findCredentials(APP_ID)).filter((c) => c.account.startsWith(id.clientId));
    expect(entries).toHaveLength(1);
  });

  it('keeps unusual but valid secrets exactly', async () => {
    const id = clientId();
    const secret = ` ünïcødé:🔑 "quotes" \\ and spaces ${'x'.repeat(LIMITS.secret - 40)}`;
    await store.set(id, secret);
    expect(await store.get(id)).toBe(secret);
  });

  it('stores under service = the app id and account = the client id at the origin', async () => {
    const id = clientId();
    await store.set(id, 'visible-to-other-clients');
    expect(store.service).toBe(APP_ID);
    const account = `${id.clientId}@https://marketplace.example`;
    expect(await keytar.findCredentials(APP_ID)).toContainEqual({
      account,
      password: 'visible-to-other-clients',
    });
    // An independent Secret Service client finds it by the same attributes.
    const { stdout } = await promisify(execFile)('secret-tool', [
      'lookup',
      'service',
      APP_ID,
      'account',
      account,
    ]);
    expect(stdout).toBe('visible-to-other-clients');
  });
});

describe('a secret bound to its marketplace', () => {
  it('is found only at its origin: any path there, no other scheme, host or port', async () => {
    const id = clientId();
    await store.set(secretOwner('https://marketplace.example/api/', id.clientId), 'bound');
    expect(await store.get(secretOwner('https://marketplace.example/other', id.clientId))).toBe('bound');
    for (const elsewhere of [
      'https://evil.example',
      'http://marketplace.example',
      'https://marketplace.example:8443',
      'https://api.marketplace.example',
    ]) {
      expect(await store.get(secretOwner(elsewhere, id.clientId)), elsewhere).toBeUndefined();
    }
  });

  it('moves an entry of Seller Tray 0.1 (client id alone) to the marketplace it is adopted for', async () => {
    const id = clientId();
    await keytar.setPassword(APP_ID, id.clientId, 'from-0.1');
    expect(await store.get(id)).toBeUndefined();
    expect(await store.adoptUnbound(id)).toBe(true);
    expect(await store.get(id)).toBe('from-0.1');
    expect(await keytar.getPassword(APP_ID, id.clientId)).toBeNull();
    expect(await store.adoptUnbound(id)).toBe(false);
  });

  it('keeps a secret entered since for that marketplace, and drops the unbound one', async () => {
    const id = clientId();
    await store.set(id, 'entered-since');
    await keytar.setPassword(APP_ID, id.clientId, 'from-0.1');
    expect(await store.adoptUnbound(id)).toBe(false);
    expect(await store.get(id)).toBe('entered-since');
    expect(await keytar.getPassword(APP_ID, id.clientId)).toBeNull();
  });

  it('refuses an owner whose origin is not an http(s) origin', async () => {
    for (const origin of [
      '',
      'null',
      'file:///etc',
      'https://user@marketplace.example',
      'https://m.example/path',
    ]) {
      await expect(store.get({ origin, clientId: 'client' }), origin).rejects.toBeInstanceOf(
        SecretInputError,
      );
    }
  });
});

describe('KeytarSecretStore input checks', () => {
  const cases: Array<[string, () => Promise<unknown>, RegExp]> = [
    ['an empty client id', () => store.get(at('')), /Client id is required/],
    ['a blank client id', () => store.set(at('   '), 'secret'), /Client id is required/],
    [
      'a client id that is not a string',
      () => store.delete(at(42 as unknown as string)),
      /Client id is required/,
    ],
    [
      'a client id with surrounding spaces',
      () => store.get(at(' abc ')),
      /must not start or end with whitespace/,
    ],
    ['a client id with a newline', () => store.get(at('a\nb')), /control characters/],
    ['a too long client id', () => store.get(at('c'.repeat(LIMITS.clientId + 1))), /Client id is too long/],
    ['an empty secret', () => store.set(at('client'), ''), /Client secret is required/],
    ['a blank secret', () => store.set(at('client'), ' \t '), /Client secret is required/],
    [
      'a secret that is not a string',
      () => store.set(at('client'), undefined as unknown as string),
      /required/,
    ],
  ];
  for (const [what, call, message] of cases) {
    it(`rejects ${what} with a clear message`, async () => {
      await expect(call()).rejects.toThrow(message);
      await expect(call()).rejects.toBeInstanceOf(SecretInputError);
    });
  }

  it('rejects a too long secret without quoting it, and stores nothing', async () => {
    const id = clientId();
    const secret = `TOO-LONG-${'y'.repeat(LIMITS.secret)}`;
    const error = await store.set(id, secret).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecretInputError);
    expect((error as Error).message).toMatch(/Client secret is too long \(\d+ characters; at most 4096\)/);
    expect((error as Error).message).not.toContain('TOO-LONG');
    expect(await store.get(id)).toBeUndefined();
  });

  it('rejects a secret with a NUL character, which the keychain would silently cut', async () => {
    const id = clientId();
    await expect(store.set(id, 'before\u0000after')).rejects.toThrow(/must not contain a NUL/);
    expect(await store.get(id)).toBeUndefined();
  });
});

describe('KeytarSecretStore without a keychain', () => {
  it('fails with KeychainUnavailableError when the keytar native module cannot load', async () => {
    const missing = new Error("Cannot find module '../build/Release/keytar.node'");
    const broken = new KeytarSecretStore({ loadKeytar: () => Promise.reject(missing) });
    const error = await broken.get(at('client')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeychainUnavailableError);
    expect((error as Error).cause).toBe(missing);
    expect((error as Error).message).toContain('Seller Tray keeps its secrets nowhere else');
  });

  it('says the keytar module is missing beside Seller Tray, not the keyring, when the package was not installed', async () => {
    // What Node says when seller-tray.mjs was copied away from its package's node_modules.
    const notInstalled = Object.assign(
      new Error("Cannot find package 'keytar' imported from /opt/tools/seller-tray.mjs"),
      { code: 'ERR_MODULE_NOT_FOUND' },
    );
    const copied = new KeytarSecretStore({ loadKeytar: () => Promise.reject(notInstalled) });
    const error = (await copied.get(at('client')).catch((e: unknown) => e)) as KeychainUnavailableError;
    expect(error).toBeInstanceOf(KeychainUnavailableError);
    expect(error.advice).toBe(
      "The keytar module, by which Seller Tray reaches the keychain, is not installed beside it: install Seller Tray's package (for the CLI: npm install --global seller-tray-VERSION.tgz, docs/cli.md), not a copy of one of its files; Seller Tray keeps its secrets nowhere else.",
    );
    expect(error.message).not.toContain('gnome-keyring');
    expect(error.reason).toContain("Cannot find package 'keytar'");
  });

  // The Secret Service is reached over D-Bus on Linux only.
  it.runIf(process.platform === 'linux')(
    'says what is missing, exits non-zero and never prints the secret when D-Bus is unreachable',
    async () => {
      const secret = `never-print-me-${randomUUID()}`;
      // An unhandled rejection: Node prints the error with its cause, which is what a log would show.
      const script = [
        `const { KeytarSecretStore } = await import(${JSON.stringify(new URL('./secrets.ts', import.meta.url).href)});`,
        `await new KeytarSecretStore().set({ origin: 'https://m.example', clientId: 'some-client' }, process.env.TEST_SECRET);`,
        `console.log('stored');`,
      ].join('\n');
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(tmpdir(), `no-such-bus-${randomUUID()}`)}`,
        TEST_SECRET: secret,
      };
      delete env.DISPLAY; // else libsecret may try to autolaunch a bus on X11
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
      });
      child.stderr.on('data', (chunk) => {
        output += chunk;
      });
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));

      expect(code).not.toBe(0);
      expect(output).toContain('KeychainUnavailableError');
      expect(output).toContain(
        'No OS keychain is available (Secret Service over D-Bus): install and unlock gnome-keyring or KWallet; ' +
          'Seller Tray keeps its secrets nowhere else.',
      );
      expect(output).not.toContain('stored\n');
      expect(output).not.toContain(secret);
    },
  );
});
