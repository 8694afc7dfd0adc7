// The tray with a real service (demo mode on the simulator) and a fake tray: the menu's items
// call the service, and the count and tooltip follow the service's state.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type AppState, UNMANAGED_STATE } from '../../preload/contract';
import { NO_ATTENTION, trayCount } from '../../preload/model';
import { tomorrowMorning, UNTIL_RESUMED } from '../../preload/pause';
import { MARKUP, SPOOFED_TOTAL } from '../../test/support/hostile-order';
import { accountState } from '../../test/support/renderer/fake-bridge';
import { FakeTray, openDemoService, type TestService, until } from '../../test/support/shell-fakes';
import type { MenuItemSpec } from './electron-ports';
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
  const calls = { open: 0, attention: 0, insights: 0, settings: 0, help: 0, quit: 0 };
  const checked: string[] = [];
  const handle = vi.spyOn(s.service, 'handle');
  const control = startTray({
    service: s.service,
    tray,
    open: () => calls.open++,
    attention: () => calls.attention++,
    insights: () => calls.insights++,
    settings: () => calls.settings++,
    help: () => calls.help++,
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
  managed: UNMANAGED_STATE,
  connection: 'ok',
  lastSuccessfulPoll: null,
  lastError: null,
  problem: null,
  waitingCount: 0,
  pendingOutbox: 0,
  notificationsPausedUntil: null,
  health: 'healthy',
  attention: NO_ATTENTION,
  accounts: [],
};
const noActions = {
  open() {},
  attention() {},
  insights() {},
  checkNow() {},
  pause() {},
  settings() {},
  help() {},
  openLogFolder() {},
  quit() {},
};
/** The Pause notifications item of a tray view's menu. */
const pauseItem = (view: { template: MenuItemSpec[] }) => view.template.find((i) => i.type === 'submenu');

describe('the tray view', () => {
  it("carries no marketplace text, so a buyer's or a server's words never speak in the tray", () => {
    const hostile = `${MARKUP}${SPOOFED_TOTAL}`;
    const view = trayView(
      { ...baseState, connection: 'offline', lastError: hostile, baseUrl: hostile, clientId: hostile },
      NOW,
      noActions,
    );
    expect(view.toolTip).toBe('Seller Tray — no orders waiting, offline, not read yet, trying again');
    expect(JSON.stringify(view.template)).not.toMatch(/URGENT|latoT/);
  });

  it('says how many orders wait, in the tooltip, the title and the menu', () => {
    expect(trayView({ ...baseState, waitingCount: 3 }, NOW, noActions).toolTip).toBe(
      'Seller Tray — 3 orders waiting, not checked yet',
    );
    expect(trayView({ ...baseState, waitingCount: 1 }, NOW, noActions).toolTip).toBe(
      'Seller Tray — 1 order waiting, not checked yet',
    );
    const none = trayView(baseState, NOW, noActions);
    expect(none.toolTip).toBe('Seller Tray — no orders waiting, not checked yet');
    expect(none.title).toBe('');
    expect(trayView({ ...baseState, waitingCount: 3 }, NOW, noActions).title).toBe('3');
    expect(trayView({ ...baseState, connection: 'offline' }, NOW, noActions).toolTip).toContain('offline');
  });

  it('carries every action in the menu, and offers Resume only while paused', () => {
    const labels = trayView(baseState, NOW, noActions).template.map((i) => i.label ?? i.type);
    expect(labels).toEqual([
      'Seller Tray: no orders waiting',
      'Not checked yet',
      'separator',
      'Open',
      'Needs attention',
      'Insights',
      'Check now',
      'Pause notifications',
      'Settings',
      'Help',
      'Open log folder',
      'separator',
      'Quit',
    ]);
    const resume = (state: AppState) =>
      pauseItem(trayView(state, NOW, noActions))?.submenu?.find((i) => i.label === 'Resume notifications');
    expect(resume(baseState)?.enabled).toBe(false);
    const paused = {
      ...baseState,
      notificationsPausedUntil: new Date(NOW.getTime() + 3_600_000).toISOString(),
    };
    expect(resume(paused)?.enabled).toBe(true);
    expect(pauseItem(trayView(paused, NOW, noActions))?.label).toMatch(/^Notifications paused until/);
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
    const pause = pauseItem(trayView(baseState, NOW, noActions))?.submenu?.map((i) => i.label ?? i.type);
    expect(pause).toEqual([
      'For 1 hour',
      'For 4 hours',
      'Until tomorrow 08:00',
      'Until I resume',
      'separator',
      'Resume notifications',
    ]);
    const forever = { ...baseState, notificationsPausedUntil: UNTIL_RESUMED };
    expect(pauseItem(trayView(forever, NOW, noActions))?.label).toBe(
      'Notifications paused until you resume them',
    );
  });

  it('says of one account that fails when it was last read and that it tries again, in the tooltip and the menu', () => {
    const at = new Date(NOW.getTime() - 20_000).toISOString();
    const view = trayView({ ...baseState, connection: 'offline', lastSuccessfulPoll: at }, NOW, noActions);
    expect(view.toolTip).toBe('Seller Tray — no orders waiting, offline, last read just now, trying again');
    expect(view.template[1]).toEqual({ label: 'Offline; last read just now, trying again', enabled: false });
  });

  it('tells a marketplace out of reach from one having problems', () => {
    expect(trayView({ ...baseState, connection: 'server-problem' }, NOW, noActions).toolTip).toBe(
      'Seller Tray — no orders waiting, the marketplace is having problems, not read yet, trying again',
    );
  });
});

describe('the tray says the marketplace is being read', () => {
  const at = (minutesAgo: number) => new Date(NOW.getTime() - minutesAgo * 60_000).toISOString();

  it('says when it was last read, in the tooltip and the menu, from the clock it is given', () => {
    const view = trayView({ ...baseState, lastSuccessfulPoll: at(1) }, NOW, noActions);
    expect(view.toolTip).toBe('Seller Tray — no orders waiting, checked 1 min ago');
    expect(view.template[1]).toEqual({ label: 'Checked 1 min ago', enabled: false });
    expect(view.icon).toBe('normal');
    // The same state a minute on: renewed without asking anything of the service.
    const later = trayView(
      { ...baseState, lastSuccessfulPoll: at(1) },
      new Date(NOW.getTime() + 60_000),
      noActions,
    );
    expect(later.template[1]?.label).toBe('Checked 2 min ago');
  });

  it('takes the warning form while the marketplace is not read, and says since when', () => {
    for (const health of ['stale', 'down'] as const) {
      const view = trayView({ ...baseState, health, lastSuccessfulPoll: at(20) }, NOW, noActions);
      expect(view.icon).toBe('warning');
      // The polls tried (and got no answer): not read, never "not checked".
      expect(view.toolTip).toBe('Seller Tray — no orders waiting, not read for 20 min');
      expect(view.template[1]?.label).toBe('⚠ Not read for 20 min');
    }
    // Not set up: nothing is read, and nothing to warn of.
    const unset = trayView({ ...baseState, setup: 'unconfigured', health: 'stale' }, NOW, noActions);
    expect(unset.icon).toBe('normal');
    expect(unset.template.map((i) => i.label)).not.toContain('Not checked yet');
  });

  it('serving several accounts, gives each a line of its own, and warns when any is read too long ago', () => {
    const eu = accountState('EU', { lastSuccessfulPoll: at(1) });
    const down = accountState('Down', { connection: 'offline', health: 'stale', lastSuccessfulPoll: at(20) });
    const us = accountState('US', { connection: 'credentials-rejected', lastSuccessfulPoll: at(3) });
    const unserved = accountState('Test', { open: false, connection: 'offline', health: 'down' });
    const view = trayView(
      { ...baseState, lastSuccessfulPoll: at(1), accounts: [eu, down, us, unserved] },
      NOW,
      noActions,
    );
    expect(view.icon).toBe('warning');
    expect(view.toolTip).toBe(
      [
        'Seller Tray — no orders waiting',
        'EU: Checked 1 min ago',
        'Down: Offline; not read for 20 min, trying again',
        'US: Credentials rejected; last read 3 min ago',
      ].join('\n'),
    );
    expect(view.template.slice(1, 4)).toEqual([
      { label: 'EU: Checked 1 min ago', enabled: false },
      { label: '⚠ Down: Offline; not read for 20 min, trying again', enabled: false },
      { label: 'US: Credentials rejected; last read 3 min ago', enabled: false },
    ]);
    // An account whose own notifications are paused says so on its line (the app's pause has its own item).
    const quiet = { ...eu, notificationsPausedUntil: new Date(NOW.getTime() + 3_600_000).toISOString() };
    const paused = trayView(
      { ...baseState, lastSuccessfulPoll: at(1), accounts: [quiet, us] },
      NOW,
      noActions,
    );
    // Until when, in the words the app's own pause is said in (its item, for the same end).
    const appPaused = pauseItem(
      trayView({ ...baseState, notificationsPausedUntil: quiet.notificationsPausedUntil }, NOW, noActions),
    )?.label;
    expect(appPaused).toMatch(/^Notifications paused until \d{1,2}:\d{2}/);
    expect(paused.template[1]).toEqual({
      label: `EU: Checked 1 min ago; n${appPaused?.slice(1)}`,
      enabled: false,
    });
    expect(paused.toolTip.split('\n')[1]).toBe(`EU: Checked 1 min ago; n${appPaused?.slice(1)}`);
    const resumed = { ...quiet, notificationsPausedUntil: UNTIL_RESUMED };
    expect(trayView({ ...baseState, accounts: [resumed, us] }, NOW, noActions).template[1]?.label).toBe(
      'EU: Checked 1 min ago; notifications paused until you resume them',
    );
    const ended = { ...eu, notificationsPausedUntil: at(1) };
    expect(trayView({ ...baseState, accounts: [ended, us] }, NOW, noActions).template[1]?.label).toBe(
      'EU: Checked 1 min ago',
    );
    // All read in time: the normal icon. One account served (the other has no secret): as before.
    const fine = {
      ...down,
      connection: 'ok' as const,
      health: 'healthy' as const,
      lastSuccessfulPoll: at(2),
    };
    expect(trayView({ ...baseState, accounts: [eu, fine] }, NOW, noActions).icon).toBe('normal');
    const one = trayView(
      { ...baseState, lastSuccessfulPoll: at(1), accounts: [eu, { ...down, open: false }] },
      NOW,
      noActions,
    );
    expect(one.toolTip).toBe('Seller Tray — no orders waiting, checked 1 min ago');
    expect(one.template[1]).toEqual({ label: 'Checked 1 min ago', enabled: false });
  });

  it('counts what needs attention beside the waiting orders, and opens the view from the menu', () => {
    const opened: string[] = [];
    const view = trayView(
      {
        ...baseState,
        waitingCount: 3,
        lastSuccessfulPoll: at(0),
        attention: { notStarted: 2, stalled: 1, unconfirmed: 1, failed: 0, keptAside: 2 },
      },
      NOW,
      { ...noActions, attention: () => opened.push('attention') },
    );
    // The 2 not started are among the 3 waiting: counted once.
    expect(view.title).toBe('7');
    expect(view.toolTip).toBe('Seller Tray — 3 orders waiting, 4 more need attention, checked just now');
    const item = view.template.find((i) => i.label?.startsWith('Needs attention'));
    expect(item?.label).toBe('Needs attention (4)');
    item?.click?.();
    expect(opened).toEqual(['attention']);
  });
});

describe('the tray on the service', () => {
  it('Check now asks the service to poll, and the count and tooltip follow its state', async () => {
    const { tray, handle, sim, service, checked } = await trayOnService();
    tray.item('Check now')?.click?.();
    expect(handle).toHaveBeenCalledWith('checkNow', undefined);
    await until(() => service.state().lastSuccessfulPoll !== null);
    const waitingTip = (n: number) =>
      new RegExp(`^Seller Tray — ${n} orders waiting, (\\d+ more needs? attention, )?checked just now$`);
    await until(() => waitingTip(service.state().waitingCount).test(tray.toolTip));
    const before = service.state().waitingCount;
    expect(before).toBeGreaterThan(1);
    // The count is the waiting orders and what needs attention beside them.
    expect(tray.title).toBe(String(trayCount(service.state())));
    expect(tray.icon).toBe('normal');
    await until(() => checked.length === 1);

    sim.store.addPurchase({});
    tray.item('Check now')?.click?.();
    await until(() => service.state().waitingCount === before + 1);
    await until(() => waitingTip(before + 1).test(tray.toolTip));
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
    startTray({
      service,
      tray,
      open() {},
      attention() {},
      insights() {},
      settings() {},
      help() {},
      quit() {},
      onFailure: (m) => failures.push(m),
    });
    tray.item('Open log folder')?.click?.();
    expect(handle).toHaveBeenCalledWith('openLogFolder', undefined);
    // This service was opened without a log folder.
    await until(() => failures.length > 0);
    expect(failures[0]).toMatch(/writes no log file/);
  });

  it('Open, Needs attention, Insights, Settings, Help and Quit reach the window and the app; stop stops following', async () => {
    const { tray, calls, control, service } = await trayOnService();
    tray.item('Open')?.click?.();
    tray.item(/^Needs attention/)?.click?.();
    tray.item('Insights')?.click?.();
    tray.item('Settings')?.click?.();
    tray.item('Help')?.click?.();
    tray.item('Quit')?.click?.();
    expect(calls).toEqual({ open: 1, attention: 1, insights: 1, settings: 1, help: 1, quit: 1 });
    control.stop();
    tray.toolTip = 'unchanged';
    await service.handle('pauseNotifications', { until: null });
    expect(tray.toolTip).toBe('unchanged');
  });
});
