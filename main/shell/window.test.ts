// The window with a fake BrowserWindow: secure preferences, one window shown and focused,
// hidden rather than closed, and navigation, new windows, webviews and permissions denied.
import { describe, expect, it } from 'vitest';
import { EVENT_CHANNEL } from '../../preload/contract';
import { cancellable, FakeWindow } from '../../test/support/shell-fakes';
import { applicationMenu } from './app-menu';
import { APP_URL } from './app-origin';
import { hostOf, openExternalIfAllowed } from './external-links';
import { AppWindow } from './window';

function appWindow({ devTools = false } = {}) {
  const created: FakeWindow[] = [];
  const external: string[] = [];
  let quitting = false;
  const window = new AppWindow({
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
      { channel: EVENT_CHANNEL, args: [{ type: 'open-order', orderId: 'ord-1' }] },
    ]);
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
