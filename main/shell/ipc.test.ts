// The bridge's main side with a fake ipcMain and a real service: one handler per channel,
// answers passed whole, messages from foreign frames refused before the service sees them.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHANNELS, EVENT_CHANNEL, ipcChannel } from '../../preload/contract';
import {
  FAKE_SCREEN,
  FakeIpcMain,
  FakeWindow,
  openDemoService,
  type TestService,
  until,
} from '../../test/support/shell-fakes';
import { APP_URL } from './app-origin';
import { FORBIDDEN, forwardEvents, registerIpc } from './ipc';
import { AppWindow } from './window';

const opened: TestService[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

async function ipcOnService() {
  const s = await openDemoService();
  opened.push(s);
  const ipc = new FakeIpcMain();
  registerIpc(ipc, s.service);
  return { ...s, ipc, handle: vi.spyOn(s.service, 'handleMessage') };
}

describe('the IPC handlers', () => {
  it('handle exactly the contract’s channels, answering the service’s Answer whole', async () => {
    const { ipc } = await ipcOnService();
    expect([...ipc.handlers.keys()].sort()).toEqual(CHANNELS.map(ipcChannel).sort());
    const state = await ipc.invoke(APP_URL, ipcChannel('getState'));
    expect(state).toMatchObject({ ok: true, value: { setup: 'demo' } });
    const invalid = await ipc.invoke(APP_URL, ipcChannel('getOrder'), { orderId: '' });
    expect(invalid).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
  });

  it('refuses a message from a foreign frame, and the service never sees it', async () => {
    const { ipc, handle, service } = await ipcOnService();
    for (const frame of [
      'https://evil.example/',
      'file:///home/user/index.html',
      'app://other/index.html',
      'http://seller-tray/index.html',
      'about:blank',
      '',
      null,
    ]) {
      expect(
        await ipc.invoke(frame, ipcChannel('pauseNotifications'), { until: null }),
        String(frame),
      ).toEqual(FORBIDDEN);
      expect(await ipc.invoke(frame, ipcChannel('getState'))).toEqual(FORBIDDEN);
    }
    expect(handle).not.toHaveBeenCalled();
    expect(service.state().setup).toBe('demo');
  });

  it('forwards the service’s events to the window on the event channel', async () => {
    const { service } = await ipcOnService();
    const window = new AppWindow({
      ...FAKE_SCREEN,
      createWindow: (options) => new FakeWindow(options),
      preloadPath: '/p',
      devTools: false,
      isQuitting: () => false,
      openExternal: () => {},
    });
    const contents = window.get().webContents as FakeWindow['webContents'];
    forwardEvents(service, (event) => window.send(event));
    await service.handle('pauseNotifications', { until: null });
    await until(() => contents.sent.length > 0);
    expect(contents.sent[0]?.channel).toBe(EVENT_CHANNEL);
    expect(contents.sent[0]?.args[0]).toMatchObject({ type: 'app-state' });
  });
});
