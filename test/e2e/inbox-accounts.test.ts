// One inbox across two accounts end to end in real Chromium (issue 23): two simulators on two
// origins serve one app through the browser preview. The inbox lists both accounts' orders, each
// row tagged, filtered by account on request; an order opens and is marked in its own account;
// the screens pass axe-core at the popover's and the desktop's sizes in both themes (kept as
// screenshots to look at); Needs attention lists both accounts' items, each named and acted on in
// its own; and the inbox held open for a minute costs both marketplaces only their
// polls and the new orders, counted where the calls land.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KeytarSecretStore, secretOwner } from '../../main/core/secrets';
import { SellerTrayService } from '../../main/core/service';
import { ConfSettingsStore } from '../../main/core/settings';
import { startPreview } from '../../main/preview/server';
import type { Settings } from '../../preload/model';
import type { Simulator } from '../../simulator/server';
import { axeViolations, cutTexts, faintFieldBorders } from '../support/axe';
import { buildRenderer, launchChromium } from '../support/browser';
import { makeDataDir } from '../support/core';
import { oneSellerMarketplace } from '../support/one-seller-marketplace';
import { REPO_ROOT } from '../support/processes';
import { admin } from '../support/raw-api';
import { HOLD_MS, INTERVAL_SECONDS, POLLS_IN_HOLD, since } from '../support/request-budget';

const SCREENSHOTS = join(REPO_ROOT, 'test-results', 'screenshots');
const EU = { clientId: 'eu-e2e-client', clientSecret: 'eu-e2e-secret-41c9' };
const US = { clientId: 'us-e2e-client', clientSecret: 'us-e2e-secret-8d2e' };

let renderer: Awaited<ReturnType<typeof buildRenderer>>;
let browser: Browser;
let eu: Simulator;
let us: Simulator;
const secrets = new KeytarSecretStore();
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  [renderer, browser, eu, us] = await Promise.all([
    buildRenderer(),
    launchChromium(),
    oneSellerMarketplace(21, 2201, 12, EU),
    oneSellerMarketplace(22, 3201, 12, US),
  ]);
  await mkdir(SCREENSHOTS, { recursive: true });
  await secrets.set(secretOwner(eu.url, EU.clientId), EU.clientSecret);
  await secrets.set(secretOwner(us.url, US.clientId), US.clientSecret);
}, 120_000);
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await admin(eu.url, 'POST', 'reset');
  await admin(us.url, 'POST', 'reset');
});
afterAll(async () => {
  await secrets.delete(secretOwner(eu.url, EU.clientId));
  await secrets.delete(secretOwner(us.url, US.clientId));
  await browser?.close();
  await eu?.close();
  await us?.close();
  await renderer?.remove();
});

type Viewport = { width: number; height: number };
const rows = (page: Page) => page.getByRole('listbox', { name: 'Orders' }).getByRole('option');

/** The app serving EU and US, its first sync done, a new order in each; its window at `viewport`. */
async function openApp(
  viewport: Viewport,
  colorScheme: 'light' | 'dark' = 'light',
  more: Partial<Settings> = {},
): Promise<{ page: Page; service: SellerTrayService }> {
  const dir = await makeDataDir();
  const settings = new ConfSettingsStore({ cwd: dir });
  settings.save({
    ...settings.load().settings,
    accounts: [
      { label: 'EU', baseUrl: eu.url, clientId: EU.clientId },
      { label: 'US', baseUrl: us.url, clientId: US.clientId },
    ],
    pollIntervalSeconds: INTERVAL_SECONDS,
    ...more,
  });
  const service = await SellerTrayService.open({ settings, secrets, dataRoot: dir });
  const preview = await startPreview({ service, rendererDir: renderer.dir });
  service.listening();
  cleanups.push(async () => {
    await service.close();
    await preview.close();
    await rm(dir, { recursive: true, force: true });
  });
  await service.handle('checkNow', undefined);
  await admin(eu.url, 'POST', 'purchases', {});
  await admin(us.url, 'POST', 'purchases', {});
  await service.handle('checkNow', undefined);
  const page = await browser.newPage({ viewport, colorScheme, locale: 'en-US' });
  cleanups.push(() => page.close());
  await page.goto(preview.url);
  await rows(page).first().waitFor();
  return { page, service };
}

