// The feed against listings that change and refuse as real back ends do (issue 20): over real
// loopback HTTP, the simulator's quirks play retention, late inserts, ties in flipping order,
// result windows, body-less answers and a "more" that never ends, and two or three laptops of one
// seller must each announce every purchase once, keep polling, and pay about two requests a poll.
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { orderIdOf } from '../main/core/api/wire';
import type { CoreEvent } from '../main/core/seller-core';
import type { FaultSettingsPatch } from '../simulator/faults';
import { inbox, type Laptop, openLaptop } from './support/core';
import { runTs } from './support/processes';
import { admin } from './support/raw-api';
import { sharedMarketplace } from './support/shared-marketplace';
import { until } from './support/shell-fakes';

const SELLER = 1001;
const ORDERS = 120;

const market = sharedMarketplace({ seed: 20, orders: ORDERS });
const { laptops } = market;

async function faults(patch: z.input<typeof FaultSettingsPatch>): Promise<void> {
  expect((await admin(market.sim.url, 'PATCH', 'faults', patch)).status).toBe(200);
}

/** Laptops that have read the backlog (their first poll), ready to hear of new orders. */
async function startedLaptops(count: number): Promise<Laptop[]> {
  const started: Laptop[] = [];
  for (let i = 0; i < count; i++) {
    const laptop = await openLaptop(market.sim.url);
    laptops.push(laptop);
    started.push(laptop);
    laptop.core.start();
    await laptop.core.checkNow();
    await laptop.core.backlogRead();
  }
  return started;
}

async function purchase(): Promise<string> {
  return (await admin(market.sim.url, 'POST', 'purchases', {})).json.orderId;
}

const announced = (laptop: Laptop) =>
  laptop.events.flatMap((e) => (e.type === 'orders-arrived' ? e.orderIds : []));
const problems = (laptop: Laptop) =>
  laptop.events.filter((e): e is Extract<CoreEvent, { type: 'problem' }> => e.type === 'problem');
const requests = () => Object.values(market.sim.requestCounts).reduce((a, b) => a + b, 0);
const eventCount = () => market.sim.store.listEvents(SELLER, 0, 1_000_000).items.length;
const orderIds = () =>
  market.sim.store
    .listOrderJson(SELLER, 0, 1_000_000)
    .items.map((json) => JSON.parse(json).orderId as string);

/** Each laptop polls in turn (the first takes what "new" hands over); twice, so all is announced. */
async function pollAll(all: Laptop[]): Promise<void> {
  for (let round = 0; round < 2; round++) for (const laptop of all) await laptop.core.checkNow();
}

/** Requests per poll of `laptop` over `polls` polls that find nothing new. */
async function idleCost(laptop: Laptop, polls = 10): Promise<number> {
  const before = requests();
  for (let i = 0; i < polls; i++) await laptop.core.checkNow();
  return (requests() - before) / polls;
}

const cli = (args: string[]) =>
  runTs('main/cli/seller-tray.ts', args, {
    SELLER_API_BASE_URL: market.sim.url,
    SELLER_CLIENT_ID: 'demo-client',
    SELLER_CLIENT_SECRET: 'demo-secret',
  });

describe('what "new" hands over', () => {
  it('is recorded and announced although reading "all" then fails, and polling goes on', async () => {
    const [a, b] = await startedLaptops(2);
    if (!a || !b) throw new Error('two laptops');
    const bought = await purchase();
    // Every attempt at "all" fails in a's next poll, right after "new" handed the purchase over.
    await faults({ script: [{ operation: 'listEvents', action: 'status', status: 503, times: 2 }] });
    await a.core.checkNow();
    expect(a.core.status().connection).toBe('server-problem');
    await until(() => announced(a).includes(bought));
    expect(market.sim.store.summary()[0]?.newEvents).toBe(0); // gone from "new"
    await pollAll([a, b]);
    expect(a.core.status().connection).toBe('ok');
    for (const laptop of [a, b]) expect(announced(laptop)).toEqual([bought]);
  });
});

