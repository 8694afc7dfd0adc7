// @vitest-environment happy-dom
// What a poll costs the inbox's store reads: the real service and core against the simulator
// over loopback, its events as they come, and the Inbox component on a bridge that counts the
// pages it reads (listOrders calls). 500 orders are listed and scrolled through, so all five
// pages are loaded; then polls that change nothing, change one order's status, and bring a new
// order; after each, the rows in view (at the top and deep in the list) are the store's. The
// figures are printed (`npx vitest run test/inbox-reads.test.tsx`); before the window was told
// what changed they were 5, 15 and 20 pages (every loaded page on each state event). The same
// runs with the 500 orders in two accounts on two simulators, the changes in one of them: one
// account's change reads no more pages of the inbox across both than one account's does.

import { rm } from 'node:fs/promises';
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { fetch as nodeFetch } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import type { SecretStore } from '../main/core/secrets';
import { SellerTrayService } from '../main/core/service';
import { ConfSettingsStore } from '../main/core/settings';
import { type Bridge, CHANNELS, type Channel } from '../preload/contract';
import { namedAccount } from '../preload/served-account';
import { BridgeProvider } from '../renderer/bridge/context';
import { Inbox } from '../renderer/components/Inbox';
import { UndoProvider } from '../renderer/components/UndoBar';
import { statusLabel } from '../renderer/format';
import { useAccountLabels } from '../renderer/hooks/useAccountLabels';
import { PAGE_SIZE } from '../renderer/hooks/useOrderPages';
import { type Simulator, startSimulator } from '../simulator/server';
import { makeDataDir, openLaptop, removeDataDir, startedElsewhere } from './support/core';
import { admin } from './support/raw-api';
import { withInboxHeight } from './support/renderer/layout';

// happy-dom's fetch applies a page's rules (CORS) to the core's calls: the core and the test's
// own calls to the simulator go through Node's, as in the app.
globalThis.fetch = nodeFetch as unknown as typeof fetch;

const ORDERS = 500;
const PAGES = ORDERS / PAGE_SIZE;
withInboxHeight(480);

/** The simulator's public demo secret, held in memory: this measures reads, not the keychain. */
const demoSecret: SecretStore = {
  get: async () => 'demo-secret',
  set: async () => undefined,
  delete: async () => false,
  adoptUnbound: async () => false,
};

/** The marketplaces, the last one changing; the service serving them all, its inbox across them. */
let sims: Simulator[] = [];
let sim: Simulator;
let service: SellerTrayService;
let dataDir: string;

/** The app over `accounts` simulators holding the 500 orders between them, all read and fetched. */
async function openApp(accounts: number): Promise<void> {
  sims = await Promise.all(
    Array.from({ length: accounts }, (_, i) =>
      startSimulator({ port: 0, orders: ORDERS / accounts, seed: 4 + i }),
    ),
  );
  sim = sims.at(-1) as Simulator;
  dataDir = await makeDataDir();
  const settings = new ConfSettingsStore({ cwd: dataDir });
  settings.save({
    ...settings.load().settings,
    accounts: sims.map((s, i) => ({ label: `M${i + 1}`, baseUrl: s.url, clientId: 'demo-client' })),
    undoSeconds: 0,
  });
  service = await SellerTrayService.open({ settings, secrets: demoSecret, dataRoot: dataDir });
  // The windows rendered below subscribe as they open: none hears what the start told.
  service.listening();
  await service.handle('checkNow', undefined);
  // The first start's backlog read and every order's fetch are done before the window opens.
  await waitFor(
    async () => {
      const answer = await service.handle('listOrders', { backlog: 'shown', limit: ORDERS });
      expect(answer.ok && answer.value.orders.length === ORDERS).toBe(true);
      expect(answer.ok && answer.value.orders.every((o) => o.buyer !== undefined)).toBe(true);
    },
    { timeout: 60_000, interval: 200 },
  );
}

async function closeApp(): Promise<void> {
  cleanup();
  await service?.close();
  for (const s of sims.splice(0)) await s.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}
afterAll(closeApp);

/** The window's bridge, in this process: every call answered by the service, every page read counted. */
function countingBridge() {
  const pages: number[] = [];
  /** Every call but the pages, by channel. */
  const others: string[] = [];
  let inFlight = 0;
  let lastActivity = Date.now();
  const bridge = Object.fromEntries(
    CHANNELS.map((channel: Channel) => [
      channel,
      async (request: unknown) => {
        if (channel === 'listOrders') pages.push((request as { offset?: number }).offset ?? 0);
        else others.push(channel);
        inFlight += 1;
        lastActivity = Date.now();
        try {
          return await service.handleMessage(channel, request);
        } finally {
          inFlight -= 1;
          lastActivity = Date.now();
        }
      },
    ]),
  ) as unknown as Bridge;
  bridge.onEvent = (listener) =>
    service.onEvent((event) => {
      lastActivity = Date.now();
      act(() => listener(event));
    });
  return {
    bridge,
    pages,
    others,
    /** Resolves once no call is under way and nothing happened for a while (the fetches after a poll included). */
    async quiet(): Promise<void> {
      await waitFor(() => expect(inFlight === 0 && Date.now() - lastActivity > 400).toBe(true), {
        timeout: 20_000,
        interval: 50,
      });
    },
  };
}

