// What an idle poll asks of the store (issue 27), over the simulator on loopback HTTP with the
// app's default settings: every statement it runs, and those of the tray's counts and the inbox's
// first page read after it, finds its rows through an index, never by walking a table that grows
// with the history, even once the planner's statistics say thousands of rows are alike. SQLite's
// plan says so without any timing: a bench (test/bench/idle-shapes) measures what it costs.
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../main/core/settings';
import { AccountStore, UNCONFIRMED_AFTER_POLLS } from '../main/core/store/account-store';
import { type AccountAttention, ATTENTION_SHOWN, type OrderDetail } from '../preload/model';
import { openLaptop } from './support/core';
import { sharedMarketplace } from './support/shared-marketplace';

const market = sharedMarketplace({ seed: 11, orders: 20 });

/** Tables whose size is not the history's: small values and the counts kept by triggers. */
const SMALL = new Set(['meta', 'status_counts', 'outbox_counts', 'stalled_count']);

/** The statements the store runs during `work`, each once. */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const proto = AccountStore.prototype as unknown as { sql: (text: string) => unknown };
  const original = proto.sql;
  const seen = new Set<string>();
  proto.sql = function (this: AccountStore, text: string) {
    seen.add(text);
    return original.call(this, text);
  };
  try {
    await work();
  } finally {
    proto.sql = original;
  }
  return [...seen];
}

/** The tables a statement's plan walks whole (a SCAN not through an index), by their names. */
function walked(db: DatabaseSync, text: string): string[] {
  const aliases = new Map<string, string>();
  for (const [, table, alias] of text.matchAll(
    /\b(?:FROM|JOIN)\s+(\w+)(?:\s+(?:AS\s+)?(?!WHERE|ON|JOIN|INDEXED|LEFT|CROSS|ORDER|GROUP|LIMIT)(\w+))?/gi,
  ))
    if (table && alias) aliases.set(alias, table);
  const plan = db.prepare(`EXPLAIN QUERY PLAN ${text}`).all() as { detail: string }[];
  return plan.flatMap(({ detail }) => {
    const scan = /^SCAN (\w+)\b(?! USING (?:COVERING )?INDEX)/.exec(detail);
    // A virtual table's "scan" is its own lookup (the search index's by rowid).
    if (!scan?.[1] || scan[1] === 'CONSTANT' || detail.includes('VIRTUAL TABLE')) return [];
    const table = aliases.get(scan[1]) ?? scan[1];
    return SMALL.has(table) ? [] : [table];
  });
}

/**
 * Many things alike of the kinds a poll looks through (marks sent at one poll and never shown
 * back, refused marks, items kept aside), and the planner's statistics taken of them: SQLite may
 * then judge a walk of the table cheaper than an index, which the plans must not follow.
 */
function manyAlike(store: AccountStore): void {
  const at = new Date().toISOString();
  store.atomically(() => {
    for (let i = 0; i < 1000; i++) {
      const mark = {
        requestId: randomUUID(),
        orderId: randomUUID(),
        statusCode: 'ProvisioningCompleted' as const,
        description: 'Done',
        createdAt: at,
        attempts: 1,
      };
      store.putOutboxItem({ ...mark, state: 'sent', sentAt: at, sentAtPoll: 0, eventId: randomUUID() });
      store.putOutboxItem({ ...mark, requestId: randomUUID(), state: 'failed' });
    }
    store.setAside(
      Array.from({ length: 200 }, (_, i) => ({
        kind: 'event' as const,
        key: randomUUID(),
        fieldPath: 'statusCode',
        reason: 'Invalid input: expected string, received number',
        raw: { statusCode: i },
      })),
      at,
    );
  });
  store.optimize();
}

