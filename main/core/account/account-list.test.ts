// Removing an account step by step (issue 23), each step made to fail: before its folder is moved
// aside the account goes back as it was; after, the removal is never undone into an empty account
// but kept to be run again. Advice names the account by id, so a label given since to another
// account, or one a shell would read otherwise, never makes it name the wrong one. Labels an
// interrupted removal still goes by are not given to another account.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccountEntry } from '../../../preload/settings-declaration';
import { memorySecrets } from '../../../test/support/memory-secrets';
import type { SecretStore } from '../secrets';
import { ConfSettingsStore, DEFAULT_SETTINGS, defaultAccountLabel, type Settings } from '../settings';
import { AccountListError, removeAccount, renameAccount } from './account-list';
import { accountFolder, accountRef, accountsFolder, keychainEntry } from './account-ref';
import {
  interruptedRemovals,
  interruptedRemovalWords,
  removalTrash,
  settleRemovals,
  takeRemovalLock,
  writeRemovalNote,
} from './removal-notes';

let dataRoot: string;
const frozen: string[] = [];
beforeEach(async () => {
  dataRoot = await mkdtemp(join(tmpdir(), 'account-list-'));
});
afterEach(async () => {
  for (const folder of frozen.splice(0)) thaw(folder);
  await rm(dataRoot, { recursive: true, force: true });
});

const eu = { label: 'EU', baseUrl: 'https://eu.example.com', clientId: 'eu-client' };
const us = { label: 'US', baseUrl: 'https://us.example.com', clientId: 'us-client' };
const euId = accountRef(eu).id;

/**
 * A folder nothing can be moved into or out of, a file nothing can write: immutable for root (whom
 * permissions do not stop), read-only for anyone else.
 */
function freeze(folder: string): void {
  frozen.push(folder);
  if (process.getuid?.() === 0) execFileSync('chattr', ['+i', folder]);
  else execFileSync('chmod', ['0500', folder]);
}
function thaw(folder: string): void {
  if (process.getuid?.() === 0) execFileSync('chattr', ['-i', folder]);
  else execFileSync('chmod', ['0700', folder]);
}

/** A laptop's list (in memory, as the CLI's file), EU's folder with data in it, its secret stored. */
async function laptop(secrets: SecretStore = memorySecrets(), accounts: AccountEntry[] = [us, eu]) {
  let settings: Settings = { ...DEFAULT_SETTINGS, accounts };
  const folder = accountFolder(dataRoot, euId);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'kept.txt'), 'history');
  await secrets.set(keychainEntry(accountRef(eu)), 'eu-secret');
  const ports = {
    secrets,
    dataRoot,
    handOverMs: 0,
    settings: () => settings,
    updateSettings: (change: (current: Settings) => Settings) => {
      settings = change(settings);
      return settings;
    },
  };
  const remove = (which: { label: string } | { id: string }) => removeAccount(which, true, ports);
  return { secrets, folder, ports, remove, labels: () => settings.accounts.map((a) => a.label) };
}

/** A keychain whose deletes fail while `refusing` says so (as a locked or unavailable one does). */
function refusingKeychain() {
  const inner = memorySecrets();
  const state = { refusing: true };
  const secrets: SecretStore = {
    ...inner,
    delete: async (owner) => {
      if (state.refusing) throw new Error('the keychain refused to delete the secret');
      return inner.delete(owner);
    },
  };
  return { secrets, state };
}

/** What removals left: notes and folders moved aside (the turns' lock file stays, empty, by design). */
const leftovers = async () => ({
  notes: existsSync(join(dataRoot, 'removals'))
    ? (await readdir(join(dataRoot, 'removals'))).filter((name) => name.endsWith('.json'))
    : [],
  trash: existsSync(accountsFolder(dataRoot))
    ? (await readdir(accountsFolder(dataRoot))).filter((name) => name.endsWith('.removing'))
    : [],
});