const rows = () => within(screen.getByRole('listbox', { name: 'Orders' })).queryAllByRole('option');

/** Scrolls the list to row `index` (the list's own spacer says how tall it is). */
function scrollTo(list: HTMLElement, index: number): void {
  const height = Number.parseFloat((list.firstElementChild as HTMLElement).style.height);
  const top = (index / ORDERS) * height;
  Object.defineProperty(list, 'scrollTop', { configurable: true, get: () => top });
  act(() => {
    list.dispatchEvent(new Event('scroll'));
  });
}

/** Scrolls the list through every page, as a user would, until each was read. */
async function scrollThrough(list: HTMLElement, pages: number[]): Promise<void> {
  for (let page = 1; page < PAGES; page++) {
    scrollTo(list, page * PAGE_SIZE + PAGE_SIZE / 2);
    await waitFor(() => expect(pages).toContain(page * PAGE_SIZE));
  }
}

/** Each row in view shows the order the store has at its place, with its status. */
async function showsTheStore(): Promise<void> {
  const shown = rows();
  expect(shown.length).toBeGreaterThan(0);
  for (const row of shown) {
    const place = Number(row.getAttribute('aria-posinset')) - 1;
    const answer = await service.handle('listOrders', { backlog: 'shown', offset: place, limit: 1 });
    const truth = answer.ok ? answer.value.orders[0] : undefined;
    // With more than one account, the row names its account first.
    const label = namedAccount(service.state().accounts, truth?.account)?.label;
    const title = [label, truth?.buyer ?? '?'].filter(Boolean).join(' — ');
    expect(row.getAttribute('title')?.startsWith(title), `row ${place}`).toBe(true);
    expect(row.querySelector('.chip')?.getAttribute('title')).toBe(statusLabel(truth?.status));
  }
}
/** The inbox over the service's accounts, as the window shows it. */
function ServiceInbox() {
  return (
    <Inbox
      query={{ filter: 'all', search: '', backlog: 'shown' }}
      onQueryChange={() => undefined}
      selectedId={null}
      onSelect={() => undefined}
      onOpen={() => undefined}
      accountLabels={useAccountLabels(service.state().accounts)}
    />
  );
}

describe.each([1, 2])('the inbox on each poll, with 500 orders loaded in %i account(s)', (accounts) => {
  it('reads no page when a poll changed nothing, and only what changed when one did', async () => {
    await openApp(accounts);
    const counting = countingBridge();
    render(
      <BridgeProvider bridge={counting.bridge}>
        <UndoProvider>
          <ServiceInbox />
        </UndoProvider>
      </BridgeProvider>,
    );
    await waitFor(() => expect(rows().length).toBeGreaterThan(0));
    const list = screen.getByRole('listbox', { name: 'Orders' });
    await scrollThrough(list, counting.pages);
    await counting.quiet();
    expect(new Set(counting.pages).size).toBe(PAGES);

    /** The pages one poll read (after `change` at the marketplace); what the window then shows, at the top and deep in the list. */
    const perPoll = async (change?: () => Promise<void>): Promise<number[]> => {
      await change?.();
      counting.pages.length = 0;
      counting.others.length = 0;
      await service.handle('checkNow', undefined);
      await counting.quiet();
      const read = [...counting.pages];
      scrollTo(list, 0);
      await showsTheStore();
      scrollTo(list, 3 * PAGE_SIZE + PAGE_SIZE / 2);
      await showsTheStore();
      await counting.quiet();
      expect(counting.pages).toEqual(read);
      return read;
    };

    const quiet = await perPoll();
    // The inbox's settings (its order, its urgency limits) are read again on each state event.
    const otherCalls = [...counting.others];

    // Another laptop of the seller starts a waiting order: its row changes and moves to another group.
    const other = await openLaptop(sim.url);
    await other.core.checkNow();
    const waiting = await service.handle('listOrders', {
      filter: 'ProvisioningStarted',
      backlog: 'shown',
      limit: 1,
    });
    const orderId = waiting.ok ? (waiting.value.orders[0]?.orderId ?? '') : '';
    expect(orderId).not.toBe('');
    const statusChange = await perPoll(() => startedElsewhere(other, orderId));
    await removeDataDir(other);

    // A new order: it arrives at the top, every row below moves down one.
    const arrival = await perPoll(async () => {
      await admin(sim.url, 'POST', 'purchases', { order: {} });
    });

    console.log(
      `${accounts} account(s): inbox pages read per poll with ${ORDERS} orders (${PAGES} pages) loaded: ` +
        `nothing changed ${quiet.length}; one order's status changed ${statusChange.length}; ` +
        `a new order ${arrival.length} (offsets ${JSON.stringify({ quiet, statusChange, arrival })}); ` +
        `other calls on a quiet poll: ${JSON.stringify(otherCalls)}`,
    );
    expect(quiet).toEqual([]);
    // Rows moved: each loaded page once, and the changed row's page again when its document is read.
    expect(statusChange.length).toBeLessThanOrEqual(PAGES + 1);
    // On top: the first page (again when the new order's document is read); the rows below are moved.
    expect(new Set(arrival)).toEqual(new Set([0]));
    await closeApp();
  }, 180_000);
});
