// Notifications from a real service (a new purchase on the simulator) through fake native
// notifications: shown, kept until clicked or closed, and a click opens the right order.
import { afterEach, describe, expect, it } from 'vitest';
import type { ShellEvent } from '../../preload/contract';
import { Notifier } from './notifier';
import { FakeNotifications, openDemoService, type TestService, until } from './test-fakes';

const opened: TestService[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

async function notifierOnService() {
  const s = await openDemoService();
  opened.push(s);
  // The backlog at first start is shown in the inbox, not notified.
  await s.service.handle('checkNow', undefined);
  const notifications = new FakeNotifications();
  const shown: ShellEvent[] = [];
  const notifier = new Notifier({ service: s.service, notifications, show: (event) => shown.push(event) });
  return { ...s, notifications, shown, notifier };
}

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
    expect(shown).toEqual([{ type: 'open-order', orderId: order.orderId }]);
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
    notifications.created[1]?.emit('close');
    expect(notifier.live.size).toBe(0);
    expect(shown).toHaveLength(1);
  });

  it('raises nothing where the system has no notifications', async () => {
    const { sim, service, notifications, events } = await notifierOnService();
    notifications.supported = false;
    sim.store.addPurchase({});
    await service.handle('checkNow', undefined);
    await until(() => events.some((e) => e.type === 'notification'));
    expect(notifications.created).toHaveLength(0);
  });
});
