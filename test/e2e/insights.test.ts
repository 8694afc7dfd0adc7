// Insights end to end in real Chromium (issue 26): the built renderer over the browser preview's
// bridge, the service and store, the simulator on loopback. Reached from the header (a small chart
// at tray size, the header still on one row), drawn light and dark at 1280×800 and 420×640 with
// axe-core finding nothing, each chart's table shown by its toggle and its CSV downloaded, and
// opening it and changing the period costs the marketplace no call.
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KeytarSecretStore, secretOwner } from '../../main/core/secrets';
import { SellerTrayService } from '../../main/core/service';
import { ConfSettingsStore } from '../../main/core/settings';
import { type Preview, startPreview } from '../../main/preview/server';
import { type Simulator, startSimulator } from '../../simulator/server';
import { axeViolations, cutTexts, faintFieldBorders } from '../support/axe';
import { buildRenderer, launchChromium } from '../support/browser';
import { makeDataDir } from '../support/core';
import { REPO_ROOT } from '../support/processes';
import { admin } from '../support/raw-api';

const SCREENSHOTS = join(REPO_ROOT, 'test-results', 'screenshots');
const CLIENT = { clientId: 'insights-client', clientSecret: 'insights-secret-5e1d' };

let renderer: Awaited<ReturnType<typeof buildRenderer>>;
let browser: Browser;
let sim: Simulator;
const secrets = new KeytarSecretStore();

beforeAll(async () => {
  [renderer, browser, sim] = await Promise.all([
    buildRenderer(),
    launchChromium(),
    startSimulator({ port: 0, seed: 26, sellers: [{ sellerId: 1001, orders: 120, clients: [CLIENT] }] }),
  ]);
  await mkdir(SCREENSHOTS, { recursive: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await sim?.close();
  await renderer?.remove();
});

const opened: { page: Page; service: SellerTrayService; preview: Preview; dir: string }[] = [];
afterEach(async () => {
  for (const { page, service, preview, dir } of opened.splice(0)) {
    await page.close();
    await service.close();
    await preview.close();
    await rm(dir, { recursive: true, force: true });
  }
  await secrets.delete(secretOwner(sim.url, CLIENT.clientId));
});

async function openApp(colorScheme: 'light' | 'dark', viewport: { width: number; height: number }) {
  const dir = await makeDataDir();
  const settings = new ConfSettingsStore({ cwd: dir });
  settings.save({ ...settings.load().settings, baseUrl: sim.url, clientId: CLIENT.clientId });
  await secrets.set(secretOwner(sim.url, CLIENT.clientId), CLIENT.clientSecret);
  const service = await SellerTrayService.open({ settings, secrets, dataRoot: dir });
  const preview = await startPreview({ service, rendererDir: renderer.dir });
  service.listening();
  const page = await browser.newPage({ colorScheme, viewport, locale: 'en-US', acceptDownloads: true });
  opened.push({ page, service, preview, dir });
  await page.goto(preview.url);
  return { page, service };
}

/** Every request the simulator has answered so far. */
async function requestsSoFar(): Promise<number> {
  const counts = (await admin(sim.url, 'GET', 'state')).json.requests as Record<string, number>;
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

/** Waits until the marketplace has had no call for a while: the first start's reads are over. */
async function quiet(): Promise<number> {
  let before = await requestsSoFar();
  for (;;) {
    await new Promise((done) => setTimeout(done, 700));
    const now = await requestsSoFar();
    if (now === before) return now;
    before = now;
  }
}

describe.each([
  ['light', { width: 1280, height: 800 }],
  ['dark', { width: 1280, height: 800 }],
  ['light', { width: 420, height: 640 }],
  ['dark', { width: 420, height: 640 }],
] as const)('Insights in the %s theme at %o', (colorScheme, viewport) => {
  const size = `${viewport.width}x${viewport.height}`;

  it('opens from the header, passes axe-core, shows a table, downloads CSV, and costs no call', async () => {
    const { page } = await openApp(colorScheme, viewport);
    await page
      .getByRole('listbox', { name: 'Orders' })
      .getByRole('option')
      .first()
      .waitFor({ timeout: 30_000 });

    // The header keeps to its row with Insights in it: nothing wider than the window or its row.
    const header = await page.evaluate(() => {
      const top = document.querySelector('.header-top') as HTMLElement;
      // The Pause menu's choices are hidden until it opens: they take no room.
      const buttons = [...top.querySelectorAll('button')]
        .map((b) => b.getBoundingClientRect())
        .filter((r) => r.width > 0);
      return {
        scroll: top.scrollWidth,
        width: top.clientWidth,
        page: document.documentElement.scrollWidth,
        right: Math.max(...buttons.map((r) => r.right)),
        // One row: every control overlaps every other vertically.
        oneRow: Math.max(...buttons.map((r) => r.top)) < Math.min(...buttons.map((r) => r.bottom)),
      };
    });
    await page.screenshot({ path: join(SCREENSHOTS, `insights-header-${colorScheme}-${size}.png`) });
    expect(header.scroll).toBeLessThanOrEqual(header.width);
    expect(header.page).toBeLessThanOrEqual(viewport.width);
    expect(header.right).toBeLessThanOrEqual(viewport.width);
    expect(header.oneRow).toBe(true);

    const before = await quiet();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Insights' }).click();
    const orders = page.getByRole('figure', { name: /^New orders per/ });
    await orders.getByText(/new orders from/).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      viewport.width,
    );
    await page.screenshot({ path: join(SCREENSHOTS, `insights-${colorScheme}-${size}.png`) });
    expect(await axeViolations(page)).toEqual([]);
    expect(await cutTexts(page)).toEqual([]);
    expect(await faintFieldBorders(page)).toEqual([]);

    // Ninety days by week, then a chart's table shown.
    await page.getByLabel('Period').selectOption('90');
    await page.getByLabel('By').selectOption('week');
    await page.getByRole('figure', { name: /^New orders per week/ }).waitFor();
    const firstAction = page.getByRole('figure', { name: 'Time to the first action' });
    await firstAction.getByRole('button', { name: 'Show table' }).click();
    await firstAction.getByRole('table').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, `insights-table-${colorScheme}-${size}.png`) });
    expect(await axeViolations(page)).toEqual([]);
    expect(await cutTexts(page)).toEqual([]);
    const reasons = page.getByRole('figure', { name: 'Failed reasons' });
    await reasons.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, `insights-reasons-${colorScheme}-${size}.png`) });

    const download = page.waitForEvent('download');
    await firstAction.getByRole('button', { name: 'Download CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(
      /^seller-tray-first-action-\d{4}-\d\d-\d\d-to-\d{4}-\d\d-\d\d\.csv$/,
    );
    const csv = await readFile((await file.path()) ?? '', 'utf8');
    const [head, ...rows] = csv.trimEnd().split('\r\n');
    expect(head).toBe('Week of,Orders started,Median (minutes),90th percentile (minutes)');
    expect(rows.length).toBeGreaterThanOrEqual(13);
    expect(rows.some((row) => /^\d{4}-\d\d-\d\d,[1-9]\d*,\d+(\.\d)?,\d+(\.\d)?$/.test(row))).toBe(true);

    expect(await requestsSoFar()).toBe(before);
  }, 120_000);
});
