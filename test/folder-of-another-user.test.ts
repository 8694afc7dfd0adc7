import { execFile, execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountFolder, accountId } from '../main/core/account/account-ref';
import { KeytarSecretStore, secretOwner } from '../main/core/secrets';
import { ConfSettingsStore, DEFAULT_SETTINGS } from '../main/core/settings';
import { logsDir } from '../main/file-log';
import type { Simulator } from '../simulator/server';
import { firstStart, oneSellerMarketplace } from './support/one-seller-marketplace';
import { runTs } from './support/processes';

const EU_CLIENT = { clientId: 'eu-client', clientSecret: 'eu-secret-5a10' };
const US_CLIENT = { clientId: 'us-client', clientSecret: 'us-secret-77c3' };
/** The other user, who owns the folder; and the user Seller Tray runs as where it is not root. */
const OWNER = 4242;
const USER = 4243;

/** A TypeScript entry point of this repository run to its end, as `uid` (this process's when absent). */
const run = (entry: string, args: string[], env: NodeJS.ProcessEnv, uid?: number) =>
  runTs(entry, args, env, '', { uid });

/**
 * The words for `folder`, in full: which, why, what to do (the command quoted for a shell); to root,
 * who would hand the folder to itself with that command, to run Seller Tray as its user instead.
 */
function refusal(folder: string, owner: string, byRoot = false): RegExp {
  const quoted = folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const advice = byRoot
    ? 'Seller Tray runs as root here: run it as that user instead, without sudo\\.'
    : `If it should be yours, make it yours with: sudo chown -R \\$USER '${quoted}' \\(or run Seller Tray as the user it belongs to\\)\\.`;
  return new RegExp(
    `Seller Tray's folder '${quoted}' belongs to ${owner}, who could replace the files Seller Tray keeps there, so Seller Tray does not use it\\. ${advice}`,
  );
}

/** Whether `program` is on the PATH. */
const onPath = (program: string) =>
  (process.env.PATH ?? '').split(delimiter).some((dir) => existsSync(join(dir, program)));

/**
 * Whether `mount` (run with a folder to mount a FUSE disk on, and a scratch folder beside it)
 * mounts here, as root: tried once. /dev/fuse may be there while mounting is not allowed (a
 * container without CAP_SYS_ADMIN), and a FUSE program may even end well without a mount.
 */
