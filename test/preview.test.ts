// The browser preview's server: the bridge over loopback HTTP and its guards.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeytarSecretStore } from '../main/core/secrets';
import { SellerTrayService } from '../main/core/service';
import { ConfSettingsStore } from '../main/core/settings';
import { builtInDemo } from '../main/demo';
import { MAX_EVENT_STREAMS, type Preview, startPreview } from '../main/preview/server';
import { CONTENT_SECURITY_POLICY } from '../main/renderer-serving';
import { makeDataDir } from './support/core';

let dir: string;
let preview: Preview;
let service: SellerTrayService;
let demo: ReturnType<typeof builtInDemo>;

beforeAll(async () => {
  dir = await makeDataDir();
  const rendererDir = join(dir, 'renderer');
  await mkdir(rendererDir);
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>Seller Tray</title>');
  await writeFile(join(dir, 'secret.txt'), 'not for the browser');
  demo = builtInDemo(dir);
  service = await SellerTrayService.open({
    settings: new ConfSettingsStore({ cwd: dir }),
    secrets: new KeytarSecretStore(),
    dataRoot: dir,
    demo,
  });
  preview = await startPreview({ service, rendererDir });
  service.listening();
});
afterAll(async () => {
  service.close();
  await preview.close();
  await demo.stop();
  await rm(dir, { recursive: true, force: true });
});

const bridge = (
  channel: string,
  init: { token?: string; body?: string; headers?: Record<string, string> } = {},
) =>
  fetch(`${preview.origin}/bridge/${channel}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${init.token ?? preview.token}`, ...init.headers },
    ...(init.body === undefined ? {} : { body: init.body }),
  });

/** A raw request, with the Host header and path exactly as given. */
function raw(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const { port } = new URL(preview.origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the preview server', () => {
  it('prints an address carrying the token in its fragment only', () => {
    expect(preview.url).toBe(`${preview.origin}/#token=${preview.token}`);
    expect(preview.token).toMatch(/^[\w-]{43}$/);
  });

  it('serves the renderer with a strict Content-Security-Policy', async () => {
    const response = await fetch(`${preview.origin}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toContain('Seller Tray');
  });

  it('serves nothing outside the renderer', async () => {
    expect((await raw('/%2e%2e/secret.txt', { Host: new URL(preview.origin).host })).status).toBe(404);
    expect((await raw('/../secret.txt', { Host: new URL(preview.origin).host })).status).toBe(404);
  });

  it('refuses bridge calls without the token, or with another', async () => {
    expect((await bridge('getState', { token: '' })).status).toBe(401);
    expect((await bridge('getState', { token: 'x'.repeat(43) })).status).toBe(401);
    const events = await fetch(`${preview.origin}/bridge/events`, {
      headers: { Authorization: 'Bearer wrong' },
    });
    expect(events.status).toBe(401);
  });

  it('takes the token only as an Authorization header, never from the address', async () => {
    const inAddress = await fetch(`${preview.origin}/bridge/events?token=${preview.token}`);
    expect(inAddress.status).toBe(401);
    const inQuery = await fetch(`${preview.origin}/bridge/getState?token=${preview.token}`, {
      method: 'POST',
    });
    expect(inQuery.status).toBe(401);
    const unprefixed = await bridge('getState', { headers: { Authorization: preview.token } });
    expect(unprefixed.status).toBe(401);
  });

  it('answers a bad % escape with 400, not a server error', async () => {
    const host = { Host: new URL(preview.origin).host };
    for (const path of ['/%E0%A4%A', '/%', '/assets/%zz.js'])
      expect((await raw(path, host)).status).toBe(400);
    expect((await raw('/%69ndex.html', host)).status).toBe(200);
  });

  it(`keeps at most ${MAX_EVENT_STREAMS} event streams open, and takes another once one closes`, async () => {
    const open = () =>
      fetch(`${preview.origin}/bridge/events`, { headers: { Authorization: `Bearer ${preview.token}` } });
    const streams = [];
    for (let i = 0; i < MAX_EVENT_STREAMS; i++) streams.push(await open());
    expect(streams.every((s) => s.status === 200)).toBe(true);
    const refused = await open();
    expect(refused.status).toBe(503);
    expect(await refused.text()).toContain('Too many windows');
    await streams.pop()?.body?.cancel();
    // The server learns of the closed stream a moment later.
    await expect
      .poll(async () => {
        const again = await open();
        if (again.ok) streams.push(again);
        return again.status;
      })
      .toBe(200);
    for (const stream of streams) await stream.body?.cancel();
  });

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin', async () => {
    expect((await raw('/', { Host: `evil.example:${new URL(preview.origin).port}` })).status).toBe(421);
    expect((await bridge('getState', { headers: { Origin: 'http://evil.example' } })).status).toBe(403);
  });

  it('answers bad requests with a clear refusal', async () => {
    expect((await bridge('dropTables')).status).toBe(404);
    const notJson = await bridge('getOrder', { body: '{"orderId":' });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual({
      ok: false,
      error: { code: 'invalid-input', message: 'the request body is not JSON' },
    });
    const invalid = await (await bridge('getOrder', { body: '{"orderId": 7}' })).json();
    expect(invalid).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
  });

  it('runs the demo, lists its orders, and streams its events', async () => {
    const started = await (await bridge('startDemo')).json();
    expect(started).toMatchObject({ ok: true, value: { setup: 'demo' } });
    await bridge('checkNow');
    const orders = await (await bridge('listOrders', { body: '{}' })).json();
    expect(orders.value.orders.length).toBeGreaterThan(0);
    expect(orders.value.total).toBe(orders.value.orders.length);

    const stream = await fetch(`${preview.origin}/bridge/events`, {
      headers: { Authorization: `Bearer ${preview.token}` },
    });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const reader = stream.body?.getReader();
    const first = new TextDecoder().decode((await reader?.read())?.value);
    expect(first).toMatch(/^data: \{"type":"app-state","state":\{"setup":"demo"/);
    await reader?.cancel();

    // Leaving the demo is one step: back to onboarding, with no demo address left behind.
    const left = await (await bridge('setSettings', { body: '{"demoMode": false}' })).json();
    expect(left).toMatchObject({ ok: true, value: { demoMode: false, baseUrl: '', clientId: '' } });
    const state = await (await bridge('getState')).json();
    expect(state.value).toMatchObject({ setup: 'unconfigured', baseUrl: '', clientId: '' });
  });
});
