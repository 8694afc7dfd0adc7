// A stand-in for the `electron` module, for loading the production bundles in plain Node (the
// Electron binary cannot be fetched here). It records what the bundles ask of Electron, built on the
// same fakes the shell's unit tests use; `net.fetch` is Node's fetch, so the app really talks to the
// demo marketplace over loopback HTTP.
import { EventEmitter } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MenuItemSpec } from '../../main/shell/electron-ports';
import {
  cancellable,
  FakeIpcMain,
  FakeNotification,
  FakeNotifications,
  FakeTray,
  FakeWindow,
  until,
} from './shell-fakes';

export interface StandInOptions {
  /** Whether this instance gets the single-instance lock (false: another one runs). */
  lock: boolean;
  appPath: string;
  userData: string;
  /** app.isPackaged: false (development) by default. */
  packaged?: boolean;
}

/** One 1920×1080 screen with a top bar of 28 px. */
const STAND_IN_DISPLAY = { workArea: { x: 0, y: 28, width: 1920, height: 1052 } };

export function electronStandIn(options: StandInOptions) {
  const calls: unknown[][] = [];
  const record =
    (name: string) =>
    (...args: unknown[]) => {
      calls.push([name, ...args]);
    };
  const app = Object.assign(new EventEmitter(), {
    isPackaged: options.packaged ?? false,
    requestSingleInstanceLock: () => options.lock,
    whenReady: () => (options.lock ? Promise.resolve() : new Promise<void>(() => {})),
    getAppPath: () => options.appPath,
    getPath: (name: string) => {
      if (name !== 'userData') throw new Error(`the stand-in knows only userData, not ${name}`);
      return options.userData;
    },
    getVersion: () => '0.0.0-test',
    /** The window's locale, as Chromium gives it (the shell writes notifications' totals in it). */
    getLocale: () => 'en-US',
    quit: record('app.quit'),
    exit: record('app.exit'),
    setAppUserModelId: record('app.setAppUserModelId'),
    setLoginItemSettings: record('app.setLoginItemSettings'),
    setAsDefaultProtocolClient: (...args: unknown[]) => {
      record('app.setAsDefaultProtocolClient')(...args);
      return true;
    },
  });
  const windows: FakeWindow[] = [];
  const trays: (FakeTray & { image: unknown; clicks: (() => void)[] })[] = [];
  const notifications = new FakeNotifications();
  const protocolHandlers = new Map<string, (request: Request) => Promise<Response>>();
  const fetched: string[] = [];
  const ipcMain = Object.assign(new FakeIpcMain(), {
    on: record('ipcMain.on'),
    removeAllListeners: record('ipcMain.removeAllListeners'),
  });

  const module = {
    app,
    ipcMain,
    powerMonitor: new EventEmitter(),
    BrowserWindow: class extends FakeWindow {
      constructor(windowOptions: ConstructorParameters<typeof FakeWindow>[0]) {
        super(windowOptions);
        windows.push(this);
      }
    },
    Tray: class extends FakeTray {
      readonly clicks: (() => void)[] = [];
      constructor(readonly image: unknown) {
        super();
        trays.push(this);
      }
      on(event: string, listener: () => void): void {
        if (event === 'click') this.clicks.push(listener);
      }
      /** An icon at the top right, as in a top bar. */
      getBounds() {
        return { x: 1860, y: 0, width: 24, height: 24 };
      }
      setContextMenu(menu: MenuItemSpec[]): void {
        this.setMenu(menu);
      }
      /** Electron's: the image of the icon's other form (the warning, liveness). */
      setImage(image: unknown): void {
        this.images.push(image);
      }
      readonly images: unknown[] = [];
    },
    Menu: {
      buildFromTemplate: (template: MenuItemSpec[]) => template,
      setApplicationMenu: record('Menu.setApplicationMenu'),
    },
    Notification: class extends FakeNotification {
      static isSupported(): boolean {
        return notifications.supported;
      }
      constructor(notificationOptions: ConstructorParameters<typeof FakeNotification>[0]) {
        super(notificationOptions);
        notifications.created.push(this);
      }
    },
    nativeImage: { createFromPath: (path: string) => ({ path }) },
    screen: {
      getPrimaryDisplay: () => STAND_IN_DISPLAY,
      getDisplayMatching: () => STAND_IN_DISPLAY,
    },
    net: {
      fetch: (url: string, init?: RequestInit) => {
        fetched.push(url);
        return fetch(url, init);
      },
    },
    protocol: {
      registerSchemesAsPrivileged: record('protocol.registerSchemesAsPrivileged'),
      handle: (scheme: string, handler: (request: Request) => Promise<Response>) => {
        protocolHandlers.set(scheme, handler);
      },
    },
    dialog: {
      showSaveDialog: async (...args: unknown[]) => {
        record('dialog.showSaveDialog')(...args);
        return { canceled: true };
      },
    },
    shell: {
      openExternal: async (url: string) => record('shell.openExternal')(url),
      openPath: async (path: string) => {
        record('shell.openPath')(path);
        return '';
      },
    },
    // The preload's side.
    contextBridge: { exposeInMainWorld: record('contextBridge.exposeInMainWorld') },
    ipcRenderer: {
      invoke: record('ipcRenderer.invoke'),
      on: record('ipcRenderer.on'),
      removeListener: record('ipcRenderer.removeListener'),
    },
  };
  return { module, calls, windows, trays, notifications, protocolHandlers, fetched, ipcMain };
}