function fuseMounts(programs: string[], mount: (disk: string, scratch: string) => void): boolean {
  if (process.getuid?.() !== 0 || !existsSync('/dev/fuse') || !programs.every(onPath)) return false;
  const scratch = mkdtempSync(join(tmpdir(), 'fuse-trial-'));
  const disk = join(scratch, 'disk');
  mkdirSync(disk);
  try {
    mount(disk, scratch);
  } catch {
    return false;
  }
  try {
    return statSync(disk).dev !== statSync(scratch).dev;
  } finally {
    try {
      execFileSync('umount', [disk], { stdio: 'ignore' });
    } catch {
      // Not mounted: nothing to undo.
    }
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A FAT disk, as the FAT case mounts it (mkfs.fat, fusefat). */
const fatMounts = fuseMounts(['truncate', 'mkfs.fat', 'fusefat'], (disk, scratch) => {
  const image = join(scratch, 'fat.img');
  execFileSync('truncate', ['-s', '8M', image]);
  execFileSync('mkfs.fat', [image], { stdio: 'ignore' });
  execFileSync('fusefat', ['-o', 'rw+,allow_other', image, disk], { stdio: 'ignore', timeout: 20_000 });
});
/** A folder bound elsewhere, as the bindfs case mounts it. */
const bindfsMounts = fuseMounts(['bindfs'], (disk, scratch) => {
  const under = join(scratch, 'under');
  mkdirSync(under);
  execFileSync('bindfs', ['-o', 'allow_other', under, disk], { stdio: 'ignore', timeout: 20_000 });
});

/** What a folder holds and who may use it: unchanged where Seller Tray did not use it. */
const lookOf = (folder: string) => {
  const { uid, mode } = statSync(folder);
  return { uid, mode: mode & 0o777, files: readdirSync(folder).sort() };
};

const secrets = new KeytarSecretStore();
let eu: Simulator;
let us: Simulator;
let home: string;
beforeAll(async () => {
  eu = await oneSellerMarketplace(1, 2001, 3, EU_CLIENT);
  us = await oneSellerMarketplace(2, 3001, 4, US_CLIENT);
  home = await mkdtemp(join(tmpdir(), 'foreign-folder-home-'));
  chmodSync(home, 0o755); // the user Seller Tray runs as reaches the folder in it
});
afterAll(async () => {
  await eu.close();
  await us.close();
  await secrets.delete(secretOwner(eu.url, EU_CLIENT.clientId));
  await secrets.delete(secretOwner(us.url, US_CLIENT.clientId));
  await rm(home, { recursive: true, force: true });
});

describe.runIf(process.getuid?.() === 0)('a folder of Seller Tray owned by another user (needs root)', () => {
  it('the data folder is not used by the CLI nor the app, whoever runs them; each says why once', async () => {
    const xdg = join(home, 'one');
    mkdirSync(xdg, { mode: 0o755 });
    const dataRoot = join(xdg, 'Seller Tray');
    new ConfSettingsStore({ cwd: dataRoot }).save({
      ...DEFAULT_SETTINGS,
      accounts: [{ label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId }],
    });
    chmodSync(dataRoot, 0o755);
    chownSync(dataRoot, OWNER, OWNER);
    for (const file of readdirSync(dataRoot)) chownSync(join(dataRoot, file), OWNER, OWNER);
    const before = lookOf(dataRoot);
    const env = { XDG_CONFIG_HOME: xdg, HOME: home };
    const words = refusal(dataRoot, 'another user \\(user id 4242\\)');

    // Another user's, as the user Seller Tray runs as sees it (it cannot make it private).
    const list = await run('main/cli/seller-tray.ts', ['accounts', 'list'], env, USER);
    expect(list.code).toBe(1);
    expect(list.stdout).toBe('');
    expect(list.stderr).toMatch(new RegExp(`^seller-tray: ${words.source}\n$`));
    const preview = await run('main/preview/cli.ts', ['--port', '0', '--data-dir', dataRoot], env, USER);
    expect(preview.code).toBe(1);
    expect(preview.stdout).toBe('');
    expect(preview.stderr).toMatch(new RegExp(`^preview: ${words.source}\n$`));

    // Root could make it private, but it still is another user's (whose settings name commands to run).
    const asRoot = await run('main/cli/seller-tray.ts', ['accounts', 'list'], env);
    expect(asRoot.code).toBe(1);
    const toRoot = refusal(dataRoot, 'another user \\(user id 4242\\)', true);
    expect(asRoot.stderr).toMatch(new RegExp(`^seller-tray: ${toRoot.source}\n$`));
    expect(lookOf(dataRoot)).toEqual(before);
  }, 60_000);

  it.runIf(fatMounts)(
    "on a FAT disk root mounted (every file root's), is sent to the mount's options, not to chown, which fails there",
    async () => {
      // A real FAT file system, through FUSE (no vfat module here), mounted by root as sudo would.
      const image = join(home, 'fat.img');
      const disk = join(home, 'usb');
      mkdirSync(disk);
      await promisify(execFile)('truncate', ['-s', '8M', image]);
      await promisify(execFile)('mkfs.fat', [image]);
      await promisify(execFile)('fusefat', ['-o', 'rw+,allow_other', image, disk]);
      try {
        const dataRoot = join(disk, 'Seller Tray');
        const list = await run(
          'main/cli/seller-tray.ts',
          ['accounts', 'list'],
          { XDG_CONFIG_HOME: disk },
          USER,
        );
        expect(list.code).toBe(1);
        expect(statSync(dataRoot).uid).toBe(0);
        expect(list.stderr).toBe(
          `seller-tray: Seller Tray's folder '${dataRoot}' belongs to root, who could replace the files Seller Tray keeps there, so Seller Tray does not use it. Its disk keeps no owners (FAT, exFAT and NTFS disks show every file as the user's who mounted them), so chown cannot change that there: have it mounted with your user's ids (sudo mount -o uid=$(id -u),gid=$(id -g) DEVICE FOLDER), or keep Seller Tray's folder on another disk.\n`,
        );
        // As the advice says: what chown would do fails there.
        expect(() => chownSync(dataRoot, USER, USER)).toThrow();
      } finally {
        await promisify(execFile)('umount', [disk]);
      }
    },
    60_000,
  );

  it.runIf(bindfsMounts)(
    'on a FUSE disk that keeps owners (bindfs, as sshfs, gocryptfs, mergerfs), is sent to chown, which works there',
    async () => {
      const under = join(home, 'under-bindfs');
      const disk = join(home, 'bindfs');
      mkdirSync(under, { mode: 0o755 });
      mkdirSync(disk);
      await promisify(execFile)('bindfs', ['-o', 'allow_other', under, disk]);
      try {
        const xdg = join(disk, 'xdg');
        mkdirSync(xdg, { mode: 0o755 });
        const dataRoot = join(xdg, 'Seller Tray');
        mkdirSync(dataRoot, { mode: 0o755 });
        chownSync(dataRoot, OWNER, OWNER);
        const list = await run(
          'main/cli/seller-tray.ts',
          ['accounts', 'list'],
          { XDG_CONFIG_HOME: xdg },
          USER,
        );
        expect(list.code).toBe(1);
        expect(list.stderr).toMatch(
          new RegExp(`^seller-tray: ${refusal(dataRoot, 'another user \\(user id 4242\\)').source}\n$`),
        );
        // As the advice says: chown works there.
        chownSync(dataRoot, USER, USER);
        expect(statSync(dataRoot).uid).toBe(USER);
      } finally {
        await promisify(execFile)('umount', [disk]);
      }
    },
    60_000,
  );

  it("an account's folder and the log folder another user owns are not used; the rest works", async () => {
    const xdg = join(home, 'two');
    mkdirSync(xdg, { mode: 0o755 });
    const dataRoot = join(xdg, 'Seller Tray');
    const env = { XDG_CONFIG_HOME: xdg };
    const accounts = {
      EU: { marketplace: eu, client: EU_CLIENT },
      US: { marketplace: us, client: US_CLIENT },
    };
    expect(await firstStart(dataRoot, accounts, secrets, env)).toBe(7);

    // As `sudo` leaves them: the US account's folder, and the log folder, user id 4242's.
    const usFolder = accountFolder(dataRoot, accountId(us.url, US_CLIENT.clientId));
    const logs = logsDir(dataRoot);
    for (const folder of [usFolder, logs]) {
      chmodSync(folder, 0o777);
      chownSync(folder, OWNER, OWNER);
      for (const file of readdirSync(folder)) chownSync(join(folder, file), OWNER, OWNER);
    }
    const usBefore = lookOf(usFolder);
    const logsBefore = { ...lookOf(logs), size: statSync(join(logs, 'main.log')).size };
    const owner = 'another user \\(user id 4242\\)';

    const app = await run('test/support/app-service-child.ts', [dataRoot], env);
    expect(app.code, app.stderr).toBe(0);
    const started = JSON.parse(app.stdout);
    expect(started.problems).toEqual([
      expect.stringMatching(refusal(logs, owner, true)),
      expect.stringMatching(new RegExp(`^US: ${refusal(usFolder, owner, true).source}$`)),
    ]);
    expect(started.accounts).toEqual([
      { label: 'EU', open: true },
      { label: 'US', open: false, problem: expect.stringMatching(refusal(usFolder, owner, true)) },
    ]);
    expect(started.orders).toBe(3);

    // What opens its store, to watch it or only to read it, says why and reads nothing there.
    for (const command of [
      ['watch', '--once'],
      ['automations', 'runs'],
      ['statuses', 'export'],
    ]) {
      const refused = await run('main/cli/seller-tray.ts', [...command, '--account', 'US'], env);
      expect(refused.code, command.join(' ')).toBe(1);
      expect(refused.stdout, command.join(' ')).toBe('');
      expect(refused.stderr).toMatch(new RegExp(`^seller-tray: ${refusal(usFolder, owner, true).source}\n$`));
    }
    const orders = await run('main/cli/seller-tray.ts', ['orders', 'list', '--account', 'EU', '--json'], env);
    expect(orders.code, orders.stderr).toBe(0);
    expect(JSON.parse(orders.stdout)).toHaveLength(3);

    expect(lookOf(usFolder)).toEqual(usBefore);
    expect({ ...lookOf(logs), size: statSync(join(logs, 'main.log')).size }).toEqual(logsBefore);
  }, 90_000);
});
