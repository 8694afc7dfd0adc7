// Every way out waits, bounded, for the store to close, and "closed cleanly" means exactly that:
// the preview and `seller-tray watch` stopped with SIGTERM or SIGINT while a request is under way
// (real processes, the simulator over loopback HTTP).
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountFolder, accountRef } from '../main/core/account/account-ref';
import { userDataDir } from '../main/core/paths';
import { KeytarSecretStore, secretOwner } from '../main/core/secrets';
import { CLOSE_WITHIN_MS, type CoreEvent } from '../main/core/seller-core';
import { type Simulator, startSimulator } from '../simulator/server';
import { openChildCore } from './support/child-core';
import { makeDataDir, openLaptop } from './support/core';
import { exitOf, runTs, spawnTs, waitForLine } from './support/processes';
import { admin } from './support/raw-api';
import { until } from './support/shell-fakes';
import { closedCleanly } from './support/store-files';

let sim: Simulator;
const dirs: string[] = [];
beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 31, orders: 5 });
});
afterAll(async () => {
  await sim.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const arrived = (events: CoreEvent[]) =>
  events.flatMap((event) => (event.type === 'orders-arrived' ? event.orderIds : []));

async function tempDir(): Promise<string> {
  const dir = await makeDataDir();
  dirs.push(dir);
  return dir;
}

/** Resolves once the simulator has received `count` more requests of `operation`. */
async function received(operation: keyof Simulator['requestCounts'], before: number): Promise<void> {
  await until(() => sim.requestCounts[operation] > before, 20_000);
}

describe('the preview, stopped while a poll waits for the marketplace', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s: the store is closed, cleanly, before it exits',
    async (signal) => {
      const dataRoot = await tempDir();
      await writeFile(
        join(dataRoot, 'settings.json'),
        JSON.stringify({ baseUrl: sim.url, clientId: 'demo-client' }),
      );
      await new KeytarSecretStore().set(secretOwner(sim.url, 'demo-client'), 'demo-secret');
      await admin(sim.url, 'PATCH', 'faults', {
        script: [{ operation: 'listEvents', action: 'delay', delayMs: 1_500 }],
      });
      const before = sim.requestCounts.listEvents;
      const child = spawnTs('main/preview/cli.ts', ['--port', '0', '--data-dir', dataRoot]);
      try {
        await waitForLine(child, /^Seller Tray preview: /);
        await received('listEvents', before);
        child.kill(signal);
        expect(await exitOf(child)).toBe(0);
        expect(
          closedCleanly(
            accountFolder(dataRoot, accountRef({ baseUrl: sim.url, clientId: 'demo-client' }).id),
          ),
        ).toBe(true);
      } finally {
        child.kill('SIGKILL');
        await admin(sim.url, 'PATCH', 'faults', { script: [] });
      }
    },
    30_000,
  );
});

describe('seller-tray watch, stopped while a status is being posted', () => {
  async function laptop() {
    const home = await tempDir();
    const env = {
      XDG_CONFIG_HOME: home,
      SELLER_API_BASE_URL: sim.url,
      SELLER_CLIENT_ID: 'demo-client',
      SELLER_CLIENT_SECRET: 'demo-secret',
    };
    const dataDir = accountFolder(
      userDataDir(env),
      accountRef({ baseUrl: sim.url, clientId: 'demo-client' }).id,
    );
    // A status marked while the marketplace failed: pending when watch starts.
    const core = await openChildCore(sim.url, dataDir);
    await core.start();
    const orderId = JSON.parse(sim.store.listOrderJson(1001, 0, 1).items[0] ?? '{}').orderId;
    const description = `Posted across a stop ${Math.random()}`;
    await admin(sim.url, 'PATCH', 'faults', { errorRate: 1 });
    await core.markStatus({ orderId, statusCode: 'ProvisioningInProgress', description, override: true });
    await core.deliverOutbox();
    await admin(sim.url, 'PATCH', 'faults', { errorRate: 0 });
    await core.close();
    return { env, dataDir, description };
  }
  const posted = (description: string) =>
    sim.store.listEvents(1001, 0, 100_000).items.filter((e) => e.description === description).length;

  /** Stops watch with SIGTERM once its post reached the server; says how long it took to exit. */
  async function stopWhilePosting(env: NodeJS.ProcessEnv, delayMs: number): Promise<number> {
    await admin(sim.url, 'PATCH', 'faults', {
      script: [{ operation: 'sendEvent', action: 'delay', delayMs }],
    });
    const before = sim.requestCounts.sendEvent;
    const child = spawnTs('main/cli/seller-tray.ts', ['watch'], env);
    try {
      await received('sendEvent', before);
      const stopped = Date.now();
      child.kill('SIGTERM');
      await exitOf(child);
      return Date.now() - stopped;
    } finally {
      child.kill('SIGKILL');
      await admin(sim.url, 'PATCH', 'faults', { script: [] });
    }
  }

  it('waits for the post to end, then closes the store cleanly', async () => {
    const { env, dataDir, description } = await laptop();
    await stopWhilePosting(env, 1_000);
    expect(posted(description)).toBe(1);
    expect(closedCleanly(dataDir)).toBe(true);
  }, 30_000);

  it('waits no longer than its bound for a post that hangs, and the status is still posted once', async () => {
    const { env, dataDir, description } = await laptop();
    const hangsUntil = Date.now() + 8_000;
    const waited = await stopWhilePosting(env, 8_000);
    expect(waited).toBeGreaterThanOrEqual(CLOSE_WITHIN_MS - 100);
    expect(waited).toBeLessThan(CLOSE_WITHIN_MS + 3_000);
    // Cut short: not marked closed cleanly, so the next start checks the file.
    expect(closedCleanly(dataDir)).toBe(false);
    const next = await runTs('main/cli/seller-tray.ts', ['watch', '--once'], env);
    expect(next.code).toBe(0);
    expect(posted(description)).toBe(1);
    // The first post, answered only now, is the same request: the marketplace keeps one.
    await new Promise((resolve) => setTimeout(resolve, hangsUntil + 500 - Date.now()));
    expect(posted(description)).toBe(1);
  }, 60_000);
});

describe('the core closed while a new order waits for its document to be announced', () => {
  it('leaves its announcement queued: the next start announces it, once', async () => {
    const dataDir = await tempDir();
    const first = await openLaptop(sim.url, dataDir);
    await first.core.start(); // the backlog
    const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId as string;
    await admin(sim.url, 'PATCH', 'faults', {
      script: [{ operation: 'getOrder', action: 'delay', delayMs: 1_500 }],
    });
    try {
      const before = sim.requestCounts.getOrder;
      const polled = first.core.checkNow();
      await received('getOrder', before); // its announcement waits for the document (ANNOUNCE_WAIT_MS)
      await first.core.close(); // a quit, or the account closed: nobody hears what it announces now
      await polled.catch(() => undefined);
    } finally {
      await admin(sim.url, 'PATCH', 'faults', { script: [] });
    }
    const next = await first.reopen();
    try {
      await next.core.start();
      await next.core.checkNow();
      expect([...arrived(first.events), ...arrived(next.events)]).toEqual([orderId]);
    } finally {
      await next.core.close();
    }
  }, 30_000);
});
