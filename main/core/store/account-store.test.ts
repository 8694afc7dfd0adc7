// The store on a real SQLite file: what is kept aside is kept once, told once, and leaves when the
// item is read mended; the inbox's order; the journal kept beside the database; and a first
// start's history recorded in parts, indexed for search after it; the commits its inbox reads are
// checked against; announcements claimed by two processes, or two cores of one, on one store.
import { statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { databaseOfVersion } from '../../../test/support/store-files';
import {
  eventKey,
  type MarketplaceEvent,
  type MonetaryAmount,
  type Order,
  type UnreadableItem,
} from '../api/wire';
import { Claimant } from '../claimant';
import {
  AccountStore,
  DATABASE_FILE,
  FETCH_AGAIN_AFTER_MS,
  FETCH_AGAIN_AT_MOST_MS,
  type InboxQuery,
  LAST_POLL_FILE,
  UNCONFIRMED_AFTER_POLLS,
} from './account-store';
import { CommitMark, JOURNAL_SIZE_LIMIT, openDatabase, openElsewhere } from './database';
import { JOURNAL_FILE, type Journal, RAISED_KEPT, REFUSED_FILE, readJournal, readRefused } from './journal';
import { MIGRATIONS } from './schema';

// What another process does while this one reads the journal (the journal test of two processes).
const journalRead = vi.hoisted(() => ({ meanwhile: undefined as (() => void) | undefined }));
vi.mock('./journal', async (original) => {
  const journal = await original<typeof import('./journal')>();
  return {
    ...journal,
    readJournal: (dataDir: string) => {
      const read = journal.readJournal(dataDir);
      journalRead.meanwhile?.();
      journalRead.meanwhile = undefined;
      return read;
    },
  };
});

let dir: string;

/** Marks of a test's outbox, numbered: their request ids begin with `prefix`, their orders o-N. */
const outboxMark =
  (prefix: string) =>
  (n: number, state: 'pending' | 'sent' | 'failed', extra: object = {}) => ({
    requestId: `${prefix}${n}`,
    orderId: `o-${n}`,
    statusCode: 'ProvisioningCompleted' as const,
    description: 'Done',
    createdAt: '2026-11-22T00:00:00Z',
    state,
    attempts: 1,
    ...extra,
  });

let store: AccountStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'store-'));
  store = AccountStore.open(dir).store;
});
afterEach(async () => {
  store.close();
  await rm(dir, { recursive: true, force: true });
});

const eventId = '0b7407a1-e604-42e2-a7cd-1f06f30d889a';
const odd: UnreadableItem = {
  kind: 'event',
  key: eventId,
  fieldPath: 'statusCode',
  reason: 'Invalid input: expected string, received number',
  raw: { eventId, statusCode: 17 },
};
const mended: MarketplaceEvent = {
  eventId,
  eventTypeCode: 'ServicePurchased',
  statusCode: 'ProvisioningStarted',
  description: 'A purchase',
  eventTime: '2026-11-20T10:00:00Z',
  additionalProperties: [{ name: 'orderId', value: 'o-1' }],
};
const poll = (events: MarketplaceEvent[], unreadable: UnreadableItem[]) =>
  store.recordPoll({
    events,
    unreadable,
    cursor: undefined,
    backlog: false,
    paused: false,
    now: '2026-11-22T00:00:00Z',
  });

it("reads a failed fetch's reason an earlier version stored as the call's message alone as the detail", () => {
  learn([purchase('o-1', '2026-11-21T08:00:00Z')], false);
  store.markFetchFailed(
    'o-1',
    { message: 'The marketplace could not be reached.', details: ['Operation: getOrder'] },
    false,
  );
  expect(store.storedOrder('o-1')?.fetchError).toEqual({
    message: 'The marketplace could not be reached.',
    details: ['Operation: getOrder'],
  });
  const earlier = new DatabaseSync(join(dir, DATABASE_FILE));
  earlier.prepare('UPDATE orders SET fetch_error = ? WHERE order_id = ?').run('getOrder: HTTP 503', 'o-1');
  earlier.close();
  expect(store.storedOrder('o-1')?.fetchError).toEqual({
    message: expect.stringContaining('earlier version'),
    details: ['getOrder: HTTP 503'],
  });
});

it('is known open elsewhere while a store has it open, and not once closed or when it is damaged', async () => {
  const file = join(dir, DATABASE_FILE);
  expect(openElsewhere(file)).toBe(true);
  store.close();
  expect(openElsewhere(file)).toBe(false);
  // The probe leaves a file a store opens again.
  store = AccountStore.open(dir).store;
  expect(openElsewhere(file)).toBe(true);
  store.close();
  await writeFile(file, 'not a database: a torn write');
  expect(openElsewhere(file)).toBe(false);
  store = AccountStore.open(dir).store;
});

it('keeps an unreadable item once however often it is read, and tells it once', () => {
  poll([], [odd]);
  poll([], [odd]);
  expect(store.aside(10).total).toBe(1);
  const untold = store.untoldAside();
  expect(untold).toEqual([expect.objectContaining({ kind: 'event', key: eventId, fieldPath: 'statusCode' })]);
  store.markTold(untold);
  poll([], [odd]);
  expect(store.untoldAside()).toEqual([]);
});

describe('items over the answer cap an earlier version kept aside by their place', () => {
  const overCap = (key: string, place: number): UnreadableItem => ({
    kind: 'event',
    key,
    fieldPath: '(the whole item)',
    reason: `larger than 32 MiB, more than Seller Tray reads, so it was not read (place ${place} of the listing)`,
    raw: null,
  });

  it('leave the store at the upgrade; the same item keyed by its start is not told again, a later one is', async () => {
    const before = await mkdtemp(join(tmpdir(), 'store-'));
    // Version 22 keyed an item over the cap by its place: one item, told at each place it moved to.
    const db = databaseOfVersion(before, 22);
    const keep = db.prepare(
      `INSERT INTO unreadable (source, key, field_path, reason, raw, seen_at, told, lookup_read)
         VALUES ('event', ?, ?, ?, ?, '2026-11-20T10:00:00Z', 1, 1)`,
    );
    for (const place of [51, 50, 48]) {
      const item = overCap(`listEvents place ${place}`, place);
      keep.run(item.key, item.fieldPath, item.reason, 'null');
    }
    keep.run(odd.key, odd.fieldPath, odd.reason, JSON.stringify(odd.raw));
    db.close();

    const migrated = AccountStore.open(before).store;
    try {
      expect(migrated.aside(10).items.map((item) => item.key)).toEqual([odd.key]);
      const walk = (unreadable: UnreadableItem[]) =>
        migrated.recordPoll({
          events: [],
          unreadable,
          cursor: { offset: 60 },
          backlog: false,
          paused: false,
          now: '2026-11-27T18:00:00Z',
        });
      // The first walk after the upgrade reads the item again, now keyed by its start: told before.
      // An order over the cap is news: none was told by its place.
      const order = { ...overCap('item aaaaaaaaaaaaaaaaaaaaaaaa', 3), kind: 'order' as const };
      walk([overCap('item 0123456789abcdef01234567', 47), order]);
      const untold = migrated.untoldAside();
      expect(untold.map((item) => `${item.kind} ${item.key}`)).toEqual([`order ${order.key}`]);
      migrated.markTold(untold);
      expect(migrated.aside(10).total).toBe(3);
      // An item over the cap that comes later is news.
      walk([overCap('item 76543210fedcba9876543210', 52)]);
      expect(migrated.untoldAside().map((item) => item.key)).toEqual(['item 76543210fedcba9876543210']);
    } finally {
      migrated.close();
      await rm(before, { recursive: true, force: true });
    }
  });
});

it('lets an item go from aside when the marketplace sends it mended', () => {
  poll([], [odd]);
  poll([mended], []);
  expect(store.aside(10).total).toBe(0);
  expect(store.history('o-1')).toHaveLength(1);
});

describe('an event id read again', () => {
  it('for its order, with another type and time: the event is rewritten in place', () => {
    poll([mended], []);
    const rewritten = { ...mended, eventTypeCode: 'ServiceTrial', eventTime: '2026-11-20T12:00:00Z' };
    poll([rewritten], []);
    expect(store.history('o-1')).toEqual([rewritten]);
    expect(store.aside(10).total).toBe(0);
  });

  it('in another case or with spaces around it: the same event, no news', () => {
    poll([mended], []);
    expect(poll([{ ...mended, eventId: ` ${eventId.toUpperCase()}\t` }], []).newEvents).toBe(0);
    expect(store.history('o-1')).toEqual([mended]);
  });

  it('for another order: reused, kept aside and told, the event as first read untouched', () => {
    poll([mended], []);
    const reused = { ...mended, additionalProperties: [{ name: 'orderId', value: 'o-2' }] };
    expect(poll([reused], []).newOrders).toBe(0);
    expect(store.history('o-1')).toEqual([mended]);
    expect(store.history('o-2')).toEqual([]);
    expect(store.untoldAside()).toEqual([
      expect.objectContaining({ key: `${eventId} in o-2`, fieldPath: 'eventId' }),
    ]);
  });
});

