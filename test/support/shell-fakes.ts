// Hand-written fakes of the Electron objects the shell uses (never the real 'electron'
// module: its binary is not here), and a real service on the simulator, for the shell's tests.
import { rm } from 'node:fs/promises';
import { SellerTrayService, type ServiceEvent } from '../../main/core/service';
import { ConfSettingsStore } from '../../main/core/settings';
import type {
  Cancellable,
  IpcInvokeEvent,
  IpcMainPort,
  MenuItemSpec,
  NativeNotification,
  NotificationOptions,
  NotificationsPort,
  TrayIcon,
  TrayPort,
  WindowOptions,
  WindowPort,
} from '../../main/shell/electron-ports';
import type { Rect } from '../../main/shell/window-placement';
import { DEFAULT_CLIENT } from '../../simulator/marketplace-server';
import { type Simulator, startSimulator } from '../../simulator/server';
import { ManualTimers, makeDataDir } from './core';

import { memorySecrets } from './memory-secrets';

export { memorySecrets };

export class FakeTray implements TrayPort {
  icon: TrayIcon = 'normal';
  toolTip = '';
  title = '';
  menu: MenuItemSpec[] = [];
  setIcon(icon: TrayIcon): void {
    this.icon = icon;
  }
  setToolTip(toolTip: string): void {
    this.toolTip = toolTip;
  }
  setTitle(title: string): void {
    this.title = title;
  }
  setMenu(template: MenuItemSpec[]): void {
    this.menu = template;
  }
  /** The item with this label, searching submenus. */
  item(label: string | RegExp, items: MenuItemSpec[] = this.menu): MenuItemSpec | undefined {
    for (const item of items) {
      const matches = typeof label === 'string' ? item.label === label : label.test(item.label ?? '');
      if (matches) return item;
      const inner = item.submenu && this.item(label, item.submenu);
      if (inner) return inner;
    }
    return undefined;
  }
}

type Listener = (...args: never[]) => void;

class Emitter {
  readonly listeners = new Map<string, Listener[]>();
  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  once(event: string, listener: Listener): this {
    return this.on(event, listener);
  }
  emit(event: string, ...args: unknown[]): void {
    for (const listener of this.listeners.get(event) ?? []) (listener as (...a: unknown[]) => void)(...args);
  }
}

export class FakeNotification extends Emitter implements NativeNotification {
  shown = false;
  constructor(readonly options: NotificationOptions) {
    super();
  }
  show(): void {
    this.shown = true;
  }
}

export class FakeNotifications implements NotificationsPort {
  supported = true;
  readonly created: FakeNotification[] = [];
  constructor(
    readonly actionsSupported = false,
    readonly readsMarkup = false,
  ) {}
  isSupported(): boolean {
    return this.supported;
  }
  create(options: NotificationOptions): FakeNotification {
    const notification = new FakeNotification(options);
    this.created.push(notification);
    return notification;
  }
}

/** A navigation or close event: records whether it was cancelled. */
export function cancellable(): Cancellable & { prevented: boolean } {
  const event = {
    prevented: false,
    preventDefault() {
      event.prevented = true;
    },
  };
  return event;
}

export class FakeWebContents extends Emitter {
  readonly sent: { channel: string; args: unknown[] }[] = [];
  loading = false;
  destroyed = false;
  windowOpenHandler: ((details: { url: string }) => { action: 'deny' }) | undefined;
  permissionRequestHandler:
    | ((webContents: unknown, permission: string, callback: (granted: boolean) => void) => void)
    | undefined;
  permissionCheckHandler: (() => boolean) | undefined;
  readonly session = {
    setPermissionRequestHandler: (handler: NonNullable<FakeWebContents['permissionRequestHandler']>) => {
      this.permissionRequestHandler = handler;
    },
    setPermissionCheckHandler: (handler: () => boolean) => {
      this.permissionCheckHandler = handler;
    },
  };
  send(channel: string, ...args: unknown[]): void {
    this.sent.push({ channel, args });
  }
  isLoading(): boolean {
    return this.loading;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void {
    this.windowOpenHandler = handler;
  }
}

export class FakeWindow extends Emitter implements WindowPort {
  visible = false;
  bounds: Rect | undefined;
  skipTaskbar = false;
  alwaysOnTop = false;
  focused = 0;
  minimized = false;
  destroyed = false;
  loaded: string[] = [];
  readonly webContents = new FakeWebContents();
  constructor(readonly options: WindowOptions) {
    super();
  }
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
  focus(): void {
    this.focused++;
  }
  isVisible(): boolean {
    return this.visible;
  }
  setBounds(bounds: Rect): void {
    this.bounds = bounds;
  }
  setSkipTaskbar(skip: boolean): void {
    this.skipTaskbar = skip;
  }
  setAlwaysOnTop(flag: boolean): void {
    this.alwaysOnTop = flag;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  restore(): void {
    this.minimized = false;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  async loadURL(url: string): Promise<void> {
    this.loaded.push(url);
  }
}

export class FakeIpcMain implements IpcMainPort {
  readonly handlers = new Map<string, (event: IpcInvokeEvent, ...args: unknown[]) => Promise<unknown>>();
  handle(channel: string, listener: (event: IpcInvokeEvent, ...args: unknown[]) => Promise<unknown>): void {
    if (this.handlers.has(channel)) throw new Error(`a second handler for ${channel}`);
    this.handlers.set(channel, listener);
  }
  /** What ipcRenderer.invoke from a frame at `frameUrl` would get. */
  invoke(frameUrl: string | null, channel: string, payload?: unknown): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`no handler for ${channel}`);
    return handler({ senderFrame: frameUrl === null ? null : { url: frameUrl } }, payload);
  }
}

export interface TestService {
  service: SellerTrayService;
  sim: Simulator;
  events: ServiceEvent[];
  close(): Promise<void>;
}

/** A real service in demo mode on a fresh simulator; timers never fire by themselves. */
export async function openDemoService(): Promise<TestService> {
  const sim = await startSimulator({ port: 0, orders: 5 });
  const dir = await makeDataDir();
  const service = await SellerTrayService.open({
    settings: new ConfSettingsStore({ cwd: dir }),
    secrets: memorySecrets(),
    dataRoot: dir,
    timers: new ManualTimers(),
    // Notifications write amounts as an English desktop does, whatever this machine's locale.
    locale: 'en',
    demo: {
      start: async () => ({
        baseUrl: sim.url,
        clientId: DEFAULT_CLIENT.clientId,
        clientSecret: DEFAULT_CLIENT.clientSecret,
      }),
    },
  });
  const events: ServiceEvent[] = [];
  service.onEvent((event) => events.push(event));
  service.listening();
  const started = await service.handle('startDemo', undefined);
  if (!started.ok) throw new Error(started.error.message);
  return {
    service,
    sim,
    events,
    async close() {
      service.close();
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until `check` holds (the service's events come after its answers). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A 1920×1080 screen with a top bar of 28 px, whose tray does not tell where its icon is (as on many Linux panels). */
export const FAKE_SCREEN = {
  trayBounds: (): Rect | undefined => undefined,
  workArea: (): Rect => ({ x: 0, y: 28, width: 1920, height: 1052 }),
};
