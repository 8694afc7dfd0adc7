// The client against servers that break the API's promises: real HTTP(S) servers on
// loopback that answer crafted bodies.
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SellerApiClient } from './client';
import { SellerApiError } from './errors';
import { orderIdOf } from './wire';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

interface Answering {
  /** The status of every answer but the token's (default: 201 for a POST, 200 otherwise). */
  status?: number;
  contentType?: string;
  token?: { status: number; body: unknown };
}

/** Answers tokens normally and every other call with `body` (an object is sent as JSON). */
async function serve(
  body: unknown,
  make: (l: RequestListener) => Server = createHttpServer,
  answering: Answering = {},
): Promise<string> {
  const server = make((req, res) => {
    res.setHeader('Content-Type', answering.contentType ?? 'application/json');
    if (req.url?.startsWith('/auth/v1/tokens')) {
      res.statusCode = answering.token?.status ?? 201;
      return res.end(
        JSON.stringify(answering.token?.body ?? { accessToken: 'opaque-token', tokenType: 'Bearer' }),
      );
    }
    res.statusCode = answering.status ?? (req.method === 'POST' ? 201 : 200);
    res.end(body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body));
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return `${make === createHttpServer ? 'http' : 'https'}://127.0.0.1:${port}`;
}

const clientFor = (baseUrl: string) =>
  new SellerApiClient({
    baseUrl,
    credentials: { clientId: 'c', clientSecret: async () => 's' },
    retry: { maxAttempts: 1 },
  });

async function failure(promise: Promise<unknown>): Promise<SellerApiError> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SellerApiError);
  return error as SellerApiError;
}

describe('answers that break the schema', () => {
  const order = (fields: Record<string, unknown>) => ({
    orderId: crypto.randomUUID(),
    orderTypeCode: 'Purchase',
    documentCurrencyCode: 'EUR',
    buyerCustomerParty: {},
    sellerSupplierParty: {},
    documentLines: [],
    ...fields,
  });

  it.each([
    ['a wrong type inside an order', { documentLines: [42] }, 'documentLines.0'],
    ['a missing required field', { buyerCustomerParty: undefined }, 'buyerCustomerParty'],
    ['a currency that is a number, not a code', { documentCurrencyCode: 978 }, 'documentCurrencyCode'],
  ])(
    'keeps an order with %s aside, naming the field, and reads the rest of the page',
    async (_, fields, fieldPath) => {
      const odd = order(fields);
      const fine = [order({}), order({})];
      const page = await clientFor(
        await serve({ hasMore: false, orders: [fine[0], odd, fine[1]] }),
      ).listOrders();
      expect(page.items.map((o) => o.orderId)).toEqual(fine.map((o) => o.orderId));
      expect(page.unreadable).toEqual([
        expect.objectContaining({
          kind: 'order',
          key: odd.orderId,
          fieldPath,
          raw: JSON.parse(JSON.stringify(odd)),
        }),
      ]);
      expect(page.keys).toEqual([fine[0]?.orderId, odd.orderId, fine[1]?.orderId]);
    },
  );

  it.each([
    ['a list that is not a list', { hasMore: false, orders: {} }, 'orders'],
    ['an array where an object belongs', [], '(the whole answer)'],
  ])('reports %s as a schema error naming the operation and the field', async (_, body, fieldPath) => {
    const error = await failure(clientFor(await serve(body)).listOrders());
    expect(error).toMatchObject({ kind: 'schema', operation: 'listOrders', fieldPath });
    expect(error.message).toContain('listOrders');
    expect(error.message).toContain(fieldPath);
  });

  it('passes unknown event types, statuses and fields through', async () => {
    const event = {
      eventId: crypto.randomUUID(),
      eventTypeCode: 'ServiceCancelled',
      statusCode: 'ProvisioningPaused',
      description: 'From a newer API',
      additionalProperties: [{ name: 'orderId', value: crypto.randomUUID() }],
      futureField: { nested: true },
    };
    const page = await clientFor(await serve({ hasMore: false, marketplaceEvents: [event] })).listEvents();
    expect(page.items).toEqual([event]);
  });
});

