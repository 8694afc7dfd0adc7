// The lifecycle with a fake app and powerMonitor: one instance (a second launch focuses the
// window), platform bits, a poll on wake, a quit that waits (bounded) for the store to close.
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  cancellable,
  FAKE_SCREEN,
  FakeWindow,
  openDemoService,
  type TestService,
  until,
} from '../../test/support/shell-fakes';
import { silentLog } from '../core/log';
import { windowsPolicySource } from '../core/policy/sources';
import { PolicyWatcher } from '../core/policy/watcher';
import type { AppPort, PowerMonitorPort } from './electron-ports';
import {
  afterReady,
  claimSingleInstance,
  closeBeforeQuit,
  launchArguments,
  trackQuitting,
} from './lifecycle';
import { AppWindow } from './window';

class FakeApp implements AppPort {
  locked = true;
  quits = 0;
  modelId: string | undefined;
  dockHidden = false;
  readonly dock = {
    hide: () => {
      this.dockHidden = true;
    },
  };
  readonly listeners = new Map<string, (...args: never[]) => unknown>();
  requestSingleInstanceLock(): boolean {
    return this.locked;
  }
  quit(): void {
    this.quits++;
  }
  setAppUserModelId(id: string): void {
    this.modelId = id;
  }
  on(event: string, listener: (...args: never[]) => unknown): this {
    this.listeners.set(event, listener);
    return this;
  }
  /** Electron emitting an app event to the listener the code under test registered. */
  emit(event: string, ...args: unknown[]): void {
    (this.listeners.get(event) as ((...args: unknown[]) => unknown) | undefined)?.(...args);
  }
}

const opened: TestService[] = [];
/** Policies never read again: the tests that are not about them. */
const UNWATCHED = { refresh: async () => undefined };
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

