// `seller-tray run` follows the settings file from its start: a change written while the accounts
// are being opened (after the first read) is not lost; a stop while a change is read opens nothing.
// In process, against the simulator over loopback, with the real settings file and fs.watch.
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../simulator/server';
import { type AccountId, accountFolder, accountRef } from '../core/account/account-ref';
import { reopenWaitMs } from '../core/account/reopen-wait';
import type { Log } from '../core/log';
import { NO_POLICIES } from '../core/policy/layers';
import { DEFAULT_SETTINGS } from '../core/settings';
import { DATABASE_FILE } from '../core/store/account-store';
import { openDatabase, openReadOnly } from '../core/store/database';
import { type CliStores, cliStores, terminalSurface } from './account';
import { WatchFailed, watch } from './session';

let sim: Simulator;
let home: string;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 5, orders: 2 });
  home = await mkdtemp(join(tmpdir(), 'cli-rev-follow-'));
});
afterAll(async () => {
  await sim.close();
  await rm(home, { recursive: true, force: true });
});

const command = (name: string) => ({
  name,
  action: { type: 'command', command: [process.execPath, '-e', '0'] },
});

/** This laptop's settings file: the simulator's account and these automations. */
async function settingsOf(automations: unknown[]): Promise<string> {
  const dataRoot = join(home, 'Seller Tray');
  await mkdir(dataRoot, { recursive: true });
  const file = join(dataRoot, 'settings.json');
  await writeFile(file, JSON.stringify({ baseUrl: sim.url, clientId: 'demo-client', automations }));
  return file;
}

/** What is written to stderr from now on, kept (and not printed); `write` is the real one, to put back. */
function capturedStderr(): { written: string[]; write: typeof process.stderr.write } {
  const written: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string) => {
    written.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  return { written, write };
}

