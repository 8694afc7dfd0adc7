// Nothing announced is lost to kill -9: laptops (CLI `watch` processes, each with its own config
// home) killed at random moments while polling a faulty marketplace, the app and `watch`
// sharing one data folder, and a first start killed midway through its history or its orders.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountFolder, accountRef } from '../main/core/account/account-ref';
import { adviceFor } from '../main/core/advice';
import { SellerApiClient } from '../main/core/api/client';
import { orderIdOf } from '../main/core/api/wire';
import { userDataDir } from '../main/core/paths';
import { SellerCore } from '../main/core/seller-core';
import { DATABASE_FILE } from '../main/core/store/account-store';
import { openReadOnly } from '../main/core/store/database';
import { type Simulator, startSimulator } from '../simulator/server';
import { expectAnnouncedOnce } from './support/announced-once';
import { makeDataDir, TEST_SETTINGS } from './support/core';
import { killWhen, listingsNoted, type StoreNow, storeNow } from './support/first-start-kill';
import { exitOf, runTs, spawnTs } from './support/processes';
import { admin } from './support/raw-api';
import { until } from './support/shell-fakes';
import { type WatchRun, watchOnce } from './support/watch-once';

let sim: Simulator;
const homes: string[] = [];
beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 9, orders: 10 });
});
afterAll(async () => {
  await sim.close();
  for (const home of homes) await rm(home, { recursive: true, force: true });
});

/** A laptop: its own config home; the credentials come from the environment. */
async function laptopEnv(): Promise<NodeJS.ProcessEnv> {
  const home = await mkdtemp(join(tmpdir(), 'crash-laptop-'));
  homes.push(home);
  return {
    XDG_CONFIG_HOME: home,
    SELLER_API_BASE_URL: sim.url,
    SELLER_CLIENT_ID: 'demo-client',
    SELLER_CLIENT_SECRET: 'demo-secret',
  };
}

const orderIds = (run: WatchRun) => run.announced.map((a) => a.orderId);

async function purchase(): Promise<string> {
  return (await admin(sim.url, 'POST', 'purchases')).json.orderId;
}

