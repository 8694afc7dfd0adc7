// Marketplaces whose clock is hours off this laptop's, over the simulator on loopback HTTP, on a
// clock the test moves: a new order is announced, then reminded of, urgent and listed as not
// started only the setting's minutes after this laptop could first have told of it, whichever way
// the marketplace's stamps are off.
import { randomUUID } from 'node:crypto';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { SellerApiClient } from '../main/core/api/client';
import { eventBody } from '../main/core/status-post';
import { AccountStore, UNCONFIRMED_AFTER_POLLS } from '../main/core/store/account-store';
import { inbox, type Laptop, openLaptop } from './support/core';
import { admin } from './support/raw-api';
import { type SharedMarketplace, sharedMarketplace } from './support/shared-marketplace';

const MINUTE = 60_000;
const HOURS = 3 * 60 * MINUTE;
const behind = sharedMarketplace({ seed: 41, orders: 10, clock: () => Date.now() - HOURS });
const ahead = sharedMarketplace({ seed: 43, orders: 10, clock: () => Date.now() + HOURS });

/** A laptop on a clock the test moves, reminders after 15 minutes and urgent after 30, its first sync done. */
async function laptopOn(market: SharedMarketplace) {
  const clock = { now: Date.now() };
  const laptop = await openLaptop(market.sim.url, undefined, {
    now: () => clock.now,
    settings: { reminderAfterMinutes: 15, escalateAfterMinutes: 30, staleInProgressDays: 1 },
  });
  market.laptops.push(laptop);
  await laptop.core.start();
  const later = async (minutes: number) => {
    clock.now += minutes * MINUTE;
    await laptop.core.checkNow();
  };
  const orderId: string = (
    await admin(market.sim.url, 'POST', 'purchases', {
      order: { buyerCustomerParty: { party: { partyName: 'Kestrel Foods Oy' } } },
    })
  ).json.orderId;
  await laptop.core.checkNow();
  return { laptop, clock, later, orderId };
}

/** What the laptop told of the order, kind by kind, in order. */
const told = (laptop: Laptop, orderId: string) =>
  laptop
    .notifications()
    .filter((n) => n.orderId === orderId)
    .map((n) => n.kind);

/** Whether Needs attention lists the order as not started (its count the list's length: the two agree). */
function notStarted(laptop: Laptop, orderId: string): boolean {
  const attention = laptop.core.attention();
  expect(attention.counts.notStarted).toBe(attention.notStarted.length);
  return attention.notStarted.some((row) => row.orderId === orderId);
}

describe.each([
  ['behind', behind],
  ['ahead', ahead],
])('a marketplace clock hours %s', (_, market) => {
  it('announces a new order at once, reminds of it 15 minutes later and calls it urgent 30 minutes later', async () => {
    const { laptop, clock, later, orderId } = await laptopOn(market);
    expect(told(laptop, orderId)).toEqual(['order']);
    // The inbox says it waits since it arrived, as its urgency counts.
    const row = inbox(laptop.core).find((r) => r.orderId === orderId);
    expect(row?.waitingSince).toBe(new Date(clock.now).toISOString());
    expect((await laptop.core.order(orderId)).waitingSince).toBe(row?.waitingSince);
    expect(notStarted(laptop, orderId)).toBe(false);
    await later(14);
    expect(told(laptop, orderId)).toEqual(['order']);
    expect(notStarted(laptop, orderId)).toBe(false);
    await later(2);
    expect(told(laptop, orderId)).toEqual(['order', 'reminder']);
    expect(notStarted(laptop, orderId)).toBe(true);
    await later(13);
    expect(told(laptop, orderId)).toEqual(['order', 'reminder']);
    await later(2);
    expect(told(laptop, orderId)).toEqual(['order', 'reminder', 'urgent']);
  });
});

/** Whether the order is stalled, in the inbox (its group's count) and in Needs attention (list and count). */
function stalled(laptop: Laptop, now: number, orderId: string): boolean {
  const attention = laptop.core.attention();
  expect(attention.counts.stalled).toBe(attention.stalled.length);
  const page = laptop.core.orders({
    filter: 'all',
    search: '',
    offset: 0,
    limit: 100,
    now: new Date(now).toISOString(),
    stalledAfterDays: 1,
  });
  const inbox = page.groups.find((g) => g.name === 'stalled')?.holds ?? 0;
  expect(inbox).toBe(attention.counts.stalled);
  return attention.stalled.some((row) => row.orderId === orderId);
}

describe('a marketplace clock hours ahead', () => {
  it('counts an order in progress as stalled a day after this laptop learned it was started, not the stamp', async () => {
    const { laptop, clock, later, orderId } = await laptopOn(ahead);
    await laptop.core.markStatus({
      orderId,
      statusCode: 'ProvisioningInProgress',
      description: 'Provisioning started by Anna Virtanen.',
    });
    await laptop.core.deliverOutbox();
    await later(1);
    await later(24 * 60 - 3);
    expect(stalled(laptop, clock.now, orderId)).toBe(false);
    await later(4);
    expect(stalled(laptop, clock.now, orderId)).toBe(true);
  });
});

