import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../simulator/server';
import { admin } from '../../../test/support/raw-api';
import { recordingLog } from '../../../test/support/recording-log';
import { SellerApiClient, type SellerApiClientOptions } from './client';
import { SellerApiError } from './errors';
import type { Transport } from './transport';
import { orderIdOf } from './wire';

let serverNow = Date.now();
let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 11, orders: 400, clock: () => serverNow });
});
afterEach(async () => {
  serverNow = Date.now();
  await admin(sim.url, 'POST', 'reset');
});
afterAll(() => sim.close());

/** Every request the client sends, as the server would see it. */
interface Sent {
  url: string;
  method: string;
  requestId: string | null;
  authorization: string | null;
}

function makeClient(overrides: Partial<SellerApiClientOptions> = {}) {
  const sent: Sent[] = [];
  const sleeps: number[] = [];
  const { log, entries } = recordingLog();
  const transport: Transport = (url, init) => {
    const headers = new Headers(init.headers);
    sent.push({
      url,
      method: init.method ?? 'GET',
      requestId: headers.get('x-request-id'),
      authorization: headers.get('authorization'),
    });
    return fetch(url, init);
  };
  const client = new SellerApiClient({
    baseUrl: sim.url,
    credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
    transport,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    log,
    ...overrides,
  });
  /** The failed attempts the client logged as followed by a retry. */
  const retries = () => entries.filter((e) => e.message === 'call failed' && e.fields.next === 'retry');
  return { client, sent, sleeps, retries, logged: entries };
}

const faults = (body: unknown) => admin(sim.url, 'PATCH', 'faults', body);
const count = (sent: Sent[], path: string) => sent.filter((s) => new URL(s.url).pathname === path).length;

async function collect<T>(pages: AsyncIterable<{ items: T[] }>): Promise<T[]> {
  const items: T[] = [];
  for await (const page of pages) items.push(...page.items);
  return items;
}

async function failure(promise: Promise<unknown>): Promise<SellerApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SellerApiError);
  return error as SellerApiError;
}

describe('tokens', () => {
  it('renews an expired token in the middle of a 40-page walk and loses no page', async () => {
    const { client, sent } = makeClient({ pageSize: 10 });
    const orders: string[] = [];
    let jumped = false;
    for await (const page of client.allOrders()) {
      orders.push(...page.items.map((order) => order.orderId ?? ''));
      // The server's clock jumps past the token's expiry halfway; the laptop does not notice.
      if (!jumped && orders.length >= 200) {
        serverNow += 31 * 60_000;
        jumped = true;
      }
    }
    expect(orders).toHaveLength(400);
    expect(new Set(orders).size).toBe(400);
    expect(count(sent, '/auth/v1/tokens')).toBe(2);
    // 45 pages (each after the first starts at the last order before it, read again: it may be
    // tied with the next); at most the two calls in flight refused, and one read-ahead past the end.
    const pages = Math.ceil((400 - 1) / (10 - 1));
    expect(count(sent, '/seller/v1/orders')).toBeGreaterThanOrEqual(pages + 1);
    expect(count(sent, '/seller/v1/orders')).toBeLessThanOrEqual(pages + 3);
  });

  it('renews before expiry by its own clock, without a refused call', async () => {
    let laptopNow = 1_000_000;
    const { client, sent } = makeClient({ clock: () => laptopNow });
    await client.listOrders();
    laptopNow += 29 * 60_000 + 1; // inside the renewal margin of a 30-minute token
    await client.listOrders();
    expect(count(sent, '/auth/v1/tokens')).toBe(2);
    expect(count(sent, '/seller/v1/orders')).toBe(2);
  });

  it('is requested once for 20 concurrent callers', async () => {
    const { client, sent } = makeClient();
    const pages = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.listOrders({ offset: i, limit: 1 })),
    );
    expect(pages.every((p) => p.items.length === 1)).toBe(true);
    expect(count(sent, '/auth/v1/tokens')).toBe(1);
  });

  it('stops at rejected credentials, without retrying, and never shows the secret', async () => {
    const { client, sent } = makeClient({
      credentials: { clientId: 'demo-client', clientSecret: async () => 'wrong-secret' },
    });
    const error = await failure(client.listOrders());
    expect(error.credentialsRejected).toBe(true);
    expect(error).toMatchObject({ operation: 'createToken', status: 401, errorCode: 'Unauthorized' });
    expect(count(sent, '/auth/v1/tokens')).toBe(1);
    expect(count(sent, '/seller/v1/orders')).toBe(0);
    expect(JSON.stringify(error.toJSON()) + error.message + error.stack).not.toContain('wrong-secret');
  });

  it('keeps tokens out of error messages', async () => {
    const { client, sent } = makeClient();
    await client.listOrders();
    const error = await failure(client.getOrder(crypto.randomUUID()));
    const token = sent.at(-1)?.authorization?.slice('Bearer '.length) ?? '';
    expect(token.length).toBeGreaterThan(20);
    expect(JSON.stringify(error.toJSON()) + error.message).not.toContain(token);
  });
});

