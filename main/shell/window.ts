// The one window: created hidden with Electron's security checklist applied, shown and focused
// from the tray or a notification, hidden rather than closed (the app lives in the tray) unless
// the app is quitting. It cannot navigate away, open windows, attach webviews, or get
// permissions; links to allowed https hosts open in the browser instead, and a contact's
// mailto: or tel: link in the mail or phone app.
import { isContactHref } from '../../preload/contact-links';
import { EVENT_CHANNEL, type ShellEvent } from '../../preload/contract';
import { APP_URL, isAppUrl } from './app-origin';
import type { WindowOptions, WindowPort } from './electron-ports';

export type { ShellEvent };

export interface AppWindowOptions {
  createWindow(options: WindowOptions): WindowPort;
  preloadPath: string;
  /** Whether DevTools can be opened: in development only, never in the packaged app. */
  devTools: boolean;
  /** Whether the app is quitting: then closing the window really closes it. */
  isQuitting(): boolean;
  /** Opens an external link when it is allowed (see external-links.ts). */
  openExternal(url: string): void;
  url?: string;
}

export function windowOptions(preloadPath: string, devTools: boolean): WindowOptions {
  return {
    width: 1100,
    height: 720,
    minWidth: 640,
    minHeight: 420,
    show: false,
    title: 'Seller Tray',
    autoHideMenuBar: true,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
      devTools,
    },
  };
}

export class AppWindow {
  private window: WindowPort | undefined;

  constructor(private readonly options: AppWindowOptions) {}

  /** The window, created (hidden, loading the app) on first use. */
  get(): WindowPort {
    if (this.window && !this.window.isDestroyed()) return this.window;
    const window = this.options.createWindow(windowOptions(this.options.preloadPath, this.options.devTools));
    secure(window, this.options);
    window.on('close', (event) => {
      if (!this.options.isQuitting()) {
        event.preventDefault();
        window.hide();
      }
    });
    void window.loadURL(this.options.url ?? APP_URL);
    this.window = window;
    return window;
  }

  /** Shows and focuses the window; with an event, tells the renderer where to go once it has loaded. */
  show(event?: ShellEvent): void {
    const window = this.get();
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
    if (event) this.send(event);
  }

  /** Sends an event to the renderer, after it has loaded; dropped when there is no window. */
  send(event: unknown): void {
    const window = this.window;
    if (!window || window.isDestroyed() || window.webContents.isDestroyed()) return;
    const contents = window.webContents;
    if (contents.isLoading()) contents.once('did-finish-load', () => contents.send(EVENT_CHANNEL, event));
    else contents.send(EVENT_CHANNEL, event);
  }
}

/** Navigation, new windows, webviews and permissions: all denied. */
function secure(window: WindowPort, options: AppWindowOptions): void {
  const contents = window.webContents;
  const stayInApp = (event: { preventDefault(): void }, url: string) => {
    if (!isAppUrl(url)) event.preventDefault();
  };
  contents.on('will-navigate', (event, url) => {
    stayInApp(event, url);
    // A click on a contact's e-mail or telephone: the window stays, the mail or phone app opens.
    if (isContactHref(url)) options.openExternal(url);
  });
  contents.on('will-redirect', stayInApp);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    options.openExternal(url);
    return { action: 'deny' };
  });
  contents.session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  contents.session.setPermissionCheckHandler(() => false);
}
