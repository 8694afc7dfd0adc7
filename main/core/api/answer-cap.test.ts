// Answers larger than the client reads (MAX_ANSWER_BYTES), over real HTTP: the simulator's
// 'huge-items' quirk streams 1 GiB where a purchase wrote ~huge~ (more than V8 can hold as one
// string), so the server never holds it and the test never needs the memory.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HUGE_MARKER } from '../../../simulator/quirks';
import { type Simulator, startSimulator } from '../../../simulator/server';
import { admin } from '../../../test/support/raw-api';
import { MAX_ANSWER_BYTES, OVER_CAP_KEPT, SellerApiClient } from './client';
import { SellerApiError } from './errors';
import { nodeNetwork } from './node-transport';
import type { Transport } from './transport';
import type { MarketplaceEvent } from './wire';

const SELLER_ORDERS = 150;
let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 11, orders: SELLER_ORDERS });
});
afterEach(async () => {
  await admin(sim.url, 'POST', 'reset');
});
afterAll(() => sim.close());

const nodeFetch: Transport = (url, init) => fetch(url, init);
const TRANSPORTS: [string, Transport][] = [
  ["Node's fetch", nodeFetch],
  ["the CLI's undici", nodeNetwork({ env: {} }).transport],
];

/** A client over `transport` that counts its requests and the bytes of the answers it read. */
function countingClient(transport: Transport) {
  const counted = { requests: 0, bytes: 0 };
  const counting: Transport = async (url, init) => {
    counted.requests += 1;
    const response = await transport(url, init);
    if (response.body === null) return response;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        counted.bytes += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter), {
      status: response.status,
      headers: response.headers,
    });
  };
  const client = new SellerApiClient({
    baseUrl: sim.url,
    credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
    transport: counting,
    sleep: async () => {},
  });
  return { client, counted };
}

async function hugePurchase(order: Record<string, unknown>): Promise<string> {
  expect((await admin(sim.url, 'PATCH', 'faults', { quirks: ['huge-items'] })).status).toBe(200);
  return (await admin(sim.url, 'POST', 'purchases', { order })).json.orderId;
}

async function walkAll(client: SellerApiClient) {
  const events: MarketplaceEvent[] = [];
  const aside = [];
  for await (const page of client.allEvents()) {
    events.push(...page.items);
    aside.push(...page.unreadable);
  }
  return { events, aside };
}

describe.each(TRANSPORTS)('an answer over the cap, through %s', (_, transport) => {
  it('is refused while it streams in, at the cap, once (not retried), in words for a person', async () => {
    const orderId = await hugePurchase({ note: HUGE_MARKER });
    const { client, counted } = countingClient(transport);
    await client.authenticate();
    const before = { ...counted };
    const failure = await client.getOrder(orderId).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SellerApiError);
    expect((failure as SellerApiError).kind).toBe('too-large');
    expect((failure as SellerApiError).message).toMatch(/larger than 32 MiB.*not read/);
    expect(counted.requests - before.requests).toBe(1);
    // Read as it came, and no further than the cap (and the chunk that passed it).
    expect(counted.bytes - before.bytes).toBeLessThan(MAX_ANSWER_BYTES + 1024 * 1024);
  });
});

describe('a listing page over the cap', () => {
  it('is asked again in halves down to the item over it, which is kept aside; a second walk asks it no more', async () => {
    const plain = await walkAll(countingClient(nodeFetch).client);
    await hugePurchase({ buyerCustomerParty: { party: { partyName: HUGE_MARKER } } });
    const { client, counted } = countingClient(nodeFetch);
    await client.authenticate();

    const first = { ...counted };
    const read = await walkAll(client);
    expect(read.events.map((e) => e.eventId)).toEqual(plain.events.map((e) => e.eventId));
    expect(read.aside).toEqual([
      expect.objectContaining({
        kind: 'event',
        reason: expect.stringMatching(/larger than 32 MiB, more than Seller Tray reads/),
      }),
    ]);
    const pages = Math.ceil((plain.events.length + 1) / 100);
    // Each halving asks one half over the cap and, at most, the other within it: 2·log2(100) + 1.
    expect(counted.requests - first.requests).toBeLessThanOrEqual(pages + 1 + 2 * 7 + 1);
    expect(counted.bytes - first.bytes).toBeLessThan(8 * (MAX_ANSWER_BYTES + 1024 * 1024));

    // As the next poll reads the listing again: the item over the cap is known by the one before it.
    const second = { ...counted };
    const again = await walkAll(client);
    expect(again.events).toHaveLength(plain.events.length);
    expect(again.aside.map((item) => item.key)).toEqual(read.aside.map((item) => item.key));
    expect(counted.bytes - second.bytes).toBeLessThan(MAX_ANSWER_BYTES / 4);
    expect(counted.requests - second.requests).toBeLessThanOrEqual(pages + 1 + 2);
  });
});

