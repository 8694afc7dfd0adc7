import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  MarketplaceEvent,
  MarketplaceEventList,
  OrderList,
  STATUS_CODES,
  TokenResponse,
} from '../main/core/api/wire';
import { admin, rawCall, tokenFor } from '../test/support/raw-api';
import { type Simulator, startSimulator } from './server';

const CLIENTS = 100;
const RETRIES = 50;

// A frozen clock: every post lands in the same millisecond, the hardest case for ordering.
const now = Date.parse('2026-11-21T12:00:00Z');
let sim: Simulator;
let orderIds: string[];

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 9, orders: 30, clock: () => now });
  const token = await tokenFor(sim.url, 'demo-client', 'demo-secret');
  const answer = await rawCall(sim.url, 'listOrders', { token, query: { limit: 100 } });
  orderIds = OrderList.parse(answer.json).orders.map((o) => o.orderId ?? '');
});
afterEach(async () => {
  await admin(sim.url, 'POST', 'reset');
});
afterAll(() => sim.close());

async function allEvents(token: string): Promise<MarketplaceEvent[]> {
  const events: MarketplaceEvent[] = [];
  for (let offset = 0; ; ) {
    const answer = await rawCall(sim.url, 'listEvents', { token, query: { offset, limit: 100 } });
    expect(answer.status).toBe(200);
    const page = MarketplaceEventList.parse(answer.json);
    events.push(...page.marketplaceEvents);
    offset += page.marketplaceEvents.length;
    if (!page.hasMore) return events;
  }
}

const storedEvents = (): number => sim.store.summary().find((s) => s.sellerId === 1001)?.events ?? -1;

function statusBody(i: number) {
  return {
    eventTypeCode: 'ServicePurchased',
    statusCode: STATUS_CODES[1 + (i % 3)],
    description: `Status report of client ${i}`,
    additionalProperties: [{ name: 'orderId', value: orderIds[i % orderIds.length] ?? '' }],
  };
}

/** One client: its own token, one post with its own request id, one page of orders. */
async function client(i: number) {
  const [clientId, clientSecret] =
    i % 2 === 0 ? ['demo-client', 'demo-secret'] : ['demo-client-2', 'demo-secret-2'];
  const tokenAnswer = await rawCall(sim.url, 'createToken', { basic: [clientId, clientSecret] });
  const token = tokenAnswer.status === 201 ? TokenResponse.parse(tokenAnswer.json).accessToken : '';
  const requestId = randomUUID();
  const posted = await rawCall(sim.url, 'sendEvent', { token, requestId, body: statusBody(i) });
  const orders = await rawCall(sim.url, 'listOrders', { token, query: { offset: i % 30, limit: 10 } });
  return { i, requestId, tokenAnswer, posted, orders };
}

describe('concurrent clients', () => {
  it(`serves ${CLIENTS} clients at once: every call succeeds and each post is stored once`, async () => {
    const before = storedEvents();
    const results = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));

    for (const { i, requestId, tokenAnswer, posted, orders } of results) {
      expect(tokenAnswer.status).toBe(201);
      expect(posted.status).toBe(201);
      expect(posted.headers.get('x-request-id')).toBe(requestId);
      expect(MarketplaceEvent.parse(posted.json)).toMatchObject({ ...statusBody(i), sellerId: '1001' });
      expect(orders.status).toBe(200);
      expect(OrderList.parse(orders.json).orders).toHaveLength(Math.min(10, 30 - (i % 30)));
    }

    expect(storedEvents()).toBe(before + CLIENTS);
    const postedIds = results.map((r) => r.posted.json.eventId as string);
    expect(new Set(postedIds).size).toBe(CLIENTS);

    const token = await tokenFor(sim.url, 'demo-client', 'demo-secret');
    const events = await allEvents(token);
    expect(events).toHaveLength(before + CLIENTS);
    expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
    // The posts are the newest events, and their times strictly increase in listing order.
    const newest = events.slice(-CLIENTS);
    expect(new Set(newest.map((e) => e.eventId))).toEqual(new Set(postedIds));
    const times = events.map((e) => e.eventTime ?? '');
    for (let k = events.length - CLIENTS; k < times.length; k++) {
      const [time, previous] = [times[k] ?? '', times[k - 1] ?? ''];
      expect(time > previous, `event ${k} at ${time} after ${previous}`).toBe(true);
    }
    expect(times).toEqual([...times].sort());
    // Each listed event is the one its post answered.
    const answered = new Map(
      results.map((r) => [r.posted.json.eventId, MarketplaceEvent.parse(r.posted.json)]),
    );
    for (const event of newest) expect(event).toEqual(answered.get(event.eventId));
  });

  it(`stores one event for ${RETRIES} concurrent retries of one post`, async () => {
    const token = await tokenFor(sim.url, 'demo-client', 'demo-secret');
    const before = storedEvents();
    const requestId = randomUUID();
    const body = statusBody(7);
    const answers = await Promise.all(
      Array.from({ length: RETRIES }, () => rawCall(sim.url, 'sendEvent', { token, requestId, body })),
    );
    for (const answer of answers) expect(answer.status).toBe(201);
    const eventIds = new Set(answers.map((a) => a.json.eventId));
    expect(eventIds.size).toBe(1);
    for (const answer of answers) expect(answer.json).toEqual(answers[0]?.json);
    expect(storedEvents()).toBe(before + 1);
    const events = await allEvents(token);
    expect(events.filter((e) => eventIds.has(e.eventId))).toHaveLength(1);
  });

  it('hands each unseen event to exactly one of many concurrent "new" readers', async () => {
    const token = await tokenFor(sim.url, 'demo-client', 'demo-secret');
    const unseen = (await allEvents(token))
      .filter((e) => e.statusCode === 'ProvisioningStarted' && e.seenTime === undefined)
      .map((e) => e.eventId);
    expect(unseen.length).toBeGreaterThan(0);
    const pages = await Promise.all(
      Array.from({ length: 20 }, () =>
        rawCall(sim.url, 'listNewEvents', { token, query: { offset: 0, limit: 1 } }),
      ),
    );
    const handed = pages.flatMap((p) => {
      expect(p.status).toBe(200);
      return MarketplaceEventList.parse(p.json).marketplaceEvents.map((e) => e.eventId);
    });
    expect([...handed].sort()).toEqual([...unseen].sort());
  });

  it('keeps concurrent retries and concurrent distinct posts apart', async () => {
    const token = await tokenFor(sim.url, 'demo-client', 'demo-secret');
    const before = storedEvents();
    const shared = randomUUID();
    const calls = Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0
        ? rawCall(sim.url, 'sendEvent', { token, requestId: shared, body: statusBody(3) })
        : rawCall(sim.url, 'sendEvent', { token, body: statusBody(i) }),
    );
    const answers = await Promise.all(calls);
    for (const answer of answers) expect(answer.status).toBe(201);
    expect(new Set(answers.filter((_, i) => i % 2 === 0).map((a) => a.json.eventId)).size).toBe(1);
    expect(storedEvents()).toBe(before + 21);
  });
});
