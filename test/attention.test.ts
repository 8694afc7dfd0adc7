// Nothing waits unseen, over the simulator on loopback HTTP: a status the marketplace accepted
// and never lists is found after a few polls, checked for at the marketplace, and sent again once
// through the outbox; one that was there after all is not sent again; new orders past the
// reminder delay, orders stalled in progress and unreadable items are counted for the tray and
// listed; and holding the Needs attention view open costs the marketplace no call.
import { describe, expect, it } from 'vitest';
import { SellerApiClient } from '../main/core/api/client';
import { NotFoundError } from '../main/core/seller-core';
import { eventBody } from '../main/core/status-post';
import { UNCONFIRMED_AFTER_POLLS } from '../main/core/store/account-store';
import { trayCount } from '../preload/model';
import { inbox, type Laptop, openLaptop } from './support/core';
import { admin } from './support/raw-api';
import { sharedMarketplace } from './support/shared-marketplace';

const MINUTE = 60_000;

const market = sharedMarketplace({ seed: 7, orders: 30 });
const { laptops } = market;

async function laptop(options: Parameters<typeof openLaptop>[2] = {}): Promise<Laptop> {
  const opened = await openLaptop(market.sim.url, undefined, options);
  laptops.push(opened);
  await opened.core.start();
  return opened;
}

const quirks = (...names: string[]) => admin(market.sim.url, 'PATCH', 'faults', { quirks: names });
/** Requests the simulator answered so far, per operation. */
const requests = async (): Promise<Record<string, number>> =>
  (await admin(market.sim.url, 'GET', 'state')).json.requests;
const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** The marketplace's own events of an order, as the "all" listing has them. */
async function listed(orderId: string): Promise<{ statusCode: string; description: string }[]> {
  const client = new SellerApiClient({
    baseUrl: market.sim.url,
    credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
  });
  const events = [];
  for await (const page of client.allEvents()) events.push(...page.items);
  return events.filter((e) => e.additionalProperties?.some((p) => p.value === orderId));
}

/** Marks a waiting order In progress on `a` and waits for its post; answers the outbox item. */
async function markAndSend(a: Laptop) {
  const orderId = inbox(a.core).find((o) => o.waiting)?.orderId ?? '';
  const marked = await a.core.markStatus({
    orderId,
    statusCode: 'ProvisioningInProgress',
    description: 'Provisioning started by Anna Virtanen.',
  });
  const items = await a.core.deliverOutbox();
  const item = items.find((i) => i.requestId === marked.requestId);
  expect(item?.state).toBe('sent');
  return { orderId, item: item ?? marked };
}

describe('statuses the marketplace never showed', () => {
  it('are flagged after a few polls, checked for, and sent again once through the outbox', async () => {
    const a = await laptop();
    await quirks('lost-posts');
    const { orderId, item } = await markAndSend(a);
    for (let poll = 1; poll < UNCONFIRMED_AFTER_POLLS; poll++) {
      await a.core.checkNow();
      expect(a.core.status().attention.unconfirmed).toBe(0);
    }
    await a.core.checkNow();
    expect(a.core.status().attention.unconfirmed).toBe(1);
    const before = trayCount(a.core.status());
    expect(a.core.attention().unconfirmed).toEqual([
      {
        item: expect.objectContaining({ requestId: item.requestId, state: 'sent' }),
        buyer: expect.any(String),
        product: expect.any(String),
      },
    ]);
    expect(await listed(orderId)).toHaveLength(1); // its purchase only: the status was lost
    // The order's page says so too.
    expect((await a.core.order(orderId)).unconfirmed).toEqual([item.requestId]);

    await quirks();
    const calls = await requests();
    const { outcome, item: again } = await a.core.resendStatus(item.requestId);
    expect(outcome).toBe('sent-again');
    expect(again.requestId).not.toBe(item.requestId);
    // A second click finds nothing to send again.
    await expect(a.core.resendStatus(item.requestId)).rejects.toBeInstanceOf(NotFoundError);
    await a.core.deliverOutbox();
    const after = await requests();
    expect((after.sendEvent ?? 0) - (calls.sendEvent ?? 0)).toBe(1);
    // The check read the listing's end, not the history: a few pages on this small marketplace.
    expect((after.listEvents ?? 0) - (calls.listEvents ?? 0)).toBeLessThanOrEqual(4);

    await a.core.checkNow();
    expect(a.core.status().attention.unconfirmed).toBe(0);
    expect(trayCount(a.core.status())).toBe(before - 1);
    expect((await listed(orderId)).map((e) => e.statusCode)).toEqual([
      'ProvisioningStarted',
      'ProvisioningInProgress',
    ]);
    const page = await a.core.order(orderId);
    expect([page.outbox, page.unconfirmed]).toEqual([[], undefined]);
  });

  it('one that was there after all is not sent again', async () => {
    const a = await laptop();
    await quirks('lost-posts');
    const { item } = await markAndSend(a);
    for (let poll = 0; poll < UNCONFIRMED_AFTER_POLLS; poll++) await a.core.checkNow();
    expect(a.core.status().attention.unconfirmed).toBe(1);
    // The marketplace lists it late (another copy naming the same request, as a delayed write would).
    await quirks();
    const other = new SellerApiClient({
      baseUrl: market.sim.url,
      credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
    });
    await other.sendEvent(eventBody(item, item.requestId));
    const posts = (await requests()).sendEvent;
    expect((await a.core.resendStatus(item.requestId)).outcome).toBe('found');
    expect((await requests()).sendEvent).toBe(posts);
    expect(a.core.status().attention.unconfirmed).toBe(0);
  });
});

