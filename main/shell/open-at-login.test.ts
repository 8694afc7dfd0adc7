// Open at login per platform: the login item Electron is asked for on macOS and Windows, and on
// Linux the autostart entry, checked by desktop-file-validate and really launched with `gio launch`
// (GLib's own reading of the Exec line) from a path full of characters that need quoting.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { openDemoService, type TestService, until } from '../../test/support/shell-fakes';
import {
  APPROVAL_NEEDED,
  AUTOSTART_FILE_NAME,
  applyOpenAtLogin,
  autostartDir,
  autostartEntry,
  followOpenAtLogin,
  type LoginItemsPort,
  launchCommand,
} from './open-at-login';

const run = promisify(execFile);
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const done of cleanup.splice(0)) await done();
});

async function tempDir(prefix = 'seller-tray-login-'): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

class FakeLoginItems implements LoginItemsPort {
  readonly calls: Parameters<LoginItemsPort['setLoginItemSettings']>[0][] = [];
  constructor(private readonly status = 'enabled') {}
  setLoginItemSettings(settings: Parameters<LoginItemsPort['setLoginItemSettings']>[0]): void {
    this.calls.push(settings);
  }
  getLoginItemSettings(): { status: string } {
    return { status: this.status };
  }
}

describe('open at login on macOS and Windows', () => {
  it('macOS: a login item for the app, and nothing written to disk', async () => {
    const app = new FakeLoginItems();
    const dir = await tempDir();
    const options = {
      platform: 'darwin' as const,
      app,
      command: ['/Applications/Seller Tray.app/x'],
      autostartDir: dir,
    };
    applyOpenAtLogin(true, options);
    applyOpenAtLogin(false, options);
    expect(app.calls).toEqual([{ openAtLogin: true }, { openAtLogin: false }]);
    expect(existsSync(path.join(dir, AUTOSTART_FILE_NAME))).toBe(false);
  });

  it('macOS 13+: says where to allow the item when the system holds it for approval', () => {
    const options = {
      platform: 'darwin' as const,
      command: ['/Applications/Seller Tray.app/x'],
      autostartDir: '',
    };
    expect(applyOpenAtLogin(true, { ...options, app: new FakeLoginItems('enabled') })).toBeUndefined();
    expect(applyOpenAtLogin(true, { ...options, app: new FakeLoginItems('requires-approval') })).toBe(
      APPROVAL_NEEDED,
    );
    expect(
      applyOpenAtLogin(false, { ...options, app: new FakeLoginItems('requires-approval') }),
    ).toBeUndefined();
  });

  it('Windows: a login item naming the executable and its arguments, quoted as Windows reads them', () => {
    const app = new FakeLoginItems();
    const command = ['C:\\Users\\ann\\AppData\\Local\\Programs\\Seller Tray\\Seller Tray.exe'];
    applyOpenAtLogin(true, { platform: 'win32', app, command, autostartDir: '' });
    applyOpenAtLogin(false, { platform: 'win32', app, command, autostartDir: '' });
    const electron = 'C:\\electron.exe';
    const args = ['C:\\dev\\seller-tray', 'C:\\Users\\Ann Smith\\seller tray\\', 'say "hi"', 'a\\"b', ''];
    applyOpenAtLogin(true, { platform: 'win32', app, command: [electron, ...args], autostartDir: '' });
    expect(app.calls).toEqual([
      { openAtLogin: true, path: command[0], args: [] },
      { openAtLogin: false, path: command[0], args: [] },
      {
        openAtLogin: true,
        path: electron,
        args: [
          'C:\\dev\\seller-tray',
          '"C:\\Users\\Ann Smith\\seller tray\\\\"',
          '"say \\"hi\\""',
          '"a\\\\\\"b"',
          '""',
        ],
      },
    ]);
  });
});