describe('history that changes under the cursor', () => {
  it.each([2, 45])(
    'retention and late inserts %i places before the newest: every laptop announces every purchase once, about 2 requests an idle poll',
    async (lateBy) => {
      await faults({ quirks: ['retention', 'late-inserts'], retention: 3, lateBy });
      const all = await startedLaptops(3);
      const bought: string[] = [];
      for (let round = 0; round < 4; round++) {
        bought.push(await purchase(), await purchase());
        await pollAll(all);
      }
      for (const laptop of all) {
        expect(announced(laptop).sort()).toEqual([...bought].sort());
        expect(laptop.core.status().connection).toBe('ok');
      }
      // The history still changes at every poll: the cursor finds its place by the events' ids.
      const [, b] = all;
      if (!b) throw new Error('laptops');
      expect(await idleCost(b)).toBeLessThanOrEqual(2);
    },
  );

  it('finds its place again when more events expired than it looks back over', async () => {
    const [a, b] = await startedLaptops(2);
    if (!a || !b) throw new Error('two laptops');
    await faults({ quirks: ['retention'], retention: 60 });
    const bought = await purchase();
    // 60 expire as a polls, 60 more as b does: b's place moved 120 back, with 150 events left.
    await a.core.checkNow();
    await b.core.checkNow();
    for (const laptop of [a, b]) expect(announced(laptop)).toEqual([bought]);
    await faults({ retention: 1 });
    expect(await idleCost(b)).toBeLessThanOrEqual(2);
  });

  it('ties listed in another order at each call: every event read, every purchase announced once', async () => {
    await faults({ quirks: ['flipping-order'] });
    const [a, b] = await startedLaptops(2);
    if (!a || !b) throw new Error('two laptops');
    for (const laptop of [a, b]) {
      expect(new Set(inbox(laptop.core).map((r) => r.orderId))).toEqual(new Set(orderIds()));
    }
    // Every event read, those of ties across a page boundary too: each order's whole history.
    const events = market.sim.store.listEvents(SELLER, 0, 1_000_000).items;
    for (const orderId of orderIds()) {
      const history = (await a.core.order(orderId)).history;
      expect(history.length).toBe(events.filter((e) => orderIdOf(e) === orderId).length);
    }
    const bought = [await purchase(), await purchase(), await purchase()];
    await pollAll([a, b]);
    // Once each; in the order listed, which for ties is the server's to choose.
    for (const laptop of [a, b]) expect(announced(laptop).sort()).toEqual([...bought].sort());
    expect(await idleCost(b)).toBeLessThanOrEqual(2);
  });

  it('pages answered without a body: polls go on, purchases announced, orders list works', async () => {
    await faults({ quirks: ['empty-2xx'] });
    const [a, b] = await startedLaptops(2);
    if (!a || !b) throw new Error('two laptops');
    const bought = await purchase();
    await pollAll([a, b]);
    for (const laptop of [a, b]) {
      expect(announced(laptop)).toEqual([bought]);
      expect(laptop.core.status().connection).toBe('ok');
    }
    const run = await cli(['orders', 'list', '--limit', '3', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).map((o: { orderId: string }) => o.orderId)[0]).toBe(bought);
  });

  it('a listing that says "more" forever: its trailing empty pages are its end, not a failure', async () => {
    await faults({ quirks: ['endless-more'] });
    const [a, b] = await startedLaptops(2);
    if (!a || !b) throw new Error('two laptops');
    for (const laptop of [a, b]) expect(inbox(laptop.core)).toHaveLength(ORDERS);
    const bought = [await purchase(), await purchase()];
    await pollAll([a, b]);
    for (const laptop of [a, b]) {
      expect(announced(laptop)).toEqual(bought);
      expect(laptop.core.status().connection).toBe('ok');
    }
    expect(await idleCost(b)).toBeLessThanOrEqual(2);
    const run = await cli(['orders', 'list', '--limit', '2', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).map((o: { orderId: string }) => o.orderId)).toEqual(bought.toReversed());
  });
});

