import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody, Order } from '../main/core/api/wire';
import { admin, rawCall, tokenFor } from '../test/support/raw-api';
import { FaultInjector } from './faults';
import { type Simulator, startSimulator } from './server';

let sim: Simulator;
let token: string;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 3, orders: 20 });
  token = await tokenFor(sim.url, 'demo-client', 'demo-secret');
});
afterEach(() => admin(sim.url, 'POST', 'reset'));
afterAll(() => sim.close());

describe('admin endpoints', () => {
  it('creates a realistic purchase from an empty body, offered once by the "new" listing', async () => {
    await rawCall(sim.url, 'listNewEvents', { token, query: { limit: 100 } }); // drain the seeded backlog
    const created = await admin(sim.url, 'POST', 'purchases');
    expect(created.status).toBe(201);
    const order = Order.parse(created.json);
    expect(order.documentLines.length).toBeGreaterThan(0);

    const fresh = await rawCall(sim.url, 'listNewEvents', { token });
    expect(fresh.json.marketplaceEvents).toHaveLength(1);
    expect(fresh.json.marketplaceEvents[0]).toMatchObject({
      eventTypeCode: 'ServicePurchased',
      statusCode: 'ProvisioningStarted',
      additionalProperties: [{ name: 'orderId', value: order.orderId }],
    });
    const fetched = await rawCall(sim.url, 'getOrder', { token, params: { orderId: order.orderId ?? '' } });
    expect(fetched.json).toEqual(created.json);
    const licenses = await rawCall(sim.url, 'listLicenses', {
      token,
      query: { orderId: order.orderId ?? '' },
    });
    expect(licenses.json.length).toBeGreaterThan(0);
  });

  it('lays the given order fields and license holders over the generated purchase', async () => {
    const note = '<script>alert(1)</script><img src=x onerror=alert(2)>';
    const created = await admin(sim.url, 'POST', 'purchases', {
      order: { note, documentCurrencyCode: 'JPY' },
      licenseEmails: ['a@buyer.example', 'b@buyer.example'],
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ note, documentCurrencyCode: 'JPY' });
    const licenses = await rawCall(sim.url, 'listLicenses', {
      token,
      query: { orderId: created.json.orderId },
    });
    expect(licenses.json.map((l: { electronicMail: string }) => l.electronicMail)).toEqual([
      'a@buyer.example',
      'b@buyer.example',
    ]);
  });

  it('rejects a purchase that would not be a valid order, naming the field', async () => {
    const answer = await admin(sim.url, 'POST', 'purchases', { order: { documentCurrencyCode: 978 } });
    expect(answer.status).toBe(400);
    expect(ErrorBody.parse(answer.json).detailedDescription).toContain('order.documentCurrencyCode');
    const unknownSeller = await admin(sim.url, 'POST', 'purchases', { sellerId: 999 });
    expect(unknownSeller.status).toBe(400);
    expect(unknownSeller.json.detailedDescription).toContain('sellerId');
  });

  it('reports state with per-operation request counts, and reset restores the seeded marketplace', async () => {
    const before = await admin(sim.url, 'GET', 'state');
    await admin(sim.url, 'POST', 'purchases');
    const after = await admin(sim.url, 'GET', 'state');
    expect(after.json.sellers[0].orders).toBe(before.json.sellers[0].orders + 1);
    expect(after.json.requests.createToken).toBeGreaterThanOrEqual(1);
    const reset = await admin(sim.url, 'POST', 'reset');
    expect(reset.json.sellers).toEqual(before.json.sellers);
  });

  it('validates fault changes', async () => {
    const answer = await admin(sim.url, 'PATCH', 'faults', { errorRate: 2 });
    expect(answer.status).toBe(400);
    expect(answer.json.detailedDescription).toContain('faults.errorRate');
    expect((await admin(sim.url, 'PATCH', 'faults', { bogus: 1 })).status).toBe(400);
  });
});

