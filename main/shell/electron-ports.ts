// The little of Electron the shell uses, as structural interfaces: Electron's own objects
// satisfy them (main/index.ts passes them in, through thin adapters where a call differs),
// and the tests pass small fakes. Nothing here imports 'electron'.
import type { Rect } from './window-placement';

/** One item of a menu; a subset of Electron's MenuItemConstructorOptions. */
export interface MenuItemSpec {
  /** One of Electron's standard menus, whole. */
  role?: 'appMenu' | 'editMenu' | 'windowMenu';
  label?: string;
  type?: 'normal' | 'separator' | 'submenu';
  enabled?: boolean;
  click?: () => void;
  submenu?: MenuItemSpec[];
}

/** The tray icon's forms: as usual, or warning that the marketplace has not been read for a while. */
export type TrayIcon = 'normal' | 'warning';

/** The tray icon: its image, tooltip and context menu (built from a template by the adapter). */
export interface TrayPort {
  /** Shows the icon's form (the adapter knows the platform's image for each). */
  setIcon?(icon: TrayIcon): void;
  /** Where the icon is on the screen; empty or absent where the platform does not tell (Linux, often). */
  getBounds?(): Rect;
  setToolTip(toolTip: string): void;
  setMenu(template: MenuItemSpec[]): void;
  /** macOS only: text next to the icon (the count). */
  setTitle?(title: string): void;
}

/** A native notification, as Electron's Notification. */
export interface NativeNotification {
  on(event: 'click', listener: () => void): unknown;
  /** `timedOut`: the pop-up went, the notification stays in the Action Center (Windows). */
  on(event: 'close', listener: (details: { reason?: string }) => void): unknown;
  /** A button of `actions` was pressed (macOS, Windows). */
  on(event: 'action', listener: (details: { actionIndex: number }) => void): unknown;
  show(): void;
}

/** What a notification is created with; a subset of Electron's NotificationConstructorOptions. */
export interface NotificationOptions {
  title: string;
  body: string;
  /** Linux: 'critical' stays on screen until dismissed (an urgent order, the marketplace not read). */
  urgency?: 'normal' | 'critical';
  actions?: { type: 'button'; text: string }[];
}

export interface NotificationsPort {
  isSupported(): boolean;
  /** Whether notifications can carry buttons here (Electron shows them on macOS and Windows). */
  readonly actionsSupported: boolean;
  /** Whether the notification server reads the text as markup (Linux: freedesktop notifications). */
  readonly readsMarkup: boolean;
  create(options: NotificationOptions): NativeNotification;
}

/** What a navigation or close listener may cancel. */
export interface Cancellable {
  preventDefault(): void;
}

export interface SessionPort {
  setPermissionRequestHandler(
    handler: (webContents: unknown, permission: string, callback: (granted: boolean) => void) => void,
  ): void;
  setPermissionCheckHandler(handler: () => boolean): void;
}

export interface WebContentsPort {
  send(channel: string, ...args: unknown[]): void;
  isLoading(): boolean;
  isDestroyed(): boolean;
  once(event: 'did-finish-load', listener: () => void): unknown;
  on(event: 'will-navigate', listener: (event: Cancellable, url: string) => void): unknown;
  on(event: 'will-redirect', listener: (event: Cancellable, url: string) => void): unknown;
  on(event: 'will-attach-webview', listener: (event: Cancellable) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
  readonly session: SessionPort;
}

/** The one window (a BrowserWindow). */
export interface WindowPort {
  show(): void;
  hide(): void;
  focus(): void;
  isVisible(): boolean;
  setBounds(bounds: Rect): void;
  /** A popover stays out of the taskbar and above other windows; the full-size window does not. */
  setSkipTaskbar(skip: boolean): void;
  setAlwaysOnTop(flag: boolean): void;
  isMinimized(): boolean;
  restore(): void;
  isDestroyed(): boolean;
  loadURL(url: string): Promise<unknown>;
  on(event: 'close', listener: (event: Cancellable) => void): unknown;
  on(event: 'blur', listener: () => void): unknown;
  readonly webContents: WebContentsPort;
}

/** The options the shell creates its window with; a subset of BrowserWindowConstructorOptions. */
export interface WindowOptions {
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
  show: boolean;
  title: string;
  autoHideMenuBar: boolean;
  webPreferences: {
    preload: string;
    contextIsolation: boolean;
    sandbox: boolean;
    nodeIntegration: boolean;
    nodeIntegrationInWorker: boolean;
    nodeIntegrationInSubFrames: boolean;
    webSecurity: boolean;
    allowRunningInsecureContent: boolean;
    webviewTag: boolean;
    spellcheck: boolean;
    devTools: boolean;
  };
}

/** What ipcMain.handle passes its handler: who sent the message. */
export interface IpcInvokeEvent {
  readonly senderFrame: { readonly url: string } | null;
}

export interface IpcMainPort {
  handle(channel: string, listener: (event: IpcInvokeEvent, ...args: unknown[]) => Promise<unknown>): void;
}

/** shell.openExternal */
export type OpenExternal = (url: string) => Promise<void>;

/** The app's lifecycle, as Electron's `app`. */
export interface AppPort {
  requestSingleInstanceLock(): boolean;
  quit(): void;
  setAppUserModelId(id: string): void;
  readonly dock?: { hide(): void } | undefined;
  on(event: 'second-instance', listener: (event: unknown, argv: string[]) => void): unknown;
  /** macOS: a link (or file) the system asks the app to open; may come before ready. */
  on(event: 'open-url', listener: (event: { preventDefault(): void }, url: string) => void): unknown;
  on(event: 'before-quit', listener: () => void): unknown;
  /** The last moment to hold the quit (preventDefault) while the store closes. */
  on(event: 'will-quit', listener: (event: { preventDefault(): void }) => void): unknown;
  on(event: 'window-all-closed', listener: () => void): unknown;
}

/** powerMonitor: the machine woke from sleep. */
export interface PowerMonitorPort {
  /** The machine woke from sleep; 'unlock-screen': the user unlocked it (macOS, Windows). */
  on(event: 'resume' | 'unlock-screen', listener: () => void): unknown;
}