describe('an event kept aside without an id, its content the key', () => {
  const aside = (raw: Record<string, unknown>): UnreadableItem => ({
    kind: 'event',
    key: JSON.stringify(raw),
    fieldPath: 'statusCode',
    reason: 'Invalid input',
    raw,
  });
  const link = [{ name: 'orderId', value: 'o-1' }];
  const oddPurchase = aside({
    eventTypeCode: 'ServicePurchased',
    statusCode: 17,
    eventTime: '2026-11-20T10:00:00Z',
    additionalProperties: link,
  });
  const { eventId: _, ...mendedWithoutId } = mended;
  const backlog = (unreadable: UnreadableItem[]) =>
    store.recordPoll({
      events: [],
      unreadable,
      cursor: { offset: 1 },
      backlog: true,
      paused: false,
      now: '2026-11-21T00:00:00Z',
    });

  it('leaves the aside table when read mended, its content changed, an id appeared or not', () => {
    for (const read of [mendedWithoutId, mended]) {
      poll([], [oddPurchase]);
      poll([read], []);
      expect(store.aside(10).total).toBe(0);
    }
  });

  it('stays aside when another event of its order is read', () => {
    poll([], [aside({ eventTypeCode: 'ServicePurchased', statusCode: 17, additionalProperties: link })]);
    poll([{ ...mendedWithoutId, statusCode: 'ProvisioningInProgress' }], []);
    poll([{ ...mendedWithoutId, eventTime: '2026-11-20T11:00:00Z' }], []);
    expect(store.aside(10).total).toBe(1);
  });

  it('costs a poll with news what it brought, not every item kept aside: none of 300 others is read', () => {
    poll(
      [],
      Array.from({ length: 300 }, (_, i) =>
        aside({
          eventTypeCode: 'ServicePurchased',
          statusCode: i,
          eventTime: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
          additionalProperties: [{ name: 'orderId', value: `aside-${i}` }],
        }),
      ),
    );
    poll([mended], []); // The store's first look after they were kept.
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(poll([{ ...mended, eventId: 'e-9', additionalProperties: link }], []).newEvents).toBe(1);
      const asideRead = parse.mock.calls.filter(([text]) => String(text).includes('aside-'));
      expect(asideRead).toEqual([]);
    } finally {
      parse.mockRestore();
    }
    // Still found when one of them comes back mended.
    const { statusCode: _code, ...back } = {
      ...mendedWithoutId,
      eventTime: new Date(Date.UTC(2026, 0, 1, 0, 7)).toISOString(),
    };
    poll(
      [
        {
          ...back,
          statusCode: 'ProvisioningStarted',
          additionalProperties: [{ name: 'orderId', value: 'aside-7' }],
        },
      ],
      [],
    );
    expect(store.aside(1000).total).toBe(299);
  });

  it('makes its order history when the backlog kept it, however a later poll first learns the order: not announced, nor escalated', () => {
    backlog([oddPurchase]);
    // A colleague's status is the first readable event of the order.
    const status = {
      ...mended,
      eventId: 'e-2',
      statusCode: 'ProvisioningStarted',
      eventTime: '2026-11-21T09:00:00Z',
    };
    expect(poll([status], []).newOrders).toBe(0);
    expect(poll([mendedWithoutId], []).newOrders).toBe(0);
    expect(store.unescalatedWaiting('2026-11-22T00:00:00Z')).toEqual([]);
  });
});

const purchase = (orderId: string, time: string, statusCode = 'ProvisioningStarted'): MarketplaceEvent => ({
  eventId: `${orderId}-${statusCode}`,
  eventTypeCode: 'ServicePurchased',
  statusCode,
  description: statusCode,
  eventTime: time,
  additionalProperties: [{ name: 'orderId', value: orderId }],
});
const learn = (events: MarketplaceEvent[], backlog: boolean) =>
  store.recordPoll({ events, cursor: undefined, backlog, paused: false, now: '2026-11-22T00:00:00Z' });
const page = (
  sort: 'longest-waiting' | 'newest',
  offset = 0,
  limit = 100,
  filter = 'all',
  more: Partial<InboxQuery> = {},
) => store.inboxPage({ filter, search: '', sort, offset, limit, ...more });
const ids = (p: { rows: { orderId: string }[] }) => p.rows.map((r) => r.orderId);

describe("the log's checkpoints", () => {
  // 3,000 purchases of 2 KB each: about 1,600 pages of the log, over SQLite's usual 1,000.
  const many = (from: number) =>
    Array.from({ length: 3000 }, (_, i) => ({
      ...purchase(`o-${from + i}`, '2026-11-21T08:00:00Z'),
      description: 'x'.repeat(2000),
    }));
  const size = (suffix = '') => statSync(join(dir, `${DATABASE_FILE}${suffix}`)).size;

  it('wait while a first start writes its backlog, come after other writes as before, and leave a log no larger than the limit', () => {
    const before = size();
    store.recordPoll({
      events: many(0),
      cursor: undefined,
      backlog: true,
      more: true,
      paused: false,
      now: '2026-11-22T00:00:00Z',
    });
    // Not checkpointed: the database file has not grown, the log holds the part.
    expect(size()).toBe(before);
    expect(size('-wal')).toBeGreaterThan(1000 * 4096);
    // News: checkpointed after its commit, the backlog's pages with it.
    learn(many(3000), false);
    expect(size()).toBeGreaterThan(before + 1000 * 4096);
    // The next writes start the log again, no longer than its limit.
    learn([purchase('late-1', '2026-11-21T09:00:00Z')], false);
    learn([purchase('late-2', '2026-11-21T09:00:00Z')], false);
    expect(size('-wal')).toBeLessThanOrEqual(JOURNAL_SIZE_LIMIT);
  });
});

describe('the inbox', () => {
  beforeEach(() => {
    // w1 waits longest, w3 arrived last; d1..d2 are done, d2 the newest of them.
    learn(
      [
        purchase('w1', '2026-11-01T08:00:00Z'),
        purchase('d1', '2026-11-02T08:00:00Z'),
        purchase('d1', '2026-11-02T09:00:00Z', 'ProvisioningInProgress'),
        purchase('w2', '2026-11-03T08:00:00Z'),
        purchase('d2', '2026-11-04T08:00:00Z'),
        purchase('d2', '2026-11-20T10:00:00Z', 'ProvisioningInProgress'),
      ],
      true,
    );
    learn([purchase('w3', '2026-11-21T08:00:00Z')], false);
  });

  it("puts the waiting orders first, those that arrived before the first sync's backlog, then the rest newest first", () => {
    expect(ids(page('longest-waiting'))).toEqual(['w3', 'w1', 'w2', 'd2', 'd1']);
    expect(ids(page('newest'))).toEqual(['w3', 'w2', 'w1', 'd2', 'd1']);
    expect(page('longest-waiting')).toMatchObject({ total: 5, waiting: 3 });
    const rows = page('longest-waiting').rows;
    expect(rows.filter((r) => r.backlog).map((r) => r.orderId)).toEqual(['w1', 'w2']);
    expect(page('longest-waiting').groups).toEqual([
      { name: 'arrived', start: 0, size: 0, holds: 0 },
      { name: 'waiting', start: 0, size: 1, holds: 1 },
      { name: 'stalled', start: 1, size: 0, holds: 0 },
      { name: 'backlog', start: 1, size: 2, holds: 2 },
      { name: 'rest', start: 3, size: 2, holds: 2 },
    ]);
  });

  it('reads its counts and keys again once this store or another process on the folder wrote, not before', () => {
    const query = { filter: 'all', search: '', sort: 'newest' as const, now: '2026-11-22T00:30:00Z' };
    expect(ids(page('newest'))).toEqual(['w3', 'w2', 'w1', 'd2', 'd1']);
    expect(store.inboxKeys(query, 'rest', 10).map((k) => k.order_id)).toEqual(['d2', 'd1']);
    // Another connection (the CLI's watch on the same folder) commits a change.
    const other = AccountStore.open(dir).store;
    other.recordPoll({
      events: [
        purchase('d3', '2026-11-21T09:00:00Z'),
        purchase('d3', '2026-11-21T10:00:00Z', 'ProvisioningCompleted'),
      ],
      cursor: undefined,
      backlog: true,
      paused: false,
      now: '2026-11-22T00:00:00Z',
    });
    other.close();
    expect(ids(page('newest'))).toEqual(['w3', 'w2', 'w1', 'd3', 'd2', 'd1']);
    expect(store.inboxKeys(query, 'rest', 10).map((k) => k.order_id)).toEqual(['d3', 'd2', 'd1']);
    // This connection writes: an arrival opened is no longer unopened.
    const unopened = () => page('newest').unopened.map((u) => u.orderId);
    expect(unopened()).toContain('w3');
    store.markOpened('w3', '2026-11-22T00:40:00Z');
    expect(unopened()).not.toContain('w3');
  });

  it("counts the commits on its file from the WAL index, any connection's, and says when it cannot", () => {
    const mark = new CommitMark(join(dir, DATABASE_FILE));
    const first = mark.seen();
    expect(first).toBeTypeOf('number');
    expect(mark.seen()).toBe(first);
    const version = store.inboxVersion();
    // A commit by this connection, then one by another (as another process's would be).
    store.rememberPageSize(40);
    const afterOwn = mark.seen();
    expect(afterOwn).toBeGreaterThan(first ?? 0);
    expect(store.inboxVersion()).not.toBe(version);
    const other = AccountStore.open(dir).store;
    other.rememberPageSize(30);
    other.close();
    expect(mark.seen()).toBeGreaterThan(afterOwn ?? 0);
    expect(mark.seen()).toBe(mark.seen());
    mark.close();
    // No WAL index to read (not a WAL database): the store asks SQLite instead.
    const none = new CommitMark(join(dir, 'absent.db'));
    expect(none.seen()).toBeUndefined();
    none.close();
  });

  it('pages across the groups without a gap or a repeat', () => {
    for (const sort of ['longest-waiting', 'newest'] as const) {
      for (const more of [{}, { now: '2026-11-22T00:30:00Z', stalledAfterDays: 7 }]) {
        const whole = ids(page(sort, 0, 100, 'all', more));
        const paged = [0, 2, 4].flatMap((offset) => ids(page(sort, offset, 2, 'all', more)));
        expect(paged).toEqual(whole);
        expect(new Set(whole).size).toBe(5);
      }
    }
    expect(ids(page('longest-waiting', 2, 2))).toEqual(['w2', 'd2']);
  });

  it('says when its groups next change by the clock alone: an arrival an hour on, an order stalling', () => {
    // w3 was queued at 00:00; d2 has been in progress since 11-20 10:00, d1 long enough to be stalled.
    const at = (now: string, stalledAfterDays = 0) =>
      page('newest', 0, 100, 'all', { now, stalledAfterDays }).regroupsAt;
    expect(at('2026-11-22T00:30:00Z')).toBe('2026-11-22T01:00:00.001Z');
    expect(at('2026-11-22T00:30:00Z', 7)).toBe('2026-11-22T01:00:00.001Z');
    expect(at('2026-11-22T01:30:00Z', 7)).toBe('2026-11-27T10:00:00.001Z');
    expect(at('2026-11-22T01:30:00Z')).toBeNull();
    expect(page('newest').regroupsAt).toBeNull();
    // By that moment d2 has stalled (a second before, it had not).
    const stalled = (now: string) =>
      page('newest', 0, 100, 'all', { now, stalledAfterDays: 7 }).groups.find((g) => g.name === 'stalled')
        ?.size;
    expect([stalled('2026-11-27T09:59:59.000Z'), stalled('2026-11-27T10:00:00.001Z')]).toEqual([1, 2]);
  });

  it('keeps an arrival on top for an hour whatever the sort, then with the other waiting orders', () => {
    // w3 arrived at 00:00; w0 arrives at 00:40, stamped before any other order (a clock behind).
    store.recordPoll({
      events: [purchase('w0', '2026-10-01T08:00:00Z')],
      cursor: undefined,
      backlog: false,
      paused: false,
      now: '2026-11-22T00:40:00Z',
    });
    const at = (now: string, sort: 'longest-waiting' | 'newest') => ids(page(sort, 0, 100, 'all', { now }));
    // Both within the hour: the latest arrival first, above the backlog whatever the sort.
    expect(at('2026-11-22T00:50:00Z', 'longest-waiting')).toEqual(['w0', 'w3', 'w1', 'w2', 'd2', 'd1']);
    expect(at('2026-11-22T00:50:00Z', 'newest')).toEqual(['w0', 'w3', 'w2', 'w1', 'd2', 'd1']);
    // An hour after w3 came, it is one of the waiting orders (sorted); w0 is still just arrived.
    expect(at('2026-11-22T01:10:00Z', 'longest-waiting')).toEqual(['w0', 'w3', 'w1', 'w2', 'd2', 'd1']);
    expect(page('longest-waiting', 0, 100, 'all', { now: '2026-11-22T01:10:00Z' }).groups[0]).toEqual({
      name: 'arrived',
      start: 0,
      size: 1,
      holds: 1,
    });
    // Without the time, nothing is "just arrived" (the CLI's list): w3 has waited longer here.
    expect(ids(page('longest-waiting'))).toEqual(['w3', 'w0', 'w1', 'w2', 'd2', 'd1']);
  });

  it('lists the stalled orders in progress after the waiting ones, the longest in progress first', () => {
    const at = (stalledAfterDays: number) =>
      page('newest', 0, 100, 'all', { now: '2026-11-22T00:00:00Z', stalledAfterDays });
    // d1 is in progress since Nov 2 (20 days), d2 since Nov 20 (1.6 days).
    expect(ids(at(7))).toEqual(['w3', 'd1', 'w2', 'w1', 'd2']);
    expect(at(7).groups.find((g) => g.name === 'stalled')).toEqual({
      name: 'stalled',
      start: 1,
      size: 1,
      holds: 1,
    });
    expect(ids(at(1))).toEqual(['w3', 'd1', 'd2', 'w2', 'w1']);
    // 0: no order is ever stalled.
    expect(ids(at(0))).toEqual(['w3', 'w2', 'w1', 'd2', 'd1']);
    // An order the user marked is in progress since the mark.
    expect(
      ids(
        page('newest', 0, 100, 'ProvisioningInProgress', {
          now: '2026-11-22T00:00:00Z',
          stalledAfterDays: 1,
        }),
      ),
    ).toEqual(['d1', 'd2']);
  });

  it('folds a large backlog away when asked, or by its size, and a new arrival is never below it', () => {
    const backlog = Array.from({ length: 140 }, (_, i) =>
      purchase(
        `b${String(i).padStart(3, '0')}`,
        new Date(Date.parse('2026-08-01T00:00:00Z') + i * 3600_000).toISOString(),
      ),
    );
    learn(backlog, true);
    learn([purchase('new', '2026-11-22T00:05:00Z')], false);
    const now = '2026-11-22T00:10:00Z';
    const shown = page('longest-waiting', 0, 500, 'all', { now });
    expect(ids(shown)[0]).toBe('new');
    expect(shown.groups.find((g) => g.name === 'backlog')).toMatchObject({ size: 142, holds: 142 });
    for (const backlogChoice of ['by-size', 'hidden'] as const) {
      const folded = page('longest-waiting', 0, 500, 'all', { now, backlog: backlogChoice });
      expect(folded.groups.find((g) => g.name === 'backlog')).toMatchObject({ size: 0, holds: 142 });
      expect(ids(folded)).toEqual(['new', 'w3', 'd2', 'd1']);
      expect(folded).toMatchObject({ total: 4, waiting: 144 });
    }
    // Later on, under "Longest waiting first", the arrival still comes before the backlog.
    expect(ids(page('longest-waiting', 0, 3, 'all', { now: '2026-11-23T00:00:00Z' }))).toEqual([
      'w3',
      'new',
      'b000',
    ]);
  });

  it('says since when each order has its status', () => {
    const rows = page('newest').rows;
    expect(rows.find((r) => r.orderId === 'd2')?.statusSince).toBe('2026-11-20T10:00:00Z');
    expect(rows.find((r) => r.orderId === 'w1')?.statusSince).toBe('2026-11-01T08:00:00Z');
  });

  it('marks an arrival (not the first start backlog) until it is opened, and says where it stands', () => {
    const before = page('longest-waiting');
    expect(before.rows.filter((r) => r.unopened).map((r) => r.orderId)).toEqual(['w3']);
    // It arrived while the app ran: above the first sync's backlog.
    expect(before.unopened).toEqual([{ orderId: 'w3', index: 0 }]);
    expect(page('newest').unopened).toEqual([{ orderId: 'w3', index: 0 }]);
    expect(page('longest-waiting', 0, 100, 'ProvisioningInProgress').unopened).toEqual([]);

    store.markOpened('w3', '2026-11-22T01:00:00Z');
    const after = page('longest-waiting');
    expect(after.rows.some((r) => r.unopened)).toBe(false);
    expect(after.unopened).toEqual([]);
  });
});

