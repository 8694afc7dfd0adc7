// The one window: created hidden with Electron's security checklist applied, shown and focused
// from the tray or a notification, hidden rather than closed (the app lives in the tray) unless
// the app is quitting. It is shown as a popover at the tray icon (tray-sized, out of the taskbar,
// gone when it loses focus) until the user asks for the full-size window ("Open in a window"),
// which stays until closed; the renderer is told which, to offer that choice. It cannot navigate away, open windows, attach webviews, or get
// permissions; links to allowed https hosts open in the browser instead, and a contact's
// mailto: or tel: link in the mail or phone app.
import { isContactHref } from '../../preload/contact-links';
import { EVENT_CHANNEL, type ShellEvent } from '../../preload/contract';
import { APP_URL, isAppUrl } from './app-origin';
import type { WindowOptions, WindowPort } from './electron-ports';
import { popoverBounds, type Rect, WINDOW_SIZES, type WindowMode, windowBounds } from './window-placement';

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
  /** The tray icon's place, where the platform tells it. */
  trayBounds(): Rect | undefined;
  /** The work area of the screen nearest to `near` (the primary screen's without it). */
  workArea(near: Rect | undefined): Rect;
  url?: string;
}

/**
 * A click on the tray icon this soon after the popover hid on losing the focus was meant to close
 * it. Timed by the process's monotonic clock (performance.now()), never the wall clock, which may
 * be set back meanwhile.
 */
const CLICK_AFTER_BLUR_MS = 300;

/** The smallest the window may be made: the popover's layout, a little narrower. */
const MINIMUM_SIZE = { width: 360, height: 420 };

export function windowOptions(preloadPath: string, devTools: boolean): WindowOptions {
  return {
    ...WINDOW_SIZES.popover,
    minWidth: MINIMUM_SIZE.width,
    minHeight: MINIMUM_SIZE.height,
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
  /** How the window was last placed; none before it was first shown. */
  private mode: WindowMode | undefined;
  /** When the popover last hid because it lost the focus. */
  private hiddenOnBlurAt = Number.NEGATIVE_INFINITY;
  /** Dialogs of the app open now: the popover keeps to the screen while they have the focus. */
  private dialogs = 0;

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
    // A popover goes as soon as the user turns to something else, as tray popovers do.
    window.on('blur', () => {
      if (this.mode !== 'popover' || this.dialogs > 0 || this.options.isQuitting()) return;
      window.hide();
      this.hiddenOnBlurAt = performance.now();
    });
    void window.loadURL(this.options.url ?? APP_URL);
    this.window = window;
    return window;
  }

  /**
   * Shows and focuses the window as it was last shown (first: the popover at the tray icon); with
   * an event, tells the renderer where to go once it has loaded.
   */
  show(event?: ShellEvent, mode: WindowMode = this.mode ?? 'popover'): void {
    const window = this.get();
    if (mode === 'popover' || mode !== this.mode) this.place(window, mode);
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
    if (event) this.send(event);
  }

  /** Runs a dialog of the app (a save dialog): the popover stays while it has the focus, to say how it went. */
  async whileDialog<T>(dialog: () => Promise<T>): Promise<T> {
    this.dialogs += 1;
    try {
      return await dialog();
    } finally {
      this.dialogs -= 1;
    }
  }

  /** The tray icon's click: the popover opens, or closes when it is open. */
  togglePopover(): void {
    // The click on the icon blurs the popover first (it hides then): that click was to close it.
    const justHidden = performance.now() - this.hiddenOnBlurAt < CLICK_AFTER_BLUR_MS;
    if (this.mode === 'popover' && (this.window?.isVisible() || justHidden)) this.window?.hide();
    else this.show(undefined, 'popover');
  }

  /** "Open in a window": the full-size window, where the popover was. */
  openInWindow(): void {
    this.show(undefined, 'window');
  }

  /** Sizes and places the window for `mode` (a popover at the icon each time: the icon may have moved). */
  private place(window: WindowPort, mode: WindowMode): void {
    const tray = mode === 'popover' ? this.options.trayBounds() : undefined;
    const area = this.options.workArea(tray);
    window.setBounds(mode === 'popover' ? popoverBounds(tray, area) : windowBounds(area));
    window.setSkipTaskbar(mode === 'popover');
    window.setAlwaysOnTop(mode === 'popover');
    this.mode = mode;
    this.send({ type: 'window-mode', mode });
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
