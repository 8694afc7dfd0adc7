// The production bundles of the main process and the preload, built by vite.config.ts exactly as
// `npm run build:main` and `npm run build:preload` build them, loaded in plain Node with a stand-in
// for the `electron` module (its binary cannot be fetched here; test/support/electron-stand-in.ts).
// The main bundle then really starts: electron-store writes the settings, net.fetch carries the
// demo marketplace's traffic, the window, tray, protocol and IPC are wired as main/index.ts says.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build as esbuild } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_VERSION } from '../main/core/app-identity';
import { CONTENT_SECURITY_POLICY } from '../main/renderer-serving';
import { AUTOSTART_FILE_NAME } from '../main/shell/open-at-login';
import { CHANNELS } from '../preload/contract';
import { FaultInjector, faultyCalls } from '../simulator/faults';
import { serveMarketplace } from '../simulator/marketplace-server';
import { QUIRK_NAMES, Quirks } from '../simulator/quirks';
import { ADMIN_PREFIX, startSimulator } from '../simulator/server';
import { buildPart } from './support/app-build';
import {
  activateStandIn,
  type ElectronStandIn,
  electronStandIn,
  installStandIn,
  quitMainBundle,
  startMainBundle,
} from './support/electron-stand-in';
import { REPO_ROOT } from './support/processes';
import { until } from './support/shell-fakes';
import { closedCleanly } from './support/store-files';

let dir: string;
/** What each built entry still imports, as the bundler reports it. */
let mainImports: string[];
let preloadImports: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bundles-'));
  await installStandIn(dir);
  // The scripts are the config's modes, so the test builds what `npm run build` builds.
  const scripts = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')).scripts;
  expect(scripts['build:main']).toBe('vite build --mode main');
  expect(scripts['build:preload']).toBe('vite build --mode preload');
  [mainImports, preloadImports] = await Promise.all([
    buildPart(join(dir, 'app'), 'main'),
    buildPart(join(dir, 'app'), 'preload'),
  ]);
  // A renderer to serve: the shell's protocol handler reads <app>/dist/renderer.
  await mkdir(join(dir, 'app', 'dist', 'renderer'), { recursive: true });
  await writeFile(
    join(dir, 'app', 'dist', 'renderer', 'index.html'),
    '<!doctype html><title>Seller Tray</title>',
  );
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The built main bundle (dir is set before any test runs). */
const mainBundle = () => join(dir, 'app', 'dist', 'main', 'index.mjs');

describe('the preload bundle', () => {
  it('exposes exactly the bridge contract as window.sellerTray, nothing raw', async () => {
    const standIn = electronStandIn({ lock: true, appPath: '', userData: '' });
    activateStandIn(standIn);
    const preload = join(dir, 'app', 'dist', 'preload', 'index.cjs');
    createRequire(join(dir, 'x.js'))(preload);
    const exposed = standIn.calls.find((c) => c[0] === 'contextBridge.exposeInMainWorld');
    expect(exposed?.[1]).toBe('sellerTray');
    const bridge = exposed?.[2] as Record<string, unknown>;
    expect(Object.keys(bridge).sort()).toEqual([...CHANNELS, 'onEvent'].sort());
    expect(Object.values(bridge).every((value) => typeof value === 'function')).toBe(true);
    // One file that requires nothing but electron, as a sandboxed preload must; small, because it
    // carries the channel names, not the schemas (zod stays out).
    expect(preloadImports).toEqual(['electron']);
    expect((await stat(preload)).size).toBeLessThan(16 * 1024);
  });
});

