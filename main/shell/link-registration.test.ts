// Registering seller-tray:// per platform: Electron's call on Windows and in macOS development,
// nothing where the installer did it, and on Linux a desktop entry of our own, checked for real in a
// throwaway XDG folder: desktop-file-validate accepts it, xdg-mime makes and reports it the default,
// gio agrees, and `gio open` on a link starts the app with the link, which then opens the order.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { orderLink } from '../../preload/order-link';
import { recordingPorts } from '../../test/support/order-link-ports';
import { until } from '../../test/support/shell-fakes';
import { detectInstallation, type Installation } from './installation';
import { launchArguments } from './lifecycle';
import {
  applicationsDir,
  LINK_ENTRY_FILE_NAME,
  LINK_MIME_TYPE,
  type LinkRegistrationOptions,
  type ProtocolClientPort,
  registerLinkHandler,
} from './link-registration';
import { launchCommand } from './open-at-login';
import { OrderLinks } from './order-links';

const run = promisify(execFile);
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const done of cleanup.splice(0)) await done();
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

class FakeProtocolClient implements ProtocolClientPort {
  readonly calls: unknown[][] = [];
  constructor(private readonly accepted = true) {}
  setAsDefaultProtocolClient(...args: [string, string?, string[]?]): boolean {
    this.calls.push(args.filter((a) => a !== undefined));
    return this.accepted;
  }
}

function options(overrides: Partial<LinkRegistrationOptions> & { installation: Installation }) {
  const xdgMimeCalls: string[][] = [];
  const app = new FakeProtocolClient();
  return {
    app,
    xdgMimeCalls,
    options: {
      platform: 'linux' as NodeJS.Platform,
      app,
      command: ['/apps/seller-tray'],
      applicationsDir: '/nonexistent/applications',
      xdgMime: async (args: string[]) => void xdgMimeCalls.push(args),
      ...overrides,
    },
  };
}

describe('registering seller-tray:// links', () => {
  it('Windows: Electron registers the installed app, and in development Electron with the app folder', async () => {
    const installed = options({ platform: 'win32', installation: { kind: 'nsis' } });
    expect(await registerLinkHandler(installed.options)).toBe('electron');
    expect(installed.app.calls).toEqual([['seller-tray']]);

    const development = options({
      platform: 'win32',
      installation: { kind: 'development' },
      command: ['C:\\dev\\electron.exe', 'C:\\dev\\seller-tray'],
    });
    await registerLinkHandler(development.options);
    expect(development.app.calls).toEqual([
      ['seller-tray', 'C:\\dev\\electron.exe', ['C:\\dev\\seller-tray']],
    ]);
  });

  it('macOS: the bundle’s Info.plist does it once installed; a development run asks Electron', async () => {
    const installed = options({ platform: 'darwin', installation: { kind: 'macos' } });
    expect(await registerLinkHandler(installed.options)).toBe('installer');
    expect(installed.app.calls).toEqual([]);
    const development = options({ platform: 'darwin', installation: { kind: 'development' } });
    expect(await registerLinkHandler(development.options)).toBe('electron');
    expect(development.app.calls).toEqual([['seller-tray']]);
  });

  it('says so when the system refuses', async () => {
    const refused = options({ platform: 'win32', installation: { kind: 'nsis' } });
    refused.options.app = new FakeProtocolClient(false);
    await expect(registerLinkHandler(refused.options)).rejects.toThrow(/did not accept/);
  });

  it('Linux deb: the package’s desktop entry does it; nothing is written', async () => {
    const dir = await tempDir('seller-tray-apps-');
    const deb = options({ installation: { kind: 'package', manager: 'deb' }, applicationsDir: dir });
    expect(await registerLinkHandler(deb.options)).toBe('installer');
    expect(existsSync(path.join(dir, LINK_ENTRY_FILE_NAME))).toBe(false);
    expect(deb.xdgMimeCalls).toEqual([]);
  });

  it('knows how it was installed', () => {
    const running = {
      platform: 'linux' as NodeJS.Platform,
      isPackaged: true,
      env: {},
      execPath: '/home/me/apps/seller-tray',
      resourcesPath: '/r',
      readText: (file: string) => (file === path.join('/r', 'package-type') ? 'deb\n' : undefined),
    };
    expect(detectInstallation(running)).toEqual({ kind: 'package', manager: 'deb' });
    expect(detectInstallation({ ...running, env: { APPIMAGE: '/a/S.AppImage' } })).toEqual({
      kind: 'appimage',
      file: '/a/S.AppImage',
    });
    expect(detectInstallation({ ...running, readText: () => undefined })).toEqual({ kind: 'unpacked' });
    expect(
      detectInstallation({ ...running, readText: () => undefined, execPath: '/opt/Seller Tray/seller-tray' }),
    ).toEqual({ kind: 'package', manager: 'deb' });
    expect(detectInstallation({ ...running, isPackaged: false })).toEqual({ kind: 'development' });
    expect(detectInstallation({ ...running, platform: 'win32' })).toEqual({ kind: 'nsis' });
    expect(detectInstallation({ ...running, platform: 'darwin' })).toEqual({ kind: 'macos' });
  });

  it('tells a copy installed for every user: under Program Files, or an app bundle this user cannot write', () => {
    const windows = {
      platform: 'win32' as const,
      isPackaged: true,
      env: { ProgramFiles: 'C:\\Program Files', 'ProgramFiles(x86)': 'C:\\Program Files (x86)' },
      execPath: 'C:\\Program Files\\Seller Tray\\Seller Tray.exe',
      resourcesPath: 'C:\\Program Files\\Seller Tray\\resources',
      readText: () => undefined,
    };
    expect(detectInstallation(windows)).toEqual({ kind: 'nsis', perMachine: true });
    expect(
      detectInstallation({ ...windows, execPath: 'c:\\program files (x86)\\Seller Tray\\Seller Tray.exe' }),
    ).toEqual({ kind: 'nsis', perMachine: true });
    expect(
      detectInstallation({
        ...windows,
        execPath: 'C:\\Users\\anna\\AppData\\Local\\Programs\\Seller Tray\\Seller Tray.exe',
      }),
    ).toEqual({ kind: 'nsis' });
    const mac = {
      ...windows,
      platform: 'darwin' as const,
      env: {},
      execPath: '/Applications/Seller Tray.app/Contents/MacOS/Seller Tray',
      resourcesPath: '/Applications/Seller Tray.app/Contents/Resources',
    };
    const asked: string[] = [];
    const readOnly = (file: string) => {
      asked.push(file);
      return false;
    };
    expect(detectInstallation({ ...mac, canWrite: readOnly })).toEqual({ kind: 'macos', perMachine: true });
    expect(asked).toEqual(['/Applications/Seller Tray.app']);
    expect(detectInstallation({ ...mac, canWrite: () => true })).toEqual({ kind: 'macos' });
  });

  it('the XDG applications folder follows $XDG_DATA_HOME', () => {
    expect(applicationsDir({ XDG_DATA_HOME: '/d' }, '/home/me')).toBe('/d/applications');
    expect(applicationsDir({ XDG_DATA_HOME: '' }, '/home/me')).toBe('/home/me/.local/share/applications');
  });
});

