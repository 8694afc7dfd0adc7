// One account's store that cannot be opened (a database a newer Seller Tray wrote, a folder that is
// not one) among several: the app still starts and serves the others, tells whose store it is and
// why, and leaves the file as it is. Real SQLite, two simulators over loopback HTTP.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { accountFolder, accountRef, keychainEntry } from '../main/core/account/account-ref';
import { KeytarSecretStore, secretOwner } from '../main/core/secrets';
import { ConfSettingsStore, DEFAULT_SETTINGS } from '../main/core/settings';
import { DATABASE_FILE } from '../main/core/store/account-store';
import { openDatabase, openReadOnly } from '../main/core/store/database';
import type { Simulator } from '../simulator/server';
import { cliLaptop } from './support/cli-laptop';
import { ManualTimers, makeDataDir } from './support/core';
import { memorySecrets } from './support/memory-secrets';
import { accountsIn, oneSellerMarketplace } from './support/one-seller-marketplace';
import { openTestService, serviceCalls } from './support/test-service';

const EU_CLIENT = { clientId: 'eu-client', clientSecret: 'eu-secret-41c9' };
const US_CLIENT = { clientId: 'us-client', clientSecret: 'us-secret-8d2e' };

let eu: Simulator;
let us: Simulator;
beforeAll(async () => {
  eu = await oneSellerMarketplace(1, 2001, 3, EU_CLIENT);
  us = await oneSellerMarketplace(2, 3001, 4, US_CLIENT);
});
afterAll(async () => {
  await eu.close();
  await us.close();
});

