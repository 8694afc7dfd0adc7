// The tray with a real service (demo mode on the simulator) and a fake tray: the menu's items
// call the service, and the count and tooltip follow the service's state.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppState } from '../../preload/contract';
import { tomorrowMorning, UNTIL_RESUMED } from '../../preload/pause';
import { MARKUP, SPOOFED_TOTAL } from '../../test/support/hostile-order';
import { FakeTray, openDemoService, type TestService, until } from '../../test/support/shell-fakes';
import { startTray, trayView } from './tray-menu';

const NOW = new Date(2026, 10, 21, 14, 30);
/** The service's core judges pauses by the real clock: the tray on it uses that clock too. */
const LIVE = new Date();
const opened: TestService[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

async function trayOnService() {
  const s = await openDemoService();
  opened.push(s);
  const tray = new FakeTray();
  const calls = { open: 0, settings: 0, quit: 0 };
  const checked: string[] = [];
  const handle = vi.spyOn(s.service, 'handle');
  const control = startTray({
    service: s.service,
    tray,
    open: () => calls.open++,
    settings: () => calls.settings++,
    quit: () => calls.quit++,
    onChecked: (message) => checked.push(message),
    now: () => LIVE,
  });
  return { ...s, tray, calls, checked, handle, control };
}

const baseState: AppState = {
  setup: 'demo',
  baseUrl: 'http://127.0.0.1:1',
  clientId: 'demo-client',
  secretStored: false,
  actorName: 'Anna Virtanen',
  connection: 'ok',
  lastSuccessfulPoll: null,
  lastError: null,
  problem: null,
  waitingCount: 0,
  pendingOutbox: 0,
  notificationsPausedUntil: null,
  accounts: [],
};
const noActions = { open() {}, checkNow() {}, pause() {}, settings() {}, openLogFolder() {}, quit() {} };

describe('the tray view', () => {
  it("carries no marketplace text, so a buyer's or a server's words never speak in the tray", () => {
    const hostile = `${MARKUP}${SPOOFED_TOTAL}`;
    const view = trayView(
      { ...baseState, connection: 'offline', lastError: hostile, baseUrl: hostile, clientId: hostile },
      NOW,
      noActions,
    );
    expect(view.toolTip).toBe('Seller Tray — no orders waiting, offline');
    expect(JSON.stringify(view.template)).not.toMatch(/URGENT|latoT/);
  });

  it('says how many orders wait, in the tooltip, the title and the menu', () => {
    expect(trayView({ ...baseState, waitingCount: 3 }, NOW, noActions).toolTip).toBe(
      'Seller Tray — 3 orders waiting',
    );
    expect(trayView({ ...baseState, waitingCount: 1 }, NOW, noActions).toolTip).toBe(
      'Seller Tray — 1 order waiting',
    );
    const none = trayView(baseState, NOW, noActions);
    expect(none.toolTip).toBe('Seller Tray — no orders waiting');
    expect(none.title).toBe('');
    expect(trayView({ ...baseState, waitingCount: 3 }, NOW, noActions).title).toBe('3');
    expect(trayView({ ...baseState, connection: 'offline' }, NOW, noActions).toolTip).toContain('offline');
  });

  it('carries every action in the menu, and offers Resume only while paused', () => {
    const labels = trayView(baseState, NOW, noActions).template.map((i) => i.label ?? i.type);
    expect(labels).toEqual([
      'Seller Tray: no orders waiting',
      'separator',
      'Open',
      'Check now',
      'Pause notifications',
      'Settings',
      'Open log folder',
      'separator',
      'Quit',
    ]);
    const resume = (state: AppState) =>
      trayView(state, NOW, noActions).template[4]?.submenu?.find((i) => i.label === 'Resume notifications');
    expect(resume(baseState)?.enabled).toBe(false);
    const paused = {
      ...baseState,
      notificationsPausedUntil: new Date(NOW.getTime() + 3_600_000).toISOString(),
    };
    expect(resume(paused)?.enabled).toBe(true);
    expect(trayView(paused, NOW, noActions).template[4]?.label).toMatch(/^Notifications paused until/);
    // A pause that has ended is no pause.
    const ended = { ...baseState, notificationsPausedUntil: new Date(NOW.getTime() - 1000).toISOString() };
    expect(resume(ended)?.enabled).toBe(false);
  });

  it('puts the items other parts add (the updater’s) above Quit, set apart', () => {
    const restart = { label: 'Restart to update', click: () => {} };
    const labels = trayView(baseState, NOW, noActions, [restart]).template.map((i) => i.label ?? i.type);
    expect(labels.slice(-4)).toEqual(['separator', 'Restart to update', 'separator', 'Quit']);
  });

  it('pauses until 08:00 the next day', () => {
    const morning = tomorrowMorning(NOW);
    expect([morning.getDate(), morning.getHours(), morning.getMinutes()]).toEqual([22, 8, 0]);
  });

  it('pauses in one click: 1 hour, 4 hours, until tomorrow 08:00, or until resumed', () => {
    const pause = trayView(baseState, NOW, noActions).template[4]?.submenu?.map((i) => i.label ?? i.type);
    expect(pause).toEqual([
      'For 1 hour',
      'For 4 hours',
      'Until tomorrow 08:00',
      'Until I resume',
      'separator',
      'Resume notifications',
    ]);
    const forever = { ...baseState, notificationsPausedUntil: UNTIL_RESUMED };
    expect(trayView(forever, NOW, noActions).template[4]?.label).toBe(
      'Notifications paused until you resume them',
    );
  });

  it('tells a marketplace out of reach from one having problems', () => {
    expect(trayView({ ...baseState, connection: 'server-problem' }, NOW, noActions).toolTip).toBe(
      'Seller Tray — no orders waiting, the marketplace is having problems',
    );
  });
});

describe('the tray on the service', () => {
  it('Check now asks the service to poll, and the count and tooltip follow its state', async () => {
    const { tray, handle, sim, service, checked } = await trayOnService();
    tray.item('Check now')?.click?.();
    expect(handle).toHaveBeenCalledWith('checkNow', undefined);
    await until(() => service.state().lastSuccessfulPoll !== null);
    await until(() => tray.toolTip === `Seller Tray — ${service.state().waitingCount} orders waiting`);
    const before = service.state().waitingCount;
    expect(before).toBeGreaterThan(1);
    expect(tray.title).toBe(String(before));
    await until(() => checked.length === 1);

    sim.store.addPurchase({});
    tray.item('Check now')?.click?.();
    await until(() => service.state().waitingCount === before + 1);
    await until(() => tray.toolTip === `Seller Tray — ${before + 1} orders waiting`);
    expect(tray.item(/^Seller Tray: /)?.label).toBe(`Seller Tray: ${before + 1} orders waiting`);
    // Check now says what it found: the first start's backlog is no news, the purchase is.
    await until(() => checked.length === 2);
    expect(checked).toEqual(['No new orders', '1 new order']);
  });

  it('Pause for 1 hour, until tomorrow, and Resume set the service’s pause', async () => {
    const { tray, service } = await trayOnService();
    tray.item('For 1 hour')?.click?.();
    await until(() => service.state().notificationsPausedUntil !== null);
    expect(new Date(service.state().notificationsPausedUntil ?? '').getTime()).toBe(
      LIVE.getTime() + 3_600_000,
    );
    await until(() => tray.item('Resume notifications')?.enabled === true);
    expect(tray.toolTip).toMatch(/notifications paused until/);

    tray.item('Until tomorrow 08:00')?.click?.();
    await until(() => service.state().notificationsPausedUntil === tomorrowMorning(LIVE).toISOString());

    tray.item('For 4 hours')?.click?.();
    await until(
      () =>
        service.state().notificationsPausedUntil === new Date(LIVE.getTime() + 4 * 3_600_000).toISOString(),
    );
    tray.item('Until I resume')?.click?.();
    await until(() => service.state().notificationsPausedUntil === UNTIL_RESUMED);
    expect(tray.toolTip).toMatch(/notifications paused until you resume them/);

    tray.item('Resume notifications')?.click?.();
    await until(() => service.state().notificationsPausedUntil === null);
    await until(() => tray.item('Resume notifications')?.enabled === false);
  });

  it('Open log folder asks the service, and says so when it cannot', async () => {
    const { tray, handle, service } = await trayOnService();
    const failures: string[] = [];
    startTray({ service, tray, open() {}, settings() {}, quit() {}, onFailure: (m) => failures.push(m) });
    tray.item('Open log folder')?.click?.();
    expect(handle).toHaveBeenCalledWith('openLogFolder', undefined);
    // This service was opened without a log folder.
    await until(() => failures.length > 0);
    expect(failures[0]).toMatch(/writes no log file/);
  });

  it('Open, Settings and Quit reach the window and the app; stop stops following', async () => {
    const { tray, calls, control, service } = await trayOnService();
    tray.item('Open')?.click?.();
    tray.item('Settings')?.click?.();
    tray.item('Quit')?.click?.();
    expect(calls).toEqual({ open: 1, settings: 1, quit: 1 });
    control.stop();
    tray.toolTip = 'unchanged';
    await service.handle('pauseNotifications', { until: null });
    expect(tray.toolTip).toBe('unchanged');
  });
});
