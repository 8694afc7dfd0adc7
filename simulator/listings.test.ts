import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ErrorBody,
  License,
  LicenseArray,
  MarketplaceEvent,
  MarketplaceEventList,
  Order,
  OrderList,
  orderIdOf,
} from '../main/core/api/wire';
import { admin, type RawAnswer, rawCall, tokenFor } from '../test/support/raw-api';
import { type Simulator, startSimulator } from './server';

const ORDERS = 120;
/** The seeded marketplace leaves the newest tenth of its purchases unseen. */
const UNSEEN = Math.ceil(ORDERS / 10);

let now = Date.parse('2026-11-21T12:00:00Z');
const clock = () => now;
let sim: Simulator;
let token: string;
let otherToken: string;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 11, orders: ORDERS, clock });
  token = await tokenFor(sim.url, 'demo-client', 'demo-secret');
  otherToken = await tokenFor(sim.url, 'other-client', 'other-secret');
});
afterEach(async () => {
  await admin(sim.url, 'POST', 'reset');
});
afterAll(() => sim.close());

function expectError(answer: RawAnswer, status: number, errorCode: string): ErrorBody {
  expect(answer.status).toBe(status);
  const body = ErrorBody.parse(answer.json);
  expect(body.errorCode).toBe(errorCode);
  return body;
}

async function ordersPage(query: Record<string, string | number>, as = token): Promise<OrderList> {
  const answer = await rawCall(sim.url, 'listOrders', { token: as, query });
  expect(answer.status).toBe(200);
  return OrderList.parse(answer.json);
}

async function allOrders(as = token): Promise<Order[]> {
  const orders: Order[] = [];
  for (let offset = 0; ; ) {
    const page = await ordersPage({ offset, limit: 50 }, as);
    orders.push(...page.orders);
    offset += page.orders.length;
    if (!page.hasMore) return orders;
  }
}

async function eventsPage(
  operation: 'listEvents' | 'listNewEvents',
  query: Record<string, string | number> = {},
  as = token,
): Promise<MarketplaceEventList> {
  const answer = await rawCall(sim.url, operation, { token: as, query });
  expect(answer.status).toBe(200);
  return MarketplaceEventList.parse(answer.json);
}

async function allEvents(as = token): Promise<MarketplaceEvent[]> {
  const events: MarketplaceEvent[] = [];
  for (let offset = 0; ; ) {
    const page = await eventsPage('listEvents', { offset, limit: 100 }, as);
    events.push(...page.marketplaceEvents);
    offset += page.marketplaceEvents.length;
    if (!page.hasMore) return events;
  }
}

/** The ids of the marketplace events the "new" listing has not handed out yet, per "all". */
async function unseenIds(): Promise<string[]> {
  return (await allEvents())
    .filter((e) => e.eventTypeCode === 'ServicePurchased' && e.statusCode === 'ProvisioningStarted')
    .filter((e) => e.seenTime === undefined)
    .map((e) => e.eventId ?? '');
}

const ids = (events: MarketplaceEvent[]): string[] => events.map((e) => e.eventId ?? '');

const byTimeThenId = <T>(time: (x: T) => string, id: (x: T) => string) => {
  return (a: T, b: T): number =>
    time(a) < time(b) ? -1 : time(a) > time(b) ? 1 : id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0;
};
const orderSort = byTimeThenId<Order>(
  (o) => o.issueTime ?? '',
  (o) => o.orderId ?? '',
);
const eventSort = byTimeThenId<MarketplaceEvent>(
  (e) => e.eventTime ?? '',
  (e) => e.eventId ?? '',
);

async function postStatus(orderId: string, description = 'Provisioning in progress') {
  const answer = await rawCall(sim.url, 'sendEvent', {
    token,
    body: {
      eventTypeCode: 'ServicePurchased',
      statusCode: 'ProvisioningInProgress',
      description,
      additionalProperties: [{ name: 'orderId', value: orderId }],
    },
  });
  expect(answer.status).toBe(201);
  return MarketplaceEvent.parse(answer.json);
}

