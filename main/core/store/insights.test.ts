// Insights over a real store, against figures worked out by hand: a fixed week of orders with
// known times (each delay in minutes below), the medians and 90th percentiles counted by the
// nearest-rank rule, the orders past a 60-minute reminder delay, and the Failed reasons.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InsightsRequest } from '../../../preload/insights';
import { databaseOfVersion } from '../../../test/support/store-files';
import type { MarketplaceEvent, Order } from '../api/wire';
import { AccountStore } from './account-store';
import { bucketStarts, type InsightsPart, summarizeInsights } from './insights';

const MIN = 60_000;
const NOW = Date.parse('2026-11-23T00:00:00Z');

/** A status `minutes` after the purchase, and for Failed its reason (undefined: none written). */
type Step = [status: string, minutes: number, reason?: string];
interface Spec {
  at: string;
  product?: string;
  type?: string;
  steps: Step[];
}
const P = 'ProvisioningInProgress';
const C = 'ProvisioningCompleted';
const F = 'ProvisioningFailed';

/** The fixed data set: the comments give each day's figures as counted by hand in the test below. */
const ORDERS: Spec[] = [
  // Monday 16th: first actions 10..80; completed 100..140.
  {
    at: '2026-11-16T10:00:00Z',
    product: 'A',
    steps: [
      [P, 10],
      [C, 100],
    ],
  },
  {
    at: '2026-11-16T10:01:00Z',
    product: 'A',
    steps: [
      [P, 20],
      [C, 110],
    ],
  },
  {
    at: '2026-11-16T10:02:00Z',
    product: 'A',
    steps: [
      [P, 30],
      [C, 120],
    ],
  },
  {
    at: '2026-11-16T10:03:00Z',
    product: 'A',
    type: 'Trial',
    steps: [
      [P, 40],
      [C, 130],
    ],
  },
  {
    at: '2026-11-16T10:04:00Z',
    product: 'B',
    steps: [
      [P, 50],
      [C, 140],
    ],
  },
  {
    at: '2026-11-16T10:05:00Z',
    product: 'B',
    steps: [
      [P, 60],
      [F, 65, 'License server down'],
    ],
  },
  { at: '2026-11-16T10:06:00Z', product: 'B', steps: [[F, 70, 'Quota exceeded']] },
  { at: '2026-11-16T10:07:00Z', product: 'B', type: 'Trial', steps: [[P, 80]] },
  // Tuesday 17th: first actions 5, 15, 25, 35; two never started (past the delay by now); one not fetched.
  {
    at: '2026-11-17T09:00:00Z',
    product: 'A',
    steps: [
      [P, 5],
      [C, 45],
    ],
  },
  {
    at: '2026-11-17T09:01:00Z',
    product: 'A',
    steps: [
      [P, 15],
      [C, 65],
    ],
  },
  { at: '2026-11-17T09:02:00Z', product: 'A', steps: [[P, 25]] },
  { at: '2026-11-17T09:03:00Z', product: 'A', steps: [[F, 35, 'License server down']] },
  { at: '2026-11-17T09:04:00Z', product: 'A', steps: [] },
  { at: '2026-11-17T09:05:00Z', steps: [] },
  // Thursday 19th: first actions 120, -3 (stamped before the purchase by another clock: 0), 60, 90, 30.
  {
    at: '2026-11-19T12:00:00Z',
    product: 'A',
    steps: [
      [P, 120],
      [C, 180],
    ],
  },
  {
    at: '2026-11-19T12:01:00Z',
    product: 'A',
    steps: [
      [P, -3],
      [C, 20],
    ],
  },
  {
    at: '2026-11-19T12:02:00Z',
    product: 'B',
    steps: [
      [P, 60],
      [F, 100, 'Quota exceeded'],
      [P, 150],
      [C, 240],
    ],
  },
  { at: '2026-11-19T12:03:00Z', product: 'B', steps: [[F, 90]] },
  { at: '2026-11-19T12:04:00Z', product: 'B', steps: [[P, 30]] },
  // Outside the week (in UTC): a minute before it, and the day after it.
  { at: '2026-11-15T23:59:00Z', product: 'A', steps: [[P, 1000]] },
  { at: '2026-11-23T00:00:00Z', product: 'A', steps: [[P, 1]] },
];

const WEEK = { from: '2026-11-16', to: '2026-11-22', product: null, utcOffsetMinutes: 0 } as const;

