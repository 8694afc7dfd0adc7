// The request budget of every view (design notes §3): keeping a screen open for a minute costs
// the marketplace no more calls than the polls already make. Each screen is held on an app of its
// own against a simulator of its own, all in the same minute, in real Chromium through the
// browser preview; so is the CLI's `watch`. Calls are counted where they land: at the simulator.
import { rm } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operation } from '../../main/core/api/routes';
import { KeytarSecretStore } from '../../main/core/secrets';
import type { SellerTrayService } from '../../main/core/service';
import { PRODUCTS } from '../../simulator/catalog';
import { type Simulator, startSimulator } from '../../simulator/server';
import { buildRenderer, launchChromium } from '../support/browser';
import { makeDataDir } from '../support/core';
import { openConfiguredPreview } from '../support/preview-app';
import { exitOf, spawnTs } from '../support/processes';
import { admin } from '../support/raw-api';
import { HOLD_MS, INTERVAL_SECONDS, POLLS_IN_HOLD, since } from '../support/request-budget';

const CLIENT = { clientId: 'budget-client', clientSecret: 'budget-secret-77a1' };

let renderer: Awaited<ReturnType<typeof buildRenderer>>;
let browser: Browser;
const secrets = new KeytarSecretStore();
const cleanups: (() => unknown)[] = [];

beforeAll(async () => {
  [renderer, browser] = await Promise.all([buildRenderer(), launchChromium()]);
}, 120_000);
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await browser?.close();
  await renderer?.remove();
});

async function marketplace(): Promise<Simulator> {
  const sim = await startSimulator({ port: 0, sellers: [{ sellerId: 1001, orders: 40, clients: [CLIENT] }] });
  cleanups.push(() => sim.close());
  return sim;
}

/**
 * An app on the preview, configured for `sim`, polling at the shortest interval, with a runbook
 * for every product (a link and a checklist on every order page); `page` when a window is open.
 */
async function openApp(
  sim: Simulator,
  withWindow: boolean,
): Promise<{ page?: Page; service: SellerTrayService }> {
  const { service, preview } = await openConfiguredPreview({
    sim,
    client: CLIENT,
    rendererDir: renderer.dir,
    secrets,
    settings: {
      pollIntervalSeconds: INTERVAL_SECONDS,
      undoSeconds: 10,
      runbooks: PRODUCTS.map((product) => ({
        itemId: product.sellersItemId,
        name: product.name,
        checklist: ['Create the tenant', 'Send the welcome mail'],
        links: [
          { label: 'Console', url: 'https://console.example.com/tenants/{buyerAccountId}?order={orderId}' },
        ],
        reasons: [],
      })),
    },
    cleanups,
  });
  // The first sync, the backlog and the fetch of every waiting order are done before any screen is held.
  await service.handle('checkNow', undefined);
  await until(() => sim.requestCounts.getOrder + sim.requestCounts.listOrders > 0 && settled(sim));
  if (!withWindow) return { service };
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  cleanups.push(() => page.close());
  await page.goto(preview.url);
  await page.getByRole('listbox', { name: 'Orders' }).getByRole('option').first().waitFor();
  return { page, service };
}

/** No call has landed at `sim` for a second. */
const quietSince = new WeakMap<Simulator, { total: number; at: number }>();
function settled(sim: Simulator): boolean {
  const total = Object.values(sim.requestCounts).reduce((a, b) => a + b, 0);
  const last = quietSince.get(sim);
  if (last?.total !== total) {
    quietSince.set(sim, { total, at: Date.now() });
    return false;
  }
  return Date.now() - last.at >= 1000;
}

async function until(condition: () => boolean, failure = () => 'timed out', ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(failure());
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A screen: how to reach it, and what reaching it may cost. */
interface Screen {
  name: string;
  window: boolean;
  reach?(page: Page, sim: Simulator): Promise<void>;
  /** Statuses sent during the minute (each order fetched again once a poll reads it back). */
  sends?: number;
}

const waitingOrderId = (sim: Simulator) => {
  const events = sim.store.listEvents(1001, 0, 100_000).items;
  const ids = events.map((e) => e.additionalProperties?.find((p) => p.name === 'orderId')?.value);
  return ids.find((id) => ids.filter((other) => other === id).length === 1) ?? '';
};

async function openOrder(page: Page, orderId: string): Promise<void> {
  await page.getByLabel('Search orders').fill(orderId);
  await page.getByRole('listbox', { name: 'Orders' }).getByRole('option').first().click();
  await page.getByRole('region', { name: 'To provision' }).waitFor();
}

/** Opens the order, starts provisioning, and waits (past the hold) until the mark's line shows `line`. */
async function markAndWait(page: Page, orderId: string, line: string): Promise<void> {
  await openOrder(page, orderId);
  await page.getByRole('button', { name: 'Start provisioning' }).click();
  await page.getByText(line).first().waitFor({ timeout: 30_000 });
}

const SCREENS: Screen[] = [
  { name: 'no window', window: false },
  { name: 'inbox', window: true },
  { name: 'order', window: true, reach: (page, sim) => openOrder(page, waitingOrderId(sim)) },
  {
    name: 'order with a status on its way',
    window: true,
    sends: 1,
    async reach(page, sim) {
      await openOrder(page, waitingOrderId(sim));
      await page.getByRole('button', { name: 'Start provisioning' }).click();
      await page
        .getByText(/Held|held/)
        .first()
        .waitFor();
    },
  },
  // A mark the marketplace refused stays on the order's page for good: the page follows the app's
  // state for it, and that must not read the order again and again.
  {
    name: 'order with a refused status',
    window: true,
    async reach(page, sim) {
      await admin(sim.url, 'PATCH', 'faults', {
        script: [{ operation: 'sendEvent', action: 'status', status: 403, times: 2 }],
      });
      await markAndWait(page, waitingOrderId(sim), 'Not sent: the marketplace refused it');
    },
  },
  {
    name: 'order with its runbook ticked',
    window: true,
    async reach(page, sim) {
      await openOrder(page, waitingOrderId(sim));
      const runbook = page.getByRole('region', { name: /^Runbook: / }).first();
      await runbook.getByRole('checkbox', { name: 'Create the tenant' }).check();
      await runbook.getByRole('group', { name: 'Checklist: 1 of 2 done' }).waitFor();
    },
  },
  {
    name: 'needs attention',
    window: true,
    async reach(page) {
      await page.getByRole('button', { name: /^Needs attention/ }).click();
      await page.locator('.attention').waitFor();
    },
  },
  {
    name: 'insights',
    window: true,
    async reach(page) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Insights' }).click();
      await page
        .getByRole('figure', { name: /^New orders per/ })
        .getByText(/new orders from/)
        .waitFor();
    },
  },
  {
    name: 'search results',
    window: true,
    async reach(page) {
      await page.getByLabel('Search orders').fill('e');
      await page.getByRole('listbox', { name: 'Orders' }).getByRole('option').first().waitFor();
    },
  },
  {
    name: 'settings',
    window: true,
    async reach(page) {
      await page.getByRole('button', { name: 'Settings' }).click();
      await page.getByRole('form', { name: 'Settings' }).waitFor();
    },
  },
  {
    name: 'diagnosis',
    window: true,
    async reach(page) {
      await page.getByRole('button', { name: 'Settings' }).click();
      await page.getByRole('button', { name: 'Diagnose connection' }).click();
      await page.getByRole('region', { name: 'Diagnosis report' }).waitFor();
    },
  },
];