describe("the laptop's own clock set back", () => {
  it('counts the wait again from when it went back, not hours later', async () => {
    const { laptop, later, orderId } = await laptopOn(behind);
    await later(5);
    await later(-2 * 60);
    await later(14);
    expect(told(laptop, orderId)).toEqual(['order']);
    expect(notStarted(laptop, orderId)).toBe(false);
    await later(2);
    expect(told(laptop, orderId)).toEqual(['order', 'reminder']);
    expect(notStarted(laptop, orderId)).toBe(true);
  });

  it("brings the planner's statistics up to date at once, then hourly again, not hours later", async () => {
    const { later } = await laptopOn(behind);
    const optimized = vi.spyOn(AccountStore.prototype, 'optimize');
    onTestFinished(() => optimized.mockRestore());
    await later(30);
    expect(optimized).not.toHaveBeenCalled();
    await later(-2 * 60); // its last time now reads as two and a half hours ahead: a wait it cannot trust
    expect(optimized).toHaveBeenCalledTimes(1);
    await later(59);
    expect(optimized).toHaveBeenCalledTimes(1);
    await later(2);
    expect(optimized).toHaveBeenCalledTimes(2);
  });
});

describe('a marketplace clock hours behind', () => {
  it("says an order is in progress since this laptop marked it, and one a colleague started since the marketplace's stamp", async () => {
    const { laptop, clock, later, orderId } = await laptopOn(behind);
    const since = (id: string) => inbox(laptop.core).find((r) => r.orderId === id)?.statusSince;
    await later(10);
    const marked = new Date(clock.now).toISOString();
    await laptop.core.markStatus({
      orderId,
      statusCode: 'ProvisioningInProgress',
      description: 'Provisioning started by Anna Virtanen.',
    });
    await laptop.core.deliverOutbox();
    expect(since(orderId)).toBe(marked);
    // Listed back, stamped by the marketplace three hours before the mark: still in progress since the mark.
    await later(1);
    await later(1);
    expect(laptop.core.attention().unconfirmed).toEqual([]);
    expect(since(orderId)).toBe(marked);
    // A colleague starts an order on their laptop; this one learns it a minute after it arrived here.
    const other: string = (await admin(behind.sim.url, 'POST', 'purchases', {})).json.orderId;
    await later(0);
    const arrived = new Date(clock.now).toISOString();
    const colleague = new SellerApiClient({
      baseUrl: behind.sim.url,
      credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
    });
    await colleague.sendEvent(
      eventBody(
        { orderId: other, statusCode: 'ProvisioningInProgress', description: 'Provisioning started by Ben.' },
        randomUUID(),
      ),
    );
    await later(1);
    expect(inbox(laptop.core).find((r) => r.orderId === other)?.status).toBe('ProvisioningInProgress');
    // The stamp, hours before it arrived here by this laptop's clock: what every laptop counts a
    // stall from (one that was off learns late, and must see the stall the others see). Telling a
    // clock behind from a laptop that was off would take an estimate of the marketplace's offset.
    expect(Date.parse(since(other) ?? '')).toBeLessThan(Date.parse(arrived) - 2 * 3_600_000);
  });

  it('finds a status it listed late when asked to send it again, however many events came after it', async () => {
    const { laptop, orderId } = await laptopOn(behind);
    const quirks = (...names: string[]) => admin(behind.sim.url, 'PATCH', 'faults', { quirks: names });
    await quirks('lost-posts');
    const marked = await laptop.core.markStatus({
      orderId,
      statusCode: 'ProvisioningInProgress',
      description: 'Provisioning started by Anna Virtanen.',
    });
    await laptop.core.deliverOutbox();
    for (let poll = 0; poll < UNCONFIRMED_AFTER_POLLS; poll++) await laptop.core.checkNow();
    expect(laptop.core.status().attention.unconfirmed).toBe(1);
    // The marketplace lists it late (a delayed write), then more than a page of purchases.
    await quirks();
    const item = laptop.core.attention().unconfirmed[0]?.item;
    if (!item) throw new Error('the mark is listed as unconfirmed');
    expect(item.requestId).toBe(marked.requestId);
    const other = new SellerApiClient({
      baseUrl: behind.sim.url,
      credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
    });
    await other.sendEvent(eventBody(item, item.requestId));
    for (let i = 0; i < 2.5 * other.pageSize; i++) await admin(behind.sim.url, 'POST', 'purchases', {});
    const posts = (await admin(behind.sim.url, 'GET', 'state')).json.requests.sendEvent;
    expect((await laptop.core.resendStatus(item.requestId)).outcome).toBe('found');
    expect((await admin(behind.sim.url, 'GET', 'state')).json.requests.sendEvent).toBe(posts);
  });
});