describe('what needs attention', () => {
  it('counts new orders past the reminder delay, orders stalled in progress and unreadable items, for the tray', async () => {
    const clock = { now: Date.now() };
    const a = await laptop({
      now: () => clock.now,
      settings: { reminderAfterMinutes: 15, staleInProgressDays: 7 },
    });
    await a.core.checkNow();
    const view = a.core.attention();
    const waiting = a.core.status().waitingCount;
    // The seeded waiting orders are older than 15 minutes; one bought now is not yet.
    expect(view.counts.notStarted).toBe(waiting);
    await admin(market.sim.url, 'POST', 'purchases', {});
    await a.core.checkNow();
    expect(a.core.status().waitingCount).toBe(waiting + 1);
    expect(a.core.status().attention.notStarted).toBe(waiting);
    clock.now += 16 * MINUTE;
    await a.core.checkNow();
    expect(a.core.status().attention.notStarted).toBe(waiting + 1);

    // Stalled: what the inbox's stalled group holds.
    const stalled = a.core
      .orders({
        filter: 'all',
        search: '',
        offset: 0,
        limit: 1,
        now: new Date(clock.now).toISOString(),
        stalledAfterDays: 7,
      })
      .groups.find((g) => g.name === 'stalled')?.holds;
    expect(stalled).toBeGreaterThan(0);
    expect(a.core.status().attention.stalled).toBe(stalled);
    expect(a.core.attention().stalled.map((row) => row.status)).toEqual(
      Array(Math.min(stalled ?? 0, 50)).fill('ProvisioningInProgress'),
    );

    // Unreadable events (read again by the next poll): counted until seen.
    await quirks('unreadable-events');
    await a.core.checkNow();
    const { keptAside } = a.core.attention();
    expect(keptAside.length).toBeGreaterThan(0);
    expect(a.core.status().attention.keptAside).toBe(keptAside.length);
    const status = a.core.status();
    expect(trayCount(status)).toBe(status.waitingCount + status.attention.stalled + keptAside.length);
    a.core.markAsideSeen(keptAside[0]?.id ?? 0);
    expect(a.core.status().attention.keptAside).toBe(0);
    // Read again by a poll, they stay seen.
    await a.core.checkNow();
    expect(a.core.status().attention.keptAside).toBe(0);
  });

  it('holding the view open costs no more marketplace calls than the polls', async () => {
    const a = await laptop();
    await a.core.checkNow();
    // Polls alone.
    let start = await requests();
    for (let i = 0; i < 3; i++) await a.core.checkNow();
    const polls = total(await requests()) - total(start);
    // The same polls with the view read after each, and many times between (as the window does on events).
    start = await requests();
    for (let i = 0; i < 3; i++) {
      await a.core.checkNow();
      for (let j = 0; j < 20; j++) a.core.attention();
    }
    expect(total(await requests()) - total(start)).toBe(polls);
  });
});