describe('retries', () => {
  it('waits out a burst of 429 as Retry-After asks, with one request id throughout', async () => {
    await faults({
      script: [{ operation: 'listOrders', action: 'status', status: 429, retryAfterSeconds: 2, times: 3 }],
    });
    const { client, sent, sleeps, retries } = makeClient();
    const page = await client.listOrders({ limit: 5 });
    expect(page.items).toHaveLength(5);
    expect(sleeps).toEqual([2000, 2000, 2000]);
    const calls = sent.filter((s) => s.url.includes('/seller/v1/orders'));
    expect(calls).toHaveLength(4);
    expect(new Set(calls.map((c) => c.requestId)).size).toBe(1);
    expect(retries().map((r) => r.fields.status)).toEqual([429, 429, 429]);
    expect(retries()[0]?.fields.requestId).toBe(calls[0]?.requestId);
  });

  it('tells each retry ahead, and hurry() ends a backoff wait under way but not a Retry-After', async () => {
    // Waits that really wait, and end when their signal aborts (as the default sleep does).
    const sleep = (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    const { client } = makeClient({ sleep, retry: { baseDelayMs: 40_000, maxDelayMs: 40_000 } });
    const told: [number | undefined, number][] = [];
    const retried = new Promise<void>((resolve) =>
      client.onRetry((error, delayMs) => {
        told.push([error.status, delayMs]);
        resolve();
      }),
    );
    await faults({ script: [{ operation: 'listOrders', action: 'status', status: 503 }] });
    const page = client.listOrders({ limit: 5 });
    await retried;
    expect(told).toEqual([[503, 30_000]]); // 3/4 of its 40 s ceiling with random() = 0.5
    const started = Date.now();
    client.hurry();
    expect((await page).items).toHaveLength(5);
    expect(Date.now() - started).toBeLessThan(5_000);

    await faults({
      script: [{ operation: 'listOrders', action: 'status', status: 429, retryAfterSeconds: 30 }],
    });
    const stop = new AbortController();
    const asked = client.listOrders({ limit: 5 }, { signal: stop.signal }).catch((error: unknown) => error);
    while (told.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    client.hurry();
    const waiting: number[] = [];
    client.onRetry((error, delayMs) => waiting.push(error.status ?? 0, delayMs));
    // The server's 30 s are still waited: told to a listener that comes now, with what is left of them.
    expect(waiting[0]).toBe(429);
    expect(waiting[1]).toBeGreaterThan(25_000);
    stop.abort();
    await asked;
  });

  it('backs off exponentially through a burst of 5xx', async () => {
    await faults({ script: [{ operation: 'listOrders', action: 'status', status: 503, times: 4 }] });
    const { client, sleeps } = makeClient();
    expect((await client.listOrders()).items.length).toBeGreaterThan(0);
    // With random() = 0.5 each wait is 3/4 of its ceiling: 250, 500, 1000, 2000 ms.
    expect(sleeps).toEqual([188, 375, 750, 1500]);
  });

  it('gives up after the last attempt with the server error and its request id', async () => {
    await faults({ script: [{ operation: 'getOrder', action: 'status', status: 500, times: 5 }] });
    const { client, sent, logged } = makeClient();
    const error = await failure(client.getOrder(crypto.randomUUID()));
    expect(error).toMatchObject({
      kind: 'http',
      status: 500,
      errorCode: 'InternalServerError',
      operation: 'getOrder',
    });
    const calls = sent.filter((s) => s.url.includes('/seller/v1/orders/'));
    expect(calls).toHaveLength(5);
    expect(error.requestId).toBe(calls[0]?.requestId);
    expect(error.message).toContain(error.requestId);
    // Each attempt is logged for support: four followed by a retry, then the one that gave up.
    expect(logged.map((e) => [e.level, e.fields.next])).toEqual([
      ...Array(4).fill(['warn', 'retry']),
      ['error', 'give-up'],
    ]);
    for (const entry of logged) {
      expect(entry.fields).toMatchObject({ operation: 'getOrder', status: 500, requestId: error.requestId });
    }
  });

  it('does not retry other 4xx', async () => {
    const { client, sent } = makeClient();
    const error = await failure(client.getOrder(crypto.randomUUID()));
    expect(error).toMatchObject({ status: 404, errorCode: 'NotFound' });
    expect(sent.filter((s) => s.url.includes('/seller/v1/orders/'))).toHaveLength(1);
  });

  it('waits at least its own backoff when Retry-After says 0 or a date long past', async () => {
    await faults({
      quirks: ['wild-retry-after'], // 0, -5, then huge: the third ends the call
      script: [{ operation: 'listOrders', action: 'status', status: 429, retryAfterSeconds: 1, times: 3 }],
    });
    const { client, sleeps } = makeClient();
    const error = await failure(client.listOrders());
    expect(sleeps).toEqual([188, 375]); // the backoff, not 0
    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 15 * 60 });
  });

  it("holds a Retry-After no longer than the longest it believes once the laptop's clock went back", async () => {
    await faults({
      script: [{ operation: 'listOrders', action: 'status', status: 429, retryAfterSeconds: 600 }],
    });
    let laptopNow = Date.parse('2026-11-27T12:00:00Z');
    const { client } = makeClient({ clock: () => laptopNow });
    expect(await failure(client.listOrders())).toMatchObject({ status: 429, retryAfterSeconds: 600 });
    laptopNow -= 3 * 60 * 60_000; // the laptop's clock set back 3 hours
    const held = await client.listOrders().then(
      () => 0,
      (error: { retryAfterSeconds?: number }) => error.retryAfterSeconds ?? 0,
    );
    expect(held).toBeLessThanOrEqual(15 * 60);
  });

  it("holds a Retry-After no longer than it asked once the laptop's clock went back by less than the longest wait", async () => {
    await faults({
      script: [{ operation: 'listOrders', action: 'status', status: 429, retryAfterSeconds: 120 }],
    });
    let laptopNow = Date.parse('2026-11-27T12:00:00Z');
    const { client, sent } = makeClient({ clock: () => laptopNow });
    expect(await failure(client.listOrders())).toMatchObject({ status: 429, retryAfterSeconds: 120 });
    laptopNow -= 10 * 60_000; // set back 10 minutes: 12 minutes left of a 2-minute wait
    const asked = count(sent, '/seller/v1/orders');
    await client.listOrders();
    expect(count(sent, '/seller/v1/orders')).toBe(asked + 1);
  });

  it("holds a new Retry-After asked after the laptop's clock went back past an earlier one", async () => {
    await faults({
      script: [{ operation: 'listOrders', action: 'status', status: 429, retryAfterSeconds: 600, times: 2 }],
    });
    let laptopNow = Date.parse('2026-11-27T12:00:00Z');
    const { client, sent } = makeClient({ clock: () => laptopNow });
    expect(await failure(client.listOrders())).toMatchObject({ status: 429, retryAfterSeconds: 600 });
    laptopNow -= 3 * 60 * 60_000; // the laptop's clock set back 3 hours: the old wait is over
    // The marketplace asks again for 10 minutes: that wait holds the next call.
    expect(await failure(client.listOrders())).toMatchObject({ status: 429, retryAfterSeconds: 600 });
    const asked = count(sent, '/seller/v1/orders');
    laptopNow += 60_000;
    const held = await failure(client.listOrders());
    expect(count(sent, '/seller/v1/orders')).toBe(asked);
    expect(held.retryAfterSeconds).toBe(540);
    expect(client.serverWait?.untilMs).toBe(laptopNow + 540_000);
  });

  it("takes up a wait another process kept after the laptop's clock went back past one this client saw", async () => {
    await faults({
      script: [{ operation: 'listOrders', action: 'status', status: 429, retryAfterSeconds: 600 }],
    });
    let laptopNow = Date.parse('2026-11-27T12:00:00Z');
    const { client, sent } = makeClient({ clock: () => laptopNow });
    expect(await failure(client.listOrders())).toMatchObject({ status: 429, retryAfterSeconds: 600 });
    laptopNow -= 3 * 60 * 60_000; // the laptop's clock set back 3 hours: the old wait is over
    // `watch` was asked to wait 10 minutes since, and kept it.
    client.adoptServerWait({ untilMs: laptopNow + 600_000, status: 429, summary: 'too many requests' });
    const asked = count(sent, '/seller/v1/orders');
    expect(await failure(client.listOrders())).toMatchObject({ status: 429, retryAfterSeconds: 600 });
    expect(count(sent, '/seller/v1/orders')).toBe(asked);
  });

  it('fails at once when Retry-After asks for longer than it may wait', async () => {
    await faults({
      script: [{ operation: 'listOrders', action: 'status', status: 429, retryAfterSeconds: 600 }],
    });
    const { client, sleeps } = makeClient();
    const error = await failure(client.listOrders());
    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 600 });
    expect(sleeps).toEqual([]);
  });

  it('times out a slow answer, then succeeds on retry', async () => {
    await faults({ script: [{ operation: 'listOrders', action: 'delay', delayMs: 1000 }] });
    const { client, retries } = makeClient({ timeoutMs: 200 });
    expect((await client.listOrders()).items.length).toBeGreaterThan(0);
    expect(retries().map((r) => r.fields.kind)).toEqual(['timeout']);
  });

  it('reports a timeout when every attempt is too slow', async () => {
    await faults({ latencyMs: 500 });
    const { client } = makeClient({ timeoutMs: 100, retry: { maxAttempts: 2 } });
    const error = await failure(client.ping());
    expect(error.kind).toBe('timeout');
    expect(error.message).toContain('100 ms');
  });

  it('retries dropped connections', async () => {
    await faults({ script: [{ operation: 'listEvents', action: 'drop', times: 2 }] });
    const { client, retries } = makeClient();
    expect((await client.listEvents()).items.length).toBeGreaterThan(0);
    expect(retries().map((r) => r.fields.kind)).toEqual(['network', 'network']);
  });

  it('retries a cut-off JSON answer, and reports it when it persists', async () => {
    await faults({ script: [{ operation: 'listOrders', action: 'malformed' }] });
    const { client, retries } = makeClient();
    expect((await client.listOrders()).items.length).toBeGreaterThan(0);
    expect(retries()).toHaveLength(1);

    await faults({ malformedRate: 1 });
    const error = await failure(makeClient({ retry: { maxAttempts: 2 } }).client.ping());
    expect(error.message).toContain('not valid JSON');
  });

  it('reports an unreachable server as a network error', async () => {
    const closed = await startSimulator({ port: 0, orders: 1 });
    await closed.close();
    const { client } = makeClient({ baseUrl: closed.url, retry: { maxAttempts: 2 } });
    const error = await failure(client.ping());
    expect(error.kind).toBe('network');
    expect(error.message).toMatch(/could not be reached/);
  });

  it('tries a refused connection again unless told not to (the CLI, which a person waits on); a dropped one still is', async () => {
    const closed = await startSimulator({ port: 0, orders: 1 });
    await closed.close();
    const retried = makeClient({ baseUrl: closed.url });
    expect((await failure(retried.client.ping())).connectionRefused).toBe(true);
    expect(retried.retries()).toHaveLength(4);
    const once = makeClient({ baseUrl: closed.url, retry: { retryRefused: false } });
    expect((await failure(once.client.ping())).connectionRefused).toBe(true);
    expect(once.sent).toHaveLength(1);
    expect(once.retries()).toEqual([]);

    await faults({ script: [{ operation: 'listEvents', action: 'drop', times: 1 }] });
    const dropped = makeClient({ retry: { retryRefused: false } });
    expect((await dropped.client.listEvents()).items.length).toBeGreaterThan(0);
    expect(dropped.retries().map((r) => r.fields.kind)).toEqual(['network']);
  });
});