it('runs no statement that walks a table growing with the history', async () => {
  const { core, store } = await laptopWithManyAlike();
  await core.checkNow();
  const statements = await statementsOf(async () => {
    await core.checkNow();
    core.status();
    core.orders({
      filter: 'all',
      search: '',
      offset: 0,
      limit: 100,
      sort: DEFAULT_SETTINGS.inboxSort,
      backlog: 'by-size',
      now: new Date().toISOString(),
      stalledAfterDays: DEFAULT_SETTINGS.staleInProgressDays,
    });
  });
  expect(statements.length).toBeGreaterThan(10); // the poll and the reads were traced
  const db = (store as unknown as { db: DatabaseSync }).db;
  const walks = statements.flatMap((text) =>
    walked(db, text).map((table) => `${table}: ${text.replace(/\s+/g, ' ').trim()}`),
  );
  expect(walks).toEqual([]);
});

/**
 * The statements of `statements` that read the outbox and walk a table or have a plan step
 * `bad` flags, each with why; there must be some outbox reads, or the check checked nothing.
 */
function outboxReadsWhere(
  store: AccountStore,
  statements: string[],
  bad: (detail: string) => boolean,
): string[] {
  const db = (store as unknown as { db: DatabaseSync }).db;
  const reads = statements.filter((text) => /\boutbox\b/.test(text));
  expect(reads.length).toBeGreaterThan(0);
  return reads.flatMap((text) => {
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${text}`).all() as { detail: string }[]).map(
      (p) => p.detail,
    );
    const found = [...walked(db, text), ...plan.filter(bad)];
    return found.length > 0 ? [`${found.join('; ')}: ${text.replace(/\s+/g, ' ').trim()}`] : [];
  });
}

/** A laptop with the app's defaults that has read the marketplace's history and polled once. */
async function startedLaptop() {
  const laptop = await openLaptop(market.sim.url, undefined, { settings: DEFAULT_SETTINGS });
  market.laptops.push(laptop);
  await laptop.core.start();
  await laptop.core.backlogRead();
  await laptop.core.checkNow();
  return laptop;
}

/** A started laptop whose store holds many alike rows of every kind (manyAlike), and an order of it. */
async function laptopWithManyAlike() {
  const laptop = await startedLaptop();
  const { core } = laptop;
  const store = (core as unknown as { store: AccountStore }).store;
  manyAlike(store);
  const orderId =
    core.orders({ filter: 'all', search: '', offset: 0, limit: 1, sort: DEFAULT_SETTINGS.inboxSort }).rows[0]
      ?.orderId ?? '';
  return { laptop, core, store, orderId };
}

// Issue 27: the Needs attention view and an opened order read every mark sent and not shown
// back (and every refused one) to show a page of them, or the order's own.
it('reads for Needs attention and an opened order the marks they show, not every mark', async () => {
  const { core, store, orderId } = await laptopWithManyAlike();
  const own = {
    requestId: randomUUID(),
    orderId,
    statusCode: 'ProvisioningCompleted' as const,
    description: 'Done',
    createdAt: new Date().toISOString(),
    attempts: 1,
    state: 'sent' as const,
    sentAtPoll: store.pollsSucceeded(),
    eventId: randomUUID(),
  };
  store.putOutboxItem(own);
  for (let poll = 0; poll < UNCONFIRMED_AFTER_POLLS; poll++) await core.checkNow();
  let attention: AccountAttention | undefined;
  let opened: OrderDetail | undefined;
  const statements = await statementsOf(async () => {
    attention = core.attention();
    opened = await core.order(orderId);
  });
  // What they show: the view's first marks of each kind in the order they were marked, and
  // counts of all; the order its own mark.
  const marked = store.outboxItems();
  const first = (state: string) =>
    marked
      .filter((item) => item.state === state)
      .slice(0, ATTENTION_SHOWN)
      .map((item) => item.requestId);
  expect(attention?.unconfirmed.map((mark) => mark.item.requestId)).toEqual(first('sent'));
  expect(attention?.failed.map((mark) => mark.item.requestId)).toEqual(first('failed'));
  expect(attention?.counts).toMatchObject({ unconfirmed: 1001, failed: 1000 });
  expect(opened?.unconfirmed).toEqual([own.requestId]);
  // What they read: no walk of the outbox, nor a sort of all the marks that match (a temporary
  // B-tree: each read before the first is shown).
  expect(outboxReadsWhere(store, statements, (detail) => detail.includes('TEMP B-TREE'))).toEqual([]);
});

// Issue 27: the tray's count of orders stalled in progress, read after each poll, was all orders
// in progress less those in progress since the limit: an index range as long as the orders
// recently started, whatever moved since the last count.
it("counts the tray's stalled orders from those whose limit passed since it last counted", async () => {
  const laptop = await startedLaptop();
  const { core } = laptop;
  const statements = await statementsOf(async () => {
    await core.checkNow();
    core.status();
  });
  const store = (core as unknown as { store: AccountStore }).store;
  const db = (store as unknown as { db: DatabaseSync }).db;
  const ranges = statements.flatMap((text) =>
    (db.prepare(`EXPLAIN QUERY PLAN ${text}`).all() as { detail: string }[])
      .filter(({ detail }) => detail.includes('orders_in_progress_since'))
      .map(({ detail }) => detail),
  );
  expect(ranges.length).toBeGreaterThan(0); // the count was traced
  // Each range read lies between two moments: none runs on to the newest order in progress.
  expect(ranges.filter((detail) => !/\(<expr>>\? AND <expr><\?\)/.test(detail))).toEqual([]);
});

// Session 40: the orders not started were found by walking every waiting order newest purchase
// first, each one's wait worked out (its announcement looked up) until a page was full.
it("reads Needs attention's orders not started, list and count, as ranges of the waits' index", async () => {
  const { core } = await startedLaptop();
  const statements = await statementsOf(async () => {
    core.attention();
    core.status();
  });
  const store = (core as unknown as { store: AccountStore }).store;
  const db = (store as unknown as { db: DatabaseSync }).db;
  const plans = statements.flatMap((text) =>
    (db.prepare(`EXPLAIN QUERY PLAN ${text}`).all() as { detail: string }[])
      .filter(({ detail }) => detail.includes('orders_waiting_by_wait'))
      .map(({ detail }) => detail),
  );
  expect(plans.length).toBeGreaterThanOrEqual(3); // the list and the count's two ranges were traced
  expect(plans.filter((detail) => !/\(waits_since[<>=]\?\)/.test(detail))).toEqual([]);
});

// Issue 27: a mark, its undo, the routing of an action to the account holding it and a delivery
// read every mark (the outbox whole, to find one, or the held ones), and each commit that changed
// the outbox rewrote the journal from every mark pending or refused.
it('marks, routes, undoes and delivers a status reading the marks it changes, not every mark', async () => {
  const { laptop, core, store, orderId } = await laptopWithManyAlike();
  const mark = {
    orderId,
    statusCode: 'ProvisioningInProgress' as const,
    description: 'Started',
    override: true,
  };
  const outbox = (core as unknown as { outbox: { idle(): Promise<void> } }).outbox;
  let routed: boolean[] = [];
  const statements = await statementsOf(async () => {
    const held = await core.markStatus(mark);
    routed = [core.holdsDelivery(held.requestId), core.holdsDelivery(randomUUID())];
    expect(core.undoMark(held.requestId)).toBe('undone');
    laptop.settings.undoSeconds = 0;
    await core.markStatus(mark);
    await outbox.idle();
  });
  expect(routed).toEqual([true, false]);
  expect(store.outboxItems(orderId).map((item) => item.state)).toEqual(['sent']);
  // What they read: no walk of the outbox, and never the refused marks, which none of them changes.
  expect(outboxReadsWhere(store, statements, (detail) => detail.includes('outbox_failed'))).toEqual([]);
});
