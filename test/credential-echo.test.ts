// A marketplace or gateway that echoes the request's Authorization header (and the secret, the
// token) in its error words, over loopback HTTP: neither the diagnosis report (Settings →
// Diagnose, `seller-tray doctor`) nor the log carries any of it (issue 22). Both go through the
// one scrub, `withoutCredentials` in main/core/log.ts.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SellerApiClient } from '../main/core/api/client';
import { diagnose, formatDiagnosis } from '../main/core/diagnosis';
import { CREDENTIALS_REMOVED } from '../main/core/log';
import { fileLog } from '../main/file-log';
import { type CaptureServer, startCaptureServer } from './support/capture-server';
import { makeDataDir } from './support/core';
import { runTs } from './support/processes';

const CLIENT_ID = 'echo-client';
const SECRET = 'echo-secret-9d41/b7+e2';
/** Opaque, not a JWT: nothing in its shape gives it away. */
const TOKEN = 'opaque-token-4c8e1a77f0';
const BASIC = Buffer.from(`${CLIENT_ID}:${SECRET}`).toString('base64');

/** Every way the credentials could be echoed, found in a text that must have none. */
const LEAKS = [SECRET, encodeURIComponent(SECRET), TOKEN, BASIC, `Basic ${BASIC}`, `Bearer ${TOKEN}`];

let server: CaptureServer;
/** Whether the token request is refused (echoing the Basic header and the secret) or answered. */
let refuseToken = false;

beforeAll(async () => {
  server = await startCaptureServer((req, res) => {
    const authorization = req.headers.authorization ?? '';
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/base/v1/ping') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"stage":"echo"}');
    } else if (path === '/auth/v1/tokens' && !refuseToken) {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ accessToken: TOKEN, tokenType: 'Bearer' }));
    } else if (path === '/auth/v1/tokens') {
      // A marketplace that quotes the request back: the header, then the secret on its own.
      const secret = Buffer.from(authorization.slice(6), 'base64').toString().split(':')[1];
      res.writeHead(401, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          errorCode: 'invalid_client',
          description: `client rejected; request had {"authorization":"${authorization}"}`,
          detailedDescription: `secret ${secret} is not the one on file`,
        }),
      );
    } else if (path === '/seller/v1/orders') {
      // A gateway's plain-text page with the headers it received.
      res
        .writeHead(502, { 'content-type': 'text/plain' })
        .end(`Bad gateway. Authorization: ${authorization}`);
    } else {
      // The bare token, without the scheme that would give it away.
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ errorCode: 'expired', description: `token ${authorization.slice(7)} expired` }),
        );
    }
  });
});
afterAll(() => server.close());

function expectNoCredentials(text: string): void {
  for (const leak of LEAKS) expect(text).not.toContain(leak);
  expect(text).not.toMatch(/authorization\W+\w/i);
}

const options = () => ({
  baseUrl: server.url,
  credentials: { clientId: CLIENT_ID, clientSecret: async () => SECRET },
});

describe('credentials echoed in error words', () => {
  it('never reach the diagnosis report, whichever way they are echoed', async () => {
    for (const refused of [false, true]) {
      refuseToken = refused;
      const diagnosis = await diagnose(options());
      const report = formatDiagnosis(diagnosis, '0.0.0');
      // The echo was there (the attack reproduced), and was removed.
      expect(report).toContain(CREDENTIALS_REMOVED);
      expect(report).toMatch(refused ? /createToken +failed +HTTP 401/ : /listOrders +failed +HTTP 502/);
      expectNoCredentials(report);
      expectNoCredentials(JSON.stringify(diagnosis));
    }
    refuseToken = false;
  });

  it('never reach the log file', async () => {
    const dir = await makeDataDir();
    try {
      const log = fileLog(join(dir, 'logs'));
      const client = new SellerApiClient({ ...options(), log, retry: { maxAttempts: 1 } });
      await expect(client.listOrders()).rejects.toThrow(/HTTP 502/);
      await expect(client.listEvents()).rejects.toThrow(/HTTP 401/);
      refuseToken = true;
      const refused = new SellerApiClient({ ...options(), log, retry: { maxAttempts: 1 } });
      await expect(refused.ping().then(() => refused.authenticate())).rejects.toThrow(/HTTP 401/);
      refuseToken = false;
      const text = await readFile(log.file, 'utf8');
      expect(text).toContain(CREDENTIALS_REMOVED);
      expect(text).toMatch(/listOrders/);
      expectNoCredentials(text);
    } finally {
      refuseToken = false;
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("never reach `seller-tray doctor`'s report, its --json or its --verbose log", async () => {
    const env = {
      SELLER_API_BASE_URL: server.url,
      SELLER_CLIENT_ID: CLIENT_ID,
      SELLER_CLIENT_SECRET: SECRET,
    };
    for (const args of [
      ['doctor', '--verbose'],
      ['doctor', '--json'],
    ]) {
      const run = await runTs('main/cli/seller-tray.ts', args, env);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toContain(CREDENTIALS_REMOVED);
      expectNoCredentials(run.stdout);
      expectNoCredentials(run.stderr);
    }
  }, 30_000);
});