describe('faults', () => {
  it('adds latency', async () => {
    await admin(sim.url, 'PATCH', 'faults', { latencyMs: 150 });
    const started = performance.now();
    expect((await rawCall(sim.url, 'ping')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('answers 500 or 503 with the error body at an error rate of 1', async () => {
    await admin(sim.url, 'PATCH', 'faults', { errorRate: 1 });
    for (let i = 0; i < 6; i++) {
      const answer = await rawCall(sim.url, 'listOrders', { token });
      expect([500, 503]).toContain(answer.status);
      expect(['InternalServerError', 'ServiceUnavailable']).toContain(ErrorBody.parse(answer.json).errorCode);
    }
  });

  it('rate-limits with 429 and Retry-After', async () => {
    await admin(sim.url, 'PATCH', 'faults', { rateLimit: 3 });
    const answers = await Promise.all(Array.from({ length: 6 }, () => rawCall(sim.url, 'ping')));
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(3);
    for (const answer of limited) {
      expect(ErrorBody.parse(answer.json).errorCode).toBe('TooManyRequests');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });

  it('drops connections', async () => {
    await admin(sim.url, 'PATCH', 'faults', { dropRate: 1 });
    await expect(rawCall(sim.url, 'ping')).rejects.toThrow();
  });

  it('cuts JSON bodies short', async () => {
    await admin(sim.url, 'PATCH', 'faults', { malformedRate: 1 });
    const answer = await rawCall(sim.url, 'listOrders', { token });
    expect(answer.status).toBe(200);
    expect(answer.json).toBeUndefined();
    expect(() => JSON.parse(answer.text)).toThrow();
  });

  it('plays a script of faults for one operation, then behaves again', async () => {
    await admin(sim.url, 'PATCH', 'faults', {
      script: [{ operation: 'listOrders', action: 'status', status: 429, retryAfterSeconds: 7, times: 2 }],
    });
    expect((await rawCall(sim.url, 'ping')).status).toBe(200); // another operation is untouched
    for (let i = 0; i < 2; i++) {
      const answer = await rawCall(sim.url, 'listOrders', { token });
      expect(answer.status).toBe(429);
      expect(answer.headers.get('retry-after')).toBe('7');
    }
    expect((await rawCall(sim.url, 'listOrders', { token })).status).toBe(200);
    expect((await admin(sim.url, 'GET', 'faults')).json.script).toEqual([]);
  });

  it('can handle a post and then lose its answer, storing the event', async () => {
    const orderId = sim.store.listOrderJson(1001, 0, 1).items.map((j) => JSON.parse(j).orderId)[0];
    const before = sim.store.summary()[0]?.events ?? 0;
    await admin(sim.url, 'PATCH', 'faults', {
      script: [{ operation: 'sendEvent', action: 'dropAfterHandling' }],
    });
    const body = {
      eventTypeCode: 'ServicePurchased',
      statusCode: 'ProvisioningInProgress',
      description: 'Started',
      additionalProperties: [{ name: 'orderId', value: orderId }],
    };
    await expect(rawCall(sim.url, 'sendEvent', { token, body })).rejects.toThrow();
    expect(sim.store.summary()[0]?.events).toBe(before + 1);
  });

  it('changes the token lifetime at runtime', async () => {
    await admin(sim.url, 'PATCH', 'faults', { tokenTtlSeconds: 60 });
    const fresh = await tokenFor(sim.url, 'demo-client', 'demo-secret');
    const claims = JSON.parse(Buffer.from(fresh.split('.')[1] ?? '', 'base64url').toString());
    expect(claims.exp - claims.iat).toBe(60);
  });
});

describe('fault injector', () => {
  it('answers 429 past the rate limit until its one-second window ends', () => {
    let now = 10_000;
    const faults = new FaultInjector({ rateLimit: 2 }, () => now);
    expect(faults.plan('ping').fault).toBeUndefined();
    expect(faults.plan('ping').fault).toBeUndefined();
    now += 400;
    expect(faults.plan('ping').fault).toEqual({ action: 'status', status: 429, retryAfterSeconds: 1 });
    now += 600;
    expect(faults.plan('ping').fault).toBeUndefined();
  });

  it('gives a scripted step only to its operation and counts it down', () => {
    const faults = new FaultInjector({
      script: [{ operation: 'getOrder', action: 'drop', times: 2 } as never],
    });
    expect(faults.plan('listOrders').fault).toBeUndefined();
    expect(faults.plan('getOrder').fault).toEqual({ action: 'drop' });
    expect(faults.plan('getOrder').fault).toEqual({ action: 'drop' });
    expect(faults.plan('getOrder').fault).toBeUndefined();
  });
});

describe('error body', () => {
  it('is answered for server-side faults too', async () => {
    await admin(sim.url, 'PATCH', 'faults', { script: [{ action: 'status', status: 500 }] });
    const answer = await rawCall(sim.url, 'ping');
    expect(answer.status).toBe(500);
    expect(Object.keys(answer.json).sort()).toEqual(['description', 'detailedDescription', 'errorCode']);
  });
});

describe('quirks of gateways and marketplaces that differ in behaviour, on the wire', () => {
  const quirks = (...names: string[]) => admin(sim.url, 'PATCH', 'faults', { quirks: names });
  const firstOrderId = () =>
    JSON.parse(sim.store.listOrderJson(1001, 0, 1).items[0] ?? '{}').orderId as string;
  const status = (orderId: string) => ({
    eventTypeCode: 'ServicePurchased',
    statusCode: 'ProvisioningInProgress',
    description: 'On it',
    additionalProperties: [{ name: 'orderId', value: orderId }],
  });

  it('gateway-403: a token older than a second is refused 403 with the gateway\'s {"message"}; a fresh one passes', async () => {
    // Issued before the gateway came (another client: a token of the same second would be the same text).
    const old = await tokenFor(sim.url, 'demo-client-2', 'demo-secret-2');
    await quirks('gateway-403');
    const fresh = await tokenFor(sim.url, 'demo-client', 'demo-secret');
    expect((await rawCall(sim.url, 'listOrders', { token: fresh, query: { limit: 1 } })).status).toBe(200);
    const refused = await rawCall(sim.url, 'listOrders', { token: old, query: { limit: 1 } });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ message: 'User is not authorized to access this resource' });
  });

  it('non-idempotent-posts: a post repeated under its request id is stored again', async () => {
    await quirks('non-idempotent-posts');
    const requestId = crypto.randomUUID();
    const orderId = firstOrderId();
    const first = await rawCall(sim.url, 'sendEvent', { token, requestId, body: status(orderId) });
    const again = await rawCall(sim.url, 'sendEvent', { token, requestId, body: status(orderId) });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.json.eventId).not.toBe(first.json.eventId);
  });

  it('partial-post-body: a post is answered 201 with only its event id', async () => {
    await quirks('partial-post-body');
    const answer = await rawCall(sim.url, 'sendEvent', { token, body: status(firstOrderId()) });
    expect(answer.status).toBe(201);
    expect(Object.keys(answer.json)).toEqual(['eventId']);
  });

  it('wild-retry-after: Retry-After is 0, negative, huge, a date past, a date far ahead, then garbage', async () => {
    await admin(sim.url, 'PATCH', 'faults', {
      quirks: ['wild-retry-after'],
      script: [{ operation: 'listOrders', action: 'status', status: 429, retryAfterSeconds: 1, times: 6 }],
    });
    const said: (string | null)[] = [];
    for (let i = 0; i < 6; i++) {
      said.push((await rawCall(sim.url, 'listOrders', { token })).headers.get('retry-after'));
    }
    expect(said.slice(0, 4)).toEqual(['0', '-5', '99999999999', 'Thu, 01 Jan 1970 00:00:00 GMT']);
    expect(Date.parse(said[4] ?? '')).toBeGreaterThan(Date.now() + 50 * 365 * 86_400_000);
    expect(said[5]).toBe('soon');
  });

  it('counts the answers a quirk altered (its bites) once sent, not the calls it was on for', async () => {
    await admin(sim.url, 'PATCH', 'faults', {
      quirks: ['wild-retry-after', 'non-idempotent-posts', 'post-no-body'],
      script: [
        { operation: 'listOrders', action: 'status', status: 429 },
        { operation: 'sendEvent', action: 'dropAfterHandling' },
      ],
    });
    const bites = async () => (await admin(sim.url, 'GET', 'state')).json.bites;
    const before = await bites();
    expect((await rawCall(sim.url, 'listOrders', { token })).status).toBe(429);
    expect((await rawCall(sim.url, 'listOrders', { token })).status).toBe(200); // no Retry-After to bend
    // Each post is filed under no request id of the caller's: a repeat would be stored again. The
    // first one's answer, without a body, is lost: only the second's reaches its caller.
    const requestId = crypto.randomUUID();
    const post = () => rawCall(sim.url, 'sendEvent', { token, requestId, body: status(firstOrderId()) });
    await expect(post()).rejects.toThrow();
    expect((await post()).status).toBe(202); // the second of 200, 202 and 204 in turn
    const after = await bites();
    expect(after['wild-retry-after'] - before['wild-retry-after']).toBe(1);
    expect(after['non-idempotent-posts'] - before['non-idempotent-posts']).toBe(2);
    expect(after['post-no-body'] - before['post-no-body']).toBe(1);
    expect(after['lost-posts']).toBe(before['lost-posts']); // off
    expect(sim.bites).toEqual(after);
  });

  it("foreign-seller-events: another seller's purchases show in this seller's listings, every other one without its sellerId", async () => {
    await quirks('foreign-seller-events');
    const orders = [
      (await admin(sim.url, 'POST', 'purchases', { sellerId: 2002 })).json.orderId,
      (await admin(sim.url, 'POST', 'purchases', { sellerId: 2002 })).json.orderId,
    ];
    const all = await rawCall(sim.url, 'listEvents', { token, query: { offset: 0, limit: 100 } });
    const leaked = (
      all.json.marketplaceEvents as { sellerId?: number; additionalProperties: { value: string }[] }[]
    ).filter((e) => orders.includes(e.additionalProperties[0]?.value ?? ''));
    expect(leaked.map((e) => e.sellerId)).toEqual([2002, undefined]);
    const order = await rawCall(sim.url, 'getOrder', { token, params: { orderId: orders[0] } });
    expect(order.status).toBe(404);
  });
});