let dir: string;
let store: AccountStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'insights-'));
  store = AccountStore.open(dir).store;
  fill(store, ORDERS);
});
afterEach(async () => {
  store.close();
  await rm(dir, { recursive: true, force: true });
});

function fill(into: AccountStore, specs: readonly Spec[], prefix = 'o'): void {
  const events: MarketplaceEvent[] = [];
  specs.forEach((spec, i) => {
    const orderId = `${prefix}-${i}`;
    const bought = Date.parse(spec.at);
    const event = (status: string, minutes: number, n: number, reason?: string): MarketplaceEvent => ({
      eventId: `${orderId}-${n}`,
      eventTypeCode: n === 0 ? (spec.type ?? 'ServicePurchased') : 'ServicePurchased',
      statusCode: status,
      description: status === F ? 'Provisioning failed' : status,
      ...(reason === undefined ? {} : { detailedDescription: reason }),
      eventTime: new Date(bought + minutes * MIN).toISOString(),
      additionalProperties: [{ name: 'orderId', value: orderId }],
    });
    events.push(event('ProvisioningStarted', 0, 0));
    spec.steps.forEach(([status, minutes, reason], n) => {
      events.push(event(status, minutes, n + 1, reason));
    });
  });
  into.recordPoll({ events, cursor: undefined, backlog: false, paused: false, now: '2026-11-20T00:00:00Z' });
  specs.forEach((spec, i) => {
    if (spec.product !== undefined)
      into.saveOrder(`${prefix}-${i}`, order(spec.product), [], '2026-11-20T00:00:00Z');
  });
}

function order(name: string): Order {
  return {
    orderTypeCode: 'Purchase',
    buyerCustomerParty: { party: { partyName: 'Fjord AB' } },
    sellerSupplierParty: {},
    documentLines: [{ lineItem: { name, sellersItemId: `item-${name}` } }, { lineItem: { name: 'Add-on' } }],
  } as Order;
}

function insights(request: Partial<Omit<InsightsRequest, 'account'>> = {}, parts?: InsightsPart[]) {
  const query = { ...WEEK, bucket: 'day' as const, ...request };
  const read = parts ?? [store.insights({ ...query, reminderAfterMinutes: 60, now: NOW })];
  return summarizeInsights(read, query, 60, ['a']);
}

const minutes = (d: { count: number; medianMs: number | null; p90Ms: number | null }) => ({
  count: d.count,
  median: d.medianMs === null ? null : d.medianMs / MIN,
  p90: d.p90Ms === null ? null : d.p90Ms / MIN,
});

