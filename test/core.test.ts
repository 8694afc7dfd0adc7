// The core as the app drives it, against the simulator over loopback HTTP.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TransitionError } from '../main/core/seller-core';
import { DATABASE_FILE } from '../main/core/store/account-store';
import { type Simulator, startSimulator } from '../simulator/server';
import { inbox, type Laptop, makeDataDir, openLaptop, removeDataDir } from './support/core';
import { exitOf, spawnTs, waitForLine } from './support/processes';
import { admin } from './support/raw-api';

let sim: Simulator;
const laptops: Laptop[] = [];

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 21, orders: 40 });
});
afterEach(async () => {
  for (const laptop of laptops.splice(0)) await removeDataDir(laptop);
  await admin(sim.url, 'POST', 'reset');
});
afterAll(() => sim.close());

async function laptop(options: Parameters<typeof openLaptop>[2] = {}, dataDir?: string): Promise<Laptop> {
  const opened = await openLaptop(sim.url, dataDir, options);
  laptops.push(opened);
  return opened;
}

async function purchase(order: Record<string, unknown> = {}): Promise<string> {
  const answer = await admin(sim.url, 'POST', 'purchases', { order });
  return answer.json.orderId;
}

describe('first start', () => {
  it('records the backlog and shows it, without notifying it', async () => {
    const a = await laptop();
    await a.core.checkNow(); // not started: no poll
    a.core.start();
    await a.core.checkNow();
    expect(a.core.status().connection).toBe('ok');
    expect(inbox(a.core)).toHaveLength(40);
    expect(a.core.status().waitingCount).toBeGreaterThan(0);
    expect(a.notifications()).toEqual([]);
  });
});

describe('new orders', () => {
  it('are notified once each, with buyer, product × quantity and total', async () => {
    const a = await laptop();
    a.core.start();
    await a.core.checkNow();
    const orderId = await purchase({
      buyerCustomerParty: { party: { partyName: 'Kestrel Foods Oy' } },
      documentCurrencyCode: 'EUR',
      anticipatedMonetaryTotal: { amount: 1234.5, currencyCode: 'EUR' },
      documentLines: [
        { lineId: 1, lineItem: { name: 'Backup Vault 1 TB', quantity: { value: 3, unitCode: 'EA' } } },
      ],
    });
    await a.core.checkNow();
    await a.core.checkNow();
    expect(a.notifications()).toEqual([
      {
        kind: 'order',
        title: 'New order from Kestrel Foods Oy',
        body: 'Backup Vault 1 TB × 3 — €1,234.50',
        orderId,
      },
    ]);
    expect(inbox(a.core)[0]).toMatchObject({ orderId, waiting: true, status: 'ProvisioningStarted' });
  });

  it('reach every laptop of the seller, also when another laptop consumed them from "new"', async () => {
    const a = await laptop();
    const b = await laptop();
    for (const l of [a, b]) {
      l.core.start();
      await l.core.checkNow();
    }
    const first = await purchase();
    await a.core.checkNow(); // a consumes the event from "new"
    await b.core.checkNow(); // b learns it from "all"
    const second = await purchase();
    await b.core.checkNow();
    await a.core.checkNow();
    for (const l of [a, b]) {
      expect(l.notifications().map((n) => n.orderId)).toEqual([first, second]);
    }
  });

  it('are not notified again after a restart', async () => {
    const a = await laptop();
    a.core.start();
    await a.core.checkNow();
    await purchase();
    await a.core.checkNow();
    a.core.stop();
    const again = await a.reopen();
    laptops.push(again);
    again.core.start();
    await again.core.checkNow();
    await purchase();
    await again.core.checkNow();
    expect(a.notifications()).toHaveLength(1);
    expect(again.notifications()).toHaveLength(1);
    expect(again.notifications()[0]?.orderId).not.toBe(a.notifications()[0]?.orderId);
  });

  it('become one summary when more than three arrive in one poll', async () => {
    const a = await laptop();
    a.core.start();
    await a.core.checkNow();
    for (let i = 0; i < 5; i++) await purchase();
    await a.core.checkNow();
    expect(a.notifications()).toEqual([expect.objectContaining({ kind: 'summary', title: '5 new orders' })]);
  });

  it('are held while notifications are paused, and summarised on resume', async () => {
    const a = await laptop();
    a.core.start();
    await a.core.checkNow();
    a.settings.pausedUntil = new Date(Date.now() + 3_600_000).toISOString();
    await purchase();
    await purchase();
    await a.core.checkNow();
    expect(a.notifications()).toEqual([]);
    a.settings.pausedUntil = null;
    await a.core.checkNow();
    expect(a.notifications()).toEqual([
      expect.objectContaining({ kind: 'summary', title: '2 new orders while paused' }),
    ]);
  });

  it('are reminded of once when they wait longer than the configured age', async () => {
    const a = await laptop({ settings: { reminderAfterMinutes: 1 } });
    a.core.start();
    await a.core.checkNow(); // the seeded waiting orders are older than a minute: one summary or a few
    const first = a.notifications();
    expect(first.length).toBeGreaterThan(0);
    expect(first.every((n) => n.kind === 'reminder' || n.kind === 'summary')).toBe(true);
    await a.core.checkNow();
    expect(a.notifications()).toHaveLength(first.length);
  });
});

