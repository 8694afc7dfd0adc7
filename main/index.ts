// The Electron main process: wiring only. The core and the service are plain Node (main/core);
// the shell's parts (main/shell) are tested with fakes of the Electron objects passed here.
// Nothing else imports 'electron'.
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  app,
  BrowserWindow,
  clipboard,
  dialog,
  ipcMain,
  Menu,
  Notification,
  nativeImage,
  net,
  powerMonitor,
  protocol,
  screen,
  shell,
  Tray,
} from 'electron';
import ElectronStore from 'electron-store';
import { AppImageUpdater, type AppUpdater, MacUpdater, NsisUpdater } from 'electron-updater';
import { openAppService } from './app-service';
import { APP_ID, APP_VERSION, updateChannel } from './core/app-identity';
import type { Log } from './core/log';
import { FolderOfAnotherUserError, ownFolder } from './core/paths';
import type { SellerTrayService } from './core/service';
import { CONTENT_SECURITY_POLICY, CONTENT_TYPES } from './renderer-serving';
import { applicationMenu } from './shell/app-menu';
import { APP_HOST, APP_SCHEME, appFilePath } from './shell/app-origin';
import { confirmCommandWithDialog } from './shell/confirm-command';
import type { NotificationsPort, TrayIcon } from './shell/electron-ports';
import { hostOf, openExternalIfAllowed } from './shell/external-links';
import { detectInstallation, type Installation } from './shell/installation';
import { forwardEvents, registerIpc } from './shell/ipc';
import {
  afterReady,
  claimSingleInstance,
  closeBeforeQuit,
  launchArguments,
  trackQuitting,
} from './shell/lifecycle';
import { applicationsDir, registerLinkHandler } from './shell/link-registration';
import { Notifier } from './shell/notifier';
import { applyOpenAtLogin, autostartDir, followOpenAtLogin, launchCommand } from './shell/open-at-login';
import { type OrderLinkPorts, OrderLinks } from './shell/order-links';
import { saveWithDialog } from './shell/save-file';
import { startTray, type TrayControllerOptions } from './shell/tray-menu';
import { electronUpdaterFeed, Updater, updateAvailability } from './shell/updater';
import { AppWindow } from './shell/window';

/** The IPC channel electron-store listens on when it opens a file in the main process. */
const ELECTRON_STORE_CHANNEL = 'electron-store-get-data';

// Before ready: the app's own scheme is a secure, standard origin (so the renderer gets
// a real origin, and fetch/CSP behave as on https).
protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
]);

const lifecycle = { app, platform: process.platform, appId: APP_ID, defaultApp: process.defaultApp === true };
/** The window, once the app is ready; a second launch before then has nothing to show yet. */
let appWindow: AppWindow | undefined;
const isQuitting = trackQuitting(app);
/** The tray icon, once created: the popover opens at it. */
let trayIcon: Tray | undefined;
/** seller-tray:// links; one may come (macOS: as an event) before the app is ready, and waits. */
const orderLinks = new OrderLinks();

// A data folder another user owns is told before Electron writes there: its single-instance lock
// (a link in that folder) would fail first on one made by `sudo`, and the app would quit without a word.
const foreignDataFolder = dataFolderOfAnotherUser(app.getPath('userData'));
if (foreignDataFolder) {
  void app.whenReady().then(() => cannotStart(foreignDataFolder));
} else if (claimSingleInstance(lifecycle, (args) => onLaunch(args))) {
  app.whenReady().then(start).catch(cannotStart);
}

/** The refusal of the data folder when another user owns it; none when it is ours or not made yet. */
function dataFolderOfAnotherUser(folder: string): FolderOfAnotherUserError | undefined {
  try {
    ownFolder(folder);
  } catch (error) {
    if (error instanceof FolderOfAnotherUserError) return error;
  }
  return undefined;
}

function cannotStart(error: unknown): void {
  // A data folder not used (another user's) says which, why and what to do, where it is seen.
  if (error instanceof FolderOfAnotherUserError)
    dialog.showErrorBox('Seller Tray could not start', error.message);
  console.error('Seller Tray could not start:', error);
  app.exit(1);
}

/** A launch while the app runs (a second start, a link the desktop opened): the window comes forward. */
function onLaunch(args: string[]): void {
  if (!orderLinks.open(args)) appWindow?.show();
}