describe('a fixed week, counted by hand', () => {
  it('has each day’s orders, medians and 90th percentiles, and those past the reminder delay', () => {
    const found = insights();
    expect(found.buckets.map((b) => b.start)).toEqual([
      '2026-11-16',
      '2026-11-17',
      '2026-11-18',
      '2026-11-19',
      '2026-11-20',
      '2026-11-21',
      '2026-11-22',
    ]);
    expect(found.buckets.map((b) => b.orders)).toEqual([8, 6, 0, 5, 0, 0, 0]);
    // Monday: 10..80 → 4th of 8 is 40, 8th is 80; completed 100..140 → 3rd of 5 is 120, 5th 140.
    const [monday, tuesday, wednesday, thursday] = found.buckets;
    expect(minutes(monday?.firstAction ?? never())).toEqual({ count: 8, median: 40, p90: 80 });
    expect(minutes(monday?.completed ?? never())).toEqual({ count: 5, median: 120, p90: 140 });
    expect(monday?.pastReminder).toBe(2); // 70 and 80 (60 is not past 60)
    // Tuesday: 5, 15, 25, 35 → 2nd is 15, 4th 35; completed 45, 65 → 1st 45, 2nd 65; two never started.
    expect(minutes(tuesday?.firstAction ?? never())).toEqual({ count: 4, median: 15, p90: 35 });
    expect(minutes(tuesday?.completed ?? never())).toEqual({ count: 2, median: 45, p90: 65 });
    expect(tuesday?.pastReminder).toBe(2);
    expect(minutes(wednesday?.firstAction ?? never())).toEqual({ count: 0, median: null, p90: null });
    // Thursday: 0, 30, 60, 90, 120 → 3rd 60, 5th 120; completed 20, 180, 240 → 2nd 180, 3rd 240.
    expect(minutes(thursday?.firstAction ?? never())).toEqual({ count: 5, median: 60, p90: 120 });
    expect(minutes(thursday?.completed ?? never())).toEqual({ count: 3, median: 180, p90: 240 });
    expect(thursday?.pastReminder).toBe(2); // 90 and 120
  });

  it('has the whole week’s figures, and the same in one weekly bucket', () => {
    // First actions, 17 sorted: 0 5 10 15 20 25 30 30 35 40 50 60 60 70 80 90 120 → 9th 35, 16th 90.
    // Completed, 10 sorted: 20 45 65 100 110 120 130 140 180 240 → 5th 110, 9th 180.
    for (const bucket of ['day', 'week'] as const) {
      const found = insights({ bucket });
      expect(minutes(found.firstAction)).toEqual({ count: 17, median: 35, p90: 90 });
      expect(minutes(found.completed)).toEqual({ count: 10, median: 110, p90: 180 });
      expect(found.pastReminder).toBe(6);
    }
    const week = insights({ bucket: 'week' });
    expect(week.buckets).toHaveLength(1);
    expect(week.buckets[0]).toMatchObject({ start: '2026-11-16', orders: 19, pastReminder: 6 });
  });

  it('counts new orders by product (the first line) and purchase type', () => {
    const monday = insights().orders.filter((o) => o.start === '2026-11-16');
    expect(monday).toEqual([
      { start: '2026-11-16', product: 'A', type: 'ServicePurchased', count: 3 },
      { start: '2026-11-16', product: 'A', type: 'Trial', count: 1 },
      { start: '2026-11-16', product: 'B', type: 'ServicePurchased', count: 3 },
      { start: '2026-11-16', product: 'B', type: 'Trial', count: 1 },
    ]);
    // The order not fetched yet has no product: it is counted under the empty name.
    expect(insights().orders.filter((o) => o.product === '')).toEqual([
      { start: '2026-11-17', product: '', type: 'ServicePurchased', count: 1 },
    ]);
    expect(insights().products).toEqual(['', 'A', 'B']);
  });

  it('narrows every figure to one product, and still lists every product', () => {
    const b = insights({ product: 'B' });
    expect(b.buckets.map((x) => x.orders)).toEqual([4, 0, 0, 3, 0, 0, 0]);
    // Monday's B: 50, 60, 70, 80 → 2nd 60, 4th 80.
    expect(minutes(b.buckets[0]?.firstAction ?? never())).toEqual({ count: 4, median: 60, p90: 80 });
    expect(b.failedReasons).toEqual([
      { reason: 'Quota exceeded', count: 2 },
      { reason: 'License server down', count: 1 },
      { reason: 'Provisioning failed', count: 1 },
    ]);
    expect(b.products).toEqual(['', 'A', 'B']);
  });

  it('counts each Failed status by its reason, the description when no reason was written', () => {
    expect(insights().failedReasons).toEqual([
      { reason: 'License server down', count: 2 },
      { reason: 'Quota exceeded', count: 2 },
      { reason: 'Provisioning failed', count: 1 },
    ]);
  });

  it('starts the days at the window’s local midnight', () => {
    // At UTC+2 the order a minute before Monday (UTC) was bought at 01:59 on Monday.
    const east = insights({ utcOffsetMinutes: 120 });
    expect(east.buckets.map((b) => b.orders)).toEqual([9, 6, 0, 5, 0, 0, 0]);
    expect(minutes(east.buckets[0]?.firstAction ?? never())).toMatchObject({ count: 9, p90: 1000 });
  });

  it('puts an order bought at local midnight in the day it begins', async () => {
    const otherDir = await mkdtemp(join(tmpdir(), 'insights-midnight-'));
    const other = AccountStore.open(otherDir).store;
    try {
      // At UTC+2, 22:00 UTC is midnight; a millisecond before is the day before (outside the period).
      fill(other, [
        { at: '2026-11-15T22:00:00.000Z', product: 'A', steps: [] },
        { at: '2026-11-15T21:59:59.999Z', product: 'A', steps: [] },
        { at: '2026-11-16T21:59:59.999Z', product: 'A', steps: [] },
      ]);
      const query = { ...WEEK, bucket: 'day' as const, utcOffsetMinutes: 120 };
      const east = insights(query, [other.insights({ ...query, reminderAfterMinutes: 60, now: NOW })]);
      expect(east.buckets.slice(0, 2).map((b) => b.orders)).toEqual([2, 0]);
      expect(east.orders).toEqual([
        { start: '2026-11-16', product: 'A', type: 'ServicePurchased', count: 2 },
      ]);
    } finally {
      other.close();
      await rm(otherDir, { recursive: true, force: true });
    }
  });

  it('counts nothing past the delay when reminders are off', () => {
    const off = summarizeInsights(
      [store.insights({ ...WEEK, bucket: 'day', reminderAfterMinutes: 0, now: NOW })],
      { ...WEEK, bucket: 'day' },
      0,
      ['a'],
    );
    expect(off.pastReminder).toBe(0);
  });
});