describe("an inbox row's total", () => {
  const order = (anticipatedMonetaryTotal?: MonetaryAmount): Order => ({
    orderId: 'o-1',
    orderTypeCode: 'Purchase',
    documentCurrencyCode: 'SEK',
    buyerCustomerParty: { party: { partyName: 'Fjord AB' } },
    sellerSupplierParty: {},
    documentLines: [],
    ...(anticipatedMonetaryTotal ? { anticipatedMonetaryTotal } : {}),
  });
  const rowTotal = () => page('newest').rows.find((r) => r.orderId === 'o-1')?.total;

  it('is its amount and currency, for the window to write in the user’s locale', () => {
    learn([purchase('o-1', '2026-11-20T10:00:00Z')], false);
    store.saveOrder('o-1', order({ amount: 1234.56, currencyCode: 'EUR' }), [], '2026-11-22T00:00:00Z');
    expect(rowTotal()).toEqual({ amount: 1234.56, currencyCode: 'EUR' });
    // Without a currency of its own, the total is in the order's.
    store.saveOrder('o-1', order({ amount: 990 }), [], '2026-11-22T00:00:00Z');
    expect(rowTotal()).toEqual({ amount: 990, currencyCode: 'SEK' });
    store.saveOrder('o-1', order(), [], '2026-11-22T00:00:00Z');
    expect(rowTotal()).toBeUndefined();
  });

  it('is read again from the stored orders of a database that kept it as English text', async () => {
    // A database of the version before, holding one order with a total and one without.
    const before = await mkdtemp(join(tmpdir(), 'store-before-'));
    const db = databaseOfVersion(before, 3);
    const insert = db.prepare(
      `INSERT INTO orders (order_id, purchased_at, effective_status, document, stale, buyer, product, total)
       VALUES (?, '2026-11-20T10:00:00Z', 'ProvisioningStarted', ?, 0, 'Fjord AB', 'a product', ?)`,
    );
    insert.run('o-1', JSON.stringify(order({ amount: 1234.56 })), 'SEK 1,234.56');
    insert.run('o-2', JSON.stringify({ ...order(), orderId: 'o-2' }), '');
    db.close();

    const migrated = AccountStore.open(before).store;
    try {
      const { rows } = migrated.inboxPage({
        filter: 'all',
        search: '',
        sort: 'newest',
        offset: 0,
        limit: 10,
      });
      expect(rows.find((r) => r.orderId === 'o-1')?.total).toEqual({ amount: 1234.56, currencyCode: 'SEK' });
      expect(rows.find((r) => r.orderId === 'o-2')).not.toHaveProperty('total');
    } finally {
      migrated.close();
      await rm(before, { recursive: true, force: true });
    }
  });
});

describe('reminders', () => {
  it('are found among the waiting orders not reminded yet, not by walking every waiting order', () => {
    poll(
      Array.from({ length: 50 }, (_, i) =>
        purchase(`o-${i}`, `2026-11-20T10:${String(i).padStart(2, '0')}:00Z`),
      ),
      [],
    );
    store.markReminded(
      Array.from({ length: 48 }, (_, i) => `o-${i}`),
      '2026-11-21T00:00:00Z',
    );
    expect(store.unremindedWaiting(new Date().toISOString()).map((o) => o.orderId)).toEqual(['o-48', 'o-49']);
    // Read through the partial index of the waiting orders not reminded: the query names it
    // (INDEXED BY), and SQLite refuses the query when its condition no longer fits the index.
  });

  it('carry over from a database of the version before, which kept them in a table of their own', async () => {
    const before = await mkdtemp(join(tmpdir(), 'store-before-'));
    const db = databaseOfVersion(before, 4);
    const insert = db.prepare(
      `INSERT INTO orders (order_id, purchased_at, effective_status, stale)
       VALUES (?, '2026-11-20T10:00:00Z', 'ProvisioningStarted', 0)`,
    );
    const purchase = db.prepare(
      `INSERT INTO events (key, order_id, event_type, status, event_time, event_ms, json)
       VALUES (?, ?, 'ServicePurchased', 'ProvisioningStarted', '2026-11-20T10:00:00Z', ?, ?)`,
    );
    for (const id of ['o-1', 'o-2']) {
      insert.run(id);
      // Its purchase event too: the store derives every order's status from its events again.
      purchase.run(
        `e-${id}`,
        id,
        Date.parse('2026-11-20T10:00:00Z'),
        JSON.stringify({
          ...mended,
          eventId: `e-${id}`,
          additionalProperties: [{ name: 'orderId', value: id }],
        }),
      );
    }
    db.prepare('INSERT INTO reminders (order_id, reminded_at) VALUES (?, ?)').run(
      'o-1',
      '2026-11-21T00:00:00Z',
    );
    db.close();

    const migrated = AccountStore.open(before).store;
    try {
      expect(migrated.unremindedWaiting('2026-11-22T00:00:00Z').map((o) => o.orderId)).toEqual(['o-2']);
      expect(migrated.waitingCount()).toBe(2); // the counts start from what the database held
      // Orders from before escalation (issue 26) are not new: none is announced again as urgent.
      expect(migrated.unescalatedWaiting('2026-11-22T00:00:00Z')).toEqual([]);
    } finally {
      migrated.close();
      await rm(before, { recursive: true, force: true });
    }
  });
});

