// The window with a fake BrowserWindow: secure preferences, one window shown and focused,
// hidden rather than closed, and navigation, new windows, webviews and permissions denied.
import { describe, expect, it, vi } from 'vitest';
import { EVENT_CHANNEL } from '../../preload/contract';
import { cancellable, FAKE_SCREEN, FakeWindow } from '../../test/support/shell-fakes';
import { applicationMenu } from './app-menu';
import { APP_URL } from './app-origin';
import { hostOf, openExternalIfAllowed } from './external-links';
import { AppWindow } from './window';
import type { Rect } from './window-placement';

function appWindow({ devTools = false, tray }: { devTools?: boolean; tray?: Rect | undefined } = {}) {
  const created: FakeWindow[] = [];
  const external: string[] = [];
  let quitting = false;
  const window = new AppWindow({
    ...FAKE_SCREEN,
    trayBounds: () => tray,
    createWindow: (options) => {
      const w = new FakeWindow(options);
      created.push(w);
      return w;
    },
    preloadPath: '/app/dist/preload/index.cjs',
    devTools,
    isQuitting: () => quitting,
    // As main/index.ts wires it.
    openExternal: (url) =>
      void openExternalIfAllowed(
        async (allowed) => {
          external.push(allowed);
        },
        url,
        hostOf('https://marketplace.example.com/api'),
        [
          {
            itemId: 'SS-STD',
            name: 'Standard',
            checklist: [],
            links: [{ label: 'Console', url: 'http://console.intranet:8080/tenants/{buyerAccountId}' }],
            reasons: [],
          },
        ],
      ),
  });
  return { window, created, external, quit: () => (quitting = true) };
}