/** The log file, once the service has opened it. */
let appLog: Log | undefined;

/** What the app cannot do but goes on without (a link registration, an update), for the log file. */
function logWarning(message: string): void {
  if (appLog) appLog.warn(message);
  else console.warn(`Seller Tray: ${message}`);
}

async function start(): Promise<void> {
  const root = app.getAppPath();
  serveRenderer(join(root, 'dist', 'renderer'));
  if (app.isPackaged) {
    const menu = applicationMenu(process.platform);
    Menu.setApplicationMenu(menu && Menu.buildFromTemplate(menu));
  }
  const { service, demo, log, policies } = await openService(app.getPath('userData'));
  appLog = log;
  const window = openWindow(root, service);
  const notifier = startNotifier(service, window);
  /** A message for the user when the window may not be open: a notification, cleaned as all are. */
  const tellUser = (message: string) => notifier.tell(message);
  const installation = thisInstallation();
  const updater = openUpdater(service, installation, window, tellUser, () => trayControl.refresh());
  const trayControl = startTray({
    ...trayParts(root, service, window, tellUser),
    moreItems: () => updater.menuItems(),
  });
  // The pause labels and "checked 1 min ago" depend on the clock: refreshed each 20 s, from the
  // service's state (no call to the marketplace).
  setInterval(() => trayControl.refresh(), 20_000).unref();
  const stopFollowingLogin = followLoginSetting(root, service, tellUser, log);
  // Window, notifier, tray and login item subscribed: what the accounts' starts told while the
  // service opened has reached each of them, and is kept no longer (the updater hears only
  // app-state, never kept).
  service.listening();

  afterReady({ ...lifecycle, powerMonitor, service, policies });
  updater.start();
  closeBeforeQuit(app, async () => {
    updater.stop();
    stopFollowingLogin();
    trayControl.stop();
    notifier.stop();
    await Promise.all([service.close(), demo.stop()]);
  });

  if (service.state().setup === 'unconfigured') window.show();
  registerLinks(root, installation, log);
  orderLinks.ready(linkPorts(service, window));
  // The first launch opens the window only for a link: started at login, the app stays in the tray.
  orderLinks.open(launchArguments(process.argv, lifecycle.defaultApp));
}

/** How this copy of the app was installed (AppImage, deb, NSIS, …): it decides links and updates. */
function thisInstallation(): Installation {
  return detectInstallation({
    platform: process.platform,
    isPackaged: app.isPackaged,
    env: process.env,
    execPath: process.execPath,
    resourcesPath: process.resourcesPath,
    readText: (file) => {
      try {
        return readFileSync(file, 'utf8');
      } catch {
        return undefined;
      }
    },
    canWrite: (file) => {
      try {
        accessSync(file, constants.W_OK);
        return true;
      } catch {
        return false;
      }
    },
  });
}

/** The window's files, from the app's own scheme, with the content security policy on each. */
function serveRenderer(rendererDir: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const file = appFilePath(request.url, rendererDir, join);
    if (!file || new URL(request.url).host !== APP_HOST) return new Response('Not found', { status: 404 });
    try {
      const body = await readFile(file);
      return new Response(body, {
        headers: {
          'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
          'content-security-policy': CONTENT_SECURITY_POLICY,
          'x-content-type-options': 'nosniff',
        },
      });
    } catch {
      return new Response('Not found', { status: 404 });
    }
  });
}