describe('what each poll looks for', () => {
  it('is found through an index, whatever the history holds', () => {
    const db = (store as unknown as { db: import('node:sqlite').DatabaseSync }).db;
    const plan = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((p) => p.detail).join('; ');
    // The queries as the store runs them each poll (claimAnnouncements, untoldAside).
    expect(plan(`SELECT 1 FROM announcements WHERE state != 'raised' LIMIT 1`)).toContain(
      'announcements_unraised',
    );
    expect(
      plan(
        `SELECT order_id, state, claimed_by FROM announcements WHERE state != 'raised' ORDER BY queued_at`,
      ),
    ).toContain('announcements_unraised');
    expect(plan('SELECT source, key, field_path, reason, seen_at FROM unreadable WHERE told = 0')).toContain(
      'unreadable_untold',
    );
    // The tray's count of items kept aside since the user looked (attentionCounts): the index of
    // those that are no other seller's, not each row's reason read.
    expect(
      plan(
        `SELECT COUNT(*) AS n FROM unreadable WHERE id > 0 AND reason NOT LIKE 'of another seller account%'`,
      ),
    ).toContain('unreadable_shown');
  });
});

describe("the outbox's counts", () => {
  it('say what walking every mark would, through each change of a mark and each poll', () => {
    const walked = () => {
      const polls = store.pollsSucceeded();
      const items = store.outboxItems();
      return {
        pending: items.filter((i) => i.state === 'pending').length,
        failed: items.filter((i) => i.state === 'failed').length,
        unconfirmed: items.filter(
          (i) =>
            i.state === 'sent' &&
            i.readBackAt === undefined &&
            i.sentAtPoll !== undefined &&
            polls - i.sentAtPoll >= UNCONFIRMED_AFTER_POLLS,
        ).length,
      };
    };
    const counted = () => {
      const { unconfirmed, failed } = store.attentionCounts({
        now: '2026-11-22T00:00:00Z',
        reminderAfterMinutes: 0,
        stalledAfterDays: 0,
      });
      return { pending: store.pendingOutboxCount(), failed, unconfirmed };
    };
    const mark = outboxMark('5b0e1c1a-8d7f-4c1e-9a51-3f1f9c1d2e0');
    const steps = [
      () => store.putOutboxItem(mark(1, 'pending')),
      () => store.putOutboxItem(mark(2, 'pending')),
      () => store.putOutboxItem(mark(1, 'sent', { sentAtPoll: store.pollsSucceeded(), eventId: 'e-1' })),
      () => store.putOutboxItem(mark(2, 'failed')),
      () => store.putOutboxItem(mark(3, 'sent')), // sent by a version that did not count polls
      () => store.putOutboxItem(mark(4, 'sent', { sentAtPoll: store.pollsSucceeded() })),
      () => store.putOutboxItem(mark(4, 'sent', { sentAtPoll: 0, readBackAt: '2026-11-22T00:00:00Z' })),
      () => store.forgetConfirmed(),
      () => store.putOutboxItem(mark(2, 'pending')), // tried again
      () =>
        store.deleteOutboxItem(mark(2, 'pending').requestId, { as: 'undone', at: '2026-11-22T00:00:00Z' }),
    ];
    let unconfirmedSeen = false;
    for (const step of steps) {
      step();
      // Polls pass: a sent mark not shown back becomes unconfirmed a few polls on.
      for (let poll = 0; poll < UNCONFIRMED_AFTER_POLLS; poll++) {
        expect(counted()).toEqual(walked());
        unconfirmedSeen ||= walked().unconfirmed > 0;
        store.notePollSucceeded('2026-11-22T00:00:00Z');
      }
    }
    expect(unconfirmedSeen).toBe(true);
  });
});

describe('the last successful poll, in its file', () => {
  const mark = outboxMark('3e9a1f0c-2b4d-4e8f-9a6b-1c2d3e4f5a6');
  const attention = () =>
    store.attentionCounts({ now: '2026-11-22T00:00:00Z', reminderAfterMinutes: 0, stalledAfterDays: 0 });
  /** Five polls, then a mark sent at the fifth that no listing shows back. */
  const sentAtFifthPoll = () => {
    for (let poll = 0; poll < 5; poll++) store.notePollSucceeded('2026-11-22T00:00:00Z');
    store.putOutboxItem(mark(1, 'sent', { sentAtPoll: store.pollsSucceeded(), eventId: 'e-1' }));
  };
  /** The polls a mark waits to be listed in Needs attention, from the count the store opened with. */
  const pollsUntilUnconfirmed = () => {
    let polls = 0;
    while (attention().unconfirmed === 0 && polls < 20) {
      store.notePollSucceeded('2026-11-22T00:01:00Z');
      polls++;
    }
    return polls;
  };

  it('damaged, is kept aside and told in the log, and the polls count on from the marks sent', async () => {
    sentAtFifthPoll();
    store.close();
    const damaged = '{"at":"2026-11-22T00:00:00Z","n":';
    await writeFile(join(dir, LAST_POLL_FILE), damaged);

    const reopened = AccountStore.open(dir);
    store = reopened.store;

    expect(reopened.warnings).toEqual([
      expect.stringMatching(
        new RegExp(`^${LAST_POLL_FILE} could not be read .* kept aside as ${LAST_POLL_FILE}\\.damaged-`),
      ),
    ]);
    const aside = (await readdir(dir)).filter((name) => name.startsWith(`${LAST_POLL_FILE}.damaged-`));
    expect(aside).toHaveLength(1);
    expect(await readFile(join(dir, aside[0] as string), 'utf8')).toBe(damaged);
    expect(reopened.problems).toEqual([]);
    // The mark is listed in Needs attention as many polls on as without the damage.
    expect(pollsUntilUnconfirmed()).toBe(UNCONFIRMED_AFTER_POLLS);
  });

  it('gone, the polls count on from the marks sent all the same', async () => {
    sentAtFifthPoll();
    store.close();
    await rm(join(dir, LAST_POLL_FILE));

    const reopened = AccountStore.open(dir);
    store = reopened.store;

    expect(reopened.warnings).toEqual([]);
    expect(pollsUntilUnconfirmed()).toBe(UNCONFIRMED_AFTER_POLLS);
  });
});

