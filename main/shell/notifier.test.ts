// Notifications from a real service (a new purchase on the simulator) through fake native
// notifications: shown, kept until clicked or closed, and a click opens the right order.
import { afterEach, describe, expect, it } from 'vitest';
import type { ShellEvent } from '../../preload/contract';
import { CONTROL_OR_BIDI, hostileOrder, LINK_SHAPED } from '../../test/support/hostile-order';
import { FakeNotifications, openDemoService, type TestService, until } from '../../test/support/shell-fakes';
import { orderIdOf } from '../core/api/wire';
import { COPY_LINK, Notifier, START_PROVISIONING } from './notifier';

const opened: TestService[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

async function notifierOnService({ actionsSupported = false, readsMarkup = false } = {}) {
  const s = await openDemoService();
  opened.push(s);
  // The backlog at first start is shown in the inbox, not notified.
  await s.service.handle('checkNow', undefined);
  const notifications = new FakeNotifications(actionsSupported, readsMarkup);
  const shown: ShellEvent[] = [];
  const copied: string[] = [];
  const notifier = new Notifier({
    service: s.service,
    notifications,
    show: (event) => shown.push(event),
    copyText: (text) => copied.push(text),
  });
  return { ...s, notifications, shown, notifier, copied };
}

/** The demo's account: the one every notification of these tests is about. */
const accountOf = (service: TestService['service']) => service.state().accounts[0]?.id;

describe('the notifier', () => {
  it('raises a notification for a new order, and its click opens that order', async () => {
    const { sim, service, notifications, shown, notifier } = await notifierOnService();
    expect(notifications.created).toHaveLength(0);
    const order = sim.store.addPurchase({});
    await service.handle('checkNow', undefined);
    await until(() => notifications.created.length === 1);
    const [notification] = notifications.created;
    expect(notification?.shown).toBe(true);
    expect(notification?.options.title).toMatch(/^New order from /);
    expect(notifier.live.has(notification as never)).toBe(true);

    notification?.emit('click');
    expect(shown).toEqual([{ type: 'open-order', orderId: order.orderId, account: accountOf(service) }]);
    expect(notifier.live.size).toBe(0);
  });

  it('opens the inbox for a summary, and lets go of a notification closed unclicked', async () => {
    const { sim, service, notifications, shown, notifier } = await notifierOnService();
    for (let i = 0; i < 5; i++) sim.store.addPurchase({});
    await service.handle('checkNow', undefined);
    await until(() => notifications.created.length === 1);
    const [summary] = notifications.created;
    expect(summary?.options.title).toBe('5 new orders');
    summary?.emit('click');
    expect(shown).toEqual([{ type: 'open-inbox' }]);

    notifier.notify({ kind: 'order', title: 't', body: 'b', orderId: 'x' });
    expect(notifier.live.size).toBe(1);
    // Timed out into Windows' Action Center: still clickable, so still held.
    notifications.created[1]?.emit('close', { reason: 'timedOut' });
    expect(notifier.live.size).toBe(1);
    notifications.created[1]?.emit('close', { reason: 'userCanceled' });
    expect(notifier.live.size).toBe(0);
    expect(shown).toHaveLength(1);
  });

  it('keeps an urgent order and an outage on screen (Linux urgency), and opens Needs attention for them', async () => {
    const { notifications, shown, notifier } = await notifierOnService({ actionsSupported: true });
    notifier.notify({
      kind: 'urgent',
      title: 'Urgent: not started, Kestrel Foods Oy',
      body: 'b',
      orderId: 'o-1',
    });
    notifier.notify({ kind: 'urgent', title: 'Urgent: 5 new orders not started', body: 'b' });
    notifier.notify({ kind: 'connection', title: 'Seller Tray cannot read the marketplace', body: 'b' });
    notifier.notify({
      kind: 'reminder',
      title: 'Still waiting: Kestrel Foods Oy',
      body: 'b',
      orderId: 'o-1',
    });
    expect(notifications.created.map((n) => n.options.urgency)).toEqual([
      'critical',
      'critical',
      'critical',
      undefined,
    ]);
    // The urgent order offers Start provisioning as every order's notification does.
    expect(notifications.created[0]?.options.actions?.[0]?.text).toBe(START_PROVISIONING);
    for (const n of notifications.created) n.emit('click');
    expect(shown).toEqual([
      { type: 'open-order', orderId: 'o-1' },
      { type: 'open-attention' },
      { type: 'open-attention' },
      { type: 'open-order', orderId: 'o-1' },
    ]);
  });

  it('raises nothing where the system has no notifications', async () => {
    const { sim, service, notifications, events } = await notifierOnService();
    notifications.supported = false;
    sim.store.addPurchase({});
    await service.handle('checkNow', undefined);
    await until(() => events.some((e) => e.type === 'notification'));
    expect(notifications.created).toHaveLength(0);
  });

  it('offers no button where notifications have none (Linux)', async () => {
    const { sim, service, notifications } = await notifierOnService();
    sim.store.addPurchase({});
    await service.handle('checkNow', undefined);
    await until(() => notifications.created.length === 1);
    expect(notifications.created[0]?.options.actions).toBeUndefined();
  });

  describe('"Start provisioning" from the pop-up (macOS, Windows)', () => {
    it('marks the order InProgress through the outbox, and the simulator receives it once', async () => {
      const { sim, service, notifications, shown, notifier } = await notifierOnService({
        actionsSupported: true,
      });
      // Sent at once: the grace period to undo a mark is the core's to hold (test/core.test.ts).
      await service.handle('setSettings', { undoSeconds: 0 });
      const order = sim.store.addPurchase({});
      await service.handle('checkNow', undefined);
      await until(() => notifications.created.length === 1);
      const [notification] = notifications.created;
      expect(notification?.options.actions).toEqual([
        { type: 'button', text: START_PROVISIONING },
        { type: 'button', text: COPY_LINK },
      ]);

      notification?.emit('action', { actionIndex: 0 });
      expect(notifier.live.size).toBe(0);
      const posted = () =>
        sim.store
          .listEvents(1001, 0, 100_000)
          .items.filter((e) => orderIdOf(e) === order.orderId && e.statusCode === 'ProvisioningInProgress');
      await until(() => posted().length === 1);
      const outbox = async () => {
        const view = await service.handle('getOrder', { orderId: order.orderId });
        return view.ok && view.value.outbox.map((item) => [item.statusCode, item.state]);
      };
      // The server has it; the answer reaches the outbox a moment later.
      for (let tries = 0; tries < 100 && JSON.stringify(await outbox()).includes('pending'); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await outbox()).toEqual([['ProvisioningInProgress', 'sent']]);
      // Nothing else: no window, no second notification.
      expect(shown).toEqual([]);
      expect(notifications.created).toHaveLength(1);
    });

    it('"Copy link" puts the order\'s link on the clipboard, and marks nothing', async () => {
      const { sim, service, notifications, shown, copied } = await notifierOnService({
        actionsSupported: true,
      });
      const order = sim.store.addPurchase({});
      await service.handle('checkNow', undefined);
      await until(() => notifications.created.length === 1);
      notifications.created[0]?.emit('action', { actionIndex: 1 });
      await until(() => copied.length === 1);
      expect(copied).toEqual([`seller-tray://order/${order.orderId}`]);
      expect(shown).toEqual([]);
      const view = await service.handle('getOrder', { orderId: order.orderId });
      expect(view.ok && view.value.outbox).toEqual([]);
    });

    it('says why when the order cannot be started, and that notice opens the order', async () => {
      const { sim, service, notifications, shown } = await notifierOnService({ actionsSupported: true });
      const order = sim.store.addPurchase({});
      await service.handle('checkNow', undefined);
      await until(() => notifications.created.length === 1);
      // Meanwhile someone started it from the window.
      const marked = await service.handle('markStatus', {
        orderId: order.orderId,
        statusCode: 'ProvisioningInProgress',
      });
      expect(marked.ok).toBe(true);

      notifications.created[0]?.emit('action', { actionIndex: 0 });
      await until(() => notifications.created.length === 2);
      const notice = notifications.created[1];
      expect(notice?.options.title).toBe(`Order ${order.orderId} was not started`);
      expect(notice?.options.body).toMatch(/unusual/);
      expect(notice?.options.actions).toBeUndefined();
      notice?.emit('click');
      expect(shown).toEqual([{ type: 'open-order', orderId: order.orderId, account: accountOf(service) }]);
    });

    it('opens the order when even the notice cannot be shown', async () => {
      const { sim, service, notifications, shown } = await notifierOnService({ actionsSupported: true });
      const order = sim.store.addPurchase({});
      await service.handle('checkNow', undefined);
      await until(() => notifications.created.length === 1);
      await service.handle('markStatus', { orderId: order.orderId, statusCode: 'ProvisioningInProgress' });
      notifications.create = () => {
        throw new Error('the notification server went away');
      };
      notifications.created[0]?.emit('action', { actionIndex: 0 });
      await until(() => shown.length === 1);
      expect(shown).toEqual([{ type: 'open-order', orderId: order.orderId, account: accountOf(service) }]);
    });

    it('puts no button on a summary', async () => {
      const { sim, service, notifications } = await notifierOnService({ actionsSupported: true });
      for (let i = 0; i < 4; i++) sim.store.addPurchase({});
      await service.handle('checkNow', undefined);
      await until(() => notifications.created.length === 1);
      expect(notifications.created[0]?.options.actions).toBeUndefined();
    });
  });

  describe("the marketplace's text", () => {
    /** A purchase by the hostile buyer, through the service's core, as the notifier gets it. */
    async function hostilePurchase(readsMarkup: boolean) {
      const { sim, service, notifications, notifier } = await notifierOnService({ readsMarkup });
      sim.store.addPurchase({ order: hostileOrder });
      await service.handle('checkNow', undefined);
      await until(() => notifications.created.length === 1);
      return { options: notifications.created[0]?.options, notifications, notifier };
    }

    it('on Linux is escaped, so the notification server shows the tags and builds no link', async () => {
      const { options } = await hostilePurchase(true);
      expect(options?.title).toBe('New order from ‹b›URGENT‹/b› ‹a href="https꞉//evil․example/logi…');
      expect(options?.title).not.toMatch(/[<>]/);
      expect(options?.body).toBe('00.1$ :latoT × 1 — €9,999.99');
      for (const text of [options?.title, options?.body]) {
        expect(text).not.toMatch(CONTROL_OR_BIDI);
        expect(text).not.toMatch(LINK_SHAPED);
      }
    });

    it("on Linux, escapes the body of the app's own notices, which may quote the server", async () => {
      const { notifications, notifier } = await hostilePurchase(true);
      notifier.tell('HTTP 502: <a href="https://evil.example">sign in</a> & retry\u001b[2J');
      expect(notifications.created[1]?.options).toMatchObject({
        title: 'Seller Tray',
        body: 'HTTP 502: &lt;a href="https꞉//evil․example"&gt;sign in&lt;/a&gt; &amp; retry[2J',
      });
    });

    it('elsewhere is plain text as it is, capped and without control or bidi characters', async () => {
      const { options } = await hostilePurchase(false);
      expect(options?.title).toBe('New order from <b>URGENT</b> <a href="https꞉//evil․example/logi…');
      expect(options?.title).not.toMatch(LINK_SHAPED);
      expect(options?.body).toBe('00.1$ :latoT × 1 — €9,999.99');
    });
  });
});