it('an automation added while run opens its accounts is followed', async () => {
  const file = await settingsOf([command('a')]);
  const real = cliStores({ ...process.env, XDG_CONFIG_HOME: home });
  let reads = 0;
  const stores: CliStores = {
    ...real,
    settings: {
      ...real.settings,
      load: () => {
        const loaded = real.settings.load();
        // Another process (the app's Settings, an editor) saves just after run's first read.
        if (++reads === 1) {
          const saved = JSON.parse(readFileSync(file, 'utf8'));
          writeFileSync(file, JSON.stringify({ ...saved, automations: [command('a'), command('b')] }));
        }
        return loaded;
      },
      save: (settings) => real.settings.save(settings),
      reread: () => real.settings.reread?.() ?? { settings: undefined },
    },
  };
  const read: unknown[] = [];
  const log: Log = {
    info: (message, fields) => {
      if (message === 'settings read again') read.push(fields?.automations);
    },
    warn() {},
    error() {},
  };
  const account = {
    ref: accountRef({ baseUrl: sim.url, clientId: 'demo-client' }),
    clientSecret: async () => 'demo-secret',
    surface: terminalSurface(DEFAULT_SETTINGS, NO_POLICIES, 'keychain'),
  };
  const running = watch([account], stores, {
    once: false,
    json: false,
    log,
    automations: {},
    follow: () => [account],
  });
  try {
    const end = Date.now() + 5_000;
    while (!read.includes(2) && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(JSON.parse(await readFile(file, 'utf8')).automations).toHaveLength(2);
    // Both automations in force, from a read after the change.
    expect(read).toContain(2);
  } finally {
    process.emit('SIGTERM');
    await running;
  }
}, 30_000);

it('SIGTERM while run applies a change opens and starts no account after the stop', async () => {
  const other = await startSimulator({ port: 0, seed: 6, orders: 2 });
  const file = await settingsOf([command('a')]);
  const stores = cliStores({ ...process.env, XDG_CONFIG_HOME: home });
  const account = (baseUrl: string, label: string) => ({
    ref: accountRef({ baseUrl, clientId: 'demo-client', label }),
    clientSecret: async () => 'demo-secret',
    surface: terminalSurface(DEFAULT_SETTINGS, NO_POLICIES, 'keychain'),
  });
  const eu = account(sim.url, 'EU');
  const us = account(other.url, 'US');
  const { written, write } = capturedStderr();
  try {
    const running = watch([eu], stores, {
      once: false,
      json: false,
      log: { info() {}, warn() {}, error() {} },
      automations: {},
      // The stop arrives as the change is read (US added): from then on nothing new is served.
      follow: () => {
        process.emit('SIGTERM');
        return [eu, us];
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await writeFile(
      file,
      JSON.stringify({ baseUrl: sim.url, clientId: 'demo-client', automations: [command('b')] }),
    );
    await running;
    const calls = Object.values(other.requestCounts).reduce((sum, n) => sum + n, 0);
    const told = written.filter((line) => line.includes('US'));
    // The next watch of US: its backlog is still a first run's, recorded silently, never printed as new.
    const printed: string[] = [];
    const print = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => {
      printed.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    try {
      await watch([us], stores, { once: true, json: false, log: { info() {}, warn() {}, error() {} } });
    } finally {
      process.stdout.write = print;
    }
    expect({ calls, told, printed }).toEqual({ calls: 0, told: [], printed: [] });
  } finally {
    process.stderr.write = write;
    await other.close();
  }
}, 30_000);

it('a change run cannot use in part or whole is told as the load tells it, once per change', async () => {
  const file = await settingsOf([command('a')]);
  const stores = cliStores({ ...process.env, XDG_CONFIG_HOME: home });
  stores.settings.load();
  const account = {
    ref: accountRef({ baseUrl: sim.url, clientId: 'demo-client' }),
    clientSecret: async () => 'demo-secret',
    surface: terminalSurface(DEFAULT_SETTINGS, NO_POLICIES, 'keychain'),
  };
  const { written, write } = capturedStderr();
  const told = () => written.filter((line) => line.startsWith('seller-tray: Your settings file'));
  const edited = async (automations: unknown, count: number) => {
    await writeFile(
      file,
      typeof automations === 'string'
        ? automations
        : JSON.stringify({ baseUrl: sim.url, clientId: 'demo-client', automations }),
    );
    const end = Date.now() + 5_000;
    while (told().length < count && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
  };
  const bad = (name: string) => ({ name, action: { type: 'webhook', url: 'http://billing.example/hook' } });
  try {
    const running = watch([account], stores, {
      once: false,
      json: false,
      log: { info() {}, warn() {}, error() {} },
      automations: {},
      follow: () => [account],
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    await edited([command('a'), bad('b')], 1);
    await edited([command('a'), bad('b'), command('c')], 1);
    await edited('{"automations": [', 2);
    await edited([command('a'), bad('b'), bad('d')], 3);
    process.emit('SIGTERM');
    await running;
  } finally {
    process.stderr.write = write;
  }
  expect(told()).toEqual([
    expect.stringContaining('automations[1].action.url: the address must use https://'),
    `seller-tray: Your settings file ${file} was unreadable (not valid JSON at line 1, column 18); it was left as it is, and the settings in force stay until it can be used.\n`,
    expect.stringContaining('automations[2].action.url: the address must use https://'),
  ]);
}, 30_000);

/** The long-running commands over an account whose store cannot be opened: `run`, and `watch` of two accounts. */
/** A newer Seller Tray's database in the account's folder (refused, left as it is); answers the folder. */
async function newerDatabaseIn(stores: CliStores, id: AccountId): Promise<string> {
  const folder = accountFolder(stores.dataRoot, id);
  await mkdir(folder, { recursive: true });
  const { db } = openDatabase(join(folder, DATABASE_FILE));
  db.exec('PRAGMA user_version = 999');
  db.close();
  return folder;
}

/** Timers that record the waits asked for and run each at once: a minute is not waited here. */
function hurriedTimers() {
  const asked: number[] = [];
  const timers = {
    setTimeout: (callback: () => void, ms: number) => {
      asked.push(ms);
      return setTimeout(callback, 20);
    },
    clearTimeout: (handle: unknown) => clearTimeout(handle as NodeJS.Timeout),
  };
  return { asked, timers };
}

const LONG_RUNNING = {
  run: {
    others: 0,
    follows: true,
    again:
      'run tries again in 1 minute, the wait doubling to an hour, and at each change of the settings file',
  },
  'watch of two accounts': {
    others: 1,
    follows: false,
    again: 'watch tries again in 1 minute, the wait doubling to an hour',
  },
};

it.each(Object.entries(LONG_RUNNING))(
  '%s: an account whose store cannot be opened is tried again by itself, backing off, and served once it opens',
  async (_, variant) => {
    const other = variant.others > 0 ? await startSimulator({ port: 0, seed: 7, orders: 1 }) : undefined;
    const ownHome = await mkdtemp(join(tmpdir(), 'cli-run-reopen-'));
    const dataRoot = join(ownHome, 'Seller Tray');
    await mkdir(dataRoot, { recursive: true });
    await writeFile(
      join(dataRoot, 'settings.json'),
      JSON.stringify({ baseUrl: sim.url, clientId: 'demo-client', automations: [] }),
    );
    const stores = cliStores({ ...process.env, XDG_CONFIG_HOME: ownHome });
    const account = {
      ref: accountRef({ baseUrl: sim.url, clientId: 'demo-client' }),
      clientSecret: async () => 'demo-secret',
      surface: terminalSurface(DEFAULT_SETTINGS, NO_POLICIES, 'keychain'),
    };
    const folder = await newerDatabaseIn(stores, account.ref.id);
    const { asked, timers } = hurriedTimers();
    const warned: unknown[] = [];
    const log: Log = {
      info() {},
      warn: (message, fields) => warned.push({ message, ...fields }),
      error() {},
    };
    const until = async (done: () => boolean) => {
      const end = Date.now() + 10_000;
      while (!done() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    const accounts = other
      ? [
          account,
          { ...account, ref: accountRef({ baseUrl: other.url, clientId: 'demo-client', label: 'US' }) },
        ]
      : [account];
    const { written, write } = capturedStderr();
    let running: Promise<void> | undefined;
    try {
      running = watch(accounts, stores, {
        once: false,
        json: false,
        log,
        ...(variant.follows ? { automations: {}, follow: () => accounts } : {}),
        timers,
      });
      await until(() => asked.filter((ms) => ms >= 60_000).length >= 3);
      // Mended (the newer version's file moved away): the next try opens it.
      await rm(join(folder, DATABASE_FILE));
      await until(() => written.some((line) => line.includes('is served now')));
      const tries = asked.filter((ms) => ms >= 60_000);
      process.emit('SIGTERM');
      await running;
      expect(written[0]).toMatch(
        /^seller-tray: .* could not be served: .*newer Seller Tray \(data version 999/,
      );
      expect(written[0]).toMatch(new RegExp(`; ${variant.again}\n$`));
      expect(tries.slice(0, 3)).toEqual([60_000, 120_000, 240_000]);
      expect(warned).toContainEqual(
        expect.objectContaining({
          message: expect.stringMatching(/could not be opened/),
          tryAgainInSeconds: 120,
        }),
      );
      expect(written).toContainEqual(
        expect.stringMatching(/^seller-tray: .* is served now: its store opened\n$/),
      );
      // Served: its marketplace's orders are in its store.
      const read = openReadOnly(join(folder, DATABASE_FILE));
      try {
        expect(read.prepare('SELECT count(*) AS n FROM orders').get()).toEqual({ n: 2 });
      } finally {
        read.close();
      }
    } finally {
      process.stderr.write = write;
      if (running) {
        process.emit('SIGTERM');
        await running.catch(() => {});
      }
      await rm(ownHome, { recursive: true, force: true });
      await other?.close();
    }
  },
  30_000,
);

it('the wait before an unopened store is tried again: a minute, doubling, at most an hour', () => {
  expect([1, 2, 3, 4, 5, 6, 7, 20].map(reopenWaitMs)).toEqual([
    60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000,
  ]);
});

it('watch of two accounts whose stores both cannot be opened ends at once (exit 1), promising no try it will not make', async () => {
  const ownHome = await mkdtemp(join(tmpdir(), 'cli-watch-none-'));
  const stores = cliStores({ ...process.env, XDG_CONFIG_HOME: ownHome });
  const surface = terminalSurface(DEFAULT_SETTINGS, NO_POLICIES, 'keychain');
  const accounts = ['EU', 'US'].map((label) => ({
    ref: accountRef({ baseUrl: sim.url, clientId: `${label.toLowerCase()}-client`, label }),
    clientSecret: async () => 'demo-secret',
    surface,
  }));
  for (const { ref } of accounts) await newerDatabaseIn(stores, ref.id);
  const { asked, timers } = hurriedTimers();
  const { written, write } = capturedStderr();
  try {
    const log = { info() {}, warn() {}, error() {} };
    await expect(watch(accounts, stores, { once: false, json: false, log, timers })).rejects.toThrow(
      WatchFailed,
    );
  } finally {
    process.stderr.write = write;
    await rm(ownHome, { recursive: true, force: true });
  }

  expect(written).toEqual([
    expect.stringMatching(/^seller-tray: EU could not be served: .*newer Seller Tray \(data version 999/),
    expect.stringMatching(/^seller-tray: US could not be served: .*newer Seller Tray \(data version 999/),
  ]);
  expect(written.filter((line) => /tries again/.test(line))).toEqual([]);
  expect(asked.filter((ms) => ms >= 60_000)).toEqual([]);
}, 30_000);