describe('orders pagination', () => {
  it('answers 50 orders and hasMore by default', async () => {
    const page = await ordersPage({});
    expect(page.orders).toHaveLength(50);
    expect(page.hasMore).toBe(true);
  });

  it.each([
    [{ offset: 100 }, 20, false],
    [{ offset: 50 }, 50, true],
    [{ offset: ORDERS }, 0, false],
    [{ offset: 10_000 }, 0, false],
    [{ offset: 999_999_999 }, 0, false],
    [{ limit: 1 }, 1, true],
    [{ limit: 1, offset: ORDERS - 1 }, 1, false],
    [{ limit: 100 }, 100, true],
    [{ limit: 100, offset: 20 }, 100, false],
    [{ limit: 100, offset: 21 }, 99, false],
    [{ limit: 20, offset: 100 }, 20, false],
    [{ limit: 19, offset: 100 }, 19, true],
  ])('answers %o with %i orders and hasMore %s', async (query, count, hasMore) => {
    const page = await ordersPage(query);
    expect(page.orders).toHaveLength(count);
    expect(page.hasMore).toBe(hasMore);
  });

  it.each([
    ['limit', '0'],
    ['limit', '101'],
    ['limit', '-1'],
    ['limit', '1.5'],
    ['limit', 'abc'],
    ['limit', ''],
    ['offset', '-1'],
    ['offset', 'x'],
    ['offset', '2.0'],
    ['offset', '1000000000'],
    ['offset', '99999999999999999999999'],
  ])('answers 400 BadRequest naming %s for the value "%s"', async (name, value) => {
    const answer = await rawCall(sim.url, 'listOrders', { token, query: { [name]: value } });
    expect(expectError(answer, 400, 'BadRequest').detailedDescription).toContain(name);
  });

  it('says truly which offsets it takes when one is too large for it', async () => {
    const answer = await rawCall(sim.url, 'listOrders', {
      token,
      query: { offset: '99999999999999999999999' },
    });
    expect(expectError(answer, 400, 'BadRequest').detailedDescription).toBe(
      'query parameter offset must be an integer from 0 to 999999999, got "99999999999999999999999"',
    );
  });

  it('yields every order exactly once over all pages, by issueTime then orderId, each a valid Order', async () => {
    const orders = await allOrders();
    expect(orders).toHaveLength(ORDERS);
    const orderIds = orders.map((o) => o.orderId);
    expect(new Set(orderIds).size).toBe(ORDERS);
    expect(orderIds).toEqual([...orders].sort(orderSort).map((o) => o.orderId));
    for (const order of orders) {
      expect(Order.safeParse(order).success).toBe(true);
      expect(order.orderId).toBeDefined();
      expect(order.issueTime).toBeDefined();
    }
  });

  it('pages of every size tile the same listing', async () => {
    const expected = (await allOrders()).map((o) => o.orderId);
    for (const limit of [1, 7, 33, 100]) {
      const seen: (string | undefined)[] = [];
      for (let offset = 0; ; offset += limit) {
        const page = await ordersPage({ offset, limit });
        seen.push(...page.orders.map((o) => o.orderId));
        if (!page.hasMore) break;
      }
      expect(seen).toEqual(expected);
    }
  });

  it('appends new purchases at the end of the listing', async () => {
    const before = (await allOrders()).map((o) => o.orderId);
    now += 1000;
    const created = await admin(sim.url, 'POST', 'purchases', {});
    expect(created.status).toBe(201);
    const after = (await allOrders()).map((o) => o.orderId);
    expect(after).toEqual([...before, created.json.orderId]);
  });

  it('keeps the issueTime-then-orderId order for purchases issued at the same instant', async () => {
    now += 1000;
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push((await admin(sim.url, 'POST', 'purchases', {})).json.orderId);
    const orders = await allOrders();
    expect(orders.map((o) => o.orderId)).toEqual([...orders].sort(orderSort).map((o) => o.orderId));
    expect(new Set(orders.slice(-5).map((o) => o.orderId))).toEqual(new Set(created));
  });

  it('keeps the issueTime order when the clock steps back between purchases', async () => {
    now += 60_000;
    const first = (await admin(sim.url, 'POST', 'purchases', {})).json.orderId;
    now -= 30_000; // e.g. an NTP correction
    const second = (await admin(sim.url, 'POST', 'purchases', {})).json.orderId;
    now += 30_000;
    const orders = await allOrders();
    expect(orders.slice(-2).map((o) => o.orderId)).toEqual([first, second]);
    expect(orders.map((o) => o.orderId)).toEqual([...orders].sort(orderSort).map((o) => o.orderId));
  });
});

