// What the views that show marks cost as marks pile up (issue 27): a store holding SHORT or 100×
// as many marks sent and never shown back, and as many refused (each on an order of its own, the
// marketplace having lost or refused them), then CPU per opening of the Needs attention view
// (its counts and its first ATTENTION_SHOWN of each kind) and per read of an opened order's
// unconfirmed marks. Through the store's own API, with no marketplace: what the views read.
// Then, with SHORT or 100× as many refused marks alone, what a person's mark costs, through the
// core with the app's defaults (held for undo: no marketplace needed): the mark, routing an
// action to the account holding it (holdsDelivery), its undo, and a delivery's two writes of it
// (maybe posted, then sent), wall and CPU ms each: each commits the journal, flushed.
// `npx tsx test/bench/attention-marks.bench.ts` (`ATTENTION_MARKS_SHORT=n` sets the short size).
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adviceFor } from '../../main/core/advice';
import { SellerApiClient } from '../../main/core/api/client';
import type { MarketplaceEvent } from '../../main/core/api/wire';
import { SellerCore } from '../../main/core/seller-core';
import { AccountStore, UNCONFIRMED_AFTER_POLLS } from '../../main/core/store/account-store';
import { ATTENTION_SHOWN } from '../../preload/model';
import { ManualTimers } from '../support/core';
import { appDefaults } from './app-defaults';

const SHORT = Number(process.env.ATTENTION_MARKS_SHORT ?? 400);
const LONG = SHORT * 100;
const READS = 200;
/** Marks made and undone per size (each wrote the journal of every refused mark before the fix). */
const MARKS = 10;
const DAY = 86_400_000;

/** `n` orders (Completed, so that only their marks need attention), each with a mark of the laptop in `state`. */
function addMarks(store: AccountStore, n: number, state: 'sent' | 'failed'): string[] {
  const orderIds = Array.from({ length: n }, () => randomUUID());
  const at = new Date(Date.now() - 2 * DAY).toISOString();
  const events: MarketplaceEvent[] = orderIds.map((orderId) => ({
    eventId: randomUUID(),
    eventTypeCode: 'ServicePurchased',
    statusCode: 'ProvisioningCompleted',
    description: 'A purchase',
    eventTime: at,
    additionalProperties: [{ name: 'orderId', value: orderId }],
  }));
  store.recordPoll({ events, cursor: undefined, backlog: true, paused: false, now: at });
  store.atomically(() => {
    for (const orderId of orderIds)
      store.putOutboxItem({
        requestId: randomUUID(),
        orderId,
        statusCode: 'ProvisioningCompleted',
        description: 'Provisioning completed',
        createdAt: at,
        attempts: 1,
        ...(state === 'sent' ? { state, sentAt: at, sentAtPoll: 0, eventId: randomUUID() } : { state }),
      });
  });
  return orderIds;
}

const cpuMsPer = (work: () => void): number => {
  for (let i = 0; i < 10; i++) work();
  const start = process.cpuUsage();
  for (let i = 0; i < READS; i++) work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / READS;
};

