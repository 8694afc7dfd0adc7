// "Longest waiting first" by the wait each row shows (WAITS_SINCE: from when this laptop could first
// tell of the order), not by the marketplaces' purchase stamps: in one account's inbox and Needs
// attention (a laptop that was off learns an order late), and merged across accounts whose
// marketplace clocks differ (real stores on disk, merged as the service merges them).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MarketplaceEvent } from '../main/core/api/wire';
import { attentionAcross } from '../main/core/attention-across';
import { InboxAcross } from '../main/core/inbox-across';
import { AccountStore, type InboxQuery } from '../main/core/store/account-store';

const MINUTE = 60_000;
const NOW = Date.parse('2026-11-22T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const LIMITS = { now: iso(NOW), reminderAfterMinutes: 15, stalledAfterDays: 7 };

const purchase = (orderId: string, at: number): MarketplaceEvent => ({
  eventId: `${orderId}-p`,
  eventTypeCode: 'ServicePurchased',
  statusCode: 'ProvisioningStarted',
  description: 'A purchase',
  eventTime: iso(at),
  additionalProperties: [{ name: 'orderId', value: orderId }],
});

let dirs: string[] = [];
let stores: AccountStore[] = [];
async function openStore(): Promise<AccountStore> {
  const dir = await mkdtemp(join(tmpdir(), 'wait-order-'));
  dirs.push(dir);
  const store = AccountStore.open(dir, () => NOW).store;
  stores.push(store);
  return store;
}
beforeEach(() => {
  dirs = [];
  stores = [];
});
afterEach(async () => {
  for (const store of stores) store.close();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** An order bought at `bought` (the marketplace's stamp) that arrived on this laptop at `arrived`. */
const arrive = (store: AccountStore, orderId: string, bought: number, arrived: number) =>
  store.recordPoll({
    events: [purchase(orderId, bought)],
    cursor: undefined,
    backlog: false,
    paused: false,
    now: iso(arrived),
  });

const query = (sort: InboxQuery['sort'], now = NOW): InboxQuery => ({
  filter: 'all',
  search: '',
  sort,
  backlog: 'shown',
  offset: 0,
  limit: 10,
  now: iso(now),
});

describe('one account', () => {
  it('lists the waiting orders by how long they waited here, in the inbox and in Needs attention', async () => {
    const store = await openStore();
    // Bought five hours ago by the stamp, it arrived 20 minutes ago (this laptop was off); the
    // other was bought and arrived three hours ago.
    arrive(store, 'late-news', NOW - 300 * MINUTE, NOW - 20 * MINUTE);
    arrive(store, 'long-waiting', NOW - 180 * MINUTE, NOW - 180 * MINUTE);
    // An hour on, neither just arrived: the longest waiting first, or the shortest.
    const later = NOW + 61 * MINUTE;
    const ids = (sort: InboxQuery['sort']) => store.inboxPage(query(sort, later)).rows.map((r) => r.orderId);
    expect(ids('longest-waiting')).toEqual(['long-waiting', 'late-news']);
    expect(ids('newest')).toEqual(['late-news', 'long-waiting']);
    // Both within the hour: the latest arrival on top.
    expect(store.inboxPage(query('longest-waiting', NOW - 10 * MINUTE)).rows.map((r) => r.orderId)).toEqual([
      'late-news',
      'long-waiting',
    ]);
    // Needs attention: the newest past the delay first, as its rows say ("waiting 20 min").
    const notStarted = store.attention(LIMITS, 10).notStarted;
    expect(notStarted.map((r) => [r.orderId, r.waitingSince])).toEqual([
      ['late-news', iso(NOW - 20 * MINUTE)],
      ['long-waiting', iso(NOW - 180 * MINUTE)],
    ]);
  });
});

describe('two accounts whose marketplace clocks differ', () => {
  it('merges the inbox and Needs attention by how long each order waited here', async () => {
    const [eu, us] = [await openStore(), await openStore()];
    // EU's marketplace clock is three hours behind: bought (and arrived here) two hours ago, stamped five hours ago.
    arrive(eu, 'eu-1', NOW - 300 * MINUTE, NOW - 120 * MINUTE);
    // US's clock is right: bought and arrived here four hours ago.
    arrive(us, 'us-1', NOW - 240 * MINUTE, NOW - 240 * MINUTE);
    const sources = [
      { account: 'eu', core: { inboxRead: <T>(read: (s: AccountStore) => T) => read(eu) } },
      { account: 'us', core: { inboxRead: <T>(read: (s: AccountStore) => T) => read(us) } },
    ];
    const merged = (sort: InboxQuery['sort']) =>
      new InboxAcross().page(sources, query(sort)).orders.map((o) => `${o.orderId} ${o.waitingSince}`);
    expect(merged('longest-waiting')).toEqual([
      `us-1 ${iso(NOW - 240 * MINUTE)}`,
      `eu-1 ${iso(NOW - 120 * MINUTE)}`,
    ]);
    expect(merged('newest')).toEqual([`eu-1 ${iso(NOW - 120 * MINUTE)}`, `us-1 ${iso(NOW - 240 * MINUTE)}`]);
    const attention = (store: AccountStore) => ({
      ...store.attention(LIMITS, 10),
      snoozed: {},
      reminderAfterMinutes: 15,
      stalledAfterDays: 7,
      escalateAfterMinutes: 60,
    });
    const view = attentionAcross(
      [
        { account: 'us', attention: attention(us) },
        { account: 'eu', attention: attention(eu) },
      ],
      { reminderAfterMinutes: 15, stalledAfterDays: 7, escalateAfterMinutes: 60 },
    );
    // The newest past the delay first: EU's, waiting two hours, then US's, four.
    expect(view.notStarted.map((r) => r.orderId)).toEqual(['eu-1', 'us-1']);
  });
});