describe('events "all" listing', () => {
  it('orders events by eventTime then eventId, all valid and all of the caller only', async () => {
    const events = await allEvents();
    expect(events.length).toBeGreaterThanOrEqual(ORDERS);
    expect(new Set(ids(events)).size).toBe(events.length);
    expect(ids(events)).toEqual(ids([...events].sort(eventSort)));
    for (const event of events) {
      expect(MarketplaceEvent.safeParse(event).success).toBe(true);
      expect(event.sellerId).toBe('1001');
    }
    const others = await allEvents(otherToken);
    expect(others.length).toBeGreaterThan(0);
    for (const event of others) expect(event.sellerId).toBe('2002');
    const mine = new Set(ids(events));
    expect(ids(others).some((id) => mine.has(id))).toBe(false);
  });

  it('pages with the same defaults and bounds as orders', async () => {
    const page = await eventsPage('listEvents');
    expect(page.marketplaceEvents).toHaveLength(50);
    expect(page.hasMore).toBe(true);
    const total = (await allEvents()).length;
    const last = await eventsPage('listEvents', { offset: total - 1, limit: 100 });
    expect(last.marketplaceEvents).toHaveLength(1);
    expect(last.hasMore).toBe(false);
    expect((await eventsPage('listEvents', { offset: total })).marketplaceEvents).toEqual([]);
    const bad = await rawCall(sim.url, 'listEvents', { token, query: { limit: 101 } });
    expect(expectError(bad, 400, 'BadRequest').detailedDescription).toContain('limit');
  });

  it('links every event to an order of the same seller', async () => {
    const orderIds = new Set((await allOrders()).map((o) => o.orderId));
    for (const event of await allEvents()) expect(orderIds.has(orderIdOf(event))).toBe(true);
  });
});

