// What the views that show marks cost as marks pile up (issue 27): a store holding SHORT or 100×
// as many marks sent and never shown back, and as many refused (each on an order of its own, the
// marketplace having lost or refused them), then CPU per opening of the Needs attention view
// (its counts and its first ATTENTION_SHOWN of each kind) and per read of an opened order's
// unconfirmed marks. Through the store's own API, with no marketplace: what the views read.
// `npx tsx test/bench/attention-marks.bench.ts` (`ATTENTION_MARKS_SHORT=n` sets the short size).
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MarketplaceEvent } from '../../main/core/api/wire';
import { AccountStore, UNCONFIRMED_AFTER_POLLS } from '../../main/core/store/account-store';
import { ATTENTION_SHOWN } from '../../preload/model';

const SHORT = Number(process.env.ATTENTION_MARKS_SHORT ?? 400);
const LONG = SHORT * 100;
const READS = 200;
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