describe("the tray's stalled count", () => {
  it('says what a full count would, through status changes, marks, limit changes and a clock set back', () => {
    // A seeded generator (mulberry32): the same operations at every run.
    let seed = 37;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const DAY = 86_400_000;
    const orders = Array.from(
      { length: 30 },
      (_, i) => `3f6c2a1e-0000-4000-8000-${String(i).padStart(12, '0')}`,
    );
    const marks: string[] = [];
    let now = Date.parse('2026-11-22T00:00:00Z');
    let days = 7;
    const db = (
      store as unknown as { db: { prepare: (sql: string) => { get: (...p: unknown[]) => unknown } } }
    ).db;
    const fullCount = () =>
      days === 0
        ? 0
        : (
            db
              .prepare(
                `SELECT COUNT(*) AS n FROM orders NOT INDEXED WHERE status = 'ProvisioningInProgress'
                   AND effective_status = 'ProvisioningInProgress' AND julianday(status_at) < julianday(?)`,
              )
              .get(new Date(now - days * DAY).toISOString()) as { n: number }
          ).n;
    const counted = () =>
      store.attentionCounts({
        now: new Date(now).toISOString(),
        reminderAfterMinutes: 0,
        stalledAfterDays: days,
      }).stalled;
    const statuses = [
      'ProvisioningStarted',
      'ProvisioningInProgress',
      'ProvisioningCompleted',
      'ProvisioningFailed',
    ];
    const done = { event: 0, mark: 0, unmark: 0, ahead: 0, back: 0, limit: 0 };
    let stalledSeen = 0;
    for (let step = 0; step < 600; step++) {
      const what = pick([
        'event',
        'event',
        'event',
        'mark',
        'unmark',
        'ahead',
        'ahead',
        'back',
        'limit',
      ] as const);
      if (what === 'event') {
        const orderId = pick(orders);
        store.recordPoll({
          events: [
            {
              eventId: `3f6c2a1e-0000-4000-9000-${String(step).padStart(12, '0')}`,
              eventTypeCode: 'ServicePurchased',
              statusCode: pick(statuses) as MarketplaceEvent['statusCode'],
              description: 'A status',
              eventTime: new Date(now - Math.floor(random() * 20 * DAY)).toISOString(),
              additionalProperties: [{ name: 'orderId', value: orderId }],
            },
          ],
          cursor: undefined,
          backlog: random() < 0.5,
          paused: false,
          now: new Date(now).toISOString(),
        });
      } else if (what === 'mark') {
        const requestId = `3f6c2a1e-0000-4000-a000-${String(step).padStart(12, '0')}`;
        store.putOutboxItem({
          requestId,
          orderId: pick(orders),
          statusCode: pick(['ProvisioningInProgress', 'ProvisioningCompleted'] as const),
          description: 'Marked here',
          createdAt: new Date(now).toISOString(),
          state: 'pending',
          attempts: 0,
        });
        marks.push(requestId);
      } else if (what === 'unmark') {
        const requestId = marks.splice(Math.floor(random() * marks.length), 1)[0];
        if (requestId) store.deleteOutboxItem(requestId, { as: 'undone', at: new Date(now).toISOString() });
      } else if (what === 'ahead') {
        now += Math.floor(random() * 2 * DAY);
      } else if (what === 'back') {
        now -= Math.floor(random() * 4 * DAY); // the clock set back
      } else {
        days = pick([0, 1, 3, 7, 14, 30]);
      }
      done[what]++;
      const full = fullCount();
      expect({ step, what, stalled: counted() }).toEqual({ step, what, stalled: full });
      stalledSeen = Math.max(stalledSeen, full);
    }
    expect(Object.values(done).every((n) => n > 20)).toBe(true);
    expect(stalledSeen).toBeGreaterThan(3);
  });

  it('is counted right where the store cannot be written (a full or read-only disk): the moment waits', () => {
    const db = (store as unknown as { db: { exec: (sql: string) => void } }).db;
    const inProgressSince = (i: number, at: string) =>
      store.recordPoll({
        events: [
          {
            eventId: `3f6c2a1e-0000-4000-9000-${String(i).padStart(12, '0')}`,
            eventTypeCode: 'ServicePurchased',
            statusCode: 'ProvisioningInProgress',
            description: 'In progress',
            eventTime: at,
            additionalProperties: [
              { name: 'orderId', value: `3f6c2a1e-0000-4000-8000-${String(i).padStart(12, '0')}` },
            ],
          },
        ],
        cursor: undefined,
        backlog: true,
        paused: false,
        now: at,
      });
    inProgressSince(1, '2026-11-01T00:00:00Z');
    inProgressSince(2, '2026-11-10T00:00:00Z');
    const stalled = (now: string) =>
      store.attentionCounts({ now, reminderAfterMinutes: 0, stalledAfterDays: 7 }).stalled;
    expect(stalled('2026-11-12T00:00:00Z')).toBe(1);
    db.exec('PRAGMA query_only = ON'); // every write refused, as on a full or read-only disk
    try {
      expect(stalled('2026-11-20T00:00:00Z')).toBe(2);
    } finally {
      db.exec('PRAGMA query_only = OFF');
    }
    expect(stalled('2026-11-20T00:00:00Z')).toBe(2);
    expect(stalled('2026-11-12T00:00:00Z')).toBe(1);
  });

  it('counts the orders a store held before it was kept', async () => {
    const before = await mkdtemp(join(tmpdir(), 'store-'));
    const db = databaseOfVersion(
      before,
      MIGRATIONS.findIndex((m) => m.includes('CREATE TABLE stalled_count')),
    );
    // Its orders as their events say (the store derives each order's status from them at its open).
    const insert = db.prepare(
      `INSERT INTO events (key, order_id, event_type, status, event_time, event_ms, json) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    const inProgress = (orderId: string, eventTime: string) => {
      const event = {
        ...mended,
        eventId: `e-${orderId}`,
        statusCode: 'ProvisioningInProgress',
        eventTime,
        additionalProperties: [{ name: 'orderId', value: orderId }],
      };
      insert.run(
        event.eventId,
        orderId,
        event.eventTypeCode,
        event.statusCode,
        eventTime,
        Date.parse(eventTime),
        JSON.stringify(event),
      );
      db.prepare('INSERT INTO orders (order_id) VALUES (?)').run(orderId);
    };
    inProgress('o-1', '2026-11-10T10:00:00Z');
    inProgress('o-2', '2026-11-12T10:00:00Z');
    inProgress('o-3', '2026-11-20T10:00:00Z');
    db.close();
    const migrated = AccountStore.open(before).store;
    try {
      const stalled = (now: string) =>
        migrated.attentionCounts({ now, reminderAfterMinutes: 0, stalledAfterDays: 7 }).stalled;
      expect(stalled('2026-11-22T00:00:00Z')).toBe(2);
      expect(stalled('2026-11-28T00:00:00Z')).toBe(3);
      expect(stalled('2026-11-18T00:00:00Z')).toBe(1); // the clock set back
    } finally {
      migrated.close();
      await rm(before, { recursive: true, force: true });
    }
  });
});

describe('an order whose fetch failed', () => {
  it('is fetched again when its wait ends, each wait longer, and at once when its events change', async () => {
    const clockDir = await mkdtemp(join(tmpdir(), 'store-'));
    let now = Date.parse('2026-11-22T00:00:00Z');
    const timed = AccountStore.open(clockDir, () => now).store;
    const purchase = (orderId: string, key: string, statusCode: MarketplaceEvent['statusCode']) => ({
      ...mended,
      eventId: key,
      statusCode,
      additionalProperties: [{ name: 'orderId', value: orderId }],
    });
    const record = (events: MarketplaceEvent[]) =>
      timed.recordPoll({
        events,
        cursor: undefined,
        backlog: false,
        paused: false,
        now: new Date(now).toISOString(),
      });
    const due = () => timed.ordersToFetch(10, new Set());
    try {
      record([purchase('o-1', 'e-1', 'ProvisioningStarted'), purchase('o-2', 'e-2', 'ProvisioningStarted')]);
      expect(due().toSorted()).toEqual(['o-1', 'o-2']);
      const againAt = (orderId: string) => timed.storedOrder(orderId)?.fetchAgainAt;
      expect(againAt('o-1')).toBeNull();
      expect(
        timed.markFetchFailed('o-1', { message: 'the order could not be read', details: [] }, true),
      ).toBe(true);
      expect(againAt('o-1')).toBe(new Date(now + FETCH_AGAIN_AFTER_MS).toISOString()); // shown with the failure
      expect(due()).toEqual(['o-2']); // not at the next poll: it waits
      now += FETCH_AGAIN_AFTER_MS;
      expect(due()).toEqual(['o-2', 'o-1']); // new ones first, then those due again
      // The same reason, but a later time to show: its views are told again.
      expect(
        timed.markFetchFailed('o-1', { message: 'the order could not be read', details: [] }, true),
      ).toBe(true);
      expect(againAt('o-1')).toBe(new Date(now + 2 * FETCH_AGAIN_AFTER_MS).toISOString());
      now += FETCH_AGAIN_AFTER_MS;
      expect(due()).toEqual(['o-2']); // the second wait is twice the first
      now += FETCH_AGAIN_AFTER_MS;
      expect(due()).toEqual(['o-2', 'o-1']);
      timed.markFetchFailed('o-1', { message: 'the order could not be read', details: [] }, true);
      record([purchase('o-1', 'e-3', 'ProvisioningInProgress')]);
      expect(due().toSorted()).toEqual(['o-1', 'o-2']); // changed: fetched at once
      // And its failures before the change are forgotten: a failure now waits the first wait.
      timed.markFetchFailed('o-1', { message: 'the order could not be read', details: [] }, true);
      now += FETCH_AGAIN_AFTER_MS;
      expect(due().toSorted()).toEqual(['o-1', 'o-2']);
      // However many failed, the wait is bounded.
      for (let i = 0; i < 40; i++)
        timed.markFetchFailed('o-1', { message: 'the order could not be read', details: [] }, true);
      now += FETCH_AGAIN_AT_MOST_MS;
      expect(due().toSorted()).toEqual(['o-1', 'o-2']);
      // Failures that may pass (an outage) wait the first wait however many, and lengthen nothing.
      timed.markFetchFailed('o-2', { message: 'the order could not be read', details: [] }, true);
      for (let i = 0; i < 5; i++)
        timed.markFetchFailed(
          'o-2',
          { message: 'The marketplace is having problems (HTTP 503)', details: [] },
          false,
        );
      now += FETCH_AGAIN_AFTER_MS;
      expect(due().toSorted()).toEqual(['o-1', 'o-2']);
      timed.markFetchFailed('o-2', { message: 'the order could not be read', details: [] }, true);
      now += FETCH_AGAIN_AFTER_MS;
      expect(due()).toEqual(['o-1']); // its own second failure: twice the first wait, as before the outage
      now += FETCH_AGAIN_AFTER_MS;
      expect(due().toSorted()).toEqual(['o-1', 'o-2']);
      // Set while the clock ran ahead: due at the next fetch, so shown as now.
      for (let i = 0; i < 40; i++)
        timed.markFetchFailed('o-1', { message: 'the order could not be read', details: [] }, true);
      now -= 2 * FETCH_AGAIN_AT_MOST_MS;
      expect(againAt('o-1')).toBe(new Date(now).toISOString());
      now += 2 * FETCH_AGAIN_AT_MOST_MS;
      // Stored: no longer due, nothing to try again.
      const order = { orderId: 'o-1', buyerCustomerParty: {}, sellerSupplierParty: {}, documentLines: [] };
      timed.saveOrder('o-1', order as unknown as Order, [], new Date(now).toISOString());
      expect(due()).toEqual(['o-2']);
      expect(againAt('o-1')).toBeNull();
    } finally {
      timed.close();
      await rm(clockDir, { recursive: true, force: true });
    }
  });
});

describe('the waiting count', () => {
  it("follows every change of an order's status, as counting them would say", () => {
    const db = (store as unknown as { db: import('node:sqlite').DatabaseSync }).db;
    const counted = () =>
      (
        db
          .prepare(`SELECT COUNT(*) AS n FROM orders WHERE effective_status = 'ProvisioningStarted'`)
          .get() as {
          n: number;
        }
      ).n;
    const purchases = Array.from({ length: 5 }, (_, i) => ({
      ...mended,
      eventId: `p-${i}`,
      additionalProperties: [{ name: 'orderId', value: `o-${i}` }],
    }));
    poll(purchases, []);
    expect(store.waitingCount()).toBe(5);
    // Marked here (pending), marked by the marketplace's history, and a mark undone.
    const item = {
      requestId: '5b0e1c1a-8d7f-4c1e-9a51-3f1f9c1d2e01',
      orderId: 'o-0',
      statusCode: 'ProvisioningInProgress' as const,
      description: 'Started',
      createdAt: '2026-11-22T00:00:00Z',
      state: 'pending' as const,
      attempts: 0,
    };
    store.putOutboxItem(item);
    poll(
      [
        {
          ...mended,
          eventId: 'c-1',
          statusCode: 'ProvisioningCompleted',
          eventTime: '2026-11-21T00:00:00Z',
          additionalProperties: [{ name: 'orderId', value: 'o-1' }],
        },
      ],
      [],
    );
    expect([store.waitingCount(), counted()]).toEqual([3, 3]);
    store.deleteOutboxItem(item.requestId, { as: 'undone', at: '2026-11-21T00:01:00Z' });
    expect([store.waitingCount(), counted()]).toEqual([4, 4]);
  });
});

describe('the journal', () => {
  describe('an arrived order, its database lost and rebuilt', () => {
    const bought = '2026-11-22T07:58:00Z';
    const arrived = '2026-11-22T08:00:00.000Z';
    const rebuiltAt = '2026-11-22T11:00:00Z';
    /** The order arrives and is announced; three hours later the database is lost, and the rebuilt one reads the history again. */
    const rebuiltAfter = async (journalEdit: (journal: Journal) => Journal = (j) => j) => {
      store.recordPoll({
        events: [purchase('o-1', bought)],
        cursor: undefined,
        backlog: false,
        paused: false,
        now: arrived,
      });
      store.markRaised(['o-1'], arrived);
      store.close();
      const journal = JSON.parse(await readFile(join(dir, JOURNAL_FILE), 'utf8')) as Journal;
      await writeFile(join(dir, JOURNAL_FILE), JSON.stringify(journalEdit(journal)));
      await rm(join(dir, DATABASE_FILE));
      store = AccountStore.open(dir, () => Date.parse(rebuiltAt)).store;
      store.recordPoll({
        events: [purchase('o-1', bought)],
        cursor: { offset: 1 },
        backlog: true,
        paused: false,
        now: rebuiltAt,
      });
      const query = {
        filter: 'all',
        search: '',
        sort: 'newest' as const,
        offset: 0,
        limit: 10,
        now: rebuiltAt,
      };
      const { rows, groups } = store.inboxPage(query);
      const notStarted = store.attention(
        { now: rebuiltAt, reminderAfterMinutes: 15, stalledAfterDays: 7 },
        10,
      ).notStarted;
      return {
        waitingSince: rows[0]?.waitingSince,
        group: groups.find((g) => g.size > 0)?.name,
        notStarted: notStarted.map((r) => r.orderId),
      };
    };

    it('keeps when it arrived: still waiting three hours, late and in Needs attention, not just arrived', async () => {
      expect(await rebuiltAfter()).toEqual({ waitingSince: arrived, group: 'waiting', notStarted: ['o-1'] });
    });

    it('from a journal that did not keep it (an earlier version), counts from its purchase stamp', async () => {
      const earlier = (journal: Journal) => ({
        ...journal,
        announcements: journal.announcements.map(({ orderId, state }) => ({ orderId, state })),
      });
      expect(await rebuiltAfter(earlier)).toEqual({
        waitingSince: '2026-11-22T07:58:00.000Z',
        group: 'waiting',
        notStarted: ['o-1'],
      });
    });
  });

  it('is what a power cut cannot take: with WAL and synchronous NORMAL, a mark whose commits were rolled back comes back', async () => {
    // The durability chosen (database.ts): WAL, synchronous NORMAL on every connection the store opens.
    const opened = openDatabase(join(dir, 'durability.db'));
    expect(opened.db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    expect(opened.db.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 1 });
    opened.db.close();
    store.recordPoll({
      events: [purchase('o-1', '2026-11-22T07:58:00Z')],
      cursor: undefined,
      backlog: false,
      paused: false,
      now: '2026-11-22T08:00:00Z',
    });
    store.close();
    const onDisk = await readFile(join(dir, DATABASE_FILE)); // closed: every commit is in the file
    store = AccountStore.open(dir).store;
    const mark = outboxMark('7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4')(1, 'pending');
    store.putOutboxItem(mark);
    store.close();
    // The power cut: the mark's commits never reached the disk; the file is as it was before them.
    await writeFile(join(dir, DATABASE_FILE), onDisk);
    for (const log of ['-wal', '-shm']) await rm(join(dir, `${DATABASE_FILE}${log}`), { force: true });
    store = AccountStore.open(dir).store;
    expect(store.outboxItems().map((item) => [item.requestId, item.state])).toEqual([
      [mark.requestId, 'pending'],
    ]);
  });

  it('counts the wait of an order 0.1 announced from its purchase stamp, never after it was imported', async () => {
    await writeFile(
      join(dir, 'events.jsonl'),
      [purchase('o-1', '2026-11-22T07:58:00Z'), purchase('o-2', '2026-11-22T13:00:00Z')]
        .map((e) => `${JSON.stringify(e)}\n`)
        .join(''),
    );
    await writeFile(
      join(dir, 'state.json'),
      JSON.stringify({ version: 1, notified: ['o-1', 'o-2'], reminded: [], held: [], outbox: [] }),
    );
    const { importLegacyFiles } = await import('./legacy-import');
    importLegacyFiles(dir, store, '2026-11-22T11:00:00.000Z');
    const rows = store.inboxPage({ filter: 'all', search: '', sort: 'newest', offset: 0, limit: 10 }).rows;
    // o-2 is stamped ahead of this laptop (a clock ahead): it waits from the import.
    expect(rows.map((r) => [r.orderId, r.waitingSince])).toEqual([
      ['o-2', '2026-11-22T11:00:00.000Z'],
      ['o-1', '2026-11-22T07:58:00.000Z'],
    ]);
  });

  it('keeps every announcement not raised, the latest raised ones, and the newest purchase, before the commit', () => {
    learn([purchase('old', '2026-11-01T08:00:00Z')], true);
    learn(
      Array.from({ length: RAISED_KEPT + 2 }, (_, i) =>
        purchase(`n${i}`, new Date(Date.UTC(2026, 10, 2) + i * 60_000).toISOString()),
      ),
      false,
    );
    const raised = Array.from({ length: RAISED_KEPT + 1 }, (_, i) => `n${i}`);
    store.markRaised(raised, '2026-11-22T00:00:00Z');
    const journal = readJournal(dir);
    expect(journal?.announcements.filter((a) => a.state !== 'raised')).toEqual([
      { orderId: `n${RAISED_KEPT + 1}`, state: 'pending', arrivedAt: '2026-11-22T00:00:00Z' },
    ]);
    expect(journal?.announcements.filter((a) => a.state === 'raised')).toHaveLength(RAISED_KEPT);
    expect(journal?.newestPurchaseMs).toBe(Date.UTC(2026, 10, 2) + (RAISED_KEPT + 1) * 60_000);
  });

  it("a purchase stamped by a clock years ahead does not become the newest purchase: a store rebuilt later still announces the day's new orders", async () => {
    learn(
      [purchase('real', '2026-11-21T08:00:00Z'), purchase('stamped-ahead', '2099-01-01T00:00:00Z')],
      true,
    );
    expect(readJournal(dir)?.newestPurchaseMs).toBe(Date.parse('2026-11-21T08:00:00Z'));
    store.close();
    await rm(join(dir, DATABASE_FILE));
    store = AccountStore.open(dir).store;
    // The rebuilt store reads the whole history again, with a purchase made since.
    const { newOrders } = store.recordPoll({
      events: [
        purchase('real', '2026-11-21T08:00:00Z'),
        purchase('stamped-ahead', '2099-01-01T00:00:00Z'),
        purchase('since', '2026-11-22T09:00:00Z'),
      ],
      cursor: { offset: 3 },
      backlog: true,
      paused: false,
      now: '2026-11-22T10:00:00Z',
    });
    expect(readJournal(dir)?.announcements).toContainEqual({
      orderId: 'since',
      state: 'pending',
      arrivedAt: '2026-11-22T10:00:00Z',
    });
    expect(newOrders).toBeGreaterThanOrEqual(1);
  });

  it('a journal that holds such a stamp as its newest purchase (an earlier version wrote it) is mended: the store rebuilt after the next announces', async () => {
    learn([purchase('real', '2026-11-21T08:00:00Z')], true);
    store.close();
    const journal = JSON.parse(await readFile(join(dir, JOURNAL_FILE), 'utf8')) as Journal;
    await writeFile(
      join(dir, JOURNAL_FILE),
      JSON.stringify({ ...journal, newestPurchaseMs: Date.parse('2099-01-01T00:00:00Z') }),
    );
    const rebuild = async (events: MarketplaceEvent[]) => {
      store.close();
      await rm(join(dir, DATABASE_FILE));
      store = AccountStore.open(dir).store;
      return store.recordPoll({
        events,
        cursor: { offset: events.length },
        backlog: true,
        paused: false,
        now: '2026-11-23T10:00:00Z',
      }).newOrders;
    };
    store = AccountStore.open(dir).store;
    // Which purchases came since the wrong stamp cannot be told: this one backlog is history, as a first start's.
    await rebuild([purchase('real', '2026-11-21T08:00:00Z'), purchase('since', '2026-11-22T09:00:00Z')]);
    expect(readJournal(dir)?.newestPurchaseMs).toBe(Date.parse('2026-11-22T09:00:00Z'));
    expect(
      await rebuild([
        purchase('real', '2026-11-21T08:00:00Z'),
        purchase('since', '2026-11-22T09:00:00Z'),
        purchase('later', '2026-11-23T09:00:00Z'),
      ]),
    ).toBe(1);
  });

  it('that cannot be read is ignored at the next open and written anew', async () => {
    learn([purchase('p1', '2026-11-01T08:00:00Z')], true);
    store.close();
    await writeFile(join(dir, JOURNAL_FILE), '{"version": 1, "outbox": [');
    const reopened = AccountStore.open(dir);
    store = reopened.store;
    expect(reopened.problems).toEqual([]);
    expect(readJournal(dir)?.newestPurchaseMs).toBe(Date.parse('2026-11-01T08:00:00Z'));
  });

  it('is not written again by an open that finds it saying what the database does', async () => {
    learn([purchase('p1', '2026-11-01T08:00:00Z')], false);
    store.close();
    // A durable write replaces the file: a new inode says it was written.
    const written = () => statSync(join(dir, JOURNAL_FILE)).ino;
    const before = written();
    store = AccountStore.open(dir).store;
    expect(written()).toBe(before);
    store.close();
    await writeFile(join(dir, JOURNAL_FILE), JSON.stringify({ ...readJournal(dir), announcements: [] }));
    const edited = written();
    store = AccountStore.open(dir).store;
    expect(written()).not.toBe(edited);
    expect(readJournal(dir)?.announcements).toEqual([
      { orderId: 'p1', state: 'pending', arrivedAt: '2026-11-22T00:00:00Z' },
    ]);
  });

  // Issue 27: each change of the outbox rewrote the journal from every mark pending or refused,
  // so a laptop with thousands refused paid for them at each mark, delivery and undo.
  it('keeps the refused marks in a file of their own, written only when they change, and both put back', async () => {
    const mark = outboxMark('6c1f2d2b-9e80-4d2f-8b62-4a2a0d2e3f1');
    store.atomically(() => {
      for (const n of [1, 2, 3]) store.putOutboxItem(mark(n, 'failed'));
    });
    store.putOutboxItem(mark(4, 'pending'));
    expect(readJournal(dir)?.outbox.map((item) => item.orderId)).toEqual(['o-4']);
    const refused = () => statSync(join(dir, REFUSED_FILE)).ino;
    const before = refused();
    // A mark, its delivery, one undone: the refused marks are as they were.
    store.putOutboxItem(mark(5, 'pending'));
    store.putOutboxItem(mark(5, 'sent', { sentAtPoll: 0, eventId: 'e-5' }));
    store.putOutboxItem(mark(6, 'pending'));
    store.deleteOutboxItem(mark(6, 'pending').requestId, { as: 'undone', at: '2026-11-22T00:00:01Z' });
    expect(refused()).toBe(before);
    expect(readJournal(dir)?.outbox.map((item) => item.orderId)).toEqual(['o-4']);
    // One refused, one sent again: both files say so.
    store.putOutboxItem(mark(4, 'failed'));
    store.putOutboxItem(mark(1, 'pending'));
    expect(readJournal(dir)?.outbox.map((item) => item.orderId)).toEqual(['o-1']);
    store.close();
    await rm(join(dir, DATABASE_FILE));
    const reopened = AccountStore.open(dir);
    store = reopened.store;
    expect(reopened.problems).toEqual([expect.stringMatching(/order database was missing/)]);
    expect(
      store
        .outboxItems()
        .map((item) => [item.orderId, item.state])
        .sort(),
    ).toEqual([
      ['o-1', 'pending'],
      ['o-2', 'failed'],
      ['o-3', 'failed'],
      ['o-4', 'failed'],
    ]);
  });

  /** One mark in the state given (a delivery's fields for 'sent'). */
  const mark = (state: 'pending' | 'sent' | 'failed') => ({
    requestId: '7d203e3c-af91-4e30-9c73-5b3b1e3f4a21',
    orderId: 'o-1',
    statusCode: 'ProvisioningCompleted' as const,
    description: 'Done',
    createdAt: '2026-11-22T00:00:00Z',
    state,
    attempts: 1,
    ...(state === 'sent' ? { sentAtPoll: 0, eventId: 'e-1' } : {}),
  });
  /** Runs `work` with one of the journal's files unwritable (a folder in its place): it throws. */
  const blocked = async (file: string, work: () => void) => {
    await rm(join(dir, file), { force: true });
    await mkdir(join(dir, file, 'in-the-way'), { recursive: true });
    expect(work).toThrow();
    await rm(join(dir, file), { recursive: true });
  };

  /** Rewrites the journal as an earlier version did: its fields only, the refused marks among `outbox`. */
  const writeEarlierJournal = async (outbox: object[]) => {
    const { version, announcements, newestPurchaseMs } = readJournal(dir) as Journal;
    const earlier = { version, outbox, announcements, newestPurchaseMs };
    await writeFile(join(dir, JOURNAL_FILE), JSON.stringify(earlier));
  };

  it('says the database was missing when the journal went with it and the refused file stayed', async () => {
    store.putOutboxItem(mark('failed'));
    store.close();
    await rm(join(dir, DATABASE_FILE));
    await rm(join(dir, JOURNAL_FILE));
    const reopened = AccountStore.open(dir);
    store = reopened.store;
    expect(reopened.problems).toEqual([expect.stringMatching(/order database was missing/)]);
    expect(store.outboxItems().map((item) => item.state)).toEqual(['failed']);
  });

  it('says what was carried over in words for a person, and nothing of what there was none of', async () => {
    store.putOutboxItem(mark('pending'));
    store.close();
    await rm(join(dir, DATABASE_FILE));
    let reopened = AccountStore.open(dir);
    store = reopened.store;
    const history =
      'order history is read again from the marketplace (no order is announced twice, none is missed).';
    expect(reopened.problems).toEqual([
      `Seller Tray's order database was missing. 1 status not yet confirmed was carried over from its journal, and the ${history}`,
    ]);
    // Delivered: the journal then holds nothing to carry over.
    store.putOutboxItem(mark('sent'));
    store.close();
    await rm(join(dir, DATABASE_FILE));
    reopened = AccountStore.open(dir);
    store = reopened.store;
    expect(reopened.problems).toEqual([`Seller Tray's order database was missing. The ${history}`]);
  });

  it.each([JOURNAL_FILE, REFUSED_FILE])(
    'damaged, %s is kept aside and told in the log, and written anew from the database',
    async (file) => {
      store.putOutboxItem(mark('failed'));
      store.putOutboxItem({ ...mark('pending'), requestId: '9a1b2c3d-0000-4000-8000-000000000001' });
      store.close();
      const damaged = (await readFile(join(dir, file), 'utf8')).slice(0, 40);
      await writeFile(join(dir, file), damaged);

      const reopened = AccountStore.open(dir);
      store = reopened.store;

      expect(reopened.warnings).toEqual([
        expect.stringMatching(
          new RegExp(`^${file.replace(/\./g, '\\.')} could not be read .* kept aside as `),
        ),
      ]);
      const aside = (await readdir(dir)).filter((name) => name.startsWith(`${file}.damaged-`));
      expect(aside).toHaveLength(1);
      expect(await readFile(join(dir, aside[0] as string), 'utf8')).toBe(damaged);
      expect(reopened.problems).toEqual([]);
      // The next change writes it anew, whole.
      store.putOutboxItem(mark('failed'));
      expect(readJournal(dir)?.outbox).toHaveLength(1);
      expect(readRefused(dir)?.outbox).toHaveLength(1);
    },
  );

  it('writes both of its files readable by the user only, like the database', () => {
    store.putOutboxItem(mark('failed'));
    for (const file of [DATABASE_FILE, JOURNAL_FILE, REFUSED_FILE]) {
      expect(statSync(join(dir, file)).mode & 0o777, file).toBe(0o600);
    }
  });

  it('writes a mark moving between its two files to the one it enters first: a write cut between them leaves it in one', async () => {
    store.putOutboxItem(mark('pending'));
    // The file it enters cannot be written: the commit fails, and the other file, not written
    // yet, still holds it.
    await blocked(REFUSED_FILE, () => store.putOutboxItem(mark('failed')));
    expect(readJournal(dir)?.outbox.map((item) => item.state)).toEqual(['pending']);
    store.putOutboxItem(mark('failed'));
    expect(readRefused(dir)?.outbox.map((item) => item.state)).toEqual(['failed']);
    await blocked(JOURNAL_FILE, () => store.putOutboxItem(mark('pending')));
    expect(readRefused(dir)?.outbox.map((item) => item.state)).toEqual(['failed']);
  });

  it('rewrites a file written for a change that then failed at the next change: a mark delivered since is not put back refused', async () => {
    store.putOutboxItem(mark('pending'));
    // The refusal's commit fails after the refused file took the mark (the journal cannot be written).
    await blocked(JOURNAL_FILE, () => store.putOutboxItem(mark('failed')));
    store.putOutboxItem(mark('sent'));
    store.close();
    store = AccountStore.open(dir).store;
    expect(store.outboxItems().map((item) => item.state)).toEqual(['sent']);
  });

  it('reads no refused file beside a journal an earlier version wrote (after a downgrade): that journal holds the refused marks itself', async () => {
    store.putOutboxItem(mark('failed'));
    const before = await readFile(join(dir, REFUSED_FILE));
    // An earlier version (same database version) sends it again and delivers it, rewriting the
    // journal its way (refused marks inside, none here) and leaving the refused file as it was.
    store.putOutboxItem(mark('pending'));
    store.putOutboxItem(mark('sent'));
    store.close();
    await writeEarlierJournal([]);
    await writeFile(join(dir, REFUSED_FILE), before);
    store = AccountStore.open(dir).store;
    expect(store.outboxItems().map((item) => item.state)).toEqual(['sent']);
  });

  it('is read by an open under the write lock: a mark another process delivered meanwhile is not put back to be sent again', () => {
    store.putOutboxItem(mark('pending'));
    // The app (store) is open; `watch` opens the same folder while the app delivers the mark.
    const { db: app } = openDatabase(join(dir, DATABASE_FILE));
    app.exec('PRAGMA busy_timeout = 0');
    let delivered = false;
    journalRead.meanwhile = () => {
      try {
        app.exec('BEGIN IMMEDIATE');
        app
          .prepare(`UPDATE outbox SET state = 'sent', json = ? WHERE request_id = ?`)
          .run(JSON.stringify(mark('sent')), mark('sent').requestId);
        app.exec('COMMIT');
        delivered = true;
      } catch {
        // Busy: the opening store holds the write lock, so the delivery commits after its open.
      }
    };
    const watch = AccountStore.open(dir).store;
    try {
      expect(watch.outboxItems().map((item) => item.state)).toEqual([delivered ? 'sent' : 'pending']);
    } finally {
      watch.close();
      app.close();
    }
  });

  it('moves the refused marks out of a journal of the earlier form by writing the refused file first', async () => {
    store.putOutboxItem(mark('failed'));
    store.close();
    // An earlier version wrote the journal with the refused mark inside, and no refused file.
    await writeEarlierJournal([mark('failed')]);
    await blocked(REFUSED_FILE, () => AccountStore.open(dir));
    expect(readJournal(dir)?.outbox.map((item) => item.state)).toEqual(['failed']);
    await rm(join(dir, DATABASE_FILE));
    store = AccountStore.open(dir).store;
    expect(store.outboxItems().map((item) => item.state)).toEqual(['failed']);
  });

  it('makes a rebuilt store announce the purchases newer than any recorded, and only those', async () => {
    learn([purchase('p1', '2026-11-01T08:00:00Z')], true);
    store.close();
    await rm(join(dir, DATABASE_FILE));
    const reopened = AccountStore.open(dir);
    store = reopened.store;
    expect(reopened.problems).toEqual([expect.stringMatching(/order database was missing/)]);
    const backlog = [purchase('p1', '2026-11-01T08:00:00Z'), purchase('p2', '2026-11-01T09:00:00Z')];
    expect(learn(backlog, true).newOrders).toBe(1);
    expect(store.claimAnnouncements(new Claimant(), false).pending).toEqual(['p2']);
  });
});