async function measure(n: number): Promise<{ attention: number; order: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'attention-marks-'));
  try {
    const { store } = AccountStore.open(dir);
    const orderIds = addMarks(store, n, 'sent');
    addMarks(store, n, 'failed');
    for (let poll = 0; poll < UNCONFIRMED_AFTER_POLLS; poll++)
      store.notePollSucceeded(new Date().toISOString());
    store.optimize();
    const limits = { now: new Date().toISOString(), reminderAfterMinutes: 1440, stalledAfterDays: 7 };
    const shown = store.attention(limits, ATTENTION_SHOWN);
    if (shown.counts.unconfirmed !== n || shown.unconfirmed.length !== Math.min(n, ATTENTION_SHOWN))
      throw new Error(
        `attention-marks: the view shows ${shown.unconfirmed.length} of ${shown.counts.unconfirmed}`,
      );
    const middle = orderIds[Math.floor(n / 2)] ?? '';
    if (store.unconfirmedOf(middle).length !== 1)
      throw new Error('attention-marks: the order has no unconfirmed mark');
    const figures = {
      attention: cpuMsPer(() => store.attention(limits, ATTENTION_SHOWN)),
      order: cpuMsPer(() => store.unconfirmedOf(middle)),
    };
    store.close();
    return figures;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const short = await measure(SHORT);
const long = await measure(LONG);
console.log(`${SHORT} vs ${LONG} marks sent and not shown back, and as many refused: CPU ms per read`);
console.table({
  'Needs attention': {
    short: +short.attention.toFixed(3),
    long: +long.attention.toFixed(3),
    'long/short': +(long.attention / short.attention).toFixed(2),
  },
  "an order's unconfirmed marks": {
    short: +short.order.toFixed(3),
    long: +long.order.toFixed(3),
    'long/short': +(long.order / short.order).toFixed(2),
  },
});

/** Wall and CPU ms of `work`, added to `into`. */
async function timed(into: { wall: number; cpu: number }, work: () => unknown): Promise<void> {
  const cpu = process.cpuUsage();
  const wall = performance.now();
  await work();
  into.wall += performance.now() - wall;
  const used = process.cpuUsage(cpu);
  into.cpu += (used.user + used.system) / 1000;
}

type Op = 'mark' | 'route' | 'undo' | 'deliver';

async function measureMarking(n: number): Promise<Record<Op, { wall: number; cpu: number }>> {
  const dir = await mkdtemp(join(tmpdir(), 'attention-marking-'));
  try {
    const opened = AccountStore.open(dir);
    addMarks(opened.store, n, 'failed');
    opened.store.close();
    const core = await SellerCore.open({
      advice: adviceFor('app'),
      // Never asked: marks are held for undo and no poll runs.
      client: new SellerApiClient({
        baseUrl: 'http://127.0.0.1:9',
        credentials: { clientId: 'bench', clientSecret: async () => 'bench' },
      }),
      dataDir: dir,
      settings: appDefaults('attention-marks.bench').read,
      timers: new ManualTimers(),
    });
    const store = (core as unknown as { store: AccountStore }).store;
    const ops = { mark: 0, route: 0, undo: 0, deliver: 0 };
    const costs = Object.fromEntries(Object.keys(ops).map((op) => [op, { wall: 0, cpu: 0 }])) as Record<
      Op,
      { wall: number; cpu: number }
    >;
    for (let i = 0; i < MARKS + 2; i++) {
      // The first two warm up, uncounted.
      const into = (op: Op) => (i < 2 ? { wall: 0, cpu: 0 } : costs[op]);
      const mark = {
        orderId: randomUUID(),
        statusCode: 'ProvisioningInProgress' as const,
        description: 'Started',
      };
      let held: { requestId: string } | undefined;
      await timed(into('mark'), async () => {
        held = await core.markStatus({ ...mark, override: true });
      });
      const requestId = held?.requestId ?? '';
      let routed = false;
      await timed(into('route'), () => {
        routed = core.holdsDelivery(requestId);
      });
      let undone = '';
      await timed(into('undo'), () => {
        undone = core.undoMark(requestId);
      });
      if (!routed || undone !== 'undone')
        throw new Error('attention-marks: the mark was not routed and undone');
      const item = (await core.markStatus({ ...mark, override: true })) as Parameters<
        AccountStore['putOutboxItem']
      >[0];
      await timed(into('deliver'), () => {
        store.putOutboxItem({ ...item, notBefore: undefined, attempts: 1, mayBePosted: true });
        store.putOutboxItem({
          ...item,
          notBefore: undefined,
          attempts: 1,
          state: 'sent',
          sentAt: new Date().toISOString(),
          sentAtPoll: 0,
          eventId: randomUUID(),
        });
      });
    }
    await core.close();
    for (const cost of Object.values(costs)) {
      cost.wall /= MARKS;
      cost.cpu /= MARKS;
    }
    return costs;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const shortMarking = await measureMarking(SHORT);
const longMarking = await measureMarking(LONG);
console.log(`${SHORT} vs ${LONG} marks refused: wall and CPU ms per step of a mark (${MARKS} marks)`);
const names: Record<Op, string> = {
  mark: 'a mark (held for undo)',
  route: 'routing an action to its account',
  undo: 'its undo',
  deliver: "a delivery's two writes",
};
console.table(
  Object.fromEntries(
    (Object.keys(names) as Op[]).map((op) => [
      names[op],
      {
        'short wall': +shortMarking[op].wall.toFixed(3),
        'long wall': +longMarking[op].wall.toFixed(3),
        'wall long/short': +(longMarking[op].wall / shortMarking[op].wall).toFixed(2),
        'short CPU': +shortMarking[op].cpu.toFixed(3),
        'long CPU': +longMarking[op].cpu.toFixed(3),
        'CPU long/short': +(longMarking[op].cpu / shortMarking[op].cpu).toFixed(2),
      },
    ]),
  ),
);