describe('what a real marketplace may do differently, read as it means', () => {
  const event = (fields: Record<string, unknown>) => ({
    eventId: crypto.randomUUID(),
    eventTypeCode: 'ServicePurchased',
    statusCode: 'ProvisioningStarted',
    description: 'A purchase',
    eventTime: '2026-11-20T10:00:00.000000+00:00',
    additionalProperties: [{ name: 'orderId', value: 'o-1' }],
    ...fields,
  });

  it.each([
    ['a null detailedDescription', { detailedDescription: null }, { detailedDescription: undefined }],
    ['a sellerId as a string', { sellerId: '1001' }, { sellerId: '1001' }],
    ['a sellerId as a number', { sellerId: 1001 }, { sellerId: '1001' }],
    // Fields the app does not need: read as absent when they cannot be read (docs/api-client.md, tolerant reader).
    ['a sellerId as an object', { sellerId: { id: 1001 } }, { sellerId: undefined }],
    ['a seenTime as a number', { seenTime: 1_763_632_800 }, { seenTime: undefined }],
    ['a time that is no time', { eventTime: 'yesterday' }, { eventTime: undefined }],
    ['an eventId that is not a UUID', { eventId: 'evt-17' }, { eventId: 'evt-17' }],
    ['a description that is an object', { description: { text: 'A purchase' } }, { description: '' }],
    [
      'an additional property that cannot be read beside the order link',
      { additionalProperties: [{ name: 7 }, 'seats', { name: 'orderId', value: 'o-1' }] },
      { additionalProperties: [{ name: 'orderId', value: 'o-1' }] },
    ],
    [
      'an additional property whose value is a number or null',
      {
        additionalProperties: [
          { name: 'orderId', value: 'o-1' },
          { name: 'seats', value: 5 },
          { name: 'x', value: null },
        ],
      },
      {
        additionalProperties: [
          { name: 'orderId', value: 'o-1' },
          { name: 'seats', value: '5' },
          { name: 'x' },
        ],
      },
    ],
    [
      'a time without an offset (UTC)',
      { eventTime: '2026-11-20T10:00:00.5' },
      { eventTime: '2026-11-20T10:00:00.5Z' },
    ],
    ['a space before the time', { eventTime: '2026-11-20 10:00:00Z' }, { eventTime: '2026-11-20T10:00:00Z' }],
    [
      'an offset without a colon',
      { seenTime: '2026-11-20T12:00:00+0200' },
      { seenTime: '2026-11-20T12:00:00+02:00' },
    ],
    [
      'a status in another case',
      { statusCode: 'provisioningstarted' },
      { statusCode: 'ProvisioningStarted' },
    ],
    ['a null description', { description: null }, { description: '' }],
  ])('reads an event with %s', async (_, fields, expected) => {
    const page = await clientFor(
      await serve({ hasMore: false, marketplaceEvents: [event(fields)] }),
    ).listEvents();
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject(expected);
  });

  it.each([
    ['names no order', { additionalProperties: [{ name: 'seats', value: '3' }] }, 'additionalProperties'],
    ['has a status that is not text', { statusCode: 17 }, 'statusCode'],
    ['has a type that is not text', { eventTypeCode: { code: 'ServicePurchased' } }, 'eventTypeCode'],
  ])('keeps an event that %s aside, naming the field, and reads the others', async (_, fields, fieldPath) => {
    const odd = event(fields);
    const fine = event({});
    const page = await clientFor(
      await serve({ hasMore: false, marketplaceEvents: [odd, fine] }),
    ).listEvents();
    expect(page.items).toEqual([fine]);
    expect(page.unreadable).toEqual([
      expect.objectContaining({ kind: 'event', key: odd.eventId, fieldPath, raw: odd }),
    ]);
    expect(page.keys).toEqual([odd.eventId, fine.eventId]);
  });

  it.each([
    ['missing, on a short page', undefined, 1, false],
    ['missing, on a full page', undefined, 2, true],
    ['null, on a short page', null, 1, false],
    ['"false"', 'false', 2, false],
    ['"true"', 'true', 1, true],
  ])('reads hasMore %s', async (_, hasMore, items, expected) => {
    const body = { marketplaceEvents: Array.from({ length: items }, () => event({})), hasMore };
    const page = await clientFor(await serve(body)).listEvents({ limit: 2 });
    expect(page.hasMore).toBe(expected);
  });

  it('reads an order with an amount as a string, nulls, a lowercase currency and loose dates', async () => {
    const order = {
      orderId: crypto.randomUUID(),
      issueTime: '2026-11-20 09:30:00',
      orderTypeCode: 'purchase',
      note: null,
      documentCurrencyCode: 'eur',
      validityPeriod: { startDate: '2026-12-01T00:00:00Z', endDate: '2027-11-30' },
      buyerCustomerParty: { party: { partyName: 'Acme' }, buyerContact: null },
      sellerSupplierParty: null,
      anticipatedMonetaryTotal: { amount: '1234.50', currencyCode: 'eur' },
      documentLines: [{ lineId: '1', lineItem: { name: 'Seats', quantity: { value: '3', unitCode: null } } }],
    };
    const read = await clientFor(await serve(order)).getOrder(order.orderId);
    expect(read).toMatchObject({
      issueTime: '2026-11-20T09:30:00Z',
      orderTypeCode: 'Purchase',
      documentCurrencyCode: 'EUR',
      validityPeriod: { startDate: '2026-12-01', endDate: '2027-11-30' },
      anticipatedMonetaryTotal: { amount: 1234.5, currencyCode: 'EUR' },
      documentLines: [{ lineId: '1', lineItem: { quantity: { value: 3 } } }],
    });
    expect(read.note).toBeUndefined();
  });

  it('keeps every digit of ids beyond 2^53 and the exact text of amounts a number would round', async () => {
    const orderId = crypto.randomUUID();
    // Written as the server writes them: JSON numbers of more digits than a double holds.
    const body = `{"orderId":"${orderId.toUpperCase()}","orderTypeCode":"Purchase","documentCurrencyCode":"USDT",
      "buyerCustomerParty":{},"sellerSupplierParty":{"sellerId":18446744073709551615},
      "anticipatedMonetaryTotal":{"amount":12345678901234567890.25,"currencyCode":"usdt"},
      "documentLines":[{"lineId":9223372036854775807,"lineItem":{"quantity":{"value":3.000000000000000001},
        "price":{"priceAmount":{"amount":19.99}}}}]}`;
    const read = await clientFor(await serve(body)).getOrder(orderId);
    expect(read.orderId).toBe(orderId);
    expect(read.documentCurrencyCode).toBe('USDT');
    expect(read.sellerSupplierParty.sellerId).toBe('18446744073709551615');
    expect(read.anticipatedMonetaryTotal).toEqual({
      amount: Number('12345678901234567890.25'),
      exactAmount: '12345678901234567890.25',
      currencyCode: 'usdt', // not three letters: as given
    });
    expect(read.documentLines[0]?.lineId).toBe('9223372036854775807');
    expect(read.documentLines[0]?.lineItem?.quantity).toEqual({
      value: 3,
      exactValue: '3.000000000000000001',
    });
    // A number a double holds exactly has no text beside it.
    expect(read.documentLines[0]?.lineItem?.price?.priceAmount).toEqual({ amount: 19.99 });
  });

  it('reads an event whose sellerId is beyond 2^53 with every digit', async () => {
    const fine = event({});
    const body = JSON.stringify({ hasMore: false, marketplaceEvents: [fine] }).replace(
      '"eventTypeCode"',
      '"sellerId":123456789012345678901,"eventTypeCode"',
    );
    const page = await clientFor(await serve(body)).listEvents();
    expect(page.unreadable).toEqual([]);
    expect(page.items[0]?.sellerId).toBe('123456789012345678901');
  });

  it.each([
    ['"bearer"', 201, { accessToken: 'opaque-token', tokenType: 'bearer' }],
    ['no tokenType', 201, { accessToken: 'opaque-token' }],
    ['200 instead of 201', 200, { accessToken: 'opaque-token', tokenType: 'Bearer' }],
  ])('logs in with a token answered with %s', async (_, status, body) => {
    const url = await serve({ hasMore: false, orders: [] }, createHttpServer, { token: { status, body } });
    expect((await clientFor(url).listOrders()).items).toEqual([]);
  });

  const eventId = crypto.randomUUID();
  it.each([
    ['200 without a body', 200, undefined, undefined],
    ['202 without a body', 202, undefined, undefined],
    ['204 without a body', 204, undefined, undefined],
    ['201 with only the event id', 201, { eventId }, eventId],
    ['201 with an event missing its status', 201, { eventId, description: 'x' }, eventId],
    ['201 with an empty object', 201, {}, undefined],
    ['201 with a text body', 201, 'Created', undefined],
    ['201 with cut-off JSON', 201, '{"eventId": "', undefined],
    ['200 with an array', 200, [1, 2], undefined],
  ])('counts a status post answered %s as delivered', async (_, status, answer, id) => {
    const url = await serve(answer, createHttpServer, { status });
    const body = {
      eventTypeCode: 'ServicePurchased',
      statusCode: 'ProvisioningInProgress',
      description: 'x',
    } as const;
    await expect(clientFor(url).sendEvent(body)).resolves.toMatchObject({ eventId: id });
  });

  it.each([
    ['OrderId', (id: string) => ({ additionalProperties: [{ name: 'OrderId', value: id }] })],
    ['orderID', (id: string) => ({ additionalProperties: [{ name: 'orderID', value: id }] })],
    ['a top-level orderId', (id: string) => ({ additionalProperties: undefined, orderId: id })],
  ])('finds the order link named %s', async (_, link) => {
    const page = await clientFor(
      await serve({ hasMore: false, marketplaceEvents: [event(link('o-7'))] }),
    ).listEvents();
    expect(page.items[0] && orderIdOf(page.items[0])).toBe('o-7');
  });
});