describe('announcements shared by two processes on one store', () => {
  // The app (pid 100) and `seller-tray watch` (pid 200) on one folder, each with its own connection.
  const app = 100;
  const watch = 200;
  const alive = (pid: number) => pid === app || pid === watch;

  it('a paused process leaves alone an announcement another live process claimed, and takes it once that one is gone', () => {
    learn([purchase('o-1', '2026-11-21T08:00:00Z')], false);
    const other = AccountStore.open(dir).store;
    try {
      // The app claims it and waits for its document; `watch`, paused, then resumed, polls meanwhile.
      expect(store.claimAnnouncements(new Claimant(alive, app), false).pending).toEqual(['o-1']);
      expect(other.claimAnnouncements(new Claimant(alive, watch), true)).toEqual({ pending: [], held: [] });
      expect(other.claimAnnouncements(new Claimant(alive, watch), false)).toEqual({ pending: [], held: [] });
      // The app was killed before it raised it: `watch` raises it, a new order, not one held while paused.
      expect(other.claimAnnouncements(new Claimant((pid) => pid === watch, watch), false)).toEqual({
        pending: ['o-1'],
        held: [],
      });
    } finally {
      other.close();
    }
  });

  it('two cores of one process: neither takes nor lets go what the other claimed, and one closed leaves its claims to take', () => {
    learn([purchase('o-1', '2026-11-21T08:00:00Z')], false);
    const first = new Claimant();
    const second = new Claimant();
    expect(store.claimAnnouncements(first, false).pending).toEqual(['o-1']);
    expect(store.claimAnnouncements(second, true)).toEqual({ pending: [], held: [] });
    expect(store.claimAnnouncements(second, false)).toEqual({ pending: [], held: [] });
    store.releaseAnnouncements(second, ['o-1']);
    expect(store.claimAnnouncements(second, false)).toEqual({ pending: [], held: [] });
    // The first closed, a claim left behind (its release failed): the second raises it.
    first.retire();
    expect(store.claimAnnouncements(second, false).pending).toEqual(['o-1']);
    // A release of the first's coming late lets go nothing of the second's.
    store.releaseAnnouncements(first, ['o-1']);
    expect(store.claimAnnouncements(new Claimant(), false)).toEqual({ pending: [], held: [] });
    second.retire();
  });
});