describe('"new" versus "all" events', () => {
  it('hands out the unseen purchase events once in consume mode, setting seenTime', async () => {
    const unseen = await unseenIds();
    expect(unseen).toHaveLength(UNSEEN);

    now += 5000;
    const first = await eventsPage('listNewEvents', { limit: 100 });
    expect(first.hasMore).toBe(false);
    expect(ids(first.marketplaceEvents)).toEqual(unseen);
    for (const event of first.marketplaceEvents) {
      expect(event).toMatchObject({ eventTypeCode: 'ServicePurchased', statusCode: 'ProvisioningStarted' });
      expect(event.seenTime).toBeDefined();
      expect(Date.parse(event.seenTime ?? '')).toBe(now);
    }

    const second = await eventsPage('listNewEvents', { limit: 100 });
    expect(second).toEqual({ hasMore: false, marketplaceEvents: [] });

    // "all" still has them, now with the seenTime the "new" listing gave them.
    const seen = new Map((await allEvents()).map((e) => [e.eventId, e.seenTime]));
    for (const event of first.marketplaceEvents) expect(seen.get(event.eventId)).toBe(event.seenTime);
    expect(await unseenIds()).toEqual([]);
  });

  it('offers a new purchase once in "new" and always in "all"', async () => {
    await eventsPage('listNewEvents', { limit: 100 });
    now += 1000;
    const created = await admin(sim.url, 'POST', 'purchases', {});
    expect(created.status).toBe(201);
    const orderId = created.json.orderId;

    const fresh = await eventsPage('listNewEvents');
    expect(fresh.marketplaceEvents).toHaveLength(1);
    const event = fresh.marketplaceEvents[0];
    expect(event).toMatchObject({
      eventTypeCode: 'ServicePurchased',
      statusCode: 'ProvisioningStarted',
      sellerId: '1001', // as the app reads it: ids are text
    });
    expect(event && orderIdOf(event)).toBe(orderId);
    expect((await eventsPage('listNewEvents')).marketplaceEvents).toEqual([]);

    const all = await allEvents();
    expect(all.at(-1)?.eventId).toBe(event?.eventId);
    expect(all.filter((e) => orderIdOf(e) === orderId)).toHaveLength(1);
  });

  it('never offers a seller-posted event in "new", only in "all"', async () => {
    const orderId = (await ordersPage({ limit: 1 })).orders[0]?.orderId ?? '';
    const posted = await postStatus(orderId);

    const firstNew = await eventsPage('listNewEvents', { limit: 100 });
    expect(firstNew.marketplaceEvents).toHaveLength(UNSEEN);
    expect(ids(firstNew.marketplaceEvents)).not.toContain(posted.eventId);
    const again = await postStatus(orderId, 'Still in progress');
    expect((await eventsPage('listNewEvents', { limit: 100 })).marketplaceEvents).toEqual([]);

    const all = ids(await allEvents());
    expect(all).toContain(posted.eventId);
    expect(all.at(-1)).toBe(again.eventId);
  });

  it('hands out each unseen event exactly once to a consumer that reads limit 1 at offset 0', async () => {
    const unseen = await unseenIds();
    const handed: string[] = [];
    for (let i = 0; i < UNSEEN + 5; i++) {
      const page = await eventsPage('listNewEvents', { offset: 0, limit: 1 });
      if (page.marketplaceEvents.length === 0) {
        expect(page.hasMore).toBe(false);
        break;
      }
      expect(page.marketplaceEvents).toHaveLength(1);
      expect(page.hasMore).toBe(handed.length + 1 < UNSEEN);
      handed.push(...ids(page.marketplaceEvents));
    }
    expect(handed).toEqual(unseen);
  });

  it('skips events when a consumer grows the offset in consume mode (the documented trap)', async () => {
    const unseen = await unseenIds();
    const handed: string[] = [];
    for (let offset = 0; ; offset++) {
      const page = await eventsPage('listNewEvents', { offset, limit: 1 });
      if (page.marketplaceEvents.length === 0) break;
      handed.push(...ids(page.marketplaceEvents));
    }
    // Every retrieved page leaves the listing, so offset 1 already points past an unread event.
    expect(handed.length).toBeLessThan(UNSEEN);
    expect(handed).toEqual(unseen.filter((_, i) => i % 2 === 0));
    const skipped = unseen.filter((id) => !handed.includes(id));
    expect(skipped.length).toBeGreaterThan(0);
    // The skipped ones are still waiting at offset 0.
    const rest = await eventsPage('listNewEvents', { limit: 100 });
    expect(ids(rest.marketplaceEvents)).toEqual(skipped);
  });

  describe('sticky mode', () => {
    async function expectSticky(target: Simulator, as: string): Promise<void> {
      const newPage = async () => {
        const answer = await rawCall(target.url, 'listNewEvents', { token: as, query: { limit: 100 } });
        expect(answer.status).toBe(200);
        return MarketplaceEventList.parse(answer.json);
      };
      now += 1000;
      const firstSeen = now;
      const first = await newPage();
      expect(first.marketplaceEvents).toHaveLength(UNSEEN);
      for (const event of first.marketplaceEvents) expect(Date.parse(event.seenTime ?? '')).toBe(firstSeen);

      now += 60_000;
      const second = await newPage();
      expect(second).toEqual(first);
      now += 60_000;
      const page = await rawCall(target.url, 'listNewEvents', { token: as, query: { offset: 2, limit: 3 } });
      expect(ids(MarketplaceEventList.parse(page.json).marketplaceEvents)).toEqual(
        ids(first.marketplaceEvents.slice(2, 5)),
      );
      expect((await newPage()).marketplaceEvents).toEqual(first.marketplaceEvents);
    }

    it('returns the same events on every retrieval when switched on at runtime', async () => {
      const patched = await admin(sim.url, 'PATCH', 'faults', { newEvents: 'sticky' });
      expect(patched.json.newEvents).toBe('sticky');
      await expectSticky(sim, token);
    });

    it('returns the same events on every retrieval when started sticky', async () => {
      const sticky = await startSimulator({
        port: 0,
        seed: 11,
        orders: ORDERS,
        clock,
        faults: { newEvents: 'sticky' },
      });
      try {
        await expectSticky(sticky, await tokenFor(sticky.url, 'demo-client', 'demo-secret'));
      } finally {
        await sticky.close();
      }
    });
  });
});

