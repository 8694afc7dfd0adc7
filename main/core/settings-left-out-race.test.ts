// The left-out copies of the settings file (issue 23): another Seller Tray process (the CLI, the
// app) prunes the settings folder while this one names a copy it found, or the copy's time cannot
// be set; a read that only relabels.
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** When set, the next utimesSync first deletes its file: the other process's prune, just then. */
let pruneBeforeTouch = false;
/** When set, the next utimesSync fails as a file system that refuses to set times. */
let refuseTouch = false;
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return {
    ...actual,
    utimesSync: (file: fs.PathLike, atime: fs.TimeLike, mtime: fs.TimeLike) => {
      if (refuseTouch) {
        refuseTouch = false;
        throw Object.assign(new Error('EPERM: operation not permitted, utime'), { code: 'EPERM' });
      }
      if (pruneBeforeTouch) {
        pruneBeforeTouch = false;
        actual.rmSync(file, { force: true });
      }
      return actual.utimesSync(file, atime, mtime);
    },
  };
});

const { ConfSettingsStore } = await import('./settings');

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(tmpdir(), 'left-out-race-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const EU = { label: 'EU', baseUrl: 'https://eu.marketplace.example', clientId: 'eu-client' };
/** A settings file listing EU and `second`. */
const withSecondAccount = (second: unknown) =>
  fs.writeFileSync(
    path.join(dir, 'settings.json'),
    JSON.stringify({
      settingsVersion: 2,
      baseUrl: EU.baseUrl,
      clientId: EU.clientId,
      accounts: [EU, second],
    }),
  );

describe('a left-out copy pruned by another process as this one names it', () => {
  it('is written again, so the message names a copy that holds what was left out', () => {
    withSecondAccount({ label: 'Bad', baseUrl: 'ftp://bad.example', clientId: 'bad-1' });
    // A first start writes the copy; a second finds it, and the other process deletes it just then.
    expect(new ConfSettingsStore({ cwd: dir }).load().problem).toMatch(/kept in \S+: /);
    pruneBeforeTouch = true;
    const { problem } = new ConfSettingsStore({ cwd: dir }).load();
    const named = /kept in (\S+): /.exec(problem ?? '')?.[1];
    expect(named).toBeDefined();
    expect(fs.readFileSync(named ?? '', 'utf8')).toContain('bad-1');
  });

  it('is still named when only its time cannot be set (the copy is there)', () => {
    withSecondAccount({ label: 'Bad', baseUrl: 'ftp://bad.example', clientId: 'bad-1' });
    new ConfSettingsStore({ cwd: dir }).load();
    refuseTouch = true;
    const named = /kept in (\S+): /.exec(new ConfSettingsStore({ cwd: dir }).load().problem ?? '')?.[1];
    expect(fs.readFileSync(named ?? '', 'utf8')).toContain('bad-1');
  });
});

describe('a read that only relabels an account', () => {
  it('writes no copy of nothing and names none (an empty copy would take one of the kept slots)', () => {
    withSecondAccount({ ...EU, label: 'eu ', clientId: 'eu-2' });
    const { problem } = new ConfSettingsStore({ cwd: dir }).load();
    expect(problem).toContain('kept as "eu (eu-2)"');
    expect(problem).not.toContain('What was left out is kept in');
    expect(fs.readdirSync(dir).filter((name) => name.includes('.left-out-'))).toEqual([]);
  });
});