describe('the mark "closed cleanly" with two connections of one process', () => {
  it('is left by the last of them to close, not by the first while the other still writes', () => {
    const other = AccountStore.open(dir);
    learn([purchase('o-1', '2026-11-21T08:00:00Z')], false);
    store.close();
    // The other connection's process is killed before it closes: it never marks the file.
    other.store.close(false);
    const { db, closedCleanly } = openDatabase(join(dir, DATABASE_FILE));
    db.close();
    expect(closedCleanly).toBe(false);
    store = AccountStore.open(dir).store;
  });

  it('is left when both close cleanly', () => {
    const other = AccountStore.open(dir);
    learn([purchase('o-1', '2026-11-21T08:00:00Z')], false);
    other.store.close();
    store.close();
    const { db, closedCleanly } = openDatabase(join(dir, DATABASE_FILE));
    db.close();
    expect(closedCleanly).toBe(true);
    store = AccountStore.open(dir).store;
  });
});

describe("an order set aside as another seller's", () => {
  const foreign = (event: MarketplaceEvent): UnreadableItem => ({
    kind: 'event',
    key: eventKey(event),
    fieldPath: 'orderId',
    reason: 'of another seller account: its order answers 404 here',
    raw: event,
  });

  it('changes nothing when set aside again, and its later events are kept aside, not recorded or announced', () => {
    learn([purchase('x-1', '2026-11-20T10:00:00Z')], false);
    expect(store.setOrderAside('x-1', foreign, '2026-11-22T00:00:00Z')).toBe(true);
    // A view asking for it again meets the same 404: nothing to set aside, nothing to tell.
    expect(store.setOrderAside('x-1', foreign, '2026-11-22T00:00:01Z')).toBe(false);
    store.markTold(store.untoldAside());
    const started = purchase('x-1', '2026-11-20T11:00:00Z', 'ProvisioningInProgress');
    const later = learn([started], false);
    expect(later).toEqual({ newEvents: 0, newOrders: 0, changed: [] });
    expect(store.history('x-1')).toEqual([]);
    expect(store.storedOrder('x-1')).toBeUndefined();
    expect(store.waitingCount()).toBe(0);
    expect(store.untoldAside().map((item) => [item.kind, item.key])).toEqual([['event', eventKey(started)]]);
  });
});