describe.each([
  ['light', { width: 420, height: 640 }],
  ['dark', { width: 420, height: 640 }],
  ['light', { width: 1280, height: 800 }],
  ['dark', { width: 1280, height: 800 }],
] as const)('the inbox across two accounts, %s at %o', (colorScheme, viewport) => {
  const size = `${viewport.width}x${viewport.height}`;
  async function check(page: Page, screen: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, `${screen}-two-accounts-${colorScheme}-${size}.png`) });
    expect(await axeViolations(page), screen).toEqual([]);
    expect(await faintFieldBorders(page), screen).toEqual([]);
    expect(await cutTexts(page), screen).toEqual([]);
  }

  it("lists both accounts' orders tagged, filters by account, and opens an order in its own", async () => {
    const { page } = await openApp(viewport, colorScheme);
    // Both arrivals on top, each named by its account.
    const arrived = page.getByRole('group', { name: 'Just arrived' }).locator('.row-account');
    await expect.poll(() => arrived.allTextContents()).toHaveLength(2);
    expect((await arrived.allTextContents()).sort()).toEqual(['Account EU: ', 'Account US: ']);
    const all = await page.locator('.inbox-count').textContent();
    expect(all).toMatch(/^26 orders/);
    await check(page, 'inbox');

    await page.getByLabel('Filter by account').selectOption({ label: 'US' });
    await expect.poll(() => page.locator('.inbox-count').textContent()).toMatch(/^13 orders/);
    expect(await page.locator('.row-account', { hasText: 'EU' }).count()).toBe(0);
    await page.getByLabel('Filter by account').selectOption({ label: 'All accounts' });
    await expect.poll(() => page.locator('.inbox-count').textContent()).toMatch(/^26 orders/);

    await page
      .getByRole('group', { name: 'Just arrived' })
      .getByRole('option')
      .filter({ has: page.locator('.row-account', { hasText: 'US' }) })
      .click();
    await page.getByRole('region', { name: 'To provision' }).waitFor();
    expect(await page.locator('.order-account').textContent()).toBe('Account US');
    await check(page, 'order');
  }, 90_000);
});

describe.each([
  ['light', { width: 420, height: 640 }],
  ['dark', { width: 1280, height: 800 }],
] as const)('Needs attention across two accounts, %s at %o', (colorScheme, viewport) => {
  it("lists both accounts' items, each named by its account, and acts in the item's own", async () => {
    const { page, service } = await openApp(viewport, colorScheme, { reminderAfterMinutes: 15 });
    const quirks = (names: string[]) =>
      Promise.all([eu, us].map((sim) => admin(sim.url, 'PATCH', 'faults', { quirks: names })));
    cleanups.push(async () => void (await quirks([])));
    await quirks(['unreadable-events']);
    await service.handle('checkNow', undefined);
    const { notStarted, keptAside } = service.state().attention;
    expect(notStarted).toBeGreaterThan(0);
    expect(keptAside).toBeGreaterThan(0);

    await page.getByRole('button', { name: /^Needs attention/ }).click();
    const orders = page.getByRole('region', { name: 'New orders not started' });
    const aside = page.getByRole('region', { name: 'Unreadable items kept aside' });
    await aside.waitFor();
    // Both accounts' items, each named: the heading counts them all.
    expect(new Set(await orders.locator('.row-account').allTextContents())).toEqual(
      new Set(['Account EU: ', 'Account US: ']),
    );
    expect(new Set(await aside.locator('.row-account').allTextContents())).toEqual(
      new Set(['Account EU: ', 'Account US: ']),
    );
    expect(await orders.getByRole('heading').textContent()).toBe(`New orders not started ${notStarted}`);
    const size = `${viewport.width}x${viewport.height}`;
    await page.screenshot({ path: join(SCREENSHOTS, `attention-two-accounts-${colorScheme}-${size}.png`) });
    expect(await axeViolations(page)).toEqual([]);
    expect(await cutTexts(page)).toEqual([]);

    // A US order snoozed, in the US account only.
    await orders
      .getByRole('button', { name: /^Snooze for 1 hour: .* in US$/ })
      .first()
      .click();
    await orders.getByText(/urgent announcement snoozed until/).waitFor();
    const snoozed = orders.getByRole('listitem').filter({ hasText: 'urgent announcement snoozed until' });
    expect(await snoozed.locator('.row-account').allTextContents()).toEqual(['Account US: ']);
    // Marked seen in both accounts, each up to its own newest.
    await page.getByRole('button', { name: 'Mark the unreadable items as seen' }).click();
    await aside.waitFor({ state: 'detached' });
    expect(service.state().attention.keptAside).toBe(0);
  }, 90_000);
});

describe('the request budget of the inbox across two accounts', () => {
  it(
    'held open for a minute costs each marketplace only its polls and its new order',
    async () => {
      await openApp({ width: 1280, height: 800 });
      // The arrivals fetched, the window's reads done.
      await new Promise((r) => setTimeout(r, 3000));
      const before = { eu: { ...eu.requestCounts }, us: { ...us.requestCounts } };
      setTimeout(() => void admin(us.url, 'POST', 'purchases', {}), HOLD_MS / 3);
      setTimeout(() => void admin(eu.url, 'POST', 'purchases', {}), (2 * HOLD_MS) / 3);
      await new Promise((r) => setTimeout(r, HOLD_MS));
      const held = { eu: since(before.eu, eu.requestCounts), us: since(before.us, us.requestCounts) };
      console.log(`the inbox across EU and US held a minute: ${JSON.stringify(held)}`);
      for (const [name, holding] of Object.entries(held)) {
        const { listNewEvents = 0, listEvents = 0, getOrder = 0, listLicenses = 0, ...others } = holding;
        // Each poll reads the "new" listing and the tail of the "all" listing, a page each.
        expect(listNewEvents, name).toBeGreaterThan(0);
        expect(listNewEvents, name).toBeLessThanOrEqual(POLLS_IN_HOLD);
        expect(listEvents, name).toBeLessThanOrEqual(POLLS_IN_HOLD);
        // Its new order fetched once, by its own account.
        expect(getOrder, name).toBeLessThanOrEqual(1);
        expect(listLicenses, name).toBeLessThanOrEqual(1);
        expect(others, name).toEqual({});
      }
    },
    HOLD_MS + 60_000,
  );
});