describe('a call its caller abandons', () => {
  /** What `call` settles with, `abortAfterMs` after it starts with a signal that then aborts. */
  async function abandoned(call: (signal: AbortSignal) => Promise<unknown>, abortAfterMs: number) {
    const abandon = new AbortController();
    const started = performance.now();
    const settled = call(abandon.signal).then(
      () => 'answered',
      (e: unknown) => e,
    );
    setTimeout(() => abandon.abort(), abortAfterMs);
    return { reason: await settled, ms: performance.now() - started };
  }

  it('aborts the request in flight at once, as abandoned rather than a timeout to retry', async () => {
    await faults({ script: [{ operation: 'listOrders', action: 'delay', delayMs: 5000 }] });
    const { client, sent, retries } = makeClient();
    const { reason, ms } = await abandoned((signal) => client.listOrders({}, { signal }), 100);
    expect(reason).toMatchObject({ name: 'AbortError' });
    expect(ms).toBeLessThan(2000);
    expect(count(sent, '/seller/v1/orders')).toBe(1);
    expect(retries()).toEqual([]);
  });

  it('ends its wait before a retry, and sends no other attempt', async () => {
    await faults({ script: [{ operation: 'listEvents', action: 'status', status: 503, times: 5 }] });
    // The client's own wait (from 2 s on with these figures), not the test's instant one.
    const { client, sent } = makeClient({ sleep: undefined, retry: { baseDelayMs: 4000 } });
    const { reason, ms } = await abandoned((signal) => client.listEvents({}, { signal }), 100);
    expect(reason).toMatchObject({ name: 'AbortError' });
    expect(ms).toBeLessThan(1500);
    expect(count(sent, '/seller/v1/marketplaceEvents')).toBe(1);
  });

  it('stops a walk and a search for where a listing ends, with nothing more sent', async () => {
    const abandon = new AbortController();
    const { client, sent } = makeClient({ pageSize: 10 });
    const pages: number[] = [];
    await expect(
      (async () => {
        for await (const page of client.allOrders(0, abandon)) {
          pages.push(page.offset);
          if (pages.length === 2) abandon.abort();
        }
      })(),
    ).rejects.toMatchObject({ name: 'AbortError' });
    // The second page starts at the first one's last order, read again: it may be tied with the next.
    expect(pages).toEqual([0, 9]);
    const walked = count(sent, '/seller/v1/orders');
    await expect(client.orderPlaces(0, abandon)).rejects.toMatchObject({ name: 'AbortError' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(count(sent, '/seller/v1/orders')).toBe(walked);
  });
});

describe('posting a status', () => {
  const statusFor = (orderId: string) => ({
    eventTypeCode: 'ServicePurchased' as const,
    statusCode: 'ProvisioningInProgress' as const,
    description: 'Provisioning started',
    additionalProperties: [{ name: 'orderId', value: orderId }],
  });

  async function someOrderId(client: SellerApiClient): Promise<string> {
    return (await client.listOrders({ limit: 1 })).items[0]?.orderId ?? '';
  }

  it('does not repeat a post whose answer was lost: it says the post may have been carried out', async () => {
    const { client, sent } = makeClient();
    const orderId = await someOrderId(client);
    const before = sim.store.summary()[0]?.events ?? 0;
    await faults({ script: [{ operation: 'sendEvent', action: 'dropAfterHandling' }] });
    const error = await failure(client.sendEvent(statusFor(orderId)));
    expect(error).toMatchObject({ kind: 'network', mayHaveBeenCarriedOut: true });
    expect(sim.store.summary()[0]?.events).toBe(before + 1);
    expect(sent.filter((s) => s.method === 'POST' && s.url.includes('marketplaceEvents'))).toHaveLength(1);
  });

  it('repeats a post turned away unhandled (429), under its one request id', async () => {
    const { client, sent } = makeClient();
    const orderId = await someOrderId(client);
    const before = sim.store.summary()[0]?.events ?? 0;
    await faults({
      script: [{ operation: 'sendEvent', action: 'status', status: 429, retryAfterSeconds: 1 }],
    });
    const posted = await client.sendEvent(statusFor(orderId));
    expect(posted.event?.statusCode).toBe('ProvisioningInProgress');
    expect(sim.store.summary()[0]?.events).toBe(before + 1);
    const posts = sent.filter((s) => s.method === 'POST' && s.url.includes('marketplaceEvents'));
    expect(posts).toHaveLength(2);
    expect(posts[0]?.requestId).toBe(posts[1]?.requestId);
  });

  it('replays a post repeated with its request id, as after a restart', async () => {
    const { client } = makeClient();
    const orderId = await someOrderId(client);
    const requestId = crypto.randomUUID();
    const first = await client.sendEvent(statusFor(orderId), requestId);
    const again = await makeClient().client.sendEvent(statusFor(orderId), requestId);
    expect(again?.eventId).toBe(first?.eventId);
    expect(first?.eventId).toBeDefined();
  });

  it('reports a rejected post with the field the server names', async () => {
    const { client } = makeClient();
    const error = await failure(client.sendEvent(statusFor(crypto.randomUUID())));
    expect(error).toMatchObject({ status: 400, errorCode: 'BadRequest' });
    expect(error.detailedDescription).toContain('orderId');
  });
});

describe('pagination of the "new" listing', () => {
  async function addPurchases(n: number): Promise<Set<string>> {
    const ids = new Set<string>();
    for (let i = 0; i < n; i++) ids.add((await admin(sim.url, 'POST', 'purchases')).json.orderId);
    return ids;
  }

  it.each(['consume', 'sticky'] as const)(
    'yields every new event exactly once in %s mode, also with purchases arriving during the walk',
    async (mode) => {
      await faults({ newEvents: mode });
      const expected = new Set<string>();
      const seeded = sim.store.summary()[0]?.newEvents ?? 0;
      for (const id of await addPurchases(35)) expected.add(id);
      const { client, sent } = makeClient({ pageSize: 10 });
      const seen: string[] = [];
      for await (const page of client.newEvents()) {
        seen.push(...page.items.map((event) => orderIdOf(event) ?? ''));
        if (seen.length === 20) for (const id of await addPurchases(5)) expected.add(id);
      }
      expect(seen).toHaveLength(seeded + 40);
      expect(new Set(seen).size).toBe(seen.length);
      for (const id of expected) expect(seen).toContain(id);
      const pages = count(sent, '/seller/v1/marketplaceEvents/new');
      // ceil(80 / 10) pages at most, and sticky mode pays one repeated page to learn it.
      expect(pages).toBeLessThanOrEqual(Math.ceil((seeded + 40) / 10) + (mode === 'sticky' ? 2 : 1));
    },
  );

  it('walks the "all" listing in order from an offset', async () => {
    const all = await collect(makeClient().client.allEvents());
    const tail = await collect(makeClient({ pageSize: 7 }).client.allEvents(all.length - 20));
    expect(tail).toEqual(all.slice(-20));
    const times = all.map((e) => e.eventTime ?? '');
    expect([...times].sort()).toEqual(times);
  });
});

describe('answers', () => {
  it('passes unknown fields through', async () => {
    const created = await admin(sim.url, 'POST', 'purchases', { order: { loyaltyTier: 'gold' } });
    const order = await makeClient().client.getOrder(created.json.orderId);
    expect(order).toMatchObject({ loyaltyTier: 'gold' });
  });

  it('refuses an http base URL that is not loopback before any call', () => {
    expect(() => makeClient({ baseUrl: 'http://marketplace.example' })).toThrow(/https/);
  });
});
