// Issue 13, finding 4: a web page on another local origin added purchases to the demo
// marketplace with a no-cors POST (loopback was the admin endpoints' only guard). The same page
// in Chromium, against a simulator as tests run it and against the app's demo marketplace.
import { rm } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInDemo } from '../../main/demo';
import { DEFAULT_CLIENT } from '../../simulator/marketplace-server';
import { startSimulator } from '../../simulator/server';
import { launchChromium } from '../support/browser';
import { type CaptureServer, startCaptureServer } from '../support/capture-server';
import { makeDataDir } from '../support/core';
import { rawCall, tokenFor } from '../support/raw-api';

let browser: Browser;
/** The attacker's page: posts a purchase to the marketplace named in its query, as no-cors. */
let attacker: CaptureServer;

beforeAll(async () => {
  [browser, attacker] = await Promise.all([
    launchChromium(),
    startCaptureServer((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!doctype html><script>
        const target = new URLSearchParams(location.search).get('target');
        fetch(target + '/_simulator/purchases', { method: 'POST', mode: 'no-cors', body: '{}' })
          .then(() => { document.title = 'sent'; }, () => { document.title = 'refused'; });
      </script>`),
    ),
  ]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await attacker?.close();
});

async function ordersOf(baseUrl: string): Promise<number> {
  const token = await tokenFor(baseUrl, DEFAULT_CLIENT.clientId, DEFAULT_CLIENT.clientSecret);
  return (await rawCall(baseUrl, 'listOrders', { token, query: { limit: 100 } })).json.orders.length;
}

/** Opens the attacker's page against `baseUrl`, and waits until its request went out. */
async function attack(baseUrl: string): Promise<void> {
  const page = await browser.newPage();
  try {
    await page.goto(`${attacker.url}/?target=${encodeURIComponent(baseUrl)}`);
    await page.waitForFunction(() => document.title !== '');
    expect(await page.title()).toBe('sent');
  } finally {
    await page.close();
  }
}

describe('the admin endpoints against a no-cors page on another local origin', () => {
  it('of a simulator guarded by loopback alone, take its purchase: the attack is real', async () => {
    const sim = await startSimulator({ port: 0 });
    try {
      const before = await ordersOf(sim.url);
      await attack(sim.url);
      await expect.poll(() => ordersOf(sim.url)).toBe(before + 1);
    } finally {
      await sim.close();
    }
  }, 30_000);

  it("of the app's demo marketplace, add nothing", async () => {
    const dir = await makeDataDir();
    const demo = builtInDemo(dir);
    try {
      const { baseUrl } = await demo.start();
      const before = await ordersOf(baseUrl);
      await attack(baseUrl);
      // The page's request was answered (as no-cors: opaquely) before the count is read again.
      expect(await ordersOf(baseUrl)).toBe(before);
    } finally {
      await demo.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