describe("errors keep the server's words", () => {
  it.each([
    ['a partial error body', 'application/json', { errorCode: 'NotFound' }, 'HTTP 404 NotFound:'],
    [
      'problem details',
      'application/problem+json',
      { type: 'about:blank', title: 'Order not found', detail: 'No order 42 for this seller' },
      'HTTP 404 Order not found (No order 42 for this seller)',
    ],
    [
      'an HTML gateway page',
      'text/html',
      '<html><head><style>b{}</style></head><body><h1>404 Not Found</h1>\n<p>nginx</p></body></html>',
      'HTTP 404: 404 Not Found nginx',
    ],
    [
      "a gateway's message",
      'application/json',
      { message: 'Missing Authentication Token' },
      'HTTP 404 Missing Authentication Token',
    ],
    [
      "a gateway's Message",
      'application/json',
      { Message: 'User is not authorized to access this resource' },
      'HTTP 404 User is not authorized to access this resource',
    ],
    [
      'an OAuth error',
      'application/json',
      { error: 'invalid_request', error_description: 'orderId is not a UUID' },
      'HTTP 404 invalid_request: orderId is not a UUID',
    ],
    [
      'a nested error object',
      'application/json',
      { error: { code: 'OrderNotFound', message: 'No such order' } },
      'HTTP 404 OrderNotFound: No such order',
    ],
    [
      "Apigee's fault",
      'application/json',
      { fault: { faultstring: 'Invalid ApiKey', detail: { errorcode: 'oauth.v2.InvalidApiKey' } } },
      'HTTP 404 oauth.v2.InvalidApiKey: Invalid ApiKey',
    ],
    [
      "Spring Boot's error",
      'application/json',
      {
        timestamp: '2026-11-26T06:00:00Z',
        status: 404,
        error: 'Not Found',
        message: 'No order 42',
        path: '/x',
      },
      'HTTP 404 Not Found: No order 42',
    ],
    [
      "problem details with Zalando's violations",
      'application/problem+json',
      { title: 'Constraint Violation', violations: [{ field: 'orderId', message: 'must be a UUID' }] },
      'HTTP 404 Constraint Violation; orderId: must be a UUID',
    ],
    [
      'problem details naming invalid parameters',
      'application/problem+json',
      {
        title: 'Your request parameters did not validate.',
        'invalid-params': [
          { name: 'orderId', reason: 'must be a UUID' },
          { name: 'limit', reason: 'must be at most 50' },
        ],
      },
      'HTTP 404 Your request parameters did not validate.; orderId: must be a UUID; limit: must be at most 50',
    ],
    [
      'problem details with a list of errors by pointer',
      'application/problem+json',
      { title: 'Invalid', errors: [{ detail: 'must be a UUID', pointer: '#/orderId' }, 'one more thing'] },
      'HTTP 404 Invalid; orderId: must be a UUID; one more thing',
    ],
    [
      'an ASP.NET validation map',
      'application/problem+json',
      {
        type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
        title: 'One or more validation errors occurred.',
        status: 400,
        errors: {
          StatusCode: ['The StatusCode field is required.'],
          '$.orderId': ['Not a GUID.', 'Too long.'],
        },
        traceId: '00-abc-01',
      },
      'HTTP 404 One or more validation errors occurred.; StatusCode: The StatusCode field is required.; orderId: Not a GUID.; Too long.',
    ],
  ])('from %s, with the status and the request id', async (_, contentType, body, words) => {
    const url = await serve(body, createHttpServer, { status: 404, contentType });
    const error = await failure(clientFor(url).getOrder('42'));
    expect(error.message).toContain(words);
    expect(error.message).toMatch(/request id [0-9a-f-]{36}/);
  });

  it('names each field a server named, for the Details', async () => {
    const url = await serve(
      { title: 'Invalid', errors: { statusCode: ['Unknown status.'], description: 'Required.' } },
      createHttpServer,
      { status: 400, contentType: 'application/problem+json' },
    );
    const error = await failure(clientFor(url).getOrder('42'));
    expect(error.fields).toEqual([
      { field: 'statusCode', reason: 'Unknown status.' },
      { field: 'description', reason: 'Required.' },
    ]);
    expect(error.toJSON()).toMatchObject({ fields: error.fields });
  });
});

describe('a listing that ignores the offset', () => {
  it('is cut off with a clear error instead of looping', async () => {
    const event = {
      eventId: crypto.randomUUID(),
      eventTypeCode: 'ServicePurchased',
      statusCode: 'ProvisioningStarted',
      description: 'x',
      additionalProperties: [{ name: 'orderId', value: crypto.randomUUID() }],
    };
    const client = clientFor(await serve({ hasMore: true, marketplaceEvents: [event] }));
    let yielded = 0;
    await expect(async () => {
      for await (const page of client.newEvents()) yielded += page.items.length;
    }).rejects.toThrow(/ignores the offset/);
    expect(yielded).toBe(1);
  });
});

describe('TLS', () => {
  it('tells a refused certificate apart from other network failures', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
        ],
        { stdio: 'ignore' },
      );
      const tls = { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
      const url = await serve({}, (listener) => createHttpsServer(tls, listener));
      const error = await failure(clientFor(url).ping());
      expect(error.kind).toBe('tls');
      expect(error.message).toMatch(/certificate/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
