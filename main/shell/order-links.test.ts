// Opening order links against a real service in demo mode on the simulator (real loopback HTTP):
// an order of this account opens, one the marketplace does not know for it (another seller's, or
// none at all) is said to be not in this account, a malformed link is refused without a lookup,
// and a link that comes before the app is ready waits for it.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { orderLink } from '../../preload/order-link';
import { recordingPorts } from '../../test/support/order-link-ports';
import { openDemoService, type TestService, until } from '../../test/support/shell-fakes';
import { LOOKUP_MESSAGES, NOT_AN_ORDER_LINK, OrderLinks } from './order-links';

const opened: TestService[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

async function demo(): Promise<TestService> {
  const test = await openDemoService();
  opened.push(test);
  return test;
}

const link = (orderId: string) => orderLink(orderId) ?? '';

describe('order links', () => {
  it('open an order of this account; once in the store, without the marketplace', async () => {
    const { service, sim } = await demo();
    const [first] = sim.store.listOrderJson(1001, 0, 1).items.map((o) => JSON.parse(o).orderId as string);
    if (!first) throw new Error('the simulator has no orders');
    const { ports, shown } = recordingPorts((id) => service.lookUpOrder(id));
    const links = new OrderLinks();
    links.ready(ports);
    expect(links.open(['--hidden', link(first)])).toBe(true);
    await until(() => shown.length === 1);
    expect(shown).toEqual([{ order: first, account: service.state().accounts[0]?.id }]);

    // The marketplace gone: the stored order still opens; an order never seen cannot be told.
    await sim.close();
    links.open([link(first)]);
    await until(() => shown.length === 2);
    expect(shown[1]).toEqual({ order: first, account: service.state().accounts[0]?.id });
  });

  it("say plainly that an order is not in this account: another seller's, or one nobody has", async () => {
    const { service, sim } = await demo();
    const [othersOrder] = sim.store
      .listOrderJson(2002, 0, 1)
      .items.map((o) => JSON.parse(o).orderId as string);
    if (!othersOrder) throw new Error('the other seller has no orders');
    const { ports, shown } = recordingPorts((id) => service.lookUpOrder(id));
    const links = new OrderLinks();
    links.ready(ports);
    for (const orderId of [othersOrder, randomUUID()]) {
      links.open([link(orderId)]);
      await until(() => shown.length > 0);
      const [told] = shown.splice(0);
      expect(told?.problem).toBe('This order is not in this marketplace account.');
      expect(told?.problem).toBe(LOOKUP_MESSAGES['not-in-account']);
      expect(told?.details?.[0]).toBe(`Order id: ${orderId}`);
      expect(told?.order).toBeUndefined();
    }
  });

  it('say the order could not be looked up when the marketplace does not answer, without guessing', async () => {
    const { service, sim } = await demo();
    await sim.close();
    const { ports, shown } = recordingPorts((id) => service.lookUpOrder(id));
    const links = new OrderLinks();
    links.ready(ports);
    links.open([link(randomUUID())]);
    await until(() => shown.length === 1, 30_000);
    expect(shown[0]?.problem).toBe(LOOKUP_MESSAGES.unreachable);
  }, 40_000);

  it('refuse a malformed or hostile link without looking anything up', async () => {
    const { ports, shown, lookups } = recordingPorts(async () => ({ found: true, account: 'acc-1' }));
    const links = new OrderLinks();
    links.ready(ports);
    for (const bad of [
      'seller-tray://order/../settings',
      `seller-tray://order/${randomUUID()}?status=Completed`,
      `seller-tray://evil@order/${randomUUID()}`,
      'seller-tray:',
    ]) {
      expect(links.open([bad])).toBe(true);
    }
    await until(() => shown.length === 4);
    expect(shown.every((s) => s.problem === NOT_AN_ORDER_LINK && s.details?.length === 0)).toBe(true);
    expect(lookups).toEqual([]);
  });

  it('leave a launch without a link to the caller', () => {
    const { ports, shown } = recordingPorts(async () => ({ found: true, account: 'acc-1' }));
    const links = new OrderLinks();
    links.ready(ports);
    expect(links.open([])).toBe(false);
    expect(links.open(['--hidden', '/home/me/notes.txt', `https://order/${randomUUID()}`])).toBe(false);
    expect(shown).toEqual([]);
  });

  it('wait for the app to be ready when one comes first (macOS open-url before ready); the latest wins', async () => {
    const { ports, shown } = recordingPorts(async () => ({ found: true, account: 'acc-1' }));
    const links = new OrderLinks();
    const [early, later] = [randomUUID(), randomUUID()];
    expect(links.open([link(early)])).toBe(true);
    expect(links.open([link(later)])).toBe(true);
    expect(shown).toEqual([]);
    links.ready(ports);
    await until(() => shown.length === 1);
    expect(shown).toEqual([{ order: later, account: 'acc-1' }]);
  });

  it('tell an app without an account to set one up, and a failing lookup as one that could not be done', async () => {
    const notConfigured = recordingPorts(async () => ({
      found: false,
      reason: 'not-configured',
      detail: 'no marketplace account is set up',
    }));
    const failing = recordingPorts(async () => {
      throw new Error('the store is closed');
    });
    for (const { ports } of [notConfigured, failing]) {
      const links = new OrderLinks();
      links.ready(ports);
      links.open([link(randomUUID())]);
    }
    await until(() => notConfigured.shown.length === 1 && failing.shown.length === 1);
    expect(notConfigured.shown[0]?.problem).toBe(LOOKUP_MESSAGES['not-configured']);
    expect(failing.shown[0]?.problem).toBe(LOOKUP_MESSAGES.unreachable);
    expect(failing.shown[0]?.details).toContain('the store is closed');
  });
});
