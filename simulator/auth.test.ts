import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody, PingResponse, TokenResponse } from '../main/core/api/wire';
import { rawCall, tokenFor } from '../test/support/raw-api';
import { OTHER_SELLER } from './marketplace-server';
import { type Simulator, startSimulator } from './server';

let now = Date.parse('2026-11-21T12:00:00Z');
let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 7, orders: 10, clock: () => now });
});
afterAll(() => sim.close());

function expectError(
  answer: { status: number; json: unknown },
  status: number,
  errorCode: string,
): ErrorBody {
  expect(answer.status).toBe(status);
  const body = ErrorBody.parse(answer.json);
  expect(body.errorCode).toBe(errorCode);
  return body;
}

describe('ping', () => {
  it('answers without authentication or request id', async () => {
    const answer = await rawCall(sim.url, 'ping', { requestId: null });
    expect(answer.status).toBe(200);
    const ping = PingResponse.parse(answer.json);
    expect(ping).toMatchObject({ stage: 'prod', version: 'v1', date: '2026-11-21-12:00:00' });
  });
});

describe('token issue', () => {
  it('issues an HS256 JWT with sub, sellerId, iat and exp = iat + 30 min', async () => {
    const answer = await rawCall(sim.url, 'createToken', { basic: ['demo-client', 'demo-secret'] });
    expect(answer.status).toBe(201);
    const { accessToken } = TokenResponse.parse(answer.json);
    const claims = decodeJwt(accessToken);
    expect(claims).toMatchObject({ sub: 'demo-client', sellerId: 1001, iat: now / 1000 });
    expect(claims.exp).toBe(now / 1000 + 1800);
  });

  it('accepts every client pair of a seller and tells sellers apart', async () => {
    expect(decodeJwt(await tokenFor(sim.url, 'demo-client-2', 'demo-secret-2')).sellerId).toBe(1001);
    const other = OTHER_SELLER.clients[0];
    expect(other).toBeDefined();
    if (!other) return;
    expect(decodeJwt(await tokenFor(sim.url, other.clientId, other.clientSecret)).sellerId).toBe(2002);
  });

  it.each([
    ['a wrong secret', { basic: ['demo-client', 'wrong'] as [string, string] }],
    ['an unknown client', { basic: ['nobody', 'demo-secret'] as [string, string] }],
    ['no Authorization header', {}],
    ['a malformed Authorization header', { headers: { Authorization: 'Basic !!!not-base64' } }],
    ['a Bearer scheme', { headers: { Authorization: 'Bearer abc' } }],
  ])('answers 401 to %s', async (_, call) => {
    const answer = await rawCall(sim.url, 'createToken', call);
    expectError(answer, 401, 'Unauthorized');
    expect(answer.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('requires X-Request-ID', async () => {
    const answer = await rawCall(sim.url, 'createToken', {
      basic: ['demo-client', 'demo-secret'],
      requestId: null,
    });
    expect(expectError(answer, 400, 'BadRequest').detailedDescription).toContain('X-Request-ID');
  });
});

describe('bearer authentication', () => {
  it('accepts a fresh token and rejects it once expired', async () => {
    const token = await tokenFor(sim.url, 'demo-client', 'demo-secret');
    expect((await rawCall(sim.url, 'listOrders', { token })).status).toBe(200);
    now += 1800 * 1000 - 1000;
    expect((await rawCall(sim.url, 'listOrders', { token })).status).toBe(200);
    now += 1000;
    const expired = await rawCall(sim.url, 'listOrders', { token });
    expect(expectError(expired, 401, 'Unauthorized').detailedDescription).toContain('expired');
  });

  it("rejects a token of another service (foreign signing key), counted as its client's call", async () => {
    const foreign = await startSimulator({
      port: 0,
      orders: 1,
      client: { clientId: 'foreign', clientSecret: 'x' },
      clock: () => now,
    });
    try {
      const token = await tokenFor(foreign.url, 'foreign', 'x');
      expect(foreign.requestsByClient).toEqual({ foreign: 1 });
      expectError(await rawCall(sim.url, 'listOrders', { token }), 401, 'Unauthorized');
      expectError(await rawCall(sim.url, 'createToken', { basic: ['foreign', 'x'] }), 401, 'Unauthorized');
      expect(sim.requestsByClient.foreign).toBe(2);
    } finally {
      await foreign.close();
    }
  });

  it.each([
    ['no token', {}],
    ['a malformed token', { token: 'not.a.jwt' }],
    ['a Basic header', { basic: ['demo-client', 'demo-secret'] as [string, string] }],
  ])('answers 401 to %s', async (_, call) => {
    const answer = await rawCall(sim.url, 'listEvents', call);
    expectError(answer, 401, 'Unauthorized');
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('rejects a tampered token', async () => {
    const token = await tokenFor(sim.url, 'demo-client', 'demo-secret');
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, sellerId: 2002 })).toString('base64url');
    expectError(
      await rawCall(sim.url, 'listOrders', { token: `${header}.${forged}.${signature}` }),
      401,
      'Unauthorized',
    );
  });
});

describe('X-Request-ID', () => {
  it.each([
    ['missing', null, 'missing'],
    ['not a UUID', 'request-1', 'UUID'],
  ])('answers 400 when it is %s, naming the header', async (_, requestId, words) => {
    const token = await tokenFor(sim.url, 'demo-client', 'demo-secret');
    const answer = await rawCall(sim.url, 'listOrders', { token, requestId });
    const body = expectError(answer, 400, 'BadRequest');
    expect(body.detailedDescription).toContain('X-Request-ID');
    expect(body.detailedDescription).toContain(words);
  });

  it('is echoed on the answer so support can trace the call', async () => {
    const token = await tokenFor(sim.url, 'demo-client', 'demo-secret');
    const requestId = crypto.randomUUID();
    const answer = await rawCall(sim.url, 'listOrders', { token, requestId });
    expect(answer.headers.get('x-request-id')).toBe(requestId);
  });
});

describe('routing', () => {
  it('answers 404 with the error body for an unknown path', async () => {
    const response = await fetch(`${sim.url}/seller/v1/nothing`);
    expect(response.status).toBe(404);
    expect(ErrorBody.parse(await response.json()).errorCode).toBe('NotFound');
  });

  it('answers 405 for a known path with the wrong method', async () => {
    const response = await fetch(`${sim.url}/seller/v1/orders`, { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect(ErrorBody.parse(await response.json()).errorCode).toBe('MethodNotAllowed');
    const events = await fetch(`${sim.url}/seller/v1/marketplaceEvents`, { method: 'PUT' });
    expect(events.headers.get('allow')).toBe('POST, GET');
  });
});
