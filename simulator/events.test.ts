import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody, MarketplaceEvent, MarketplaceEventList, OrderList } from '../main/core/api/wire';
import { admin, type RawAnswer, type RawCall, rawCall, tokenFor } from '../test/support/raw-api';
import { type Simulator, startSimulator } from './server';

let now = Date.parse('2026-11-21T12:00:00Z');
let sim: Simulator;
let token: string;
let otherToken: string;
let orderId: string;
let otherOrderId: string;

async function firstOrderId(as: string): Promise<string> {
  const answer = await rawCall(sim.url, 'listOrders', { token: as, query: { limit: 1 } });
  const id = OrderList.parse(answer.json).orders[0]?.orderId;
  if (!id) throw new Error('no order');
  return id;
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 5, orders: 20, clock: () => now });
  token = await tokenFor(sim.url, 'demo-client', 'demo-secret');
  otherToken = await tokenFor(sim.url, 'other-client', 'other-secret');
  orderId = await firstOrderId(token);
  otherOrderId = await firstOrderId(otherToken);
});
afterEach(async () => {
  await admin(sim.url, 'POST', 'reset');
});
afterAll(() => sim.close());

function statusEvent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    eventTypeCode: 'ServicePurchased',
    statusCode: 'ProvisioningInProgress',
    description: 'Provisioning started by the operations team',
    detailedDescription: 'Tenant is being created',
    additionalProperties: [{ name: 'orderId', value: orderId, description: 'Identifier of the order' }],
    ...overrides,
  };
}

function without(key: string): Record<string, unknown> {
  const { [key]: _, ...rest } = statusEvent();
  return rest;
}

const post = (call: RawCall, as = token): Promise<RawAnswer> =>
  rawCall(sim.url, 'sendEvent', { token: as, ...call });

function expectError(answer: RawAnswer, status: number, errorCode: string): ErrorBody {
  expect(answer.status).toBe(status);
  const body = ErrorBody.parse(answer.json);
  expect(body.errorCode).toBe(errorCode);
  return body;
}

async function allEvents(as = token): Promise<MarketplaceEvent[]> {
  const events: MarketplaceEvent[] = [];
  for (let offset = 0; ; ) {
    const answer = await rawCall(sim.url, 'listEvents', { token: as, query: { offset, limit: 100 } });
    expect(answer.status).toBe(200);
    const page = MarketplaceEventList.parse(answer.json);
    events.push(...page.marketplaceEvents);
    offset += page.marketplaceEvents.length;
    if (!page.hasMore) return events;
  }
}

const storedEvents = (sellerId = 1001): number =>
  sim.store.summary().find((s) => s.sellerId === sellerId)?.events ?? -1;

