// A kill -9 (or a power cut) in the middle of a durable write leaves `<file>.<pid>.tmp` behind. The
// next start of whoever owns the folder removes those of processes that are gone, never a live
// process's (it is being written), and in a folder shared with other programs only its own file's.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, uptime } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { settleRemovals } from '../main/core/account/removal-notes';
import { LeftRunning } from '../main/core/automation/left-running';
import { removeLeftoverTemporaries } from '../main/core/durable-file';
import { type Log, silentLog } from '../main/core/log';
import { ConfSettingsStore } from '../main/core/settings';
import { AccountStore } from '../main/core/store/account-store';
import { JOURNAL_FILE, REFUSED_FILE } from '../main/core/store/journal';
import { LINK_ENTRY_FILE_NAME, registerLinkHandler } from '../main/shell/link-registration';
import { AUTOSTART_FILE_NAME, applyOpenAtLogin } from '../main/shell/open-at-login';
import { recordingLog } from './support/recording-log';

/** Another process writing on the folder right now. */
let writer: ChildProcess;
beforeAll(() => {
  writer = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'ignore' });
});
afterAll(() => {
  writer.kill('SIGKILL');
});

/** The pid of a process that ran and is gone (killed mid-write, say). */
const gonePid = (): number => {
  const { pid } = spawnSync(process.execPath, ['-e', '0']);
  if (!pid) throw new Error('no process');
  return pid;
};

/** A folder of its own for the test. */
async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'leftover-tmp-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The half-written temporaries of `file`: one of a process gone, one of the writer still at it. */
function halfWritten(file: string): { gone: string; live: string } {
  mkdirSync(dirname(file), { recursive: true });
  const gone = `${file}.${gonePid()}.tmp`;
  const live = `${file}.${writer.pid}.tmp`;
  for (const temporary of [gone, live]) writeFileSync(temporary, '{"outbox":[{"requestId":"7d2');
  return { gone, live };
}

/** Each folder's owner, what it writes durably there, and its start. */
const OWNERS: Record<string, { file: (dir: string) => string; start: (dir: string) => unknown }> = {
  "an account's folder (its journal), at the open of its store": {
    file: (dir) => join(dir, JOURNAL_FILE),
    start: (dir) => AccountStore.open(dir).store.close(),
  },
  "an account's folder (its refused statuses), at the open of its store": {
    file: (dir) => join(dir, REFUSED_FILE),
    start: (dir) => AccountStore.open(dir).store.close(),
  },
  'the data folder (the settings), at their first load': {
    file: (dir) => join(dir, 'settings.json'),
    start: (dir) => new ConfSettingsStore({ cwd: dir }).load(),
  },
  "the removals' folder (a removal's note), as the start settles removals": {
    file: (dir) => join(dir, 'removals', '0123456789abcdef.json'),
    start: (dir) => settleRemovals(dir, []),
  },
  "an account's commands left running (a command's record), at the runner's sweep": {
    file: (dir) => join(dir, '.running', 'delivery-1.json'),
    start: (dir) => new LeftRunning(join(dir, '.running'), silentLog, () => {}).sweep(),
  },
};

it.each(Object.entries(OWNERS))(
  '%s: a gone process’s temporary is removed, a live one’s kept',
  async (_, owner) => {
    const dir = await folder();
    const { gone, live } = halfWritten(owner.file(dir));

    await owner.start(dir);

    expect({ gone: existsSync(gone), live: existsSync(live) }).toEqual({ gone: false, live: true });
  },
);

it("the autostart folder, shared with other programs: only Seller Tray's own temporary is removed", async () => {
  const dir = await folder();
  const own = halfWritten(join(dir, AUTOSTART_FILE_NAME));
  const others = halfWritten(join(dir, 'another-app.desktop'));

  applyOpenAtLogin(true, {
    platform: 'linux',
    app: { setLoginItemSettings() {}, getLoginItemSettings: () => ({ status: 'enabled' }) },
    command: ['/opt/seller-tray/seller-tray'],
    autostartDir: dir,
  });

  expect([own.gone, own.live, others.gone, others.live].map(existsSync)).toEqual([false, true, true, true]);
});

it('a live process’s temporary written in the first minute after the boot is kept', async () => {
  const dir = await folder();
  const { gone, live } = halfWritten(join(dir, 'settings.json'));
  // Written 30 s after the boot: when `seller-tray run` (systemd) and the app (open at login) start.
  const bootedAt = Date.now() - uptime() * 1000;
  utimesSync(live, new Date(bootedAt + 30_000), new Date(bootedAt + 30_000));

  const removed = removeLeftoverTemporaries(dir);

  expect({ removed, live: existsSync(live) }).toEqual({ removed: [basename(gone)], live: true });
});

it('a temporary written before the boot is removed though its pid is a live process’s now', async () => {
  const dir = await folder();
  const { live } = halfWritten(join(dir, 'settings.json'));
  const beforeBoot = new Date(Date.now() - uptime() * 1000 - 5 * 60_000);
  utimesSync(live, beforeBoot, beforeBoot);

  removeLeftoverTemporaries(dir);

  expect(existsSync(live)).toBe(false);
});

/** The owners of folders with no store to tell support through: each removal goes to their log. */
const LOGGED: Record<string, { file: (dir: string) => string; start: (dir: string, log: Log) => unknown }> = {
  'the data folder (the settings)': {
    file: (dir) => join(dir, 'settings.json'),
    start: (dir, log) => {
      const options = { cwd: dir, log };
      return new ConfSettingsStore(options).load();
    },
  },
  "the removals' folder": {
    file: (dir) => join(dir, 'removals', '0123456789abcdef.json'),
    start: (dir, log) => settleRemovals(dir, [], log),
  },
  "an account's commands left running": {
    file: (dir) => join(dir, '.running', 'delivery-1.json'),
    start: (dir, log) => new LeftRunning(join(dir, '.running'), log, () => {}).sweep(),
  },
  'the autostart folder': {
    file: (dir) => join(dir, AUTOSTART_FILE_NAME),
    start: (dir, log) => {
      const options = {
        platform: 'linux' as const,
        app: { setLoginItemSettings() {}, getLoginItemSettings: () => ({ status: 'enabled' }) },
        command: ['/opt/seller-tray/seller-tray'],
        autostartDir: dir,
        log,
      };
      return applyOpenAtLogin(true, options);
    },
  },
  'the applications folder (the link entry)': {
    file: (dir) => join(dir, LINK_ENTRY_FILE_NAME),
    start: (dir, log) => {
      const options = {
        platform: 'linux' as const,
        installation: { kind: 'development' as const },
        app: { setAsDefaultProtocolClient: () => true },
        command: ['/opt/seller-tray/seller-tray'],
        applicationsDir: dir,
        xdgMime: async () => {},
        log,
      };
      return registerLinkHandler(options);
    },
  },
};

it.each(Object.entries(LOGGED))(
  '%s: a temporary removed is told in the log, where it was',
  async (_, owner) => {
    const dir = await folder();
    const { gone } = halfWritten(owner.file(dir));
    const { log, entries } = recordingLog();

    await owner.start(dir, log);

    expect(entries).toContainEqual({
      level: 'info',
      message: 'removed a temporary left by a write cut short',
      fields: { file: gone },
    });
  },
);