describe('the other answers over the cap', () => {
  /** A client whose cap is `maxAnswerBytes`, counting its requests and the chunks it pulled from answers. */
  function smallCap(maxAnswerBytes: number) {
    const counted = { requests: 0, pulls: 0 };
    const transport: Transport = async (url, init) => {
      counted.requests += 1;
      const response = await fetch(url, init);
      const source = response.body?.getReader();
      if (source === undefined) return response;
      // Pulled only as the client reads (no read-ahead): what it pulls is what it read.
      const body = new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            const { done, value } = await source.read();
            if (done) return controller.close();
            counted.pulls += 1;
            controller.enqueue(value);
          },
          cancel: (reason) => source.cancel(reason),
        },
        { highWaterMark: 0 },
      );
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const client = new SellerApiClient({
      baseUrl: sim.url,
      credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
      transport,
      sleep: async () => {},
      maxAnswerBytes,
    });
    return { client, counted };
  }

  const someOrderId = async () =>
    (await countingClient(nodeFetch).client.listOrders({ limit: 1 })).items[0]?.orderId ?? '';

  it('is refused unread when its Content-Length says it is longer', async () => {
    const orderId = await someOrderId();
    const { client, counted } = smallCap(64);
    await client.authenticate().catch(() => undefined); // the token's answer is over 64 bytes too
    const failure = await client.getOrder(orderId).catch((error: unknown) => error);
    expect((failure as SellerApiError).kind).toBe('too-large');
    expect((failure as SellerApiError).message).toMatch(/the answer is larger than 64 bytes/);
    expect(counted.pulls).toBe(0);
  });

  it('a status post answered past it was delivered: no error, posted once', async () => {
    const orderId = await someOrderId();
    const { client, counted } = smallCap(1024); // the token fits, the stored event does not
    await client.authenticate();
    const before = counted.requests;
    await client.sendEvent({
      eventTypeCode: 'ServicePurchased',
      statusCode: 'ProvisioningInProgress',
      description: 'Provisioning started',
      detailedDescription: 'x'.repeat(2000),
      additionalProperties: [{ name: 'orderId', value: orderId }],
    });
    expect(counted.requests - before).toBe(1);
  });

  it('an error answered past it keeps its status, and is not taken for an answer too large', async () => {
    await admin(sim.url, 'PATCH', 'faults', { quirks: ['html-errors'] });
    const { client } = smallCap(1024);
    await client.authenticate();
    const failure = await client
      .getOrder('00000000-0000-4000-8000-000000000000')
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SellerApiError);
    expect((failure as SellerApiError).kind).toBe('http');
    expect((failure as SellerApiError).status).toBe(404);
  });
});

describe('a result window looked for where an item is over the cap', () => {
  it('counts the item over the cap as a place that answers: the walk reads the rest and keeps it aside', async () => {
    const small = await startSimulator({ port: 0, seed: 11, orders: 10 });
    try {
      await admin(small.url, 'PATCH', 'faults', { quirks: ['huge-items', 'result-window-unnamed'] });
      const places = () => small.store.listEvents(1001, 0, 1_000_000).items.length;
      // The item over the cap last, at a place the search for the window asks first: the middle
      // between the page that answered (pages of 2/3 of the listing) and the one refused.
      while ((places() + 1) % 3 !== 0) await admin(small.url, 'POST', 'purchases', {});
      const { json } = await admin(small.url, 'POST', 'purchases', {
        order: { buyerCustomerParty: { party: { partyName: HUGE_MARKER } } },
      });
      expect(json.orderId).toBeDefined();
      const length = places();
      await admin(small.url, 'PATCH', 'faults', { resultWindow: length + 1 });
      const client = new SellerApiClient({
        baseUrl: small.url,
        credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
        pageSize: (2 * length) / 3,
        sleep: async () => {},
      });
      expect((2 * length) / 3).toBeLessThanOrEqual(100);
      const read = await walkAll(client);
      expect(read.events).toHaveLength(length - 1);
      expect(read.aside).toEqual([
        expect.objectContaining({ reason: expect.stringContaining(`(place ${length - 1} of the listing)`) }),
      ]);
    } finally {
      await small.close();
    }
  });
});