describe('removing an account', () => {
  it('whose secret the keychain refuses to delete, once its folder is gone: keeps it removed, its note kept, and says to run it again by id', async () => {
    const keychain = refusingKeychain();
    const l = await laptop(keychain.secrets);
    const failed = await l.remove({ label: 'EU' }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(AccountListError);
    expect(failed).toMatchObject({
      code: 'removal-unfinished',
      message: `the removal of EU did not finish: the keychain refused to delete the secret; Seller Tray finishes it when it next starts, as seller-tray accounts remove --id ${euId} does now`,
    });
    // Not put back with an empty store: unlisted, its folder gone, what is left is told.
    expect(l.labels()).toEqual(['US']);
    expect(existsSync(l.folder)).toBe(false);
    expect(interruptedRemovals(dataRoot, [us]).map((n) => n.entry)).toEqual([eu]);

    keychain.state.refusing = false;
    const finished = await l.remove({ id: euId });
    expect(finished.entry).toEqual(eu);
    expect(await l.secrets.get(keychainEntry(accountRef(eu)))).toBeUndefined();
    expect(await leftovers()).toEqual({ notes: [], trash: [] });
  });

  it('keeps the secret another listed account uses: the same client at the same marketplace under another path', async () => {
    // One client, two of its marketplace's API paths: two accounts (ids), one keychain entry (origin and client).
    const euV2 = { label: 'EU v2', baseUrl: 'https://eu.example.com/v2', clientId: 'eu-client' };
    const l = await laptop(memorySecrets(), [us, eu, euV2]);
    expect(keychainEntry(accountRef(euV2))).toEqual(keychainEntry(accountRef(eu)));
    await l.remove({ label: 'EU v2' });
    expect(l.labels()).toEqual(['US', 'EU']);
    expect(await l.secrets.get(keychainEntry(accountRef(eu)))).toBe('eu-secret');
    // Its last user removed, it goes.
    await l.remove({ label: 'EU' });
    expect(await l.secrets.get(keychainEntry(accountRef(eu)))).toBeUndefined();
  });

  it('whose folder cannot be moved aside: puts it back where it was, its data and secret as they were', async () => {
    const l = await laptop();
    freeze(accountsFolder(dataRoot));
    const failed = await l.remove({ label: 'eu' }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    expect(failed).not.toBeInstanceOf(AccountListError);
    expect(l.labels()).toEqual(['US', 'EU']);
    expect(existsSync(join(l.folder, 'kept.txt'))).toBe(true);
    expect(await l.secrets.get(keychainEntry(accountRef(eu)))).toBe('eu-secret');
    expect(await leftovers()).toEqual({ notes: [], trash: [] });
  });

  it('whose note cannot be deleted at the end: is still removed, the note left for the next start to drop', async () => {
    const inner = memorySecrets();
    // The removals folder is frozen while the secret is deleted (the first time): the note can no longer go.
    let deletes = 0;
    const secrets: SecretStore = {
      ...inner,
      delete: async (owner) => {
        if (deletes++ === 0) freeze(join(dataRoot, 'removals'));
        return inner.delete(owner);
      },
    };
    const l = await laptop(secrets);
    const removed = await l.remove({ label: 'EU' });
    expect(removed.entry).toEqual(eu);
    expect(l.labels()).toEqual(['US']);
    expect(existsSync(l.folder)).toBe(false);
    thaw(join(dataRoot, 'removals'));
    // Left as an interrupted removal with nothing left to delete: running it again ends it.
    await l.remove({ id: euId });
    expect(await leftovers()).toEqual({ notes: [], trash: [] });
  });

  it('by id finishes the interrupted removal even where another account is listed under its label now', async () => {
    const other = { label: 'eu', baseUrl: 'https://other.example.com', clientId: 'other' };
    const l = await laptop(memorySecrets(), [us, other]);
    writeRemovalNote(dataRoot, { entry: eu, at: 1, automations: [] });
    const removed = await l.remove({ id: euId });
    expect(removed.entry).toEqual(eu);
    expect(l.labels()).toEqual(['US', 'eu']);
    expect(await l.secrets.get(keychainEntry(accountRef(eu)))).toBeUndefined();
    expect(existsSync(l.folder)).toBe(false);
    expect(await leftovers()).toEqual({ notes: [], trash: [] });
  });
});

describe('two removals of one account at once', () => {
  it('take turns: one removes it, the other finds it gone; neither puts it back nor leaves anything', async () => {
    const l = await laptop();
    // The app's Settings and `accounts remove --id` at the same instant (the CLI test runs them as
    // two processes): the second's move of the folder found it moved already (ENOENT) and put the
    // account back, listed without its data.
    const outcomes = await Promise.allSettled([l.remove({ label: 'EU' }), l.remove({ id: euId })]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.byAnother : String(o.reason)))).toEqual([
      false,
      true,
    ]);
    expect(l.labels()).toEqual(['US']);
    expect(existsSync(l.folder)).toBe(false);
    expect(await l.secrets.get(keychainEntry(accountRef(eu)))).toBeUndefined();
    expect(await leftovers()).toEqual({ notes: [], trash: [] });
  });

  it('refuses, touching nothing, when another removal does not end within the wait', async () => {
    const l = await laptop();
    const other = await takeRemovalLock(dataRoot, 0); // another process's removal, stuck at its hand-over
    if (!other) throw new Error('the lock was not free');
    try {
      const ports = { secrets: l.secrets, dataRoot, removalWaitMs: 1_000 };
      const refused = await removeAccount({ label: 'EU' }, true, {
        ...ports,
        settings: () => ({ ...DEFAULT_SETTINGS, accounts: [us, eu] }),
        updateSettings: () => {
          throw new Error('the list is not changed while waiting');
        },
      }).catch((error: unknown) => error);
      expect(refused).toMatchObject({
        code: 'being-removed',
        message:
          'EU was not removed: another removal under way on this computer did not end within 1 s; try again in a moment',
      });
    } finally {
      other();
    }
    expect(existsSync(join(l.folder, 'kept.txt'))).toBe(true);
    expect(await l.secrets.get(keychainEntry(accountRef(eu)))).toBe('eu-secret');
    expect(await leftovers()).toEqual({ notes: [], trash: [] });
    // Its turn come, it removes it.
    expect((await l.remove({ label: 'EU' })).byAnother).toBe(false);
  });
});