describe('marking a status', () => {
  async function waitingOrder(a: Laptop): Promise<string> {
    a.core.start();
    await a.core.checkNow();
    const orderId = inbox(a.core).find((o) => o.waiting)?.orderId;
    if (!orderId) throw new Error('no waiting order');
    return orderId;
  }

  it('posts the event, and the order leaves the waiting list', async () => {
    const a = await laptop();
    const orderId = await waitingOrder(a);
    const before = a.core.status().waitingCount;
    const item = a.core.markStatus({ orderId, statusCode: 'ProvisioningInProgress', description: 'Started' });
    expect(a.core.status().waitingCount).toBe(before - 1);
    const outbox = await a.core.deliverOutbox();
    expect(outbox.find((i) => i.requestId === item.requestId)?.state).toBe('sent');
    await a.core.checkNow();
    const detail = await a.core.order(orderId);
    expect(detail.history.at(-1)).toMatchObject({
      statusCode: 'ProvisioningInProgress',
      description: 'Started',
    });
    expect(detail.status).toBe('ProvisioningInProgress');
    expect(detail.outbox).toEqual([]); // confirmed and now in the history
    expect(detail.licenses.length).toBeGreaterThan(0);
  });

  it('refuses an unusual transition unless overridden', async () => {
    const a = await laptop();
    const orderId = await waitingOrder(a);
    expect(() =>
      a.core.markStatus({ orderId, statusCode: 'ProvisioningCompleted', description: 'Done' }),
    ).toThrow(TransitionError);
    const item = a.core.markStatus({
      orderId,
      statusCode: 'ProvisioningCompleted',
      description: 'Done',
      override: true,
    });
    expect(item.state).toBe('pending');
  });

  it('keeps a status marked offline and delivers it once the server is back', async () => {
    const a = await laptop();
    const orderId = await waitingOrder(a);
    await admin(sim.url, 'PATCH', 'faults', { errorRate: 1 });
    a.core.markStatus({ orderId, statusCode: 'ProvisioningInProgress', description: 'Offline mark' });
    const stuck = await a.core.deliverOutbox();
    expect(stuck[0]?.state).toBe('pending');
    expect(stuck[0]?.lastError).toMatch(/InternalServerError|ServiceUnavailable/);
    await admin(sim.url, 'PATCH', 'faults', { errorRate: 0 });
    const delivered = await a.core.deliverOutbox();
    expect(delivered[0]?.state).toBe('sent');
    const stored = sim.store
      .listEvents(1001, 0, 100_000)
      .items.filter((e) => e.description === 'Offline mark');
    expect(stored).toHaveLength(1);
  });

  it('records a refused post as failed with its reason', async () => {
    const a = await laptop();
    a.core.start();
    await a.core.checkNow();
    const unknown = crypto.randomUUID();
    a.core.markStatus({
      orderId: unknown,
      statusCode: 'ProvisioningInProgress',
      description: 'x',
      override: true,
    });
    const [item] = await a.core.deliverOutbox();
    expect(item?.state).toBe('failed');
    expect(item?.lastError).toContain('BadRequest');
  });
});