describe('licenses', () => {
  it('answers a bare array of valid licenses, each linked to an order of the seller', async () => {
    const answer = await rawCall(sim.url, 'listLicenses', { token });
    expect(answer.status).toBe(200);
    expect(Array.isArray(answer.json)).toBe(true);
    const licenses = LicenseArray.parse(answer.json);
    expect(licenses.length).toBeGreaterThanOrEqual(ORDERS);
    const orderIds = new Set((await allOrders()).map((o) => o.orderId));
    for (const license of licenses) expect(orderIds.has(orderIdOf(license))).toBe(true);
  });

  it('filters by orderId', async () => {
    const licenses = LicenseArray.parse((await rawCall(sim.url, 'listLicenses', { token })).json);
    for (const order of (await ordersPage({ limit: 10 })).orders) {
      const orderId = order.orderId ?? '';
      const answer = await rawCall(sim.url, 'listLicenses', { token, query: { orderId } });
      expect(answer.status).toBe(200);
      const filtered = LicenseArray.parse(answer.json);
      expect(filtered.length).toBeGreaterThan(0);
      for (const license of filtered) expect(orderIdOf(license)).toBe(orderId);
      expect(filtered).toEqual(licenses.filter((l) => orderIdOf(l) === orderId));
    }
    const unknown = await rawCall(sim.url, 'listLicenses', { token, query: { orderId: randomUUID() } });
    expect(unknown.status).toBe(200);
    expect(unknown.json).toEqual([]);
  });

  it('answers one license by id', async () => {
    const licenses = LicenseArray.parse((await rawCall(sim.url, 'listLicenses', { token })).json);
    for (const license of licenses.slice(0, 5)) {
      const answer = await rawCall(sim.url, 'getLicense', {
        token,
        params: { licenseId: license.licenseId ?? '' },
      });
      expect(answer.status).toBe(200);
      expect(License.parse(answer.json)).toEqual(license);
    }
  });

  it.each([
    ['getLicense path', 'getLicense', { params: { licenseId: 'not-a-uuid' } }, 'licenseId'],
    ['licenses query', 'listLicenses', { query: { orderId: 'not-a-uuid' } }, 'orderId'],
    ['licenses query (empty)', 'listLicenses', { query: { orderId: '' } }, 'orderId'],
    ['getOrder path', 'getOrder', { params: { orderId: '12345' } }, 'orderId'],
  ] as const)('answers 400 to a bad UUID in the %s, naming it', async (_, operation, call, name) => {
    const answer = await rawCall(sim.url, operation, { token, ...call });
    expect(expectError(answer, 400, 'BadRequest').detailedDescription).toContain(name);
  });
});

describe('per-seller isolation', () => {
  /** The body of a 404 with the asked-for id blanked out, to compare shapes. */
  function notFoundShape(answer: RawAnswer, id: string): ErrorBody {
    const body = expectError(answer, 404, 'NotFound');
    return { ...body, detailedDescription: body.detailedDescription.replaceAll(id, '<id>') };
  }

  it("answers another seller's order exactly like an unknown order", async () => {
    const foreign = (await ordersPage({ limit: 1 }, otherToken)).orders[0]?.orderId ?? '';
    expect(foreign).not.toBe('');
    const own = await rawCall(sim.url, 'getOrder', { token: otherToken, params: { orderId: foreign } });
    expect(own.status).toBe(200);

    const unknown = randomUUID();
    const stolen = await rawCall(sim.url, 'getOrder', { token, params: { orderId: foreign } });
    const missing = await rawCall(sim.url, 'getOrder', { token, params: { orderId: unknown } });
    expect(notFoundShape(stolen, foreign)).toEqual(notFoundShape(missing, unknown));
    expect(stolen.text).not.toContain('2002');
  });

  it("answers another seller's license exactly like an unknown license", async () => {
    const theirs = LicenseArray.parse((await rawCall(sim.url, 'listLicenses', { token: otherToken })).json);
    const foreign = theirs[0]?.licenseId ?? '';
    expect(foreign).not.toBe('');
    const unknown = randomUUID();
    const stolen = await rawCall(sim.url, 'getLicense', { token, params: { licenseId: foreign } });
    const missing = await rawCall(sim.url, 'getLicense', { token, params: { licenseId: unknown } });
    expect(notFoundShape(stolen, foreign)).toEqual(notFoundShape(missing, unknown));
  });

  it("lists no licenses for another seller's order, and none of theirs in the full list", async () => {
    const foreign = (await ordersPage({ limit: 1 }, otherToken)).orders[0]?.orderId ?? '';
    const filtered = await rawCall(sim.url, 'listLicenses', { token, query: { orderId: foreign } });
    expect(filtered.status).toBe(200);
    expect(filtered.json).toEqual([]);

    const theirs = LicenseArray.parse((await rawCall(sim.url, 'listLicenses', { token: otherToken })).json);
    const mine = LicenseArray.parse((await rawCall(sim.url, 'listLicenses', { token })).json);
    const mineIds = new Set(mine.map((l) => l.licenseId));
    expect(theirs.some((l) => mineIds.has(l.licenseId))).toBe(false);
  });

  it("keeps each seller's orders apart", async () => {
    const mine = new Set((await allOrders()).map((o) => o.orderId));
    const theirs = await allOrders(otherToken);
    expect(theirs).toHaveLength(5);
    expect(theirs.some((o) => mine.has(o.orderId))).toBe(false);
  });
});
