// A data folder on a read-only disk (a disk the system remounted read-only after errors, a
// snapshot): the app starts and tells, for each account, that it cannot save its files and why;
// the CLI's commands that only read (accounts list, a marketplace's orders) work. Real processes
// in a mount namespace of their own (unshare) where the folder is mounted read-only, the real
// keychain, two simulators over loopback HTTP.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeytarSecretStore, secretOwner } from '../main/core/secrets';
import type { Simulator } from '../simulator/server';
import { firstStart, oneSellerMarketplace } from './support/one-seller-marketplace';
import { runTs } from './support/processes';

const EU_CLIENT = { clientId: 'eu-client', clientSecret: 'eu-secret-41c9' };
const US_CLIENT = { clientId: 'us-client', clientSecret: 'us-secret-8d2e' };

/** Runs `command` with `folder` mounted read-only for it alone (a mount namespace of its own, as root of a user namespace). */
const READ_ONLY = [
  '-r',
  '-m',
  'sh',
  '-c',
  'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"',
  'read-only',
];

function canMountReadOnly(): boolean {
  try {
    execFileSync('unshare', [...READ_ONLY, tmpdir(), 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A TypeScript entry point of this repository run to its end, `folder` read-only or not. */
const run = (entry: string, args: string[], env: NodeJS.ProcessEnv, folder?: string) =>
  runTs(entry, args, env, '', folder ? { under: ['unshare', ...READ_ONLY, folder] } : {});

const secrets = new KeytarSecretStore();
let eu: Simulator;
let us: Simulator;
let home: string;
beforeAll(async () => {
  eu = await oneSellerMarketplace(1, 2001, 3, EU_CLIENT);
  us = await oneSellerMarketplace(2, 3001, 4, US_CLIENT);
  home = await mkdtemp(join(tmpdir(), 'read-only-home-'));
});
afterAll(async () => {
  await eu.close();
  await us.close();
  await secrets.delete(secretOwner(eu.url, EU_CLIENT.clientId));
  await secrets.delete(secretOwner(us.url, US_CLIENT.clientId));
  await rm(home, { recursive: true, force: true });
});

describe.skipIf(!canMountReadOnly())(
  'a data folder on a read-only disk (needs unshare with user namespaces)',
  () => {
    it('the app starts and says why it cannot save, for each account; the CLI reads', async () => {
      const dataRoot = join(home, 'Seller Tray');
      const env = { XDG_CONFIG_HOME: home };
      // A first start on the writable folder: both stores made and read.
      const accounts = {
        EU: { marketplace: eu, client: EU_CLIENT },
        US: { marketplace: us, client: US_CLIENT },
      };
      expect(await firstStart(dataRoot, accounts, secrets, env)).toBe(7);

      const app = await run('test/support/app-service-child.ts', [dataRoot], env, dataRoot);
      expect(app.code, app.stderr).toBe(0);
      const started = JSON.parse(app.stdout);
      const readOnly = /read-only disk, so it could not save its files/;
      expect(started.problems).toEqual([
        expect.stringMatching(/^EU: .*read-only disk/),
        expect.stringMatching(/^US: .*read-only disk/),
      ]);
      for (const account of started.accounts)
        expect(account).toMatchObject({ open: false, problem: expect.stringMatching(readOnly) });

      const list = await run('main/cli/seller-tray.ts', ['accounts', 'list'], env, dataRoot);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toMatch(/^EU\t.*\nUS\t/);
      const orders = await run(
        'main/cli/seller-tray.ts',
        ['orders', 'list', '--account', 'US', '--json'],
        env,
        dataRoot,
      );
      expect(orders.code, orders.stderr).toBe(0);
      expect(JSON.parse(orders.stdout)).toHaveLength(4);
      // What needs the store says why it cannot, in words, the system's own after them.
      const watch = await run(
        'main/cli/seller-tray.ts',
        ['watch', '--once', '--account', 'US'],
        env,
        dataRoot,
      );
      expect(watch.code).toBe(1);
      expect(watch.stderr).toMatch(
        /^seller-tray: Seller Tray's folder is on a read-only disk, so it could not save its files; .*\nseller-tray: EROFS: read-only file system/,
      );
    }, 60_000);
  },
);