interface Held {
  name: string;
  /** What reaching the screen cost, after the app had settled. */
  reaching: Partial<Record<Operation, number>>;
  /** What the minute on the screen cost. */
  holding: Partial<Record<Operation, number>>;
  sends?: number | undefined;
}

async function hold(screen: Screen): Promise<Held> {
  const sim = await marketplace();
  const { page } = await openApp(sim, screen.window);
  const start = { ...sim.requestCounts };
  if (page && screen.reach) await screen.reach(page, sim);
  await until(
    () => settled(sim),
    () => `${screen.name}: the calls never stopped: ${JSON.stringify(since(start, sim.requestCounts))}`,
  );
  const reached = { ...sim.requestCounts };
  // A purchase arrives during the minute: the views are told of it, and must not feed on it.
  setTimeout(() => void admin(sim.url, 'POST', 'purchases', {}), HOLD_MS / 3);
  await new Promise((r) => setTimeout(r, HOLD_MS));
  return {
    name: screen.name,
    reaching: since(start, reached),
    holding: since(reached, sim.requestCounts),
    sends: screen.sends,
  };
}

/** `seller-tray watch` for a minute, its first run's backlog recorded before. */
async function holdWatch(): Promise<Held> {
  const sim = await marketplace();
  const home = await makeDataDir();
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: `${home}/.config`,
    XDG_DATA_HOME: `${home}/.local/share`,
    SELLER_API_BASE_URL: sim.url,
    SELLER_CLIENT_ID: CLIENT.clientId,
    SELLER_CLIENT_SECRET: CLIENT.clientSecret,
  };
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  const child = spawnTs('main/cli/seller-tray.ts', ['watch', '--interval', String(INTERVAL_SECONDS)], env);
  const exited = exitOf(child);
  await until(() => sim.requestCounts.listEvents > 0 && settled(sim));
  const reached = { ...sim.requestCounts };
  setTimeout(() => void admin(sim.url, 'POST', 'purchases', {}), HOLD_MS / 3);
  await new Promise((r) => setTimeout(r, HOLD_MS));
  const holding = since(reached, sim.requestCounts);
  child.kill('SIGTERM');
  await exited;
  return { name: 'cli watch', reaching: {}, holding };
}

describe('the request budget', () => {
  it(
    'every screen held open for a minute, and the CLI watching, cost only the polls and the new order',
    async () => {
      const held = await Promise.all([...SCREENS.map(hold), holdWatch()]);
      console.log(
        held
          .map(
            (h) => `${h.name}: reaching ${JSON.stringify(h.reaching)}, a minute ${JSON.stringify(h.holding)}`,
          )
          .join('\n'),
      );
      for (const { name, reaching, holding, sends: marked = 0 } of held) {
        const {
          listNewEvents = 0,
          listEvents = 0,
          getOrder = 0,
          listLicenses = 0,
          sendEvent = 0,
          ...others
        } = holding;
        // Each poll reads the "new" listing and the tail of the "all" listing, a page each.
        expect(listNewEvents, name).toBeLessThanOrEqual(POLLS_IN_HOLD);
        expect(listEvents, name).toBeLessThanOrEqual(POLLS_IN_HOLD);
        // The new order fetched once; a status held on screen sent once, and its order fetched
        // again once the poll reads the status back (its events changed: the same without a window).
        expect(getOrder, name).toBeLessThanOrEqual(1 + marked);
        expect(listLicenses, name).toBeLessThanOrEqual(1 + marked);
        expect(sendEvent, name).toBe(marked);
        expect(others, name).toEqual({});
        // Reaching a screen fetches nothing fetched within the poll interval; diagnosis asks once.
        const { getOrder: opened = 0, listLicenses: licensed = 0 } = reaching;
        expect(opened + licensed, name).toBeLessThanOrEqual(2);
      }
    },
    HOLD_MS + 120_000,
  );
});