describe("the removals' lock file", () => {
  const lockFile = () => join(dataRoot, 'removals', 'under-way.lock');
  /** Anything but an SQLite database there (a disk error, a stray write). */
  async function damagedLock() {
    await mkdir(join(dataRoot, 'removals'), { recursive: true });
    await writeFile(lockFile(), 'not a database '.repeat(40));
  }

  it('damaged, is emptied (it holds nothing) and the removal goes on, taking its turn on it', async () => {
    const l = await laptop();
    await damagedLock();
    expect((await l.remove({ label: 'EU' })).byAnother).toBe(false);
    expect(l.labels()).toEqual(['US']);
    expect(await l.secrets.get(keychainEntry(accountRef(eu)))).toBeUndefined();
  });

  it('damaged and unwritable, refuses the removal in words that name it (lock-unusable), touching nothing', async () => {
    const l = await laptop();
    await damagedLock();
    freeze(lockFile());
    const refused = await l.remove({ label: 'EU' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AccountListError);
    expect(refused).toMatchObject({ code: 'lock-unusable', message: expect.stringContaining(lockFile()) });
    expect(l.labels()).toEqual(['US', 'EU']);
    expect(existsSync(join(l.folder, 'kept.txt'))).toBe(true);
  });

  it('unwritable, never lets two removals have their turn at once (SQLite opens it read-only, locking nothing)', async () => {
    await mkdir(join(dataRoot, 'removals'), { recursive: true });
    await writeFile(lockFile(), '');
    freeze(lockFile());
    const first = await takeRemovalLock(dataRoot, 0).catch((error: unknown) => String(error));
    const second = await takeRemovalLock(dataRoot, 0).catch((error: unknown) => String(error));
    const bothHeld = typeof first === 'function' && typeof second === 'function';
    if (typeof first === 'function') first();
    if (typeof second === 'function') second();
    expect(bothHeld).toBe(false);
  });
});

describe('finishing an interrupted removal (the app after its start)', () => {
  it('leaves alone an account listed again by its turn (brought back meanwhile), and removes it once unlisted and noted', async () => {
    const l = await laptop();
    // The app listed EU's note at its start; `accounts add --id` brought EU back (listed, its
    // note dropped) before the app's finish had its turn.
    const left = await removeAccount({ id: euId }, false, l.ports, { interruptedOnly: true });
    expect(left.byAnother).toBe(true);
    expect(l.labels()).toEqual(['US', 'EU']);
    expect(await l.secrets.get(keychainEntry(accountRef(eu)))).toBe('eu-secret');
    // Noted and unlisted (killed after saving the list), it is finished.
    writeRemovalNote(dataRoot, { entry: eu, at: 1, automations: [] });
    l.ports.updateSettings((current) => ({ ...current, accounts: [us] }));
    expect((await removeAccount({ id: euId }, false, l.ports, { interruptedOnly: true })).byAnother).toBe(
      false,
    );
    expect(existsSync(l.folder)).toBe(false);
    expect(await leftovers()).toEqual({ notes: [], trash: [] });
  });
});

describe('what a removal killed midway left', () => {
  it('is settled: the old note of an account listed again goes, every folder moved aside is deleted, an unlisted one keeps its note', async () => {
    await mkdir(removalTrash(dataRoot, euId), { recursive: true });
    await mkdir(removalTrash(dataRoot, accountRef(us).id), { recursive: true });
    writeRemovalNote(dataRoot, { entry: eu, at: 0, automations: [] });
    writeRemovalNote(dataRoot, { entry: us, at: 1, automations: [] });
    const aMinuteAgo = new Date(Date.now() - 61_000);
    await utimes(join(dataRoot, 'removals', `${euId}.json`), aMinuteAgo, aMinuteAgo);
    settleRemovals(dataRoot, [eu]);
    expect(await leftovers()).toEqual({ notes: [`${accountRef(us).id}.json`], trash: [] });
  });

  it('settles the note of an account listed again that was written before the clock was set back', async () => {
    writeRemovalNote(dataRoot, { entry: eu, at: 0, automations: [] });
    // Written 3 hours "ahead": the clock was set back since (by hand, or NTP), not a removal under way.
    const hoursAhead = new Date(Date.now() + 3 * 3_600_000);
    await utimes(join(dataRoot, 'removals', `${euId}.json`), hoursAhead, hoursAhead);
    settleRemovals(dataRoot, [eu]);
    expect(await leftovers()).toEqual({ notes: [], trash: [] });
  });

  it("leaves a note written a moment ahead of this process's clock: a file's time is finer than Date.now, and another clock may lead by a second", async () => {
    for (const aheadMs of [0.5, 900]) {
      writeRemovalNote(dataRoot, { entry: eu, at: 0, automations: [] });
      const ahead = new Date(Date.now() + aheadMs);
      await utimes(join(dataRoot, 'removals', `${euId}.json`), ahead, ahead);
      settleRemovals(dataRoot, [eu]);
      expect((await leftovers()).notes).toEqual([`${euId}.json`]);
    }
  });

  it('leaves the fresh note of a listed account: a removal under way elsewhere, its list not saved yet', async () => {
    const l = await laptop(memorySecrets(), [us, eu]);
    let file = { ...DEFAULT_SETTINGS, accounts: [us, eu] };
    const seenByOther = file.accounts;
    const killed = await removeAccount({ label: 'EU' }, true, {
      secrets: l.secrets,
      dataRoot,
      handOverMs: 0,
      settings: () => file,
      updateSettings: (change) => {
        // Another process (the app starting, an `accounts` command) settles with the list it read.
        settleRemovals(dataRoot, seenByOther);
        file = change(file);
        throw new Error('killed'); // kill -9 right after the list was saved without EU
      },
    }).catch((error: unknown) => error);
    expect(killed).toMatchObject({ message: 'killed' });
    expect(interruptedRemovals(dataRoot, file.accounts).map((note) => note.entry)).toEqual([eu]);
  });

  it('is told by the app with the label and the reason cleaned, without sending people to the CLI', () => {
    const hostile: AccountEntry = { ...eu, label: 'EU\u001b[2J $(id) -x' };
    const words = interruptedRemovalWords(hostile, 'locked\u202e');
    expect(words).not.toContain('\u001b');
    expect(words).not.toContain('\u202e');
    expect(words).not.toContain('seller-tray ');
    expect(words).toContain('Seller Tray tries again at its next start');
  });
});

describe('finishing an interrupted removal whose label another account has taken since', () => {
  it('refused before the move aside, keeps it an interrupted removal and tells the refusal, not the list that cannot take it back', async () => {
    // Killed during its hand-over: unlisted, its note kept, its folder intact. `login` then gives a
    // new client at that marketplace the same default label (the host name).
    const old = {
      label: defaultAccountLabel('https://eu.example.com', false),
      baseUrl: 'https://eu.example.com',
      clientId: 'c1',
    };
    const oldId = accountRef(old).id;
    await mkdir(accountFolder(dataRoot, oldId), { recursive: true });
    writeRemovalNote(dataRoot, { entry: old, at: 0, automations: [] });
    const store = new ConfSettingsStore({ cwd: dataRoot });
    store.save({ ...DEFAULT_SETTINGS, accounts: [] });
    store.save({ ...store.load().settings, baseUrl: 'https://eu.example.com', clientId: 'c2' });
    expect(store.load().settings.accounts.map((a) => a.label)).toEqual([old.label]);
    freeze(accountsFolder(dataRoot)); // a step before the move aside refuses
    const refused = await removeAccount({ id: oldId }, true, {
      secrets: memorySecrets(),
      dataRoot,
      handOverMs: 0,
      settings: () => store.load().settings,
      updateSettings: (change) => {
        const changed = change(store.load().settings);
        store.save(changed);
        return changed;
      },
    }).catch((error: unknown) => error as Error);
    expect(refused).toBeInstanceOf(Error);
    expect(String(refused)).not.toMatch(/Settings not saved/);
    expect(String(refused)).toMatch(/EPERM|EACCES|permitted|denied/);
    expect(interruptedRemovals(dataRoot, store.load().settings.accounts).map((n) => n.entry)).toEqual([old]);
    expect(existsSync(accountFolder(dataRoot, oldId))).toBe(true);
  });
});

describe('renaming an account', () => {
  it("refuses a label that shows as another account's: an invisible character or a joiner tells none apart", () => {
    const settings = { ...DEFAULT_SETTINGS, accounts: [eu, us] };
    for (const typed of ['U\u200bS', 'u\u200ds'])
      expect(() => renameAccount(settings, { label: 'EU' }, typed, dataRoot)).toThrow(
        'is the label of US already',
      );
  });

  it("refuses a label that is another account's in the other Unicode form (NFC, NFD), and finds an account by its label typed in either", () => {
    const cafe = { ...us, label: 'Caf\u00e9' }; // NFC, as most keyboards type it
    const settings = { ...DEFAULT_SETTINGS, accounts: [eu, cafe] };
    expect(() => renameAccount(settings, { label: 'EU' }, 'Cafe\u0301', dataRoot)).toThrow(
      'is the label of Caf\u00e9 already',
    );
    // macOS hands a label pasted from a file name over as NFD: it names the same account.
    expect(renameAccount(settings, { label: 'cafe\u0301' }, 'Americas', dataRoot).accounts).toEqual([
      eu,
      { ...cafe, label: 'Americas' },
    ]);
  });

  it('refuses the label of an account whose removal was interrupted, in any case, and allows it once the removal is gone', () => {
    const settings = { ...DEFAULT_SETTINGS, accounts: [us] };
    expect(renameAccount(settings, { label: 'US' }, 'eu', dataRoot).accounts).toEqual([
      { ...us, label: 'eu' },
    ]);
    writeRemovalNote(dataRoot, { entry: eu, at: 0, automations: [] });
    expect(() => renameAccount(settings, { label: 'US' }, 'eu', dataRoot)).toThrow(
      `EU is the label of an account whose removal was interrupted (client eu-client at https://eu.example.com): run seller-tray accounts remove --id ${euId} to finish it`,
    );
    expect(renameAccount(settings, { id: accountRef(us).id }, 'Americas', dataRoot).accounts).toEqual([
      { ...us, label: 'Americas' },
    ]);
  });
});