/** What makes EU's store unopenable, and what the user must read of it. */
const UNOPENABLE: Record<string, { spoil: (folder: string) => void; told: RegExp }> = {
  'a database a newer Seller Tray wrote': {
    spoil: (folder) => {
      const { db } = openDatabase(join(folder, DATABASE_FILE));
      db.exec('PRAGMA user_version = 999');
      db.close();
    },
    told: /newer Seller Tray \(data version 999/,
  },
  'a file where its folder goes': {
    spoil: (folder) => {
      rmSync(folder, { recursive: true, force: true });
      writeFileSync(folder, 'not a folder');
    },
    told: /could not read or write its files/,
  },
};

/** A data folder whose settings list EU and US, each with its secret (in memory); EU's folder not made yet. */
async function twoAccounts() {
  const dir = await makeDataDir();
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const accounts = [
    { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId },
    { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId },
  ];
  new ConfSettingsStore({ cwd: dir }).save({ ...DEFAULT_SETTINGS, undoSeconds: 0, accounts });
  const secrets = memorySecrets();
  const [euRef, usRef] = accounts.map((entry) => accountRef(entry));
  if (!euRef || !usRef) throw new Error('two accounts');
  await secrets.set(keychainEntry(euRef), EU_CLIENT.clientSecret);
  await secrets.set(keychainEntry(usRef), US_CLIENT.clientSecret);
  return { dir, secrets, euRef, usRef, euFolder: accountFolder(dir, euRef.id) };
}

describe.each(Object.entries(UNOPENABLE))('one account of two with %s', (_, { spoil, told }) => {
  it('leaves the app started, the other account served, and tells whose store and why', async () => {
    const { dir, secrets, euRef, usRef, euFolder } = await twoAccounts();
    mkdirSync(euFolder, { recursive: true });
    spoil(euFolder);

    const { service, events } = await openTestService(dir, { secrets });
    onTestFinished(() => service.close());
    const { call } = serviceCalls(service);
    await call('checkNow');

    const problems = events.flatMap((e) => (e.type === 'problem' ? [e.message] : []));
    expect(problems).toEqual([expect.stringMatching(told)]);
    expect(problems[0]).toMatch(/^EU: /);
    const state = service.state();
    // The window shows the account served, not the onboarding a first account without a secret gets.
    expect(state.setup).toBe('configured');
    expect(state.connection).toBe('ok');
    expect(state.accounts.map((a) => [a.label, a.open])).toEqual([
      ['EU', false],
      ['US', true],
    ]);
    expect(state.accounts[0]?.problem?.message).toMatch(told);
    const page = await call('listOrders', { backlog: 'shown', offset: 0, limit: 50 });
    expect(page.total).toBe(4);
    expect(new Set(page.orders.map((row) => row.account))).toEqual(new Set([usRef.id]));
    // Its own orders asked for (the window's account filter): why it is closed, not "enter the secret".
    await expect(call('listOrders', { account: euRef.id, offset: 0, limit: 50 })).rejects.toThrow(told);

    // Met again at each connect (a settings change), told once, never stopping the others.
    await call('renameAccount', { account: usRef.id, label: 'Americas' });
    expect(service.state().accounts.map((a) => [a.label, a.open])).toEqual([
      ['EU', false],
      ['Americas', true],
    ]);
    expect(events.filter((e) => e.type === 'problem')).toHaveLength(1);
  }, 30_000);
});

describe('an account whose store could not be opened, once mended', () => {
  it('opens at the next Check now, as its message says to try again', async () => {
    const { dir, secrets, euFolder } = await twoAccounts();
    mkdirSync(dirname(euFolder), { recursive: true });
    writeFileSync(euFolder, 'not a folder');

    const { service } = await openTestService(dir, { secrets });
    onTestFinished(() => service.close());
    const { call } = serviceCalls(service);
    await call('checkNow');
    expect(service.state().accounts[0]?.problem?.message).toMatch(/Try again/);

    // The user mends it (frees space, makes the folder writable) and tries again.
    rmSync(euFolder);
    await call('checkNow');

    const state = service.state();
    expect(state.accounts.map((a) => [a.label, a.open, a.problem])).toEqual([
      ['EU', true, null],
      ['US', true, null],
    ]);
    const page = await call('listOrders', { backlog: 'shown', offset: 0, limit: 50 });
    expect(page.total).toBe(7);
  }, 30_000);
});

describe('an account whose store could not be opened, the app left running', () => {
  it('is tried again by itself, a minute after, the wait doubling, and served once it opens', async () => {
    const { dir, secrets, euFolder } = await twoAccounts();
    mkdirSync(dirname(euFolder), { recursive: true });
    writeFileSync(euFolder, 'not a folder');
    const timers = new ManualTimers();
    const { service, events } = await openTestService(dir, { secrets, timers });
    onTestFinished(() => service.close());
    const euOpen = () => service.state().accounts[0]?.open;
    expect(euOpen()).toBe(false);

    // Nobody presses Check now: after a minute it is tried again, still failing, then after two.
    expect(timers.pendingDelays).toContain(60_000);
    timers.fire(60_000);
    await until(() => timers.pendingDelays.includes(120_000));
    expect(euOpen()).toBe(false);
    // Told once, not at each try.
    expect(events.filter((e) => e.type === 'problem')).toHaveLength(1);

    rmSync(euFolder); // mended
    timers.fire(120_000);
    await until(() => euOpen() === true);
    expect(service.state().accounts.map((a) => [a.label, a.open, a.problem])).toEqual([
      ['EU', true, null],
      ['US', true, null],
    ]);
    // Nothing more to try: no wait of the schedule left.
    expect(timers.pendingDelays.filter((ms) => ms >= 60_000 && ms % 60_000 === 0)).toEqual([]);
  }, 30_000);
});

describe('an account whose store could not be opened, the app closing as it is tried again', () => {
  it('is not opened after the close: its polls never start', async () => {
    const { dir, secrets, euFolder } = await twoAccounts();
    mkdirSync(dirname(euFolder), { recursive: true });
    writeFileSync(euFolder, 'not a folder');
    // Once held, the keychain answers only after the app closed (a keyring slow to unlock).
    let held = false;
    const asked = signal();
    const closed = signal();
    const slowSecrets = {
      ...secrets,
      get: async (owner: Parameters<typeof secrets.get>[0]) => {
        if (held) {
          asked.fire();
          await closed.fired;
        }
        return secrets.get(owner);
      },
    };
    const timers = new ManualTimers();
    const { service } = await openTestService(dir, { secrets: slowSecrets, timers });
    rmSync(euFolder); // mended: the next try would open it

    held = true;
    timers.fire(60_000);
    await asked.fired;
    const euRequests = () => Object.values(eu.requestCounts).reduce((sum, n) => sum + n, 0);
    const before = euRequests();
    await service.close();
    closed.fire();
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect(euRequests() - before).toBe(0);
  }, 30_000);
});

/** A promise (`fired`) resolved by `fire()`. */
function signal(): { fired: Promise<void>; fire: () => void } {
  let fire = () => {};
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { fired, fire };
}

/** Waits (at most 10 s) until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!done() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('the one account, its store unopenable', () => {
  it('is shown as set up, with why it is closed, not the onboarding of a computer with no account', async () => {
    const dir = await makeDataDir();
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const entry = { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId };
    new ConfSettingsStore({ cwd: dir }).save({ ...DEFAULT_SETTINGS, undoSeconds: 0, accounts: [entry] });
    const secrets = memorySecrets();
    const ref = accountRef(entry);
    await secrets.set(keychainEntry(ref), EU_CLIENT.clientSecret);
    const folder = accountFolder(dir, ref.id);
    mkdirSync(folder, { recursive: true });
    UNOPENABLE['a database a newer Seller Tray wrote']?.spoil(folder);

    const { service } = await openTestService(dir, { secrets });
    onTestFinished(() => service.close());
    await serviceCalls(service).call('checkNow');

    const state = service.state();
    expect(state.setup).toBe('configured');
    expect(state.problem?.message).toMatch(/newer Seller Tray \(data version 999/);
    expect(state.accounts.map((a) => [a.label, a.open])).toEqual([['EU', false]]);
  }, 30_000);
});

describe('seller-tray watch over two accounts, one store unopenable', () => {
  it('serves the other and tells whose store and why (exit 1 for --once: not all were served)', async () => {
    const { home, dataRoot, cli } = await cliLaptop('unopenable-cli-');
    const secrets = new KeytarSecretStore();
    onTestFinished(async () => {
      await secrets.delete(secretOwner(eu.url, EU_CLIENT.clientId));
      await secrets.delete(secretOwner(us.url, US_CLIENT.clientId));
      await rm(home, { recursive: true, force: true });
    });
    await accountsIn(
      dataRoot,
      { EU: { marketplace: eu, client: EU_CLIENT }, US: { marketplace: us, client: US_CLIENT } },
      secrets,
    );
    const euRef = accountRef({ label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId });
    const usRef = accountRef({ label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId });
    const euFolder = accountFolder(dataRoot, euRef.id);
    mkdirSync(euFolder, { recursive: true });
    UNOPENABLE['a database a newer Seller Tray wrote']?.spoil(euFolder);

    const watch = await cli(['watch', '--once', '--json']);

    expect(watch.stderr).toMatch(
      /^seller-tray: EU could not be served: .*newer Seller Tray \(data version 999/m,
    );
    expect(watch.code).toBe(1);
    // US was read: its store holds its marketplace's orders.
    const db = openReadOnly(join(accountFolder(dataRoot, usRef.id), DATABASE_FILE));
    try {
      expect(db.prepare('SELECT count(*) AS n FROM orders').get()).toEqual({ n: 4 });
    } finally {
      db.close();
    }
  }, 60_000);
});