describe('open at login on Linux', () => {
  it('writes an autostart entry when on and removes it when off, asking Electron for nothing', async () => {
    const app = new FakeLoginItems();
    const dir = path.join(await tempDir(), 'autostart'); // not there yet, as on a fresh account
    const options = {
      platform: 'linux' as const,
      app,
      command: ['/opt/Seller Tray/seller-tray'],
      autostartDir: dir,
    };
    applyOpenAtLogin(true, options);
    const file = path.join(dir, AUTOSTART_FILE_NAME);
    const entry = await readFile(file, 'utf8');
    expect(entry).toContain('\nExec="/opt/Seller Tray/seller-tray"\n');
    expect(entry.startsWith('[Desktop Entry]\nType=Application\nName=Seller Tray\n')).toBe(true);
    await run('desktop-file-validate', [file]);

    applyOpenAtLogin(false, options);
    expect(existsSync(file)).toBe(false);
    applyOpenAtLogin(false, options); // already off: still fine
    expect(app.calls).toEqual([]);
  });

  it('starts exactly the command, however strange its path, when launched as the desktop does', async () => {
    // No '%' in the program's own folder: GLib looks the program up before it reads '%%' as '%'
    // (the spec's escape), so such a program is not found; in an argument it works.
    const strange = path.join(await tempDir(), `Ann's "apps" $HOME \\ \`x\` (new)`);
    await mkdir(strange);
    const program = path.join(strange, 'seller tray');
    const out = path.join(strange, 'argv.json');
    await writeFile(
      program,
      `#!/usr/bin/env node\nrequire('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.argv.slice(2)));\n`,
    );
    await chmod(program, 0o755);
    const appFolder = `${strange}/app folder 100% %f`;
    const dir = await tempDir();
    applyOpenAtLogin(true, {
      platform: 'linux',
      app: new FakeLoginItems(),
      command: [program, appFolder],
      autostartDir: dir,
    });
    const file = path.join(dir, AUTOSTART_FILE_NAME);
    await run('desktop-file-validate', [file]);

    await run('gio', ['launch', file]);
    await until(() => existsSync(out));
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual([appFolder]);
  });

  it('refuses a path that an entry cannot carry, rather than writing a broken one', () => {
    expect(() => autostartEntry(['/opt/seller\ntray'])).toThrow(/control characters/);
  });

  it('finds the autostart directory as the XDG spec says', () => {
    expect(autostartDir({ XDG_CONFIG_HOME: '/home/ann/.cfg' }, '/home/ann')).toBe('/home/ann/.cfg/autostart');
    expect(autostartDir({ XDG_CONFIG_HOME: '' }, '/home/ann')).toBe('/home/ann/.config/autostart');
  });
});

describe('the command that starts the app again', () => {
  const running = {
    execPath: '/opt/Seller Tray/seller-tray',
    env: {},
    isPackaged: true,
    appPath: '/opt/x/app.asar',
  };
  it('is the installed executable', () => {
    expect(launchCommand(running)).toEqual(['/opt/Seller Tray/seller-tray']);
  });
  it("is the AppImage's own file, not its temporary mount", () => {
    const env = { APPIMAGE: '/home/ann/Apps/Seller-Tray.AppImage' };
    expect(launchCommand({ ...running, execPath: '/tmp/.mount_Sel123/seller-tray', env })).toEqual([
      '/home/ann/Apps/Seller-Tray.AppImage',
    ]);
  });
  it('in development, is Electron given the app folder', () => {
    expect(
      launchCommand({
        execPath: '/repo/node_modules/electron/dist/electron',
        env: {},
        isPackaged: false,
        appPath: '/repo',
      }),
    ).toEqual(['/repo/node_modules/electron/dist/electron', '/repo']);
  });
});

describe('following the setting', () => {
  const opened: TestService[] = [];
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
  });

  it('applies it at start and at each change of it, and reports a failure', async () => {
    const s = await openDemoService();
    opened.push(s);
    const applied: boolean[] = [];
    const failures: string[] = [];
    let fail = false;
    const stop = followOpenAtLogin(
      s.service,
      (enabled) => {
        if (fail) throw new Error('EACCES: permission denied');
        applied.push(enabled);
        return enabled ? APPROVAL_NEEDED : undefined;
      },
      (message) => failures.push(message),
    );
    await until(() => applied.length === 1);
    expect(applied).toEqual([false]);

    await s.service.handle('setSettings', { openAtLogin: true });
    await until(() => applied.length === 2);
    expect(failures).toEqual([APPROVAL_NEEDED]);
    await s.service.handle('setSettings', { pollIntervalSeconds: 120 }); // not this setting
    await s.service.handle('checkNow', undefined);
    expect(applied).toEqual([false, true]);

    fail = true;
    await s.service.handle('setSettings', { openAtLogin: false });
    await until(() => failures.length === 2);
    expect(failures[1]).toBe('Open at login could not be turned off: EACCES: permission denied');

    stop();
    fail = false;
    await s.service.handle('setSettings', { openAtLogin: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(applied).toEqual([false, true]);
  });
});