/** The service with Electron's parts: electron-store for the settings, Chromium's network stack. */
function openService(dataRoot: string) {
  return openAppService(dataRoot, {
    // electron-store is conf with Electron's defaults; it names the file `name`, conf `configName`.
    openSettingsFile: ({ configName, ...options }) => {
      const store = new ElectronStore({ ...options, name: configName });
      // It also answers 'electron-store-get-data' (data folder, app version) to any renderer, for
      // renderers that use it. Ours does not, and no IPC may skip the sender check: removed.
      ipcMain.removeAllListeners(ELECTRON_STORE_CHANNEL);
      return store;
    },
    // Chromium's network stack: the system proxy and certificate store apply.
    transport: (url, init) => net.fetch(url, init),
    // The window's own locale (Chromium's, read after ready): a notification writes a total as
    // the window does, whatever Node's default in this process is.
    locale: app.getLocale() || undefined,
    openInWindow: () => appWindow?.openInWindow(),
    // "Export statuses": the platform's save dialog, from the Documents folder;
    // the popover stays while the dialog has the focus, to say how it went.
    saveFile: (name, content) => {
      const save = () => saveWithDialog(dialog, () => app.getPath('documents'))(name, content);
      return appWindow ? appWindow.whileDialog(save) : save();
    },
    // A command automation is saved only when allowed in the shell's own dialog (confirm-command.ts).
    confirmCommand: (automation) => {
      const ask = () => confirmCommandWithDialog(dialog)(automation);
      return appWindow ? appWindow.whileDialog(ask) : ask();
    },
    // "Open log folder": the platform's file manager (Electron answers a failure in words, not by throwing).
    openFolder: async (path) => {
      const failure = await shell.openPath(path);
      if (failure) throw new Error(failure);
    },
  });
}

/** The window (created hidden now, so the problems the service found while opening reach it), wired to the service. */
function openWindow(root: string, service: SellerTrayService): AppWindow {
  const openLink = (url: string) => {
    void openExternalIfAllowed(
      (u) => shell.openExternal(u),
      url,
      hostOf(service.state().baseUrl),
      service.currentSettings().runbooks,
    );
  };
  const window = new AppWindow({
    createWindow: (options) => new BrowserWindow(options),
    preloadPath: join(root, 'dist', 'preload', 'index.cjs'),
    // The packaged app has no DevTools, and no menu that offers them (nor Reload).
    devTools: !app.isPackaged,
    isQuitting,
    openExternal: openLink,
    trayBounds: () => trayIcon?.getBounds(),
    workArea: (near) => (near ? screen.getDisplayMatching(near) : screen.getPrimaryDisplay()).workArea,
  });
  appWindow = window;
  window.get();
  // Anything else that tries to create web contents (there should be none) gets the same rules.
  app.on('web-contents-created', (_event, contents) => {
    contents.setWindowOpenHandler(({ url }) => {
      openLink(url);
      return { action: 'deny' };
    });
  });
  forwardEvents(service, (event) => window.send(event));
  registerIpc(ipcMain, service);
  return window;
}

function startNotifier(service: SellerTrayService, window: AppWindow): Notifier {
  const notifications: NotificationsPort = {
    isSupported: () => Notification.isSupported(),
    // Electron shows notification buttons on macOS and Windows only.
    actionsSupported: process.platform === 'darwin' || process.platform === 'win32',
    // libnotify hands the text to a freedesktop notification server, which reads markup.
    readsMarkup: process.platform === 'linux',
    create: (options) => new Notification(options),
  };
  return new Notifier({
    service,
    notifications,
    show: (event) => window.show(event),
    copyText: (text) => clipboard.writeText(text),
  });
}

function trayParts(
  root: string,
  service: SellerTrayService,
  window: AppWindow,
  tellUser: (message: string) => void,
): TrayControllerOptions {
  // macOS: template images (Electron picks up @2x and template mode from the names).
  const trayImages: Record<TrayIcon, string> =
    process.platform === 'darwin'
      ? { normal: 'tray/trayTemplate.png', warning: 'tray/trayWarningTemplate.png' }
      : process.platform === 'win32'
        ? { normal: 'icon.ico', warning: 'tray/tray-warning.png' }
        : { normal: 'tray/tray.png', warning: 'tray/tray-warning.png' };
  const image = (icon: TrayIcon) => nativeImage.createFromPath(join(root, 'build', trayImages[icon]));
  const tray = new Tray(image('normal'));
  let shown: TrayIcon = 'normal';
  trayIcon = tray;
  // A click on the icon (Windows, some Linux panels; macOS opens the menu) opens or closes the popover.
  tray.on('click', () => window.togglePopover());
  return {
    service,
    tray: {
      setIcon: (icon) => {
        if (icon !== shown) tray.setImage(image(icon));
        shown = icon;
      },
      setToolTip: (text) => tray.setToolTip(text),
      setTitle: (title) => tray.setTitle(title),
      setMenu: (template) => tray.setContextMenu(Menu.buildFromTemplate(template)),
    },
    open: () => window.show(),
    attention: () => window.show({ type: 'open-attention' }),
    insights: () => window.show({ type: 'open-insights' }),
    settings: () => window.show({ type: 'open-settings' }),
    help: () => window.show({ type: 'open-help' }),
    quit: () => app.quit(),
    onFailure: tellUser,
    onChecked: tellUser,
  };
}