describe("a first start's history recorded in parts", () => {
  const part = (events: MarketplaceEvent[], more: boolean, offset: number) =>
    store.recordPoll({
      events,
      cursor: { offset },
      backlog: true,
      more,
      paused: false,
      now: '2026-11-22T00:00:00Z',
    });

  it('announces none of it, and the journal learns its newest purchase once it is all recorded', () => {
    expect(part([purchase('a', '2026-11-01T08:00:00Z')], true, 1).newOrders).toBe(0);
    expect(store.firstSyncUnderway()).toBe(true);
    expect(readJournal(dir)?.newestPurchaseMs ?? null).toBeNull();
    expect(part([purchase('b', '2026-11-01T09:00:00Z')], false, 2).newOrders).toBe(0);
    expect(store.firstSyncUnderway()).toBe(false);
    expect(readJournal(dir)?.newestPurchaseMs).toBe(Date.parse('2026-11-01T09:00:00Z'));
    expect(store.cursor()).toEqual({ offset: 2 });
    expect(store.ordersWalkFrom()).toBe(0);
  });

  it('rebuilt, announces only purchases newer than any recorded before it began, whichever part holds them', async () => {
    learn([purchase('p1', '2026-11-01T08:00:00Z')], true);
    store.close();
    await rm(join(dir, DATABASE_FILE));
    store = AccountStore.open(dir).store;
    expect(
      part([purchase('p1', '2026-11-01T08:00:00Z'), purchase('p2', '2026-11-01T09:00:00Z')], true, 2)
        .newOrders,
    ).toBe(1);
    // p2 is recorded now, yet p3 of the next part is compared with what came before the backlog.
    expect(part([purchase('p3', '2026-11-01T08:30:00Z')], false, 3).newOrders).toBe(1);
    expect(store.claimAnnouncements(new Claimant(), false).pending.sort()).toEqual(['p2', 'p3']);
  });

  it('from a database of the version before: its orders stay found by search, and its stalled ones stalled', async () => {
    const before = await mkdtemp(join(tmpdir(), 'store-before-'));
    const db = databaseOfVersion(before, 5);
    db.prepare(
      `INSERT INTO orders (order_id, purchased_at, status, status_at, effective_status, stale)
         VALUES ('o-1', '2026-11-01T10:00:00Z', 'ProvisioningInProgress', '2026-11-02T10:00:00Z', 'ProvisioningInProgress', 0)`,
    ).run();
    db.prepare(`INSERT INTO order_search (rowid, text) SELECT rowid, order_id FROM orders`).run();
    // Version 5 had derived every status from its events already (this order has none here).
    db.prepare(`DELETE FROM meta WHERE key = 'derive-statuses'`).run();
    db.close();
    const migrated = AccountStore.open(before).store;
    try {
      const page = migrated.inboxPage({
        filter: 'all',
        search: 'o-1',
        offset: 0,
        limit: 10,
        now: '2026-11-22T00:00:00Z',
        stalledAfterDays: 7,
      });
      expect(page.rows.map((r) => r.orderId)).toEqual(['o-1']);
      expect(page.searchIncomplete).toBeUndefined();
      expect(page.groups.find((g) => g.name === 'stalled')?.size).toBe(1);
    } finally {
      migrated.close();
      await rm(before, { recursive: true, force: true });
    }
  });

  it('is indexed for search after it, each order once with its document; a search says so meanwhile', () => {
    part([purchase('a-order', '2026-11-01T08:00:00Z')], false, 1);
    const search = () => store.inboxPage({ filter: 'all', search: 'a-ord', offset: 0, limit: 10 });
    expect(search().rows).toEqual([]);
    expect(search().searchIncomplete).toBe(true);
    expect(store.indexForSearchLater(10)).toBe(1);
    expect(search().rows.map((r) => r.orderId)).toEqual(['a-order']);
    expect(search().searchIncomplete).toBeUndefined();
    expect(store.indexForSearchLater(10)).toBe(0);
  });
});

describe('an order whose fetch failed while the clock ran ahead', () => {
  it('is fetched again within the bound once the clock is set right', async () => {
    const clockDir = await mkdtemp(join(tmpdir(), 'store-'));
    const right = Date.parse('2026-11-22T00:00:00Z');
    // The laptop's clock a year ahead (a wrong time set by hand, a bad battery), then set right.
    let now = right + 365 * 86_400_000;
    const timed = AccountStore.open(clockDir, () => now).store;
    try {
      timed.recordPoll({
        events: [{ ...mended, eventId: 'e-1', additionalProperties: [{ name: 'orderId', value: 'o-1' }] }],
        cursor: undefined,
        backlog: false,
        paused: false,
        now: new Date(now).toISOString(),
      });
      expect(timed.ordersToFetch(10, new Set())).toEqual(['o-1']);
      timed.markFetchFailed('o-1', { message: 'the marketplace is having problems', details: [] }, false);
      now = right;
      now += FETCH_AGAIN_AT_MOST_MS;
      // No wait is longer than FETCH_AGAIN_AT_MOST_MS, whatever the clock said when it began.
      expect(timed.ordersToFetch(10, new Set())).toEqual(['o-1']);
    } finally {
      timed.close();
      await rm(clockDir, { recursive: true, force: true });
    }
  });
});

describe('a new purchase whose first fetch failed', () => {
  it('is fetched again when its wait ends, ahead of a backlog of older orders still to fetch', async () => {
    const clockDir = await mkdtemp(join(tmpdir(), 'store-'));
    let now = Date.parse('2026-11-22T00:00:00Z');
    const timed = AccountStore.open(clockDir, () => now).store;
    const bought = (orderId: string, at: string) => ({
      ...mended,
      eventId: `e-${orderId}`,
      eventTime: at,
      additionalProperties: [{ name: 'orderId', value: orderId }],
    });
    const record = (events: MarketplaceEvent[], backlog: boolean) =>
      timed.recordPoll({
        events,
        cursor: undefined,
        backlog,
        paused: false,
        now: new Date(now).toISOString(),
      });
    try {
      // A first start's (or a long absence's) backlog of orders not fetched yet: hours of fetching.
      record(
        Array.from({ length: 50 }, (_, i) =>
          bought(`old-${i}`, `2026-10-${String((i % 28) + 1).padStart(2, '0')}T00:00:00Z`),
        ),
        true,
      );
      record([bought('new-1', '2026-11-21T23:59:00Z')], false);
      expect(timed.ordersToFetch(4, new Set())[0]).toBe('new-1'); // the newest first
      timed.markFetchFailed(
        'new-1',
        { message: 'The marketplace is having problems (HTTP 503)', details: [] },
        false,
      );
      now += FETCH_AGAIN_AFTER_MS;
      // Its wait has ended: it is due as it was before it failed (first), not after the whole backlog.
      expect(timed.ordersToFetch(4, new Set())).toContain('new-1');
    } finally {
      timed.close();
      await rm(clockDir, { recursive: true, force: true });
    }
  });
});

it("counts one account's inbox once a read after it changed, whatever the page folds", () => {
  learn([purchase('o-1', '2026-11-21T10:00:00Z'), purchase('o-2', '2026-11-21T11:00:00Z')], false);
  const counted = vi.spyOn(store as unknown as { inboxGroups: () => unknown }, 'inboxGroups');
  try {
    for (const backlog of ['by-size', 'hidden', 'shown'] as const) {
      learn([purchase(`o-${backlog}`, '2026-11-21T12:00:00Z')], false);
      counted.mockClear();
      expect(
        page('newest', 0, 100, 'all', { backlog, now: '2026-11-22T00:00:00Z' }).rows.length,
      ).toBeGreaterThan(0);
      expect(counted).toHaveBeenCalledTimes(1);
    }
  } finally {
    counted.mockRestore();
  }
});
