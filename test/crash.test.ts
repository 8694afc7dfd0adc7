// Nothing announced is lost to kill -9: laptops (CLI `watch` processes, each with its own config
// home) killed at random moments while polling a faulty marketplace, and the app and `watch`
// sharing one data folder.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountFolder, accountRef } from '../main/core/account/account-ref';
import { SellerApiClient } from '../main/core/api/client';
import { orderIdOf } from '../main/core/api/wire';
import { userDataDir } from '../main/core/paths';
import { SellerCore } from '../main/core/seller-core';
import { type Simulator, startSimulator } from '../simulator/server';
import { TEST_SETTINGS } from './support/core';
import { runTs, spawnTs } from './support/processes';
import { admin } from './support/raw-api';

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

interface Run {
  orderIds: string[];
  killed: boolean;
}

/** `watch --once --json`, killed with SIGKILL after `killAfterMs` unless it ended by then. */
async function watchOnce(env: NodeJS.ProcessEnv, killAfterMs?: number): Promise<Run> {
  const child = spawnTs('main/cli/seller-tray.ts', ['watch', '--once', '--json'], env);
  let stdout = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  const [, signal] = await new Promise<[number | null, string | null]>((resolve) =>
    child.once('exit', (code, sig) => resolve([code, sig])),
  );
  clearTimeout(timer);
  const orderIds = stdout
    .split('\n')
    .filter((line) => line.startsWith('{') && line.endsWith('}'))
    .map((line) => JSON.parse(line).orderId as string);
  return { orderIds, killed: signal === 'SIGKILL' };
}

async function purchase(): Promise<string> {
  return (await admin(sim.url, 'POST', 'purchases')).json.orderId;
}

describe('kill -9', () => {
  it('at random points of polls under faults: every purchase is announced on every laptop', async () => {
    const laptops = await Promise.all([laptopEnv(), laptopEnv(), laptopEnv()]);
    for (const env of laptops) expect((await watchOnce(env)).orderIds).toEqual([]); // backlog: silent
    const runs = laptops.map((): Run[] => []);
    const purchases: string[] = [];
    await admin(sim.url, 'PATCH', 'faults', { errorRate: 0.15, dropRate: 0.05, latencyMs: 20 });
    let kills = 0;
    for (let round = 0; round < 5; round++) {
      purchases.push(await purchase(), await purchase());
      const done = await Promise.all(laptops.map((env) => watchOnce(env, 150 + Math.random() * 1800)));
      done.forEach((run, i) => {
        runs[i]?.push(run);
        if (run.killed) kills += 1;
      });
    }
    await admin(sim.url, 'PATCH', 'faults', { errorRate: 0, dropRate: 0, latencyMs: 0 });
    for (const [i, env] of laptops.entries()) runs[i]?.push(await watchOnce(env));

    expect(kills).toBeGreaterThan(0);
    for (const laptopRuns of runs) {
      const announced = laptopRuns.flatMap((run) => run.orderIds);
      expect(new Set(announced)).toEqual(new Set(purchases));
      // A second announcement only ever follows a run killed after it announced (between raising
      // and marking raised): a run that ended by itself never leaves one to repeat.
      const seen = new Map<string, Run>();
      for (const run of laptopRuns) {
        for (const orderId of run.orderIds) {
          const first = seen.get(orderId);
          if (first) expect(first.killed, `${orderId} announced twice`).toBe(true);
          else seen.set(orderId, run);
        }
      }
    }
  }, 120_000);

  it('a watch killed before it printed announces on its next run', async () => {
    const env = await laptopEnv();
    await watchOnce(env);
    const orderId = await purchase();
    await admin(sim.url, 'PATCH', 'faults', {
      script: [{ operation: 'getOrder', action: 'delay', delayMs: 3000 }],
    });
    // Killed while the announcement waits for the order document: it is queued, not raised.
    const killed = await watchOnce(env, 2500);
    expect(killed).toEqual({ orderIds: [], killed: true });
    await admin(sim.url, 'PATCH', 'faults', { script: [] });
    expect((await watchOnce(env)).orderIds).toEqual([orderId]);
    expect((await watchOnce(env)).orderIds).toEqual([]);
  }, 30_000);
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
    const app = await SellerCore.open({ client, dataDir, settings: () => TEST_SETTINGS });
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
      expect(watched.orderIds).toEqual([orderId]);
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