/**
 * Updates, for the installs that update themselves and whose build names a feed (app-update.yml,
 * written by electron-builder from `publish`); the About panel and the tray follow it.
 */
function openUpdater(
  service: SellerTrayService,
  installation: Installation,
  window: AppWindow,
  tellUser: (message: string) => void,
  refreshTray: () => void,
): Updater {
  const hasFeed = app.isPackaged && existsSync(join(process.resourcesPath, 'app-update.yml'));
  // The organization's update policies, as they stand at start (a change applies at the next start).
  const { rules } = service.currentPolicies();
  const availability = updateAvailability(installation, hasFeed, rules.updatesEnabled !== false);
  const channel = rules.updateChannel ?? updateChannel(APP_VERSION);
  const updater = new Updater({
    feed:
      availability === 'updater'
        ? electronUpdaterFeed(platformUpdater(rules.updateChannel, rules.updateFeedUrl))
        : undefined,
    availability,
    version: APP_VERSION,
    channel,
    automatic: () => service.currentSettings().checkForUpdatesAutomatically,
    pendingStatuses: () => service.state().pendingOutbox,
    onAppChange: (listener) =>
      service.onEvent((event) => {
        if (event.type === 'app-state') listener();
      }),
    tell: tellUser,
    log: logWarning,
    onStatus: (status) => {
      refreshTray();
      window.send({ type: 'update-status', status });
    },
  });
  service.attachUpdates({ status: () => updater.status(), check: () => updater.check() });
  return updater;
}

/**
 * electron-updater's updater for this platform, on the organization's channel and from its feed
 * where a policy names them (else the build's own, app-update.yml); its failures reach the Updater,
 * which logs them. electron-updater allows a downgrade once a channel is set: moving a laptop from
 * beta back to latest is what such a policy is for.
 */
function platformUpdater(channel: string | undefined, feedUrl: string | undefined): AppUpdater {
  const updater =
    process.platform === 'win32'
      ? new NsisUpdater()
      : process.platform === 'darwin'
        ? new MacUpdater()
        : new AppImageUpdater();
  if (feedUrl) updater.setFeedURL({ provider: 'generic', url: feedUrl, ...(channel ? { channel } : {}) });
  if (channel) updater.channel = channel;
  updater.logger = { info: () => {}, warn: (message) => logWarning(String(message)), error: () => {} };
  return updater;
}

/** A link opens the window on its order, or the window says why it cannot. */
function linkPorts(service: SellerTrayService, window: AppWindow): OrderLinkPorts {
  return {
    lookUp: (orderId, account) => service.lookUpOrder(orderId, account),
    showOrder: (orderId, account) => window.show({ type: 'open-order', orderId, account }),
    showProblem: (message, details) => {
      window.show();
      window.send({ type: 'problem', message, details });
    },
  };
}

/** seller-tray:// links open this copy of the app (where its installer did not see to it). */
function registerLinks(root: string, installation: Installation, log: Log): void {
  const run = promisify(execFile);
  registerLinkHandler({
    platform: process.platform,
    installation,
    app,
    command: appCommand(root),
    applicationsDir: applicationsDir(process.env, homedir()),
    log,
    xdgMime: async (args) => {
      await run('xdg-mime', args);
    },
  }).catch((error: unknown) =>
    logWarning(`seller-tray:// links may not open Seller Tray: ${(error as Error).message}`),
  );
}

/** The command line that starts this app again (at login, for a link). */
function appCommand(root: string): string[] {
  return launchCommand({
    execPath: process.execPath,
    env: process.env,
    isPackaged: app.isPackaged,
    appPath: root,
  });
}

/** Open at login follows the setting, for this executable; returns the stop function. */
function followLoginSetting(
  root: string,
  service: SellerTrayService,
  tellUser: (message: string) => void,
  log: Log,
): () => void {
  const loginItem = {
    platform: process.platform,
    app,
    command: appCommand(root),
    autostartDir: autostartDir(),
    log,
  };
  return followOpenAtLogin(service, (enabled) => applyOpenAtLogin(enabled, loginItem), tellUser);
}