describe('the window', () => {
  it('is created once, hidden, with the security checklist’s preferences, loading the app', () => {
    const { window, created } = appWindow();
    const w = window.get();
    expect(window.get()).toBe(w);
    expect(created).toHaveLength(1);
    const options = created[0]?.options;
    expect(options?.show).toBe(false);
    expect(options?.webPreferences).toMatchObject({
      preload: '/app/dist/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
      devTools: false,
    });
    expect(created[0]?.loaded).toEqual([APP_URL]);
  });

  it('has DevTools only where the shell allows them (development)', () => {
    const { window, created } = appWindow({ devTools: true });
    window.get();
    expect(created[0]?.options.webPreferences.devTools).toBe(true);
  });

  it('denies navigation away from the app, and every window.open', () => {
    const { window, created, external } = appWindow();
    window.get();
    const contents = created[0]?.webContents;
    for (const url of ['https://evil.example/', 'file:///etc/passwd', 'app://other-host/index.html']) {
      for (const kind of ['will-navigate', 'will-redirect']) {
        const event = cancellable();
        contents?.emit(kind, event, url);
        expect(event.prevented, `${kind} ${url}`).toBe(true);
      }
    }
    const inApp = cancellable();
    contents?.emit('will-navigate', inApp, 'app://seller-tray/index.html#/orders');
    expect(inApp.prevented).toBe(false);
    const webview = cancellable();
    contents?.emit('will-attach-webview', webview);
    expect(webview.prevented).toBe(true);

    expect(contents?.windowOpenHandler?.({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
    expect(contents?.windowOpenHandler?.({ url: 'http://marketplace.example.com/x' })).toEqual({
      action: 'deny',
    });
    expect(contents?.windowOpenHandler?.({ url: 'https://marketplace.example.com/orders/1' })).toEqual({
      action: 'deny',
    });
    // Only the allowlisted https link went to the browser.
    expect(external).toEqual(['https://marketplace.example.com/orders/1']);
  });

  it("opens a contact's plain mailto: or tel: link in the mail or phone app, staying in the app", () => {
    const { window, created, external } = appWindow();
    window.get();
    const contents = created[0]?.webContents;
    const clicked = [
      'mailto:erika@acme.example',
      'tel:+49301234567',
      'mailto:erika@acme.example?bcc=all@evil.example',
      'mailto:a@acme.example,b@evil.example',
      'tel:+49;phone-context=evil',
      'sms:+4930',
    ];
    for (const url of clicked) {
      const event = cancellable();
      contents?.emit('will-navigate', event, url);
      expect(event.prevented, url).toBe(true);
      expect(contents?.windowOpenHandler?.({ url })).toEqual({ action: 'deny' });
    }
    expect(external).toEqual([
      'mailto:erika@acme.example',
      'mailto:erika@acme.example',
      'tel:+49301234567',
      'tel:+49301234567',
    ]);
  });

  it("opens a runbook's link (http too) only at the origin of a template the settings hold", () => {
    const { window, created, external } = appWindow();
    window.get();
    const contents = created[0]?.webContents;
    for (const url of [
      'http://console.intranet:8080/tenants/acct%2F..%2F9',
      'https://console.intranet:8080/tenants/1',
      'http://console.intranet/tenants/1',
      'http://user@console.intranet:8080/tenants/1',
      'javascript:alert(1)',
    ]) {
      expect(contents?.windowOpenHandler?.({ url }), url).toEqual({ action: 'deny' });
    }
    expect(external).toEqual(['http://console.intranet:8080/tenants/acct%2F..%2F9']);
  });

  it('denies every permission request and check', () => {
    const { window, created } = appWindow();
    window.get();
    const contents = created[0]?.webContents;
    const answers: boolean[] = [];
    for (const permission of ['notifications', 'media', 'geolocation', 'openExternal'])
      contents?.permissionRequestHandler?.(contents, permission, (granted) => answers.push(granted));
    expect(answers).toEqual([false, false, false, false]);
    expect(contents?.permissionCheckHandler?.()).toBe(false);
  });

  it('hides instead of closing, unless the app is quitting', () => {
    const { window, created, quit } = appWindow();
    window.show();
    const w = created[0];
    const close = cancellable();
    w?.emit('close', close);
    expect(close.prevented).toBe(true);
    expect(w?.visible).toBe(false);
    quit();
    const last = cancellable();
    w?.emit('close', last);
    expect(last.prevented).toBe(false);
  });

  it('shows, restores and focuses, and tells the renderer where to go once it has loaded', () => {
    const { window, created } = appWindow();
    window.get();
    const w = created[0];
    if (!w) throw new Error('no window');
    w.minimized = true;
    w.webContents.loading = true;
    window.show({ type: 'open-order', orderId: 'ord-1' });
    expect([w.visible, w.minimized, w.focused]).toEqual([true, false, 1]);
    expect(w.webContents.sent).toEqual([]);
    w.webContents.loading = false;
    w.webContents.emit('did-finish-load');
    expect(w.webContents.sent).toEqual([
      { channel: EVENT_CHANNEL, args: [{ type: 'window-mode', mode: 'popover' }] },
      { channel: EVENT_CHANNEL, args: [{ type: 'open-order', orderId: 'ord-1' }] },
    ]);
  });
});

describe('the popover at the tray icon', () => {
  const ICON = { x: 1500, y: 2, width: 24, height: 24 };

  function shown(tray: Rect | 'not told' = ICON) {
    const made = appWindow({ tray: tray === 'not told' ? undefined : tray });
    made.window.show();
    const w = made.created[0];
    if (!w) throw new Error('no window');
    return { ...made, w, modes: () => w.webContents.sent.map((m) => (m.args[0] as { mode?: string }).mode) };
  }

  it('opens tray-sized under the icon, out of the taskbar and above other windows, and goes when it loses focus', () => {
    const { w, modes } = shown();
    expect(w.bounds).toEqual({ x: 1302, y: 32, width: 420, height: 640 }); // under the top bar
    expect([w.skipTaskbar, w.alwaysOnTop, w.visible]).toEqual([true, true, true]);
    expect(modes()).toEqual(['popover']);
    w.emit('blur');
    expect(w.visible).toBe(false);
  });

  it('stays while a dialog of the app has the focus (a save dialog), and goes on losing it after', async () => {
    const { window, w } = shown();
    let close!: () => void;
    const saved = window.whileDialog(() => new Promise<void>((done) => (close = done)));
    w.emit('blur');
    expect(w.visible).toBe(true);
    close();
    await saved;
    w.emit('blur');
    expect(w.visible).toBe(false);
  });

  it('opens and closes with clicks on the icon', () => {
    const { window, w } = shown();
    window.togglePopover();
    expect(w.visible).toBe(false);
    window.togglePopover();
    expect(w.visible).toBe(true);
  });

  it('stays closed when the click on the icon first took the focus from it (Windows, most Linux trays)', () => {
    const { window, w } = shown();
    w.emit('blur'); // the click on the icon blurs the popover: it hides
    window.togglePopover(); // then the click itself
    expect(w.visible).toBe(false);
  });

  it('opens on a click after the clock was set back since it hid (only a click just after the blur closes it)', async () => {
    const { window, w } = shown();
    w.emit('blur');
    await new Promise((r) => setTimeout(r, 400)); // longer than a click's blur and the click itself
    // The clock set back 3 hours meanwhile (by hand, or NTP): the hide reads as hours ahead.
    const now = Date.now();
    const setBack = vi.spyOn(Date, 'now').mockReturnValue(now - 3 * 3_600_000);
    try {
      window.togglePopover();
      expect(w.visible).toBe(true);
    } finally {
      setBack.mockRestore();
    }
  });

  it('becomes the full-size window on "Open in a window", which stays when it loses focus, and the renderer is told', () => {
    const { window, w, modes } = shown();
    window.openInWindow();
    expect(w.bounds).toEqual({ x: 410, y: 194, width: 1100, height: 720 });
    expect([w.skipTaskbar, w.alwaysOnTop]).toEqual([false, false]);
    w.emit('blur');
    expect(w.visible).toBe(true);
    // Shown again (a notification, the tray menu's Open): as it was left, where the user put it.
    w.bounds = { x: 10, y: 40, width: 900, height: 700 };
    window.show({ type: 'open-inbox' });
    expect(w.bounds).toEqual({ x: 10, y: 40, width: 900, height: 700 });
    // The icon's click brings the popover back.
    window.togglePopover();
    expect(w.bounds).toMatchObject({ width: 420, height: 640 });
    expect(modes().filter(Boolean)).toEqual(['popover', 'window', 'popover']);
  });

  it('opens at the top-right corner where the tray does not tell where its icon is', () => {
    const { w } = shown('not told');
    expect(w.bounds).toEqual({ x: 1920 - 420 - 4, y: 32, width: 420, height: 640 });
  });

  it('can be made as narrow as the tray-sized layout allows, not wider than it needs', () => {
    const { w } = shown();
    expect([w.options.minWidth, w.options.minHeight]).toEqual([360, 420]);
    expect([w.options.width, w.options.height]).toEqual([420, 640]);
  });
});

describe("the packaged app's menu", () => {
  it('is on macOS the app, edit and window menus (copy, paste and quit keep their keys), elsewhere none', () => {
    expect(applicationMenu('darwin')).toEqual([
      { role: 'appMenu' },
      { role: 'editMenu' },
      { role: 'windowMenu' },
    ]);
    expect(applicationMenu('linux')).toBeNull();
    expect(applicationMenu('win32')).toBeNull();
  });
});