describe('several accounts', () => {
  it('adds their counts and takes the percentiles over all their orders together', async () => {
    const otherDir = await mkdtemp(join(tmpdir(), 'insights-other-'));
    const other = AccountStore.open(otherDir).store;
    try {
      // One more Monday order, slow: 1,000 minutes to a first action, never completed.
      fill(other, [{ at: '2026-11-16T11:00:00Z', product: 'C', steps: [[F, 1000, 'Quota exceeded']] }], 'x');
      const query = { ...WEEK, bucket: 'day' as const, reminderAfterMinutes: 60, now: NOW };
      const both = insights({}, [store.insights(query), other.insights(query)]);
      expect(both.buckets[0]?.orders).toBe(9);
      // Monday: 10..80 and 1,000 → 5th of 9 is 50, 9th is 1,000 (neither account's alone).
      expect(minutes(both.buckets[0]?.firstAction ?? never())).toEqual({ count: 9, median: 50, p90: 1000 });
      expect(both.pastReminder).toBe(7);
      expect(both.failedReasons[0]).toEqual({ reason: 'Quota exceeded', count: 3 });
      expect(both.products).toEqual(['', 'A', 'B', 'C']);
    } finally {
      other.close();
      await rm(otherDir, { recursive: true, force: true });
    }
  });
});

it('lists every bucket of a period, weeks by their Monday', () => {
  expect(bucketStarts({ from: '2026-11-20', to: '2026-12-01', bucket: 'week' })).toEqual([
    '2026-11-16',
    '2026-11-23',
    '2026-11-30',
  ]);
  expect(bucketStarts({ from: '2026-02-27', to: '2026-03-01', bucket: 'day' })).toEqual([
    '2026-02-27',
    '2026-02-28',
    '2026-03-01',
  ]);
});

it('reads the period through its index, not a walk of every order', () => {
  const plan = (store as unknown as { db: { prepare(s: string): { all(): { detail: string }[] } } }).db
    .prepare(
      `EXPLAIN QUERY PLAN SELECT order_id FROM orders WHERE julianday(purchased_at) >= 0 AND julianday(purchased_at) < 1`,
    )
    .all()
    .map((r) => r.detail);
  expect(plan.join('\n')).toContain('orders_by_purchase');
});

it('gives the orders of an older database their product and times when it migrates', async () => {
  const before = await mkdtemp(join(tmpdir(), 'insights-before-'));
  const db = databaseOfVersion(before, 9);
  db.prepare(
    `INSERT INTO orders (order_id, purchased_at, effective_status, document, stale) VALUES ('o-old', '2026-11-16T10:00:00Z', 'ProvisioningStarted', ?, 0)`,
  ).run(JSON.stringify(order('Old product')));
  db.prepare(
    `INSERT INTO events (key, order_id, event_type, status, event_time, event_ms, json) VALUES
       ('e-old', 'o-old', 'ServicePurchased', 'ProvisioningStarted', '2026-11-16T10:00:00Z', ?, '{}'),
       ('e-old-2', 'o-old', 'ServicePurchased', 'ProvisioningInProgress', '2026-11-16T10:25:00Z', ?, '{}')`,
  ).run(Date.parse('2026-11-16T10:00:00Z'), Date.parse('2026-11-16T10:25:00Z'));
  db.close();
  const migrated = AccountStore.open(before).store;
  try {
    const found = migrated.insights({ ...WEEK, bucket: 'day', reminderAfterMinutes: 60, now: NOW });
    expect(found.products).toEqual(['Old product']);
    // Its time to a first action, worked out by the migration from the events it has.
    expect(found.groups.flatMap((g) => g.firstAction)).toEqual([25 * MIN]);
  } finally {
    migrated.close();
    await rm(before, { recursive: true, force: true });
  }
});

function never(): never {
  throw new Error('missing');
}