describe.runIf(process.platform === 'linux')('Linux: the desktop entry, with the real XDG tools', () => {
  it('an AppImage registers itself; the desktop resolves links to it, and `gio open` brings the order up', async () => {
    const home = await tempDir('seller-tray-xdg-');
    // An "AppImage" in a folder whose name needs quoting: a script that writes down how it was started.
    // (No `%`: GLib looks for the program before it reads `%%`; see open-at-login.ts.)
    const appDir = path.join(home, `My "Apps" $HOME \\ x`);
    await mkdir(appDir, { recursive: true });
    const appImage = path.join(appDir, 'Seller Tray.AppImage');
    const argsFile = path.join(home, 'args.json');
    await writeFile(
      appImage,
      `#!/usr/bin/env node\nrequire('node:fs').writeFileSync(${JSON.stringify(argsFile)}, JSON.stringify(process.argv.slice(1)));\n`,
    );
    await chmod(appImage, 0o755);
    const env = {
      ...process.env,
      HOME: home,
      XDG_DATA_HOME: path.join(home, 'data'),
      XDG_CONFIG_HOME: path.join(home, 'config'),
      // No system-wide handlers: only what this test registers can answer.
      XDG_DATA_DIRS: path.join(home, 'no-system-data'),
      XDG_CONFIG_DIRS: path.join(home, 'no-system-config'),
    };
    const tool = (command: string, args: string[]) => run(command, args, { env });
    const apps = applicationsDir(env, home);
    const installation = detectInstallation({
      platform: 'linux',
      isPackaged: true,
      env: { APPIMAGE: appImage },
      execPath: '/tmp/.mount_Seller/seller-tray',
      resourcesPath: '/tmp/.mount_Seller/resources',
      readText: () => undefined,
    });
    expect(installation.kind).toBe('appimage');

    const registrar = await registerLinkHandler({
      platform: 'linux',
      installation,
      app: new FakeProtocolClient(),
      command: launchCommand({
        execPath: '/tmp/.mount_Seller/seller-tray',
        env: { APPIMAGE: appImage },
        isPackaged: true,
        appPath: '/tmp/.mount_Seller/resources/app.asar',
      }),
      applicationsDir: apps,
      xdgMime: async (args) => void (await tool('xdg-mime', args)),
    });
    expect(registrar).toBe('desktop-entry');

    const entry = path.join(apps, LINK_ENTRY_FILE_NAME);
    const text = await readFile(entry, 'utf8');
    expect(text).toContain(`MimeType=${LINK_MIME_TYPE};\n`);
    expect(text).toMatch(/^Exec=.* %u$/m);
    expect(text).toContain('NoDisplay=true');
    await tool('desktop-file-validate', [entry]);

    const byXdgMime = await tool('xdg-mime', ['query', 'default', LINK_MIME_TYPE]);
    expect(byXdgMime.stdout.trim()).toBe(LINK_ENTRY_FILE_NAME);
    const byGio = await tool('gio', ['mime', LINK_MIME_TYPE]);
    expect(byGio.stdout).toContain(`“${LINK_MIME_TYPE}”: ${LINK_ENTRY_FILE_NAME}`);

    // The desktop opens a link: the "AppImage" starts with it as its argument, which the app reads.
    const orderId = randomUUID();
    await tool('gio', ['open', orderLink(orderId) ?? '']);
    await until(() => existsSync(argsFile), 10_000);
    // As an executable sees it: its own path (read back exactly from the Exec line), then the link.
    const argv = JSON.parse(await readFile(argsFile, 'utf8')) as string[];
    expect(argv).toEqual([appImage, orderLink(orderId)]);
    const { ports, shown } = recordingPorts(async () => ({ found: true, account: 'acc-1' }));
    const links = new OrderLinks();
    links.ready(ports);
    links.open(launchArguments(argv, false));
    await until(() => shown.length === 1);
    expect(shown).toEqual([{ order: orderId, account: 'acc-1' }]);
  }, 30_000);
});