describe('the main bundle', () => {
  it('imports nothing but Node built-ins, electron and keytar: everything else is inside', () => {
    expect(mainImports.filter((name) => !name.startsWith('node:')).sort()).toEqual(['electron', 'keytar']);
  });

  it("carries the demo marketplace, but none of the simulator's fault injection, quirks or admin endpoints", async () => {
    const markers = [
      ...[FaultInjector, faultyCalls, Quirks, startSimulator].map((code) => code.name),
      ...[...QUIRK_NAMES, ADMIN_PREFIX].map((text) => JSON.stringify(text)),
    ];
    const found = (code: string) => markers.filter((marker) => code.includes(marker));
    // The search finds every marker where they are: the full simulator, bundled.
    const simulator = await esbuild({
      entryPoints: [join(REPO_ROOT, 'simulator', 'server.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      write: false,
    });
    expect(found(simulator.outputFiles[0]?.text ?? '')).toEqual(markers);
    const main = await readFile(mainBundle(), 'utf8');
    expect(main).toContain(serveMarketplace.name);
    expect(found(main)).toEqual([]);
  });

  it('registers its secure scheme, and quits when another instance holds the lock', async () => {
    const standIn = await startMainBundle(mainBundle(), { lock: false, appPath: '', userData: '' });
    const scheme = standIn.calls.find((c) => c[0] === 'protocol.registerSchemesAsPrivileged')?.[1] as {
      privileges: { secure: boolean; standard: boolean };
    }[];
    expect(scheme?.[0]?.privileges).toMatchObject({ secure: true, standard: true });
    expect(standIn.calls.some((c) => c[0] === 'app.quit')).toBe(true);
    expect(standIn.windows).toHaveLength(0);
  });

  describe('started with the lock', () => {
    let standIn: ElectronStandIn;
    let userData: string;
    let configHome: string;
    const savedConfigHome = process.env.XDG_CONFIG_HOME;
    const appFrame = 'app://seller-tray/index.html';

    beforeAll(async () => {
      userData = join(dir, 'user-data');
      configHome = join(dir, 'config-home');
      process.env.XDG_CONFIG_HOME = configHome;
      standIn = await startMainBundle(mainBundle(), { lock: true, appPath: join(dir, 'app'), userData });
    });
    afterAll(async () => {
      await quitMainBundle(standIn);
      if (savedConfigHome === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = savedConfigHome;
    });

    it('opens one secure window on the app origin, shown because nothing is set up yet', () => {
      const [window] = standIn.windows;
      expect(window?.options.webPreferences).toMatchObject({
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        webviewTag: false,
        preload: join(dir, 'app', 'dist', 'preload', 'index.cjs'),
      });
      expect(window?.loaded).toEqual([appFrame]);
      expect(window?.visible).toBe(true);
    });

    it('keeps DevTools and Electron’s menu in development (not packaged)', () => {
      expect(standIn.windows[0]?.options.webPreferences.devTools).toBe(true);
      expect(standIn.calls.filter((c) => c[0] === 'Menu.setApplicationMenu')).toEqual([]);
    });

    it('serves the renderer from app:// with the CSP, and nothing outside it', async () => {
      const serve = standIn.protocolHandlers.get('app');
      const page = await serve?.(new Request(appFrame));
      expect(page?.status).toBe(200);
      expect(page?.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(await page?.text()).toContain('<title>Seller Tray</title>');
      for (const url of [
        'app://seller-tray/../../package.json',
        'app://elsewhere/index.html',
        'app://seller-tray/missing.js',
      ]) {
        expect((await serve?.(new Request(url)))?.status).toBe(404);
      }
    });

    // main/index.ts reads process.platform: the tray image and the autostart entry are Linux's here.
    const onLinux = process.platform === 'linux';

    it.runIf(onLinux)('shows the tray with its menu', () => {
      const [tray] = standIn.trays;
      expect(tray?.image).toEqual({ path: join(dir, 'app', 'build', 'tray', 'tray.png') });
      expect(tray?.toolTip).toMatch(/^Seller Tray — .*not set up/);
      expect(tray?.menu.map((item) => item.label).filter(Boolean)).toEqual([
        'Seller Tray: no orders waiting',
        'Open',
        'Needs attention',
        'Insights',
        'Check now',
        'Pause notifications',
        'Settings',
        'Help',
        'Open log folder',
        'Quit',
      ]);
    });

    it("the tray's Help shows the window on its Help screen", () => {
      const [window] = standIn.windows;
      standIn.trays[0]?.item('Help')?.click?.();
      expect(window?.visible).toBe(true);
      expect(window?.webContents.sent.at(-1)).toEqual({
        channel: 'seller-tray:event',
        args: [{ type: 'open-help' }],
      });
    });

    it('a development run does not update itself, and says so to the About panel', async () => {
      const answer = (await standIn.ipcMain.invoke(appFrame, 'seller-tray:getUpdateStatus')) as {
        value: { availability: string; version: string; lastCheck: unknown };
      };
      expect(answer.value).toMatchObject({
        availability: 'development',
        version: APP_VERSION,
        lastCheck: null,
      });
    });

    it('opens as a popover under the tray icon; a click on the icon closes it; "Open in a window" gives the full-size window', async () => {
      const [window] = standIn.windows;
      const [tray] = standIn.trays;
      if (!window || !tray) throw new Error('no window or tray');
      // The stand-in's icon is at the top right of a screen with a top bar.
      expect(window.bounds).toEqual({ x: 1496, y: 32, width: 420, height: 640 }); // its right edge kept on the screen
      expect([window.skipTaskbar, window.alwaysOnTop]).toEqual([true, true]);
      for (const click of tray.clicks) click();
      expect(window.visible).toBe(false);
      for (const click of tray.clicks) click();
      expect(window.visible).toBe(true);
      const opened = (await standIn.ipcMain.invoke(appFrame, 'seller-tray:openInWindow')) as { ok: boolean };
      expect(opened.ok).toBe(true);
      expect(window.bounds).toEqual({ x: 410, y: 194, width: 1100, height: 720 });
      expect([window.skipTaskbar, window.alwaysOnTop, window.visible]).toEqual([false, false, true]);
    });

    it('answers IPC from its own frame only', async () => {
      const foreign = (await standIn.ipcMain.invoke('https://evil.example/', 'seller-tray:getState')) as {
        ok: boolean;
        error?: { code: string };
      };
      expect(foreign).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      const own = (await standIn.ipcMain.invoke(appFrame, 'seller-tray:getState')) as { ok: boolean };
      expect(own.ok).toBe(true);
    });

    it('runs the demo over net.fetch, and keeps its settings through electron-store', async () => {
      const started = (await standIn.ipcMain.invoke(appFrame, 'seller-tray:startDemo')) as { ok: boolean };
      expect(started.ok).toBe(true);
      await until(() => standIn.trays[0]?.toolTip.includes('not set up') === false);
      expect(standIn.fetched.some((url) => /^http:\/\/127\.0\.0\.1:\d+\/.*token/.test(url))).toBe(true);
      // electron-store, not plain conf: it registers its data channel when it opens the file; the
      // shell removes that listener, which answers without checking who asks.
      const storeChannel = standIn.calls
        .map((c) => `${c[0]} ${c[1]}`)
        .filter((c) => c.endsWith(' electron-store-get-data'));
      expect(storeChannel).toEqual([
        'ipcMain.on electron-store-get-data',
        'ipcMain.removeAllListeners electron-store-get-data',
      ]);
      const saved = JSON.parse(await readFile(join(userData, 'settings.json'), 'utf8'));
      expect(saved.demoMode).toBe(true);
      // Only its user may read the folder and the file (POSIX modes; Windows keeps them in the profile).
      if (process.platform !== 'win32') {
        expect((await stat(userData)).mode & 0o777).toBe(0o700);
        expect((await stat(join(userData, 'settings.json'))).mode & 0o777).toBe(0o600);
      }
    });

    it('writes its log in the user data folder, and opens that folder from the tray', async () => {
      await standIn.ipcMain.invoke(appFrame, 'seller-tray:startDemo');
      const logFile = join(userData, 'logs', 'main.log');
      await until(() => existsSync(logFile) && readFileSync(logFile, 'utf8').includes('poll ok'));
      expect(await readFile(logFile, 'utf8')).toMatch(/\[info\] +account connected .*demo=true/);
      // electron-log's Node entry: none of the IPC listeners its Electron entry would add unchecked.
      expect(standIn.calls.filter((c) => String(c[1]).includes('__ELECTRON_LOG__'))).toEqual([]);
      standIn.trays[0]?.item('Open log folder')?.click?.();
      await until(() => standIn.calls.some((c) => c[0] === 'shell.openPath'));
      expect(standIn.calls.filter((c) => c[0] === 'shell.openPath')).toEqual([
        ['shell.openPath', join(userData, 'logs')],
      ]);
    });

    it.runIf(onLinux)('follows "open at login" with an autostart entry (Linux)', async () => {
      const entry = join(configHome, 'autostart', AUTOSTART_FILE_NAME);
      expect(existsSync(entry)).toBe(false);
      await standIn.ipcMain.invoke(appFrame, 'seller-tray:setSettings', { openAtLogin: true });
      await until(() => existsSync(entry));
      // Not packaged: Electron given the app folder.
      expect(await readFile(entry, 'utf8')).toContain(`Exec=${process.execPath} ${join(dir, 'app')}`);
      await standIn.ipcMain.invoke(appFrame, 'seller-tray:setSettings', { openAtLogin: false });
      await until(() => !existsSync(entry));
    });
  });

  describe('order links (seller-tray://order/<id>)', () => {
    let standIn: ElectronStandIn;
    const savedArgv = process.argv;
    const unknownOrder = randomUUID();
    const sent = () =>
      standIn.windows[0]?.webContents.sent.flatMap((m) => m.args) as {
        type: string;
        orderId?: string;
        message?: string;
      }[];
    const appFrame = 'app://seller-tray/index.html';

    beforeAll(async () => {
      // A laptop in demo mode, started by a link to an order its account does not have.
      const userData = join(dir, 'user-data-links');
      await mkdir(userData, { recursive: true });
      await writeFile(join(userData, 'settings.json'), JSON.stringify({ demoMode: true }));
      process.argv = [process.execPath, `seller-tray://order/${unknownOrder}`];
      try {
        standIn = await startMainBundle(mainBundle(), { lock: true, appPath: join(dir, 'app'), userData });
        await until(() => sent()?.some((e) => e.type === 'problem') === true, 15_000);
      } finally {
        process.argv = savedArgv;
      }
    }, 30_000);
    afterAll(() => quitMainBundle(standIn));

    it('at first launch: the window comes up, saying the order is not in this marketplace account', () => {
      expect(standIn.windows[0]?.visible).toBe(true);
      expect(sent()).toContainEqual(
        expect.objectContaining({
          type: 'problem',
          message: 'This order is not in this marketplace account.',
        }),
      );
    });

    it('from a second launch (Windows, Linux): the hidden window opens on an order of the account', async () => {
      let orderId: string | undefined;
      await until(() => {
        void standIn.ipcMain.invoke(appFrame, 'seller-tray:listOrders', {}).then((answer) => {
          orderId = (answer as { value?: { orders: { orderId: string }[] } }).value?.orders[0]?.orderId;
        });
        return orderId !== undefined;
      }, 15_000);
      const window = standIn.windows[0];
      window?.hide();
      standIn.module.app.emit('second-instance', {}, [
        '/opt/Seller Tray/seller-tray',
        `seller-tray://order/${orderId}`,
      ]);
      await until(() => sent().some((e) => e.type === 'open-order'), 15_000);
      // The order opens in the account that has it (the demo's here): the window reads it there.
      expect(sent().filter((e) => e.type === 'open-order')).toEqual([
        { type: 'open-order', orderId, account: 'demo' },
      ]);
      expect(window?.visible).toBe(true);
    });

    it('from a second launch: a hostile link is refused and said so; a launch without one just shows the window', async () => {
      standIn.module.app.emit('second-instance', {}, [
        '/x/seller-tray',
        'seller-tray://order/../settings?x=1',
      ]);
      await until(() =>
        sent().some((e) => e.message?.startsWith('Seller Tray cannot open this link') === true),
      );
      const window = standIn.windows[0];
      window?.hide();
      const before = sent().length;
      standIn.module.app.emit('second-instance', {}, ['/x/seller-tray']);
      expect(window?.visible).toBe(true);
      // Shown as the popover again; nowhere else to go.
      expect(sent().slice(before)).toEqual([{ type: 'window-mode', mode: 'popover' }]);
    });

    it.runIf(process.platform === 'linux')(
      'registers itself for the links (development on Linux: a desktop entry of its own)',
      async () => {
        const entry = join(process.env.XDG_DATA_HOME ?? '', 'applications', 'seller-tray-links.desktop');
        await until(() => existsSync(entry));
        const text = await readFile(entry, 'utf8');
        expect(text).toContain(`Exec=${process.execPath} ${join(dir, 'app')} %u`);
        expect(text).toContain('MimeType=x-scheme-handler/seller-tray;');
      },
    );
  });

  it('started at login without a link, a set-up app stays in the tray; its quit closes the store cleanly', async () => {
    const userData = join(dir, 'user-data-tray-only');
    await mkdir(userData, { recursive: true });
    await writeFile(join(userData, 'settings.json'), JSON.stringify({ demoMode: true }));
    const standIn = await startMainBundle(mainBundle(), { lock: true, appPath: join(dir, 'app'), userData });
    try {
      await until(() => standIn.trays[0]?.toolTip.includes('not set up') === false);
      expect(standIn.windows[0]?.visible).toBe(false);
    } finally {
      await quitMainBundle(standIn);
    }
    expect(closedCleanly(join(userData, 'accounts', 'demo'))).toBe(true);
  });
});
