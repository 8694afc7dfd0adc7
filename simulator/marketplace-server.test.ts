import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, rawCall, tokenFor } from '../test/support/raw-api';
import { DEFAULT_CLIENT, type Marketplace, serveMarketplace } from './marketplace-server';

let dir: string;
let marketplace: Marketplace;
let token: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'marketplace-'));
  marketplace = await serveMarketplace({ port: 0, dataFile: join(dir, 'state.json') });
  token = await tokenFor(marketplace.url, DEFAULT_CLIENT.clientId, DEFAULT_CLIENT.clientSecret);
});
afterAll(async () => {
  await marketplace.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the marketplace served as specified (the demo’s)', () => {
  it('answers the Seller API as the spec has it: a token for 30 minutes, full pages, JSON errors', async () => {
    const [, payload] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8'));
    expect(claims.exp - claims.iat).toBe(30 * 60);
    const page = await rawCall(marketplace.url, 'listOrders', { token, query: { limit: 10 } });
    expect(page.status).toBe(200);
    expect(page.json).toMatchObject({ hasMore: true });
    expect(page.json.orders).toHaveLength(10);
    const tooLarge = await rawCall(marketplace.url, 'listOrders', { token, query: { limit: 101 } });
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(tooLarge.json.errorCode).toBe('BadRequest');
  });

  it('has no admin endpoints, not even for loopback callers', async () => {
    for (const [method, path] of [
      ['POST', 'purchases'],
      ['GET', 'state'],
      ['PATCH', 'faults'],
      ['POST', 'reset'],
    ] as const) {
      const answer = await admin(marketplace.url, method, path, method === 'GET' ? undefined : {});
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.json.errorCode).toBe('NotFound');
    }
  });

  it('offers a purchase added in process once, in the "new" listing', async () => {
    await rawCall(marketplace.url, 'listNewEvents', { token, query: { limit: 100 } }); // the seeded backlog
    const order = marketplace.addPurchase({});
    const fresh = await rawCall(marketplace.url, 'listNewEvents', { token, query: { limit: 100 } });
    const named = (e: { additionalProperties?: { name: string; value: unknown }[] }) =>
      e.additionalProperties?.find((p) => p.name === 'orderId')?.value;
    expect(fresh.json.marketplaceEvents.map(named)).toEqual([order.orderId]);
  });

  it('keeps a purchase added in process in its state file, with no call after it', async () => {
    const reopen = async () => {
      await marketplace.close();
      marketplace = await serveMarketplace({ port: 0, dataFile: join(dir, 'state.json') });
      token = await tokenFor(marketplace.url, DEFAULT_CLIENT.clientId, DEFAULT_CLIENT.clientSecret);
    };
    await reopen(); // nothing left to write
    const order = marketplace.addPurchase({});
    await reopen();
    const kept = await rawCall(marketplace.url, 'getOrder', { token, params: { orderId: order.orderId } });
    expect(kept.status).toBe(200);
  });
});