describe('failures', () => {
  it('stop polling once the credentials are rejected, instead of hammering the server', async () => {
    const tokensBefore = sim.requestCounts.createToken;
    const a = await laptop({ secret: 'wrong' });
    a.core.start();
    await a.core.checkNow();
    await a.core.checkNow();
    expect(a.core.status().connection).toBe('credentials-rejected');
    expect(a.timers.scheduled).toBe(0);
    expect(sim.requestCounts.createToken - tokensBefore).toBeLessThanOrEqual(2);
    expect(a.events.some((e) => e.type === 'problem' && /rejected|401/.test(e.message))).toBe(true);
  });

  it('back off while the server fails, honouring Retry-After', async () => {
    const a = await laptop();
    a.core.start();
    await a.core.checkNow();
    await admin(sim.url, 'PATCH', 'faults', {
      script: [{ operation: 'listNewEvents', action: 'status', status: 429, retryAfterSeconds: 120 }],
    });
    await a.core.checkNow();
    expect(a.core.status().connection).toBe('offline');
    expect(a.timers.delays.at(-1)).toBeGreaterThanOrEqual(120_000);
    await a.core.checkNow();
    expect(a.core.status().connection).toBe('ok');
    expect(a.timers.delays.at(-1)).toBe(60_000);
  });

  it('start afresh from a damaged database, keeping it aside, saying so, and announcing nothing again', async () => {
    const a = await laptop();
    a.core.start();
    await a.core.checkNow();
    await a.core.close();
    await writeFile(join(a.dataDir, DATABASE_FILE), 'this is not a database, it is a torn write');
    const again = await a.reopen();
    laptops.push(again);
    again.core.start();
    await again.core.checkNow();
    expect(again.events.find((e) => e.type === 'problem')).toMatchObject({
      message: expect.stringContaining(`${DATABASE_FILE}.damaged-`),
    });
    expect(inbox(again.core)).toHaveLength(40); // the history is read again
    expect(again.notifications()).toEqual([]); // and is not news
  });
});

describe('a crash in the middle of a post', () => {
  async function killedWhile(
    fault: Record<string, unknown>,
    line: RegExp,
  ): Promise<{ dataDir: string; orderId: string }> {
    const orderId = JSON.parse(sim.store.listOrderJson(1001, 0, 1).items[0] ?? '{}').orderId;
    const dataDir = await makeDataDir();
    await admin(sim.url, 'PATCH', 'faults', { script: [fault] });
    const child = spawnTs('test/support/mark-status-child.ts', [
      sim.url,
      dataDir,
      orderId,
      'Survives kill -9',
    ]);
    await waitForLine(child, line);
    child.kill('SIGKILL');
    await exitOf(child);
    return { dataDir, orderId };
  }

  const storedCount = () =>
    sim.store.listEvents(1001, 0, 100_000).items.filter((e) => e.description === 'Survives kill -9').length;

  it.each([
    ['while the post is in flight', { operation: 'sendEvent', action: 'delay', delayMs: 3000 }, /^marked /],
    [
      'after the server stored it but before the answer came',
      { operation: 'sendEvent', action: 'dropAfterHandling' },
      /^delivery pending/,
    ],
  ])(
    'delivers the status exactly once after restart, when killed %s',
    async (_, fault, line) => {
      const { dataDir } = await killedWhile(fault, line);
      const a = await laptop({}, dataDir);
      const outbox = await a.core.deliverOutbox();
      expect(outbox).toHaveLength(1);
      expect(outbox[0]?.state).toBe('sent');
      // Let a delayed first post land, if it was still on its way when the process died.
      await new Promise((r) => setTimeout(r, 3500));
      expect(storedCount()).toBe(1);
    },
    30_000,
  );
});