export type ElectronStandIn = ReturnType<typeof electronStandIn>;

const GLOBAL_NAME = '__electronStandIn';

/** Makes `stand-in` what `require('electron')` / `import … from 'electron'` give from now on. */
export function activateStandIn(standIn: ElectronStandIn): void {
  (globalThis as Record<string, unknown>)[GLOBAL_NAME] = standIn.module;
}

/**
 * Writes `<dir>/node_modules/electron`, a CommonJS module whose exports are spelled out (so ES
 * modules can import them by name) and forward to the stand-in in use when they are touched.
 */
export async function installStandIn(dir: string): Promise<void> {
  const names = Object.keys(electronStandIn({ lock: false, appPath: '', userData: '' }).module);
  const forward = `const forward = (name) => new Proxy(function () {}, {
  get: (_, key) => globalThis.${GLOBAL_NAME}[name][key],
  set: (_, key, value) => { globalThis.${GLOBAL_NAME}[name][key] = value; return true; },
  construct: (_, args) => new globalThis.${GLOBAL_NAME}[name](...args),
});
`;
  const exports = names.map((name) => `exports.${name} = forward('${name}');`).join('\n');
  const moduleDir = join(dir, 'node_modules', 'electron');
  await mkdir(moduleDir, { recursive: true });
  await writeFile(join(moduleDir, 'index.js'), `${forward}${exports}\n`);
  await writeFile(join(moduleDir, 'package.json'), '{"name":"electron","main":"index.js"}');
}

/** Module instances loaded so far: each start imports the bundle afresh. */
let instances = 0;

/**
 * Starts a built main bundle (`dist/main/index.mjs`, its `electron` served by `installStandIn`)
 * with a stand-in of its own; with the lock, resolves once its window and tray exist.
 */
export async function startMainBundle(bundle: string, options: StandInOptions): Promise<ElectronStandIn> {
  const standIn = electronStandIn(options);
  activateStandIn(standIn);
  instances += 1;
  await import(`${pathToFileURL(bundle).href}?instance=${instances}`);
  if (options.lock) await until(() => standIn.windows.length === 1 && standIn.trays.length === 1);
  return standIn;
}

/**
 * Quits a started bundle as Electron does: will-quit, which the app holds while its store closes;
 * resolves once it quits for real.
 */
export async function quitMainBundle(standIn: ElectronStandIn): Promise<void> {
  const quits = () => standIn.calls.filter((c) => c[0] === 'app.quit').length;
  const before = quits();
  const event = cancellable();
  standIn.module.app.emit('will-quit', event);
  if (event.prevented) await until(() => quits() > before, 10_000);
}
