// Review of "removals take turns" (issue 23, session 34): failing tests of what the turns do not
// cover yet: a damaged or read-only lock file, an account added again under another label while
// its removal is under way (the add does not wait its turn), and an add that waited its turn
// saving the list it read before.
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AccountListError, addAccount, removeAccount } from '../main/core/account/account-list';
import { accountFolder, accountRef, keychainEntry } from '../main/core/account/account-ref';
import { takeRemovalLock, writeRemovalNote } from '../main/core/account/removal-notes';
import { DEFAULT_SETTINGS, type Settings } from '../main/core/settings';
import { DATABASE_FILE } from '../main/core/store/account-store';
import { openDatabase } from '../main/core/store/database';
import type { AccountEntry } from '../preload/settings-declaration';
import type { Simulator } from '../simulator/server';
import { memorySecrets } from './support/memory-secrets';
import { oneSellerMarketplace } from './support/one-seller-marketplace';

const EU_CLIENT = { clientId: 'eu-client', clientSecret: 'eu-secret-41c9' };
let market: Simulator;
let dataRoot: string;
beforeAll(async () => {
  market = await oneSellerMarketplace(1, 3000, 2, EU_CLIENT);
});
afterAll(async () => {
  await market.close();
});
beforeEach(async () => {
  dataRoot = await mkdtemp(join(tmpdir(), 'review-removal4-'));
});
afterEach(async () => {
  for (const file of immutable.splice(0)) execFileSync('chattr', ['-i', file]);
  await rm(dataRoot, { recursive: true, force: true });
});

/** A laptop with EU listed, its folder and its secret; the list kept as the CLI's file is. */
async function laptop() {
  const eu = { label: 'EU', baseUrl: market.url, clientId: EU_CLIENT.clientId };
  const secrets = memorySecrets();
  await secrets.set(keychainEntry(accountRef(eu)), EU_CLIENT.clientSecret);
  await mkdir(accountFolder(dataRoot, accountRef(eu).id), { recursive: true });
  let settings: Settings = { ...DEFAULT_SETTINGS, accounts: [eu] };
  return {
    eu,
    secrets,
    current: () => settings,
    save: (next: Settings) => {
      settings = next;
      return settings;
    },
  };
}

/** Made unwritable for this user (root too: immutable, made mutable again after the test). */
async function unwritable(file: string) {
  if (process.getuid?.() !== 0) return chmod(file, 0o444);
  execFileSync('chattr', ['+i', file]);
  immutable.push(file);
}
const immutable: string[] = [];

/**
 * A removal of `entry` held at its hand-over: a process holds its store (`seller-tray run`, an app
 * slow to let it go) with a read under way. Answers once its note is written and the list saved
 * without it; `letGo` ends that process's hold.
 */
async function removalAtHandOver(l: Awaited<ReturnType<typeof laptop>>, entry: AccountEntry) {
  const held = openDatabase(join(accountFolder(dataRoot, accountRef(entry).id), DATABASE_FILE)).db;
  held.exec('BEGIN'); // a read under way: its lock is held until it ends
  held.prepare('SELECT count(*) FROM meta').get();
  let listSaved: () => void = () => {};
  const saved = new Promise<void>((resolve) => {
    listSaved = resolve;
  });
  const removal = removeAccount({ label: entry.label }, true, {
    secrets: l.secrets,
    dataRoot,
    handOverMs: 5_000,
    settings: l.current,
    updateSettings: (change) => {
      const next = l.save(change(l.current()));
      if (!next.accounts.some((a) => a.label === entry.label)) listSaved();
      return next;
    },
  });
  await saved;
  const letGo = () => {
    held.exec('COMMIT');
    held.close();
  };
  return { removal, letGo };
}

describe('review: a damaged lock file of the removals', () => {
  /** Anything but an SQLite database there (a disk error, a stray write), made read-only or not. */
  async function damagedLock(readOnly: boolean) {
    await mkdir(join(dataRoot, 'removals'), { recursive: true });
    const file = join(dataRoot, 'removals', 'under-way.lock');
    await writeFile(file, 'not a database '.repeat(40));
    if (readOnly) await unwritable(file);
  }
  const removal = (l: Awaited<ReturnType<typeof laptop>>) =>
    removeAccount({ label: 'EU' }, true, {
      secrets: l.secrets,
      dataRoot,
      handOverMs: 0,
      removalWaitMs: 500,
      settings: l.current,
      updateSettings: (change) => l.save(change(l.current())),
    });

  it('is emptied (it holds nothing) and the removal goes on, taking its turn on it', async () => {
    const l = await laptop();
    await damagedLock(false);
    expect((await removal(l)).entry.label).toBe('EU');
    expect(l.current().accounts).toEqual([]);
    expect(await l.secrets.get(keychainEntry(accountRef(l.eu)))).toBeUndefined();
  });

  it('that cannot be emptied refuses the removal in words that name it (an AccountListError), nothing touched', async () => {
    const l = await laptop();
    await damagedLock(true);
    const failed = await removal(l).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(AccountListError);
    expect(String(failed)).toContain(join(dataRoot, 'removals', 'under-way.lock'));
    expect(l.current().accounts.map((a) => a.label)).toEqual(['EU']);
  });
});

