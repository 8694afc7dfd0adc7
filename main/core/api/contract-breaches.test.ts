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

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** Answers tokens normally and every other call with `body` (an object is sent as JSON). */
async function serve(
  body: unknown,
  make: (l: RequestListener) => Server = createHttpServer,
): Promise<string> {
  const server = make((req, res) => {
    res.setHeader('Content-Type', 'application/json');
    if (req.url?.startsWith('/auth/v1/tokens')) {
      res.statusCode = 201;
      return res.end(JSON.stringify({ accessToken: 'opaque-token', tokenType: 'Bearer' }));
    }
    res.statusCode = req.method === 'POST' ? 201 : 200;
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
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
  it.each([
    [
      'a wrong type deep inside an order',
      {
        hasMore: false,
        orders: [
          {
            orderTypeCode: 'Purchase',
            documentCurrencyCode: 'EUR',
            buyerCustomerParty: {},
            sellerSupplierParty: {},
            documentLines: [{ lineId: 'one' }],
          },
        ],
      },
      'orders.0.documentLines.0.lineId',
    ],
    [
      'a missing required field',
      {
        hasMore: false,
        orders: [
          {
            orderTypeCode: 'Purchase',
            documentCurrencyCode: 'EUR',
            sellerSupplierParty: {},
            documentLines: [],
          },
        ],
      },
      'orders.0.buyerCustomerParty',
    ],
    [
      'a currency that is not ISO 4217',
      {
        hasMore: false,
        orders: [
          {
            orderTypeCode: 'Purchase',
            documentCurrencyCode: 'euro',
            buyerCustomerParty: {},
            sellerSupplierParty: {},
            documentLines: [],
          },
        ],
      },
      'orders.0.documentCurrencyCode',
    ],
    ['no hasMore', { orders: [] }, 'hasMore'],
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
      futureField: { nested: true },
    };
    const page = await clientFor(await serve({ hasMore: false, marketplaceEvents: [event] })).listEvents();
    expect(page.items).toEqual([event]);
  });
});

describe('a listing that ignores the offset', () => {
  it('is cut off with a clear error instead of looping', async () => {
    const event = {
      eventId: crypto.randomUUID(),
      eventTypeCode: 'ServicePurchased',
      statusCode: 'ProvisioningStarted',
      description: 'x',
    };
    const client = clientFor(await serve({ hasMore: true, marketplaceEvents: [event] }));
    let yielded = 0;
    await expect(async () => {
      for await (const _ of client.newEvents(1)) yielded += 1;
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