describe('kill -9', () => {
  it('at random points of polls under faults: every purchase is announced on every laptop', async () => {
    const laptops = await Promise.all([laptopEnv(), laptopEnv(), laptopEnv()]);
    for (const env of laptops) expect(orderIds(await watchOnce(env))).toEqual([]); // backlog: silent
    const runs = laptops.map((): WatchRun[] => []);
    const purchases: string[] = [];
    await admin(sim.url, 'PATCH', 'faults', { errorRate: 0.15, dropRate: 0.05, latencyMs: 20 });
    let kills = 0;
    // Random kill instants may all come after the runs ended on a fast machine: rounds then go on,
    // killed at 100 ms (before a process can finish), until a kill has landed.
    for (let round = 0; round < 5 || (kills === 0 && round < 10); round++) {
      purchases.push(await purchase(), await purchase());
      const killAfterMs = () => (round < 5 ? 150 + Math.random() * 1800 : 100);
      const done = await Promise.all(laptops.map((env) => watchOnce(env, killAfterMs())));
      done.forEach((run, i) => {
        runs[i]?.push(run);
        if (run.killed) kills += 1;
      });
    }
    await admin(sim.url, 'PATCH', 'faults', { errorRate: 0, dropRate: 0, latencyMs: 0 });
    for (const [i, env] of laptops.entries()) runs[i]?.push(await watchOnce(env));

    expect(kills).toBeGreaterThan(0);
    for (const laptopRuns of runs)
      expectAnnouncedOnce(
        laptopRuns.map((run) => ({ announced: orderIds(run), killed: run.killed })),
        purchases,
      );
  }, 120_000);

  it('a watch killed before it printed announces on its next run', async () => {
    const env = await laptopEnv();
    await watchOnce(env);
    const orderId = await purchase();
    // The order's document comes late whichever way it is read: alone, or in the orders listing
    // (the first start's walk of it, cut short by the first run's quit, goes on in this run).
    await admin(sim.url, 'PATCH', 'faults', {
      script: [
        { operation: 'getOrder', action: 'delay', delayMs: 3000 },
        { operation: 'listOrders', action: 'delay', delayMs: 3000 },
      ],
    });
    // Killed while the announcement waits for the order document: it is queued, not raised.
    const killed = await watchOnce(env, 2500);
    expect(killed).toEqual({ announced: [], killed: true });
    await admin(sim.url, 'PATCH', 'faults', { script: [] });
    expect(orderIds(await watchOnce(env))).toEqual([orderId]);
    expect(orderIds(await watchOnce(env))).toEqual([]);
  }, 30_000);

  it("a watch killed before it printed, its pid then another process's after the computer restarted, announces on its next run", async () => {
    const env = await laptopEnv();
    await watchOnce(env);
    const dataDir = accountFolder(
      userDataDir(env),
      accountRef({ baseUrl: sim.url, clientId: 'demo-client' }).id,
    );
    const orderId = await purchase();
    await admin(sim.url, 'PATCH', 'faults', {
      script: [
        { operation: 'getOrder', action: 'delay', delayMs: 10_000 },
        { operation: 'listOrders', action: 'delay', delayMs: 10_000 },
      ],
    });
    // Killed once it claimed the announcement, while it waits for the order's document.
    const watch = spawnTs('main/cli/seller-tray.ts', ['watch', '--once', '--json'], env);
    const claimed = () => {
      const db = openReadOnly(join(dataDir, DATABASE_FILE));
      try {
        return db.prepare('SELECT 1 FROM announcements WHERE claimed_by IS NOT NULL').get() !== undefined;
      } finally {
        db.close();
      }
    };
    await until(claimed, 20_000);
    watch.kill('SIGKILL');
    await exitOf(watch);
    await admin(sim.url, 'PATCH', 'faults', { script: [] });
    // The restart, as the file shows it: written in an earlier boot, its claimant's pid now a live
    // process's (one that started at the new boot).
    const other = spawn('sleep', ['60']);
    try {
      const { DatabaseSync } = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite');
      const db = new DatabaseSync(join(dataDir, DATABASE_FILE));
      db.prepare('UPDATE announcements SET claimed_by = ? WHERE claimed_by IS NOT NULL').run(other.pid ?? 0);
      db.prepare(`UPDATE meta SET value = 'an earlier boot' WHERE key = 'boot'`).run();
      db.close();
      expect(orderIds(await watchOnce(env))).toEqual([orderId]);
    } finally {
      other.kill();
    }
  }, 40_000);
});

describe('the app and seller-tray watch on one data folder', () => {
  it('lose nothing of each other: a pending status is delivered once, an order announced once', async () => {
    const env = await laptopEnv();
    await runTs('main/cli/seller-tray.ts', ['watch', '--once'], env);
    const dataDir = accountFolder(
      userDataDir(env),
      accountRef({ baseUrl: sim.url, clientId: 'demo-client' }).id,
    );
    const client = new SellerApiClient({
      baseUrl: sim.url,
      credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
      retry: { maxAttempts: 1 },
    });
    const app = await SellerCore.open({
      advice: adviceFor('app'),
      client,
      dataDir,
      settings: () => TEST_SETTINGS,
    });
    const events: string[] = [];
    app.on((event) => {
      if (event.type === 'orders-arrived') events.push(...event.orderIds);
    });
    try {
      const target = JSON.parse(sim.store.listOrderJson(1001, 0, 1).items[0] ?? '{}').orderId as string;
      await admin(sim.url, 'PATCH', 'faults', { errorRate: 1 });
      await app.markStatus({
        orderId: target,
        statusCode: 'ProvisioningInProgress',
        description: 'Shared',
        override: true,
      });
      await app.deliverOutbox(); // fails: stays pending
      await admin(sim.url, 'PATCH', 'faults', { errorRate: 0 });
      const orderId = await purchase();

      const watched = await watchOnce(env); // delivers the app's pending status, announces the order
      expect(orderIds(watched)).toEqual([orderId]);
      app.start();
      await app.checkNow();
      expect(events).toEqual([]); // announced once for this folder, by watch
      const posted = sim.store
        .listEvents(1001, 0, 100_000)
        .items.filter((e) => orderIdOf(e) === target && e.description === 'Shared');
      expect(posted).toHaveLength(1);
      expect((await app.order(target)).status).toBe('ProvisioningInProgress');
    } finally {
      await app.close();
    }
  }, 30_000);
});