describe('posting a status event', () => {
  it('answers 201 with the stored event: ids and time assigned, posted fields kept', async () => {
    now += 1000;
    const body = statusEvent();
    const answer = await post({ body });
    expect(answer.status).toBe(201);
    const event = MarketplaceEvent.parse(answer.json);
    expect(event).toMatchObject(body);
    expect(event.eventId).toMatch(/^[0-9a-f-]{36}$/);
    expect(event.sellerId).toBe('1001');
    expect(event.eventTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
    expect(Date.parse(event.eventTime ?? '')).toBe(now);
    expect(event.seenTime).toBeUndefined();
  });

  it('appears at the end of the "all" listing and in the store', async () => {
    const before = storedEvents();
    now += 1000;
    const answer = await post({ body: statusEvent({ statusCode: 'ProvisioningCompleted' }) });
    expect(answer.status).toBe(201);
    const events = await allEvents();
    expect(events).toHaveLength(before + 1);
    expect(events.at(-1)).toEqual(MarketplaceEvent.parse(answer.json));
    expect(storedEvents()).toBe(before + 1);
  });

  it.each(['ServicePurchased', 'Evaluation', 'Trial', 'UpgradeToTrial', 'UpgradeToPurchase'])(
    'accepts the event type %s',
    async (eventTypeCode) => {
      expect((await post({ body: statusEvent({ eventTypeCode }) })).status).toBe(201);
    },
  );

  it.each(['ProvisioningStarted', 'ProvisioningInProgress', 'ProvisioningCompleted', 'ProvisioningFailed'])(
    'accepts the status %s',
    async (statusCode) => {
      expect((await post({ body: statusEvent({ statusCode }) })).status).toBe(201);
    },
  );

  it('assigns eventId, sellerId and eventTime itself, whatever the body claims', async () => {
    now += 1000;
    const claimed = {
      eventId: randomUUID(),
      sellerId: 2002,
      eventTime: '2020-01-01T00:00:00.000000+00:00',
      seenTime: '2020-01-01T00:00:00.000000+00:00',
    };
    const answer = await post({ body: statusEvent(claimed) });
    expect(answer.status).toBe(201);
    const event = MarketplaceEvent.parse(answer.json);
    expect(event.eventId).not.toBe(claimed.eventId);
    expect(event.sellerId).toBe('1001');
    expect(Date.parse(event.eventTime ?? '')).toBe(now);
    expect(event.seenTime).toBeUndefined();
    expect((await allEvents(otherToken)).map((e) => e.eventId)).not.toContain(event.eventId);
  });

  it('is not visible to another seller', async () => {
    const answer = await post({ body: statusEvent() });
    const theirs = await allEvents(otherToken);
    expect(theirs.map((e) => e.eventId)).not.toContain(answer.json.eventId);
  });
});

describe('the id of a posted event', () => {
  it('is drawn from the seed, so the same posts on the marketplace of that seed get the same ids', async () => {
    const posted = async () => [
      (await post({ body: statusEvent() })).json.eventId,
      (await post({ body: statusEvent() })).json.eventId,
    ];
    const first = await posted();
    expect(new Set(first).size).toBe(2);
    await admin(sim.url, 'POST', 'reset');
    expect(await posted()).toEqual(first);
  });
});

describe('X-Request-ID on a post', () => {
  it('replays a repeated post with the same id and body: same event, stored once', async () => {
    const requestId = randomUUID();
    const before = storedEvents();
    const first = await post({ requestId, body: statusEvent() });
    expect(first.status).toBe(201);
    now += 5000;
    const again = await post({ requestId, body: statusEvent() });
    expect(again.status).toBe(201);
    expect(again.json).toEqual(first.json);
    expect(storedEvents()).toBe(before + 1);
    const events = await allEvents();
    expect(events.filter((e) => e.eventId === first.json.eventId)).toHaveLength(1);
    expect(events).toHaveLength(before + 1);
  });

  it('answers 409 Conflict to the same id with a different body, storing nothing', async () => {
    const requestId = randomUUID();
    expect((await post({ requestId, body: statusEvent() })).status).toBe(201);
    const before = storedEvents();
    const conflict = await post({ requestId, body: statusEvent({ statusCode: 'ProvisioningFailed' }) });
    const body = expectError(conflict, 409, 'Conflict');
    expect(body.detailedDescription).toContain(requestId);
    expect(storedEvents()).toBe(before);
  });

  it('treats the same body with its keys in another order as a replay, not a conflict', async () => {
    const requestId = randomUUID();
    const body = statusEvent();
    const first = await post({ requestId, body });
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    reordered.additionalProperties = [
      { description: 'Identifier of the order', value: orderId, name: 'orderId' },
    ];
    const text = JSON.stringify(reordered);
    expect(text).not.toBe(JSON.stringify(body));
    const again = await post({ requestId, body: text });
    expect(again.status).toBe(201);
    expect(again.json.eventId).toBe(first.json.eventId);
  });

  it('does not remember a rejected post: the corrected body under the same id is stored', async () => {
    const requestId = randomUUID();
    expectError(await post({ requestId, body: without('description') }), 400, 'BadRequest');
    const fixed = await post({ requestId, body: statusEvent() });
    expect(fixed.status).toBe(201);
  });

  it("is the caller's own: another seller's post under the same id neither replays nor conflicts", async () => {
    const requestId = randomUUID();
    const mine = await post({ requestId, body: statusEvent() });
    const theirs = await post(
      {
        requestId,
        body: statusEvent({ additionalProperties: [{ name: 'orderId', value: otherOrderId }] }),
      },
      otherToken,
    );
    expect(theirs.status).toBe(201);
    expect(theirs.json.eventId).not.toBe(mine.json.eventId);
    expect(theirs.json.sellerId).toBe(2002);
  });
});

describe('validation of a posted event', () => {
  it.each([
    ['description is missing', () => without('description'), 'description'],
    ['statusCode is missing', () => without('statusCode'), 'statusCode'],
    ['eventTypeCode is missing', () => without('eventTypeCode'), 'eventTypeCode'],
    ['statusCode is not a status', () => statusEvent({ statusCode: 'Done' }), 'statusCode'],
    ['eventTypeCode is unknown', () => statusEvent({ eventTypeCode: 'Bogus' }), 'eventTypeCode'],
    ['description is a number', () => statusEvent({ description: 42 }), 'description'],
    ['description is blank', () => statusEvent({ description: '   ' }), 'description'],
    ['additionalProperties is missing', () => without('additionalProperties'), 'additionalProperties'],
    [
      'additionalProperties has no orderId',
      () => statusEvent({ additionalProperties: [{ name: 'ticket', value: 'T-1' }] }),
      'additionalProperties',
    ],
    [
      'additionalProperties has two orderIds',
      () =>
        statusEvent({
          additionalProperties: [
            { name: 'orderId', value: orderId },
            { name: 'orderId', value: orderId },
          ],
        }),
      'additionalProperties',
    ],
    [
      "the orderId is another seller's",
      () => statusEvent({ additionalProperties: [{ name: 'orderId', value: otherOrderId }] }),
      'additionalProperties',
    ],
    [
      'the orderId is unknown',
      () => statusEvent({ additionalProperties: [{ name: 'orderId', value: randomUUID() }] }),
      'additionalProperties',
    ],
  ])('answers 400 BadRequest naming the field when %s', async (_, body, field) => {
    const before = storedEvents();
    const answer = await post({ body: body() });
    expect(expectError(answer, 400, 'BadRequest').detailedDescription).toContain(field);
    expect(storedEvents()).toBe(before);
  });

  it("answers another seller's orderId exactly like an unknown one", async () => {
    const unknown = randomUUID();
    const theirs = await post({
      body: statusEvent({ additionalProperties: [{ name: 'orderId', value: otherOrderId }] }),
    });
    const missing = await post({
      body: statusEvent({ additionalProperties: [{ name: 'orderId', value: unknown }] }),
    });
    const a = expectError(theirs, 400, 'BadRequest');
    const b = expectError(missing, 400, 'BadRequest');
    expect(a.detailedDescription.replace(otherOrderId, '<id>')).toBe(
      b.detailedDescription.replace(unknown, '<id>'),
    );
  });

  it.each([
    ['not JSON', '{"eventTypeCode": "ServicePurchased",'],
    ['a JSON array', '[]'],
    ['a JSON string', '"ProvisioningStarted"'],
    ['JSON null', 'null'],
  ])('answers 400 BadRequest to a body that is %s', async (_, text) => {
    const before = storedEvents();
    expectError(await post({ body: text }), 400, 'BadRequest');
    expect(storedEvents()).toBe(before);
  });

  it('answers 400 BadRequest to an empty body', async () => {
    const answer = await post({ headers: { 'Content-Type': 'application/json' } });
    expect(expectError(answer, 400, 'BadRequest').detailedDescription).toContain('body');
  });

  it('answers 413 PayloadTooLarge to a 100 KiB body, and keeps serving', async () => {
    const before = storedEvents();
    const body = JSON.stringify(statusEvent({ detailedDescription: 'x'.repeat(100 * 1024) }));
    expect(body.length).toBeGreaterThan(100 * 1024);
    const answer = await post({ body });
    expectError(answer, 413, 'PayloadTooLarge');
    expect(storedEvents()).toBe(before);
    expect((await post({ body: statusEvent() })).status).toBe(201);
  });

  it('requires a token and an X-Request-ID', async () => {
    expectError(await rawCall(sim.url, 'sendEvent', { body: statusEvent() }), 401, 'Unauthorized');
    const noId = await post({ requestId: null, body: statusEvent() });
    expect(expectError(noId, 400, 'BadRequest').detailedDescription).toContain('X-Request-ID');
  });
});
