// A disk that fills while a file that must survive a crash is written (the journal, its refused
// statuses, a removal's note): the write fails, saying so, and the file keeps what it held, with no
// partial copy left to take the space. A real full file system: a small tmpfs in a mount namespace
// of its own (unshare), where a write runs out of room part way (write(2) then returns a short count).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/processes';

/** Runs the rest with a 64 KiB tmpfs mounted at `$1`, for it alone (as root of a user namespace). */
const SMALL_DISK = [
  '-r',
  '-m',
  'sh',
  '-c',
  'mount -t tmpfs -o size=64k tmpfs "$1" && shift && exec "$@"',
  'small-disk',
];

function canMount(): boolean {
  try {
    execFileSync('unshare', [...SMALL_DISK, tmpdir(), 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Written with 16 KiB free: a file of 4 KiB, then one of 40 KiB over it; what came of each. */
const WRITE_ON_FULL_DISK = `
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { writeFileDurably } from './main/core/durable-file.ts';
const [folder] = process.argv.slice(1);
const file = folder + '/seller-tray.journal.json';
writeFileDurably(file, 'a'.repeat(4096));
writeFileSync(folder + '/filler', Buffer.alloc(44 * 1024));
let failure;
try {
  writeFileDurably(file, 'b'.repeat(40 * 1024));
} catch (error) {
  failure = error.code;
}
const kept = readFileSync(file, 'utf8');
console.log(JSON.stringify({ failure, kept: { length: kept.length, same: kept === 'a'.repeat(4096) }, files: readdirSync(folder).sort() }));
`;

/** The settings file saved small, then, with 16 KiB free, saved with a list of 40 KiB: what came of it. */
const SETTINGS_ON_FULL_DISK = `
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { ConfSettingsStore, DEFAULT_SETTINGS } from './main/core/settings.ts';
const [folder] = process.argv.slice(1);
const account = (n) => ({ label: 'Account ' + n, baseUrl: 'https://marketplace-' + n + '.example/api', clientId: 'client-' + n + '-'.padEnd(60, 'x') });
const store = new ConfSettingsStore({ cwd: folder });
store.save({ ...DEFAULT_SETTINGS, accounts: [account(0)] });
const before = readFileSync(folder + '/settings.json', 'utf8');
writeFileSync(folder + '/filler', Buffer.alloc(44 * 1024));
let failure;
try {
  store.save({ ...DEFAULT_SETTINGS, accounts: Array.from({ length: 300 }, (_, n) => account(n)) });
} catch (error) {
  failure = error.code;
}
const kept = readFileSync(folder + '/settings.json', 'utf8');
console.log(JSON.stringify({ failure, same: kept === before, files: readdirSync(folder).sort() }));
`;

/**
 * A settings file with a setting that cannot be used (20 KiB of it) read with 8 KiB free, then read
 * again once room was made: what the copy of what was left out holds then.
 */
const LEFT_OUT_ON_FULL_DISK = `
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { ConfSettingsStore } from './main/core/settings.ts';
const [folder] = process.argv.slice(1);
const unusable = 'x'.repeat(20 * 1024);
writeFileSync(folder + '/settings.json', JSON.stringify({ settingsVersion: 2, undoSeconds: unusable }));
writeFileSync(folder + '/filler', Buffer.alloc(32 * 1024));
new ConfSettingsStore({ cwd: folder }).load();
rmSync(folder + '/filler');
const { problem } = new ConfSettingsStore({ cwd: folder }).load();
const copy = /kept in (\\S+settings\\.json\\.left-out-[0-9a-f]{12})/.exec(problem ?? '')?.[1];
let kept;
try {
  kept = JSON.parse(readFileSync(copy, 'utf8')).undoSeconds === unusable;
} catch (error) {
  kept = String(error);
}
console.log(JSON.stringify({ problem, kept }));
`;

/** Runs `script` (with its folder as its argument) on a small disk of its own: what it printed. */
async function onSmallDisk(script: string): Promise<unknown> {
  const folder = await mkdtemp(join(tmpdir(), 'full-disk-'));
  try {
    const run = spawnSync(
      'unshare',
      [
        ...SMALL_DISK,
        folder,
        process.execPath,
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        script,
        folder,
      ],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    expect(run.status, run.stderr).toBe(0);
    return JSON.parse(run.stdout);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

describe.skipIf(!canMount())(
  'a durable write on a disk that fills (needs unshare with user namespaces)',
  () => {
    it('fails with ENOSPC, the file keeps what it held, no partial copy is left', async () => {
      expect(await onSmallDisk(WRITE_ON_FULL_DISK)).toEqual({
        failure: 'ENOSPC',
        kept: { length: 4096, same: true },
        files: ['filler', 'seller-tray.journal.json'],
      });
    });

    it('a settings save fails with ENOSPC and the file keeps the accounts it held', async () => {
      expect(await onSmallDisk(SETTINGS_ON_FULL_DISK)).toEqual({
        failure: 'ENOSPC',
        same: true,
        files: ['filler', 'settings.json'],
      });
    });

    it('the copy of settings left out, written on a full disk, is whole once there is room', async () => {
      const { kept, problem } = (await onSmallDisk(LEFT_OUT_ON_FULL_DISK)) as {
        kept: unknown;
        problem: string;
      };
      expect(problem).toMatch(/kept in \S+settings\.json\.left-out-/);
      expect(kept).toBe(true);
    });
  },
);