describe('the lifecycle', () => {
  it('a second instance focuses the first one’s window, and hands it its arguments', () => {
    const app = new FakeApp();
    const created: FakeWindow[] = [];
    const window = new AppWindow({
      ...FAKE_SCREEN,
      createWindow: (o) => {
        const w = new FakeWindow(o);
        created.push(w);
        return w;
      },
      preloadPath: '/p',
      devTools: false,
      isQuitting: trackQuitting(app),
      openExternal: () => {},
    });
    const launches: string[][] = [];
    const claimed = claimSingleInstance(
      { app, platform: 'linux', appId: 'id', defaultApp: false },
      (args) => {
        launches.push(args);
        window.show();
      },
    );
    expect(claimed).toBe(true);
    window.get();
    created[0]?.hide();
    if (created[0]) created[0].minimized = true;
    app.emit('second-instance', {}, ['/opt/Seller Tray/seller-tray', 'seller-tray://order/o-1']);
    expect(launches).toEqual([['seller-tray://order/o-1']]);
    expect([created[0]?.visible, created[0]?.minimized, created[0]?.focused]).toEqual([true, false, 1]);
    expect(created).toHaveLength(1);
    expect(app.quits).toBe(0);
  });

  it('macOS: a link the system opens is handed over as a launch argument, and the system told it is handled', () => {
    const app = new FakeApp();
    const launches: string[][] = [];
    claimSingleInstance({ app, platform: 'darwin', appId: 'id', defaultApp: false }, (args) =>
      launches.push(args),
    );
    const event = { prevented: false, preventDefault: () => (event.prevented = true) };
    app.emit('open-url', event, 'seller-tray://order/o-2');
    expect(launches).toEqual([['seller-tray://order/o-2']]);
    expect(event.prevented).toBe(true);
  });

  it('the second instance itself quits when the lock is taken', () => {
    const app = new FakeApp();
    app.locked = false;
    expect(claimSingleInstance({ app, platform: 'linux', appId: 'id', defaultApp: false }, () => {})).toBe(
      false,
    );
    expect(app.quits).toBe(1);
    expect(app.listeners.has('second-instance')).toBe(false);
  });

  it('sets the app user model id on Windows only; hides the dock on macOS only', async () => {
    const s = await openDemoService();
    opened.push(s);
    const power: PowerMonitorPort = { on: () => undefined };
    for (const platform of ['win32', 'darwin', 'linux'] as const) {
      const app = new FakeApp();
      claimSingleInstance({ app, platform, appId: 'com.sellertray.desktop', defaultApp: false }, () => {});
      afterReady({
        app,
        platform,
        appId: 'x',
        defaultApp: false,
        powerMonitor: power,
        service: s.service,
        policies: UNWATCHED,
      });
      expect([app.modelId, app.dockHidden], platform).toEqual([
        platform === 'win32' ? 'com.sellertray.desktop' : undefined,
        platform === 'darwin',
      ]);
    }
  });

  it('checks for orders and reads the policies again when the machine wakes; reads them when the screen is unlocked', async () => {
    const s = await openDemoService();
    opened.push(s);
    const listeners = new Map<string, () => void>();
    const handle = vi.spyOn(s.service, 'handle');
    // The Windows registry as reg.exe exports it: the machine's policy key, its locale changed by IT.
    let locale = 'en-GB';
    const registry = windowsPolicySource(async (key) =>
      key.startsWith('HKEY_LOCAL_MACHINE')
        ? `Windows Registry Editor Version 5.00\r\n\r\n[${key}]\r\n"Locale"="${locale}"\r\n`
        : '',
    );
    const policies = await PolicyWatcher.start(registry, { log: silentLog });
    onTestFinished(() => policies.close());
    afterReady({
      app: new FakeApp(),
      platform: 'win32',
      appId: 'x',
      defaultApp: false,
      powerMonitor: {
        on: (event, listener) => {
          listeners.set(event, listener);
        },
      },
      service: s.service,
      policies,
    });
    expect(policies.current().rules.locale).toBe('en-GB');
    expect(handle).not.toHaveBeenCalled();

    locale = 'de-DE';
    listeners.get('resume')?.();
    expect(handle).toHaveBeenCalledWith('checkNow', undefined);
    await vi.waitFor(() => expect(policies.current().rules.locale).toBe('de-DE'));

    locale = 'fi-FI';
    listeners.get('unlock-screen')?.();
    await vi.waitFor(() => expect(policies.current().rules.locale).toBe('fi-FI'));
  });

  it('reads a launch’s arguments after the executable, and in development after the app’s folder', () => {
    expect(launchArguments(['/opt/Seller Tray/seller-tray', 'seller-tray://order/o-1'], false)).toEqual([
      'seller-tray://order/o-1',
    ]);
    expect(launchArguments(['/usr/bin/electron', '/home/me/seller-tray', '--hidden'], true)).toEqual([
      '--hidden',
    ]);
    expect(launchArguments(['/opt/Seller Tray/seller-tray'], false)).toEqual([]);
  });

  it('knows when the app is quitting', () => {
    const app = new FakeApp();
    const quitting = trackQuitting(app);
    expect(quitting()).toBe(false);
    app.emit('before-quit');
    expect(quitting()).toBe(true);
  });
});

describe('quitting', () => {
  it('waits for the store to close before the app quits for real, and quits once', async () => {
    const app = new FakeApp();
    let closed!: () => void;
    let closes = 0;
    closeBeforeQuit(
      app,
      () => {
        closes++;
        return new Promise<void>((resolve) => {
          closed = resolve;
        });
      },
      { signals: new EventEmitter() },
    );
    const first = cancellable();
    app.emit('will-quit', first);
    app.emit('will-quit', cancellable()); // a second quit while closing waits for the same close
    expect(first.prevented).toBe(true);
    expect(closes).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(app.quits).toBe(0);
    closed();
    await until(() => app.quits === 1);
    const last = cancellable();
    app.emit('will-quit', last);
    expect(last.prevented).toBe(false);
  });

  it('is let go after its bound when closing hangs', async () => {
    const app = new FakeApp();
    closeBeforeQuit(app, () => new Promise<void>(() => {}), { signals: new EventEmitter(), withinMs: 50 });
    app.emit('will-quit', cancellable());
    await until(() => app.quits === 1, 1_000);
  });

  it('quits the same way on SIGINT and SIGTERM', () => {
    for (const signal of ['SIGINT', 'SIGTERM']) {
      const app = new FakeApp();
      const signals = new EventEmitter();
      closeBeforeQuit(app, async () => {}, { signals });
      signals.emit(signal);
      expect(app.quits).toBe(1);
    }
  });
});