describe('a remembered place over the cap, when the listing moves around it', () => {
  // Past the start of an answer that is read for its key (OVER_CAP_KEPT), as the real cap is.
  const CAP = 2 * OVER_CAP_KEPT;
  const event = (n: number, huge = false) => ({
    eventId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    eventTypeCode: 'ServicePurchased',
    statusCode: 'ProvisioningInProgress',
    description: `event ${n}`,
    additionalProperties: [{ name: 'orderId', value: '00000000-0000-4000-8000-000000000001' }],
    ...(huge ? { detailedDescription: 'x'.repeat(2 * CAP) } : {}),
  });
  /**
   * The "all" events listing served from `listing` as it is at each request, counting the answers
   * over the cap the client read up to the cap (not those it read only the start of); `declared`:
   * each with its Content-Length, as a server that writes the whole answer before sending it.
   */
  function listingClient(listing: ReturnType<typeof event>[], declared = false) {
    const counted = { overCap: 0, asked: [] as string[] };
    const transport: Transport = async (url) => {
      const { pathname, searchParams } = new URL(url);
      if (pathname.endsWith('/tokens')) return Response.json({ accessToken: 'token' }, { status: 201 });
      const offset = Number(searchParams.get('offset') ?? 0);
      const limit = Number(searchParams.get('limit') ?? 10);
      counted.asked.push(`${offset}+${limit}`);
      const page = listing.slice(offset, offset + limit);
      const bytes = Buffer.from(
        JSON.stringify({ marketplaceEvents: page, hasMore: offset + limit < listing.length }),
      );
      let read = 0;
      // Pulled only as the client reads, in small chunks: what it pulls is what it read.
      const body = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            if (read >= bytes.length) return controller.close();
            controller.enqueue(bytes.subarray(read, read + 8192));
            read += 8192;
            if (read >= CAP && read - 8192 < CAP) counted.overCap += 1;
          },
        },
        { highWaterMark: 0 },
      );
      const headers = new Headers({ 'content-type': 'application/json' });
      if (declared) headers.set('content-length', String(bytes.length));
      return new Response(body, { headers });
    };
    const client = new SellerApiClient({
      baseUrl: 'http://127.0.0.1:9/',
      credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
      transport,
      sleep: async () => {},
      maxAnswerBytes: CAP,
      pageSize: 8,
    });
    return { client, counted };
  }
  const ids = (read: { events: MarketplaceEvent[] }) => read.events.map((e) => Number(e.eventId?.slice(-12)));

  // One item is one key wherever it moves, so that it is told once (the store keeps aside by key).
  it('reads an event inserted just before the item over the cap, once, and keeps only the item aside, under its key', async () => {
    const listing = [0, 1, 2, 3, 4, 5].map((n) => event(n, n === 3));
    const { client } = listingClient(listing);
    const first = await walkAll(client);
    expect(ids(first)).toEqual([0, 1, 2, 4, 5]);
    listing.splice(3, 0, event(9));
    const again = await walkAll(client);
    expect(ids(again)).toEqual([0, 1, 2, 9, 4, 5]);
    expect(again.aside.map((item) => item.key)).toEqual(first.aside.map((item) => item.key));
  });

  it.each([
    [1, false],
    [3, false],
    [8, false],
    [3, true],
  ])(
    'keeps the item over the cap under one key when %i older events expire, wherever it is then (Content-Length: %s)',
    async (expired, declared) => {
      const listing = Array.from({ length: 12 }, (_, n) => event(n, n === 9));
      const { client } = listingClient(listing, declared);
      const first = await walkAll(client);
      listing.splice(0, expired);
      const again = await walkAll(client);
      expect(again.events).toHaveLength(11 - expired);
      expect(again.aside).toHaveLength(1);
      expect(again.aside.map((item) => item.key)).toEqual(first.aside.map((item) => item.key));
    },
  );

  it('keeps an item over the cap under one key whichever listing of events brings it', async () => {
    // A marketplace whose "new" listing keeps what it answered: the item comes from both.
    const listing = [0, 1, 2, 3].map((n) => event(n, n === 2));
    const { client } = listingClient(listing);
    const fromNew = [];
    for await (const page of client.newEvents()) fromNew.push(...page.unreadable);
    const fromAll = await walkAll(client);
    expect(fromNew).toHaveLength(1);
    expect(fromAll.aside.map((item) => item.key)).toEqual(fromNew.map((item) => item.key));
  });

  it('tells two items over the cap apart, and each moved keeps its key', async () => {
    const listing = Array.from({ length: 12 }, (_, n) => event(n, n === 4 || n === 9));
    const { client } = listingClient(listing);
    const first = await walkAll(client);
    expect(new Set(first.aside.map((item) => item.key)).size).toBe(2);
    listing.splice(0, 2);
    expect((await walkAll(client)).aside.map((item) => item.key)).toEqual(
      first.aside.map((item) => item.key),
    );
  });

  it.each([false, true])(
    'asks nothing of the item over the cap that ends a quiet listing on the walks after (Content-Length: %s)',
    async (declared) => {
      const listing = [0, 1, 2, 3].map((n) => event(n, n === 3));
      const { client, counted } = listingClient(listing, declared);
      await walkAll(client);
      await walkAll(client);
      counted.asked.length = 0;
      for (let poll = 0; poll < 3; poll++) await walkAll(client);
      // Each walk asks what may follow it (one small request), never the item itself again.
      expect(counted.asked.filter((asked) => asked.startsWith('3+'))).toEqual([]);
    },
  );

  it.each([false, true])(
    'reads the event that took the place of the item over the cap that ended the listing once the listing grows (Content-Length: %s)',
    async (declared) => {
      const listing = [0, 1, 2, 3].map((n) => event(n, n === 3));
      const { client } = listingClient(listing, declared);
      await walkAll(client);
      // Removed with exactly one event added: from around it, the place looks the same (the price
      // of asking the last item nothing at each poll).
      listing.splice(3, 1, event(4));
      expect(ids(await walkAll(client))).toEqual([0, 1, 2]);
      listing.push(event(5));
      const grown = await walkAll(client);
      expect(ids(grown)).toEqual([0, 1, 2, 4, 5]);
      expect(grown.aside).toEqual([]);
    },
  );

  it('reads the event that slides into the place of an item over the cap removed', async () => {
    const listing = [0, 1, 2, 3, 4, 5].map((n) => event(n, n === 3));
    const { client } = listingClient(listing);
    await walkAll(client);
    listing.splice(3, 1);
    const again = await walkAll(client);
    expect(ids(again)).toEqual([0, 1, 2, 4, 5]);
    expect(again.aside).toEqual([]);
  });

  it('reads an event added after the item over the cap that ended the listing, and keeps the item aside again', async () => {
    const listing = [0, 1, 2, 3].map((n) => event(n, n === 3));
    const { client, counted } = listingClient(listing);
    await walkAll(client);
    const first = counted.overCap;
    // Nothing after it changed: it is known by the item before it and the listing's end.
    await walkAll(client);
    expect(counted.overCap).toBe(first);
    const { aside } = await walkAll(client);
    listing.push(event(4));
    const again = await walkAll(client);
    expect(ids(again)).toEqual([0, 1, 2, 4]);
    expect(again.aside).toEqual(aside);
  });

  it.each([0, 7, 8])(
    'asks nothing over the cap on a second walk when the item over it is at place %i (first of a page, last of one)',
    async (place) => {
      const listing = Array.from({ length: 12 }, (_, n) => event(n, n === place));
      const { client, counted } = listingClient(listing);
      await walkAll(client);
      const first = counted.overCap;
      expect(first).toBeGreaterThan(0);
      const again = await walkAll(client);
      expect(again.events).toHaveLength(11);
      expect(again.aside).toEqual([
        expect.objectContaining({ reason: expect.stringContaining(`(place ${place} of the listing)`) }),
      ]);
      expect(counted.overCap).toBe(first);
    },
  );
});