describe('review: adding the account again under another label while its removal is under way', () => {
  it('keeps the secret just stored (the removal ends before, or the add waits its turn)', async () => {
    const l = await laptop();
    // A process holds EU's store: the removal (the CLI's) has written its note and saved the
    // list without EU, and waits for the hand-over.
    const { removal, letGo } = await removalAtHandOver(l, l.eu);
    let settled = false;
    const settle = () => {
      settled = true;
    };
    removal.then(settle, settle);
    // Meanwhile the user adds that marketplace client again in Settings, as "Europe": not the
    // noted label, but the noted client, so the add waits its turn (till the removal ends).
    const adding = addAccount(
      {
        which: { label: 'Europe' },
        baseUrl: market.url,
        clientId: EU_CLIENT.clientId,
        secret: EU_CLIENT.clientSecret,
      },
      { secrets: l.secrets, dataRoot, settings: l.current },
    );
    let added = false;
    adding.then(() => {
      added = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect({ settled, added }).toEqual({ settled: false, added: false });
    letGo();
    await removal;
    l.save((await adding).settings);

    expect(l.current().accounts.map((a) => a.label)).toEqual(['Europe']);
    // Listed, and its secret stored a moment ago: the removal went on and deleted it (the same
    // keychain entry), leaving "Europe" listed with no secret ("check its secret in Settings").
    expect(await l.secrets.get(keychainEntry(accountRef(l.eu)))).toBe(EU_CLIENT.clientSecret);
  }, 20_000);
});

describe('review: bringing back an interrupted removal (`accounts add --id`) that waited for another removal', () => {
  it('saves the list as that removal left it, not as it was read before the wait', async () => {
    const l = await laptop();
    const euId = accountRef(l.eu).id;
    // EU's removal was interrupted (noted, unlisted); US is listed, its store held by a process.
    const us = { label: 'US', baseUrl: 'https://us.example.com', clientId: 'us-client' };
    writeRemovalNote(dataRoot, { entry: l.eu, at: 0, automations: [] });
    l.save({ ...l.current(), accounts: [us] });
    // `accounts add --id <EU>` read the list (then the secret from stdin) …
    const readByAdd = l.current();
    // … while the app's Settings removes US: its turn taken, the list saved without US, its hand-over waiting.
    const { removal, letGo } = await removalAtHandOver(l, us);
    // Its first read of the list is the one made before; any read after the wait is the file now.
    let reads = 0;
    const adding = addAccount(
      { which: { id: euId }, secret: EU_CLIENT.clientSecret },
      { secrets: l.secrets, dataRoot, settings: () => (reads++ === 0 ? readByAdd : l.current()) },
    );
    await new Promise((resolve) => setTimeout(resolve, 300)); // the add waits its turn
    letGo();
    expect((await removal).entry.label).toBe('US');
    l.save((await adding).settings); // as the CLI saves what addAccount answers
    // US's data and secret are gone: listed again it would be an account with an empty store.
    expect(l.current().accounts.map((a) => a.label)).toEqual(['EU']);
  }, 20_000);
});

describe('review: a lock file this user cannot write', () => {
  it('still lets one removal at a time (or refuses clearly), never two at once', async () => {
    // Read-only (a backup restored so, a file left by another user): SQLite opens it read-only,
    // where BEGIN EXCLUSIVE takes no lock at all, so every removal "had its turn" at once.
    const folder = join(dataRoot, 'removals');
    await mkdir(folder, { recursive: true });
    const file = join(folder, 'under-way.lock');
    await writeFile(file, '');
    await unwritable(file);
    const first = await takeRemovalLock(dataRoot, 0).catch((error: unknown) => String(error));
    const second = await takeRemovalLock(dataRoot, 0).catch((error: unknown) => String(error));
    const bothHeld = typeof first === 'function' && typeof second === 'function';
    if (typeof first === 'function') first();
    if (typeof second === 'function') second();
    expect(bothHeld).toBe(false);
  });
});
