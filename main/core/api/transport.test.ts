import { type AddressInfo, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startCaptureServer } from '../../../test/support/capture-server';
import { SellerApiClient } from './client';
import { checkBaseUrl, isTlsFailure, OriginError, originBound, tlsProtocolFailure } from './transport';

describe('base URL', () => {
  it.each([
    ['https://marketplace.example/', 'https://marketplace.example'],
    ['https://marketplace.example/api/', 'https://marketplace.example/api'],
    ['http://127.0.0.1:4010', 'http://127.0.0.1:4010'],
    ['http://localhost:4010/', 'http://localhost:4010'],
    ['http://[::1]:4010', 'http://[::1]:4010'],
  ])('accepts %s as %s', (raw, url) => {
    expect(checkBaseUrl(raw)).toEqual({ ok: true, url });
  });

  // an address that is no URL is quoted whole in the problem, so credentials in
  // it (https://id:secret@host:99999, a port out of range) reach stderr, the window and the log.
  it('refuses an address that is no URL without repeating the credentials in it', () => {
    const result = checkBaseUrl('https://us-client:s3cret-Pa55@us.marketplace.example:99999');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).not.toContain('s3cret-Pa55');
  });

  it.each([
    ['http://marketplace.example', 'https'],
    ['http://127.0.0.1.example', 'https'],
    ['ftp://marketplace.example', 'https'],
    ['marketplace.example', 'not a URL'],
    ['https://user:pw@marketplace.example', 'credentials'],
    ['https://marketplace.example/?x=1', 'query'],
  ])('refuses %s, saying why', (raw, why) => {
    const result = checkBaseUrl(raw);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toContain(why);
  });
});

describe('TLS failure', () => {
  it("recognises Node's and Chromium's certificate errors, and nothing else", () => {
    const nodeError = new TypeError('fetch failed', {
      cause: Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }),
    });
    expect(isTlsFailure(nodeError)).toBe(true);
    expect(isTlsFailure(new Error('net::ERR_CERT_AUTHORITY_INVALID'))).toBe(true);
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    expect(isTlsFailure(refused)).toBe(false);
  });

  it('tells a plain http answer to TLS (https:// at an http:// port) apart, as no certificate is involved', () => {
    const plain = new TypeError('fetch failed', {
      cause: Object.assign(
        new Error('C0:error:0A00010B:SSL routines:tls_validate_record_header:wrong version number'),
        {
          code: 'ERR_SSL_WRONG_VERSION_NUMBER',
        },
      ),
    });
    expect(tlsProtocolFailure(plain)).toBe('plain');
    expect(tlsProtocolFailure(new Error('unable to get local issuer certificate'))).toBeUndefined();
  });
});

describe('TLS failures that are not certificates', () => {
  it("tells Chromium's plain http answer to https:// (net.fetch, the app's transport) as one, not a certificate", () => {
    // What Chromium reports for an https:// address whose port answers in plain http (BoringSSL's
    // WRONG_VERSION_NUMBER, reported as a protocol error): the app meets this, not OpenSSL's words.
    const chromium = new Error('net::ERR_SSL_PROTOCOL_ERROR');
    expect(tlsProtocolFailure(chromium)).toBe('protocol');
  });

  it('reads a connection reset before TLS began (a firewall, a restart) as a network failure, not a certificate', async () => {
    const resetting = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve));
    const { port } = resetting.address() as AddressInfo;
    try {
      const error = await fetch(`https://127.0.0.1:${port}/`).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect(isTlsFailure(error)).toBe(false);
    } finally {
      resetting.close();
    }
  });
});

// Chromium's ERR_SSL_PROTOCOL_ERROR is its catch-all for a handshake that failed
// (net/ssl/openssl_ssl_util.cc maps every BoringSSL error it does not name to it, and a
// handshake_failure alert after the ClientHello: a server demanding a client certificate, a
// TLS-inspecting proxy, an alert such as internal_error). Unlike OpenSSL's "wrong version number"
// it is no sign of a plain http answer, so "probably http://" sends people to the wrong place.
describe('what the app is told of a TLS protocol error', () => {
  const credentials = { clientId: 'c', clientSecret: async () => 's' };
  async function told(thrown: Error): Promise<string> {
    const transport = async (): Promise<Response> => {
      throw thrown;
    };
    const client = new SellerApiClient({ baseUrl: 'https://marketplace.example', credentials, transport });
    const error = await client.ping().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    return (error as Error).message;
  }

  it("says a plain answer is likely only from OpenSSL's words, not from Chromium's catch-all", async () => {
    const openssl = Object.assign(new Error('ssl3_get_record:wrong version number'), {
      code: 'ERR_SSL_WRONG_VERSION_NUMBER',
    });
    expect(await told(new TypeError('fetch failed', { cause: openssl }))).toContain(
      'http:// rather than https://',
    );
    const chromium = await told(new Error('net::ERR_SSL_PROTOCOL_ERROR'));
    expect(chromium).not.toMatch(/probably http:\/\//);
  });
});

describe('the transport bound to an origin', () => {
  it('sends to its origin, under any path, and refuses any other origin before sending', async () => {
    const marketplace = await startCaptureServer((_req, res) => res.writeHead(200).end('{}'));
    const elsewhere = await startCaptureServer();
    try {
      const transport = originBound(`${marketplace.url}/api`);
      expect((await transport(`${marketplace.url}/auth/v1/tokens`, { method: 'POST' })).status).toBe(200);
      for (const url of [
        `${elsewhere.url}/auth/v1/tokens`,
        `${marketplace.url.replace('http:', 'https:')}/x`,
        // What a base URL glued to a path starting with "@" would make of it.
        `http://127.0.0.1@${elsewhere.url.slice('http://'.length)}/x`,
      ]) {
        await expect(transport(url, { headers: { Authorization: 'Basic c2VjcmV0' } })).rejects.toThrow(
          OriginError,
        );
      }
      expect(marketplace.requests).toHaveLength(1);
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await marketplace.close();
      await elsewhere.close();
    }
  });
});

describe("the base URL's path", () => {
  it('holds for every call: a route with a dot segment in any spelling is refused before sending', async () => {
    const marketplace = await startCaptureServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"accessToken":"t","tokenType":"Bearer"}'),
    );
    try {
      const baseUrl = `${marketplace.url}/tenant-a/api`;
      const credentials = { clientId: 'c', clientSecret: async () => 's' };
      for (const path of ['/%2e%2e/%2e%2e/admin', '/.%2E/x', '/a/../../b']) {
        // Past the settings file's check (routePathProblem), as a caller could pass them.
        const client = new SellerApiClient({ baseUrl, credentials, routes: { ping: { path } } });
        await expect(client.ping()).rejects.toThrow(
          /leads out of the marketplace's base path \/tenant-a\/api/,
        );
      }
      expect(marketplace.requests).toEqual([]);
      // Under the base path, a route and its parameters still reach the marketplace.
      await new SellerApiClient({ baseUrl, credentials, routes: { ping: { path: '/v2/ping' } } }).ping();
      expect(marketplace.requests.map((r) => r.url)).toEqual(['/tenant-a/api/v2/ping']);
    } finally {
      await marketplace.close();
    }
  });
});