describe('a result window', () => {
  it.each([
    ['named in its words', 'result-window' as const],
    ['not named', 'result-window-unnamed' as const],
  ])('%s: learned, remembered, polls go on, and the newest purchases still arrive', async (_, quirk) => {
    const window = eventCount() + 2;
    await faults({ quirks: [quirk], resultWindow: window });
    const [a, b] = await startedLaptops(2);
    if (!a || !b) throw new Error('two laptops');
    // Within the window, both laptops read the newest from "all"; past it, only "new" can tell.
    const within = [await purchase(), await purchase()];
    await pollAll([a, b]);
    for (const laptop of [a, b]) expect(announced(laptop)).toEqual(within);
    const past = [await purchase(), await purchase()];
    await pollAll([a, b]);
    expect(announced(a)).toEqual([...within, ...past]); // a took them from "new"
    expect(announced(b).slice(0, 2)).toEqual(within);
    // Past the window, with "all" failing right after "new" handed it over: "new" is all there is.
    const last = await purchase();
    await faults({ script: [{ operation: 'listEvents', action: 'status', status: 503, times: 2 }] });
    await a.core.checkNow();
    await until(() => announced(a).includes(last));
    await pollAll([a, b]);
    expect(announced(a)).toEqual([...within, ...past, last]);
    for (const laptop of [a, b]) {
      expect(laptop.core.status().connection).toBe('ok');
      expect(laptop.client.resultWindows.listEvents).toBe(window);
    }
    expect(problems(b).map((p) => p.message)).toContainEqual(
      expect.stringContaining(`lists only its first ${window.toLocaleString('en')} events`),
    );
    expect(await idleCost(b)).toBeLessThanOrEqual(2);

    // Remembered per account: the next start asks nothing to learn it again.
    await b.core.close();
    const again = await b.reopen();
    laptops.push(again);
    expect(again.client.resultWindows.listEvents).toBe(window);
  });

  it('orders list prints the newest orders within the window', async () => {
    const window = ORDERS - 20;
    await faults({ quirks: ['result-window'], resultWindow: window });
    const run = await cli(['orders', 'list', '--limit', '5', '--json']);
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout).map((o: { orderId: string }) => o.orderId);
    expect(printed).toEqual(
      orderIds()
        .slice(window - 5, window)
        .toReversed(),
    );
    expect(run.stderr).toContain(`lists only its first ${window} orders (a result window)`);
    // With statuses, read back from the events listing's own window.
    const human = await cli(['orders', 'list', '--limit', '5']);
    expect(human.code).toBe(0);
    expect(
      human.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t')[0]),
    ).toEqual(printed);
  });
});

describe('seller-tray doctor reads the far end of the listings', () => {
  it("names a result window, with the server's words, and what the app does about it", async () => {
    const window = ORDERS - 20;
    await faults({ quirks: ['result-window'], resultWindow: window });
    const run = await cli(['doctor']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^listEvents +tolerated/m);
    expect(run.stdout).toContain(
      `pages past its first ${window} events are refused (a result window, HTTP 400`,
    );
    expect(run.stdout).toContain('Result window is too large');
    expect(run.stdout).toContain('new orders past it are announced only on the laptop that takes them');
    expect(run.stdout).toContain(`pages past its first ${window} orders are refused`);
  });

  it('names events expired at the old end (retention)', async () => {
    await faults({ quirks: ['retention'], retention: 30 });
    const run = await cli(['doctor']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^listEvents +tolerated/m);
    expect(run.stdout).toContain('the oldest events have expired (retention)');
    await faults({ quirks: [] });
    expect((await cli(['doctor'])).stdout).not.toContain('retention');
  });

  it('names a listing that says "more" past its end', async () => {
    await faults({ quirks: ['endless-more'] });
    const run = await cli(['doctor']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('it says there is more past its last event (empty pages that say more)');
    expect(run.stdout).toContain('it says there is more past its last order');
  });
});

describe('a listing that refuses an offset past its end', () => {
  it('is no window: the end is read as the end, nothing is remembered, polls and orders list go on', async () => {
    await faults({ quirks: ['offset-past-end'] });
    const [a, b] = await startedLaptops(2);
    if (!a || !b) throw new Error('two laptops');
    const bought = [await purchase(), await purchase()];
    await pollAll([a, b]);
    for (const laptop of [a, b]) {
      expect(announced(laptop)).toEqual(bought);
      expect(laptop.client.resultWindows).toEqual({});
    }
    const run = await cli(['orders', 'list', '--limit', '2', '--json']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout).map((o: { orderId: string }) => o.orderId)).toEqual(bought.toReversed());
  });
});