describe('a first start killed with kill -9 midway', () => {
  // A history of about 3,500 events (two syncs of 20 pages) and 1,500 orders (three batches),
  // read slowly enough to be killed midway.
  let big: Simulator;
  beforeAll(async () => {
    big = await startSimulator({ port: 0, seed: 12, orders: 1_500 });
    await admin(big.url, 'PATCH', 'faults', { latencyMs: 15 });
  });
  afterAll(() => big.close());

  /** A laptop's first start in a process of its own, killed once `midway` holds of its store. */
  async function killedWhen(dataDir: string, midway: (store: StoreNow | undefined) => boolean) {
    const child = spawnTs('test/support/poll-child.ts', [big.url, dataDir]);
    const stdout = await killWhen(child, () => midway(storeNow(dataDir)));
    expect(stdout, 'nothing of the backlog announced').not.toMatch(/arrived/);
    const store = storeNow(dataDir);
    expect(store && midway(store), 'killed midway').toBe(true);
    return store as StoreNow;
  }

  /** The same laptop started again in this process, with the offsets of the pages it asks for. */
  async function resumed(dataDir: string) {
    const { transport, asked } = listingsNoted();
    const client = new SellerApiClient({
      baseUrl: big.url,
      credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
      transport,
    });
    const core = await SellerCore.open({
      advice: adviceFor('app'),
      client,
      dataDir,
      settings: () => TEST_SETTINGS,
    });
    const arrived: string[] = [];
    core.on((event) => {
      if (event.type === 'orders-arrived') arrived.push(...event.orderIds);
    });
    await core.start();
    await core.backlogRead();
    return { core, asked: asked(new URL(big.url).origin), arrived };
  }

  const allEvents = () => big.store.listEvents(1001, 0, 1_000_000).items.length;
  const allOrders = () => big.store.listOrderJson(1001, 0, 1_000_000).items.length;

  it('in its history: goes on from what it recorded, announces none of it, and then announces a purchase once', async () => {
    const dataDir = await makeDataDir();
    homes.push(dataDir);
    const killed = await killedWhen(dataDir, (s) => s?.firstSync !== undefined && s.events > 0);
    expect(killed.events).toBeLessThan(allEvents());
    expect(killed.announcements).toBe(0);

    const { core, asked, arrived } = await resumed(dataDir);
    try {
      // Read on from the cursor it recorded (less the look-back of half a page), not from the start.
      expect(Math.min(...asked.listEvents)).toBeGreaterThanOrEqual((killed.cursor?.offset ?? 0) - 50);
      const after = storeNow(dataDir);
      expect(after?.events).toBe(allEvents());
      expect(after?.firstSync).toBeUndefined();
      expect(after?.announcements).toBe(0);
      expect(arrived).toEqual([]);
      const all = core.orders({ filter: 'all', search: '', offset: 0, limit: 1 });
      expect(all.total).toBe(allOrders());
      // Every order of the history is found by search once the first start has ended.
      const orderId = all.rows[0]?.orderId ?? '';
      const found = core.orders({ filter: 'all', search: orderId.slice(-12), offset: 0, limit: 5 });
      expect(found.rows.map((r) => r.orderId)).toContain(orderId);
      expect(found.searchIncomplete).toBeUndefined();

      const bought = (await admin(big.url, 'POST', 'purchases')).json.orderId as string;
      await core.checkNow();
      await core.checkNow();
      expect(arrived).toEqual([bought]);
    } finally {
      await core.close();
    }
  }, 90_000);

  it('in its orders: goes on from the page it reached, every order stored, none announced', async () => {
    const dataDir = await makeDataDir();
    homes.push(dataDir);
    const killed = await killedWhen(dataDir, (s) => (s?.ordersWalk ?? 0) > 0);
    expect(killed.events).toBe(allEvents());

    const { core, asked, arrived } = await resumed(dataDir);
    try {
      expect(Math.min(...asked.listOrders)).toBe(killed.ordersWalk);
      expect(storeNow(dataDir)?.ordersWalk).toBeUndefined();
      expect(arrived).toEqual([]);
      const page = core.orders({ filter: 'all', search: '', offset: 0, limit: 5_000, backlog: 'shown' });
      expect(page.total).toBe(allOrders());
      expect(page.rows.filter((r) => r.buyer === undefined)).toEqual([]);
    } finally {
      await core.close();
    }
  }, 90_000);
});
