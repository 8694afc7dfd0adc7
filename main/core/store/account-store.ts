// One account's local truth: the event history, order documents and licenses, the status
// outbox, the announcement queue, reminders and the feed cursor, in one SQLite database. The
// network only feeds it; every view reads it. What changes together commits together.

import { join } from 'node:path';
import type { StatementSync } from 'node:sqlite';
import {
  backlogShown,
  INBOX_GROUPS,
  type InboxGroup,
  type InboxGroupName,
  type InboxSort,
  JUST_ARRIVED_MINUTES,
} from '../../../preload/inbox-sort';
import type { InboxRow } from '../../../preload/model';
import { orderTotal } from '../../../preload/money';
import { isNewPurchase } from '../../../preload/order-status';
import {
  eventKey,
  type ItemKind,
  type License,
  type MarketplaceEvent,
  type Order,
  orderIdOf,
  type UnreadableItem,
} from '../api/wire';
import type { FeedCursor } from '../event-feed';
import { buyerAndProduct } from '../notification-policy';
import { type OutboxItem, readOutboxItem } from '../outbox';
import {
  type Database,
  isSound,
  keepAside,
  markClosedCleanly,
  openDatabase,
  openReadOnly,
  transaction,
} from './database';

export const DATABASE_FILE = 'seller-tray.db';

const WAITING = 'ProvisioningStarted';
const IN_PROGRESS = 'ProvisioningInProgress';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export interface StoredOrder {
  orderId: string;
  document: Order | undefined;
  /** Undefined until fetched (the first start's backlog fetches them when the order is opened). */
  licenses: License[] | undefined;
  fetchedAt: string | null;
  /** Why the last fetch failed, when it did. */
  fetchError: string | null;
  status: string | undefined;
  purchasedAt: string | undefined;
  /** The purchase event's type (ServicePurchased, Trial, ...), once its event is known. */
  purchaseType: string | undefined;
}

// Declared for every process in preload/model.ts.
export type { InboxRow } from '../../../preload/model';

export interface InboxQuery {
  /** 'all', or a status code. */
  filter: string;
  search: string;
  /** Waiting orders: the longest waiting (default) or the newest first. */
  sort?: InboxSort | undefined;
  /** The backlog's orders in the list (default) or folded away, or folded away when large (the window's way). */
  backlog?: 'shown' | 'hidden' | 'by-size' | undefined;
  offset: number;
  limit: number;
  /** The time now (ISO): what arrived within the hour before is "just arrived"; none without it. */
  now?: string | undefined;
  /** Days in progress after which an order is stalled; 0 or none = never. */
  stalledAfterDays?: number | undefined;
}

/** One page of the inbox, the counts of all that match, and where the unopened arrivals are. */
export interface InboxPage {
  rows: InboxRow[];
  /** The rows of the whole list (a folded backlog's are not in it). */
  total: number;
  /** All waiting orders that match, the backlog's included. */
  waiting: number;
  groups: InboxGroup[];
  /** Orders that match and are unopened, with their place in the whole list (at most 50). */
  unopened: { orderId: string; index: number }[];
}

/** The most unopened orders an inbox page locates. */
const UNOPENED_LOCATED = 50;

export interface ClaimedAnnouncements {
  /** To announce one by one (or as a summary when many). */
  pending: string[];
  /** Arrived while notifications were paused: one summary. */
  held: string[];
}

export interface StoreOpening {
  store: AccountStore;
  /** For the user: what was found wrong and what was done about it. */
  problems: string[];
}

/** An item kept aside, as the user is told of it. */
export interface KeptAside {
  kind: ItemKind;
  key: string;
  fieldPath: string;
  reason: string;
  seenAt: string;
}

interface OrderRow {
  order_id: string;
  effective_status: string | null;
  purchase_type: string | null;
  purchased_at: string | null;
  status_since: string | null;
  unopened: number;
  backlog: number;
  buyer: string | null;
  product: string | null;
  total_amount: number | null;
  total_currency: string | null;
  delivery: string | null;
}

export class AccountStore {
  /** Prepared once, run many times: preparing costs more than most of these statements' runs. */
  private readonly statements = new Map<string, StatementSync>();
  private damageSeen = false;

  private constructor(private readonly db: Database) {}

  private sql(text: string): StatementSync {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  /**
   * Opens the account's database in `dataDir`. A damaged one is kept aside and a new one made,
   * carrying over every status the user marked that can still be read; the marketplace then
   * refills the history (shown, not announced again). A database from a newer version throws.
   */
  static open(dataDir: string, now: () => number = Date.now): StoreOpening {
    const file = join(dataDir, DATABASE_FILE);
    try {
      const { db, closedCleanly } = openDatabase(file);
      if (closedCleanly || isSound(db)) return { store: new AccountStore(db), problems: [] };
      db.close();
    } catch (error) {
      if (!isDamage(error)) throw error;
    }
    const salvaged = readableOutbox(file);
    const aside = keepAside(file, new Date(now()).toISOString().replace(/[:.]/g, '-'));
    const store = new AccountStore(openDatabase(file).db);
    for (const item of salvaged) store.putOutboxItem(item);
    const kept = salvaged.filter((i) => i.state !== 'sent').length;
    return {
      store,
      problems: [
        `Seller Tray's order database was damaged; it was kept as ${aside} and the order history is read again from the marketplace (nothing is announced twice). ${kept} status(es) not yet confirmed were carried over.`,
      ],
    };
  }

  /**
   * Closes the database, noting that it was closed cleanly (the next open can skip the full
   * check), unless damage was seen while it was open: the next open then checks it whole.
   */
  close(): void {
    if (!this.damageSeen) markClosedCleanly(this.db);
    this.db.close();
  }

  /** SQLite found damage while in use; whether `error` says so. */
  noteIfDamage(error: unknown): boolean {
    if (isDamage(error)) this.damageSeen = true;
    return this.damageSeen;
  }

  /** Runs several changes as one: all of them or none reach the disk. */
  atomically<T>(work: () => T): T {
    return transaction(this.db, work);
  }

  // --- The feed -------------------------------------------------------------------------------

  cursor(): FeedCursor | undefined {
    const value = this.meta('cursor');
    return value === undefined ? undefined : (JSON.parse(value) as FeedCursor);
  }

  /**
   * Records what a poll read, in one transaction: the events not known yet, the orders they
   * touch (to fetch again), the new orders to announce (none for a first start's backlog, and
   * held while paused), and the cursor. So the cursor is never ahead of the history. Says how
   * many events were new to this laptop and how many new orders it queued to announce.
   */
  recordPoll(input: {
    events: readonly MarketplaceEvent[];
    /** Events that could not be read: kept aside, so the cursor may move past them. */
    unreadable?: readonly UnreadableItem[];
    /** Undefined leaves the cursor unset: the next poll reads the whole history (not announced). */
    cursor: FeedCursor | undefined;
    backlog: boolean;
    paused: boolean;
    now: string;
  }): { newEvents: number; newOrders: number } {
    return this.atomically(() => {
      const fresh = this.insertEvents(input.events);
      this.setAside(input.unreadable ?? [], input.now);
      let newOrders = 0;
      if (!input.backlog) {
        const queue = this.sql(
          'INSERT OR IGNORE INTO announcements (order_id, state, queued_at) VALUES (?, ?, ?)',
        );
        for (const event of fresh) {
          const orderId = orderIdOf(event);
          if (orderId === undefined || !isNewPurchase(event)) continue;
          newOrders += Number(queue.run(orderId, input.paused ? 'held' : 'pending', input.now).changes);
        }
      }
      const cursor = input.cursor && JSON.stringify(input.cursor);
      if (cursor && cursor !== this.meta('cursor')) this.setMeta('cursor', cursor);
      return { newEvents: fresh.length, newOrders };
    });
  }

  /** An order's events in time order. */
  history(orderId: string): MarketplaceEvent[] {
    const rows = this.sql(
      'SELECT json FROM events WHERE order_id = ? ORDER BY event_ms, event_time, key',
    ).all(orderId) as { json: string }[];
    return rows.map((row) => JSON.parse(row.json) as MarketplaceEvent);
  }

  private insertEvents(events: readonly MarketplaceEvent[]): MarketplaceEvent[] {
    const insert = this.sql(
      `INSERT OR IGNORE INTO events (key, order_id, event_type, status, event_time, event_ms, json)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    const fresh: MarketplaceEvent[] = [];
    const touched = new Set<string>();
    for (const event of events) {
      const orderId = orderIdOf(event) ?? null;
      const ms = event.eventTime ? Date.parse(event.eventTime) : null;
      const json = JSON.stringify(event);
      const inserted = insert.run(
        eventKey(event),
        orderId,
        event.eventTypeCode,
        event.statusCode,
        event.eventTime ?? null,
        Number.isFinite(ms) ? ms : null,
        json,
      );
      if (inserted.changes === 0) continue;
      // An event the server has since mended is no longer aside.
      this.sql(`DELETE FROM unreadable WHERE source = 'event' AND key = ?`).run(eventKey(event));
      fresh.push(event);
      if (orderId !== null) touched.add(orderId);
    }
    for (const orderId of touched) this.refreshOrderFromEvents(orderId);
    return fresh;
  }

  /** The order's status and purchase time from its events; it is fetched again. */
  private refreshOrderFromEvents(orderId: string): void {
    if (this.sql('INSERT OR IGNORE INTO orders (order_id) VALUES (?)').run(orderId).changes > 0) {
      this.indexForSearch(orderId, undefined, undefined);
    }
    this.sql(
      `UPDATE orders SET stale = 1,
           status = (SELECT status FROM events WHERE order_id = $id
                     ORDER BY event_ms DESC, event_time DESC, key DESC LIMIT 1),
           purchased_at = (SELECT event_time FROM events WHERE order_id = $id AND status = $started
                           AND event_time IS NOT NULL ORDER BY event_ms, event_time LIMIT 1),
           purchase_type = (SELECT event_type FROM events WHERE order_id = $id AND status = $started
                            ORDER BY event_ms, event_time LIMIT 1)
         WHERE order_id = $id`,
    ).run({ $id: orderId, $started: WAITING });
    this.refreshEffectiveStatus(orderId);
  }

  /**
   * The status the order shows: the user's latest mark while the marketplace's history does not
   * show it yet (pending, or sent but its event not read back), else the marketplace's.
   */
  private refreshEffectiveStatus(orderId: string): void {
    this.sql(
      `UPDATE orders SET effective_status = COALESCE(
           (SELECT CASE WHEN x.state = 'pending' OR x.event_id IS NULL
                          OR NOT EXISTS (SELECT 1 FROM events e WHERE e.key = x.event_id)
                        THEN x.status_code END
              FROM outbox x WHERE x.order_id = $id AND x.state != 'failed' ORDER BY x.seq DESC LIMIT 1),
           status)
         WHERE order_id = $id`,
    ).run({ $id: orderId });
  }

  // --- Orders ---------------------------------------------------------------------------------

  /**
   * Stores a fetched order and its licenses; it is then fresh until its events change. Answers
   * whether what a view shows of it changed (document, licenses, or a failure now gone).
   */
  saveOrder(orderId: string, order: Order, licenses: License[], now: string): boolean {
    return this.atomically(() => {
      this.sql('INSERT OR IGNORE INTO orders (order_id) VALUES (?)').run(orderId);
      const before = this.sql('SELECT document, licenses, fetch_error FROM orders WHERE order_id = ?').get(
        orderId,
      ) as { document: string | null; licenses: string | null; fetch_error: string | null };
      this.storeDocument(orderId, order, licenses, now);
      return (
        before.document !== JSON.stringify(order) ||
        before.licenses !== JSON.stringify(licenses) ||
        before.fetch_error !== null
      );
    });
  }

  /**
   * Stores the orders of one page of the orders listing (a first start's backlog): each only when
   * the history names it and it is not fetched yet. Their licenses are fetched when opened.
   */
  saveListedOrders(orders: readonly Order[], now: string): string[] {
    return this.atomically(() => {
      const saved: string[] = [];
      for (const order of orders) {
        if (order.orderId === undefined) continue;
        const row = this.sql('SELECT stale FROM orders WHERE order_id = ?').get(order.orderId) as
          | { stale: number }
          | undefined;
        if (row?.stale !== 1) continue;
        this.storeDocument(order.orderId, order, undefined, now);
        saved.push(order.orderId);
      }
      return saved;
    });
  }

  private storeDocument(orderId: string, order: Order, licenses: License[] | undefined, now: string): void {
    const { buyer, product } = buyerAndProduct(order);
    const total = orderTotal(order);
    this.sql(
      `UPDATE orders SET document = ?, licenses = COALESCE(?, licenses), fetched_at = ?, stale = 0,
           fetch_error = NULL, buyer = ?, product = ?, total_amount = ?, total_currency = ?
         WHERE order_id = ?`,
    ).run(
      JSON.stringify(order),
      licenses ? JSON.stringify(licenses) : null,
      now,
      buyer,
      product,
      total?.amount ?? null,
      total?.currencyCode ?? null,
      orderId,
    );
    this.indexForSearch(orderId, order, licenses);
  }

  /** A fetch failed: the stored order (if any) stays; the reason shows beside it. Answers whether it is a new reason. */
  markFetchFailed(orderId: string, reason: string): boolean {
    const { changes } = this.sql(
      'UPDATE orders SET fetch_error = ? WHERE order_id = ? AND fetch_error IS NOT ?',
    ).run(reason, orderId, reason);
    return Number(changes) > 0;
  }

  /** Orders to fetch (new, changed, or failed before), newest first, less those in `skip`. */
  ordersToFetch(limit: number, skip: ReadonlySet<string>): string[] {
    const rows = this.sql(
      'SELECT order_id FROM orders WHERE stale = 1 ORDER BY purchased_at DESC LIMIT ?',
    ).all(limit + skip.size) as { order_id: string }[];
    return rows
      .map((r) => r.order_id)
      .filter((id) => !skip.has(id))
      .slice(0, limit);
  }

  storedOrder(orderId: string): StoredOrder | undefined {
    const row = this.sql(
      `SELECT document, licenses, fetched_at, fetch_error, effective_status, purchased_at, purchase_type
         FROM orders WHERE order_id = ?`,
    ).get(orderId) as
      | {
          document: string | null;
          licenses: string | null;
          fetched_at: string | null;
          fetch_error: string | null;
          effective_status: string | null;
          purchased_at: string | null;
          purchase_type: string | null;
        }
      | undefined;
    if (!row) return undefined;
    return {
      orderId,
      document: row.document === null ? undefined : (JSON.parse(row.document) as Order),
      licenses: row.licenses === null ? undefined : (JSON.parse(row.licenses) as License[]),
      fetchedAt: row.fetched_at,
      fetchError: row.fetch_error,
      status: row.effective_status ?? undefined,
      purchasedAt: row.purchased_at ?? undefined,
      purchaseType: row.purchase_type ?? undefined,
    };
  }

  /**
   * One page of the inbox, in its groups (preload/inbox-sort.ts): just arrived, waiting, stalled,
   * the backlog (left out of the list unless shown), then the rest; with the counts of all that
   * match and where the unopened ones are. Each group is read in its own order, so a page deep in
   * ten thousand orders costs no sort of them all.
   */
  inboxPage(query: InboxQuery): InboxPage {
    const { condition, params } = inboxCondition(query);
    const groups = this.inboxGroups(query, condition, params);
    const rows: OrderRow[] = [];
    for (const group of groups) {
      const from = Math.max(query.offset - group.start, 0);
      const wanted = Math.min(query.limit - rows.length, group.size - from);
      if (wanted <= 0) continue;
      const sql = `SELECT ${INBOX_COLUMNS} FROM orders o WHERE ${condition} AND ${group.where}
             ORDER BY ${group.order} LIMIT $limit OFFSET $offset`;
      rows.push(
        ...(this.sql(sql).all(
          bound(sql, { ...params, $limit: wanted, $offset: from }),
        ) as unknown as OrderRow[]),
      );
    }
    const last = groups.at(-1);
    return {
      rows: rows.map(inboxRow),
      total: last ? last.start + last.size : 0,
      waiting: this.count(`${condition} AND o.waiting = 1`, params),
      groups: groups.map(({ name, start, size, holds }) => ({ name, start, size, holds })),
      unopened: this.unopenedIn(groups, condition, params),
    };
  }

  private count(where: string, params: Params): number {
    const sql = `SELECT COUNT(*) AS n FROM orders o WHERE ${where}`;
    return (this.sql(sql).get(bound(sql, params)) as { n: number }).n;
  }

  /** The list's groups for the query, each with its size; counted from indexes and the (smaller) announcements. */
  private inboxGroups(query: InboxQuery, condition: string, params: Params): Segment[] {
    const arrivals = (extra: string) => {
      const sql = `SELECT COUNT(*) AS n FROM announcements a JOIN orders o ON o.order_id = a.order_id
                     WHERE ${condition} AND o.waiting = 1${extra}`;
      return (this.sql(sql).get(bound(sql, params)) as { n: number }).n;
    };
    const total = this.count(condition, params);
    const waiting = this.count(`${condition} AND o.waiting = 1`, params);
    const arrived = arrivals(' AND a.queued_at >= $recent');
    const announced = arrivals('');
    const stalled = params.$stalledBefore === null ? 0 : this.count(`${condition} AND ${STALLED}`, params);
    const backlog = waiting - announced;
    const waitingOrder =
      query.sort === 'newest' ? 'o.purchased_at DESC, o.order_id' : 'o.purchased_at ASC, o.order_id DESC';
    const holds: Record<InboxGroupName, number> = {
      arrived,
      waiting: announced - arrived,
      stalled,
      backlog,
      rest: total - waiting - stalled,
    };
    const sql: Record<InboxGroupName, Pick<Segment, 'where' | 'order'>> = {
      arrived: { where: `o.waiting = 1 AND ${JUST_ARRIVED}`, order: 'o.purchased_at DESC, o.order_id' },
      waiting: { where: `o.waiting = 1 AND ${ARRIVED} AND NOT ${JUST_ARRIVED}`, order: waitingOrder },
      stalled: { where: STALLED, order: `${STATUS_SINCE_MS}, o.order_id` },
      backlog: { where: `o.waiting = 1 AND NOT ${ARRIVED}`, order: waitingOrder },
      rest: { where: `o.waiting = 0 AND ${NOT_STALLED}`, order: 'o.purchased_at DESC, o.order_id' },
    };
    let start = 0;
    return INBOX_GROUPS.map((name) => {
      const shown = name !== 'backlog' || backlogShown(query.backlog ?? 'shown', backlog);
      const size = shown ? holds[name] : 0;
      const segment = { name, start, size, holds: holds[name], ...sql[name] };
      start += size;
      return segment;
    });
  }

  /** Where the unopened orders that match stand in the list: few, so located only when there are any. */
  private unopenedIn(groups: readonly Segment[], condition: string, params: Params): InboxPage['unopened'] {
    // Most of the time nothing is unopened: one look at the (small) announcements says so.
    if (this.sql('SELECT 1 FROM announcements WHERE opened_at IS NULL LIMIT 1').get() === undefined)
      return [];
    const located: InboxPage['unopened'] = [];
    for (const group of groups) {
      if (group.size === 0) continue;
      const where = `${condition} AND ${group.where}`;
      const any = `SELECT 1 FROM orders o WHERE ${where} AND ${UNOPENED} LIMIT 1`;
      if (!this.sql(any).get(bound(any, params))) continue;
      const sql = `SELECT order_id, place FROM (
             SELECT o.order_id, ${UNOPENED} AS unopened, ROW_NUMBER() OVER (ORDER BY ${group.order}) - 1 AS place
               FROM orders o WHERE ${where})
             WHERE unopened LIMIT $limit`;
      const found = this.sql(sql).all(
        bound(sql, { ...params, $limit: UNOPENED_LOCATED - located.length }),
      ) as { order_id: string; place: number }[];
      located.push(...found.map((f) => ({ orderId: f.order_id, index: group.start + f.place })));
    }
    return located;
  }

  /** An order was opened on this laptop: it is no longer marked as an unopened arrival. */
  markOpened(orderId: string, now: string): void {
    this.sql('UPDATE announcements SET opened_at = ? WHERE order_id = ? AND opened_at IS NULL').run(
      now,
      orderId,
    );
  }

  waitingCount(): number {
    return (
      this.sql('SELECT COUNT(*) AS n FROM orders WHERE effective_status = ?').get(WAITING) as {
        n: number;
      }
    ).n;
  }

  /** Waiting orders not reminded of yet, with their purchase time. */
  unremindedWaiting(): { orderId: string; since: string }[] {
    const rows = this.sql(
      `SELECT order_id, purchased_at FROM orders
         WHERE effective_status = ? AND purchased_at IS NOT NULL
           AND order_id NOT IN (SELECT order_id FROM reminders)`,
    ).all(WAITING) as { order_id: string; purchased_at: string }[];
    return rows.map((r) => ({ orderId: r.order_id, since: r.purchased_at }));
  }

  markReminded(orderIds: readonly string[], now: string): void {
    this.atomically(() => {
      const insert = this.sql('INSERT OR IGNORE INTO reminders (order_id, reminded_at) VALUES (?, ?)');
      for (const id of orderIds) insert.run(id, now);
    });
  }

  private indexForSearch(orderId: string, order: Order | undefined, licenses: License[] | undefined): void {
    const { rowid } = this.sql('SELECT rowid FROM orders WHERE order_id = ?').get(orderId) as {
      rowid: number;
    };
    this.sql('DELETE FROM order_search WHERE rowid = ?').run(rowid);
    this.sql('INSERT INTO order_search (rowid, text) VALUES (?, ?)').run(
      rowid,
      searchText(orderId, order, licenses),
    );
  }

  // --- Announcements --------------------------------------------------------------------------

  /**
   * Takes the queued announcements this process may raise: unclaimed ones, and those claimed by
   * a process that is gone (killed while raising). While paused none are taken: those waiting
   * become held, for one summary on resume.
   */
  claimAnnouncements(pid: number, isAlive: (pid: number) => boolean, paused: boolean): ClaimedAnnouncements {
    // Most polls find none: they write nothing (no transaction, no sync).
    if (this.sql(`SELECT 1 FROM announcements WHERE state != 'raised' LIMIT 1`).get() === undefined) {
      return { pending: [], held: [] };
    }
    return this.atomically(() => {
      const claimed: ClaimedAnnouncements = { pending: [], held: [] };
      if (paused) {
        this.db.exec(`UPDATE announcements SET state = 'held', claimed_by = NULL WHERE state = 'pending'`);
        return claimed;
      }
      const rows = this.sql(
        `SELECT order_id, state, claimed_by FROM announcements WHERE state != 'raised' ORDER BY queued_at`,
      ).all() as { order_id: string; state: 'pending' | 'held'; claimed_by: number | null }[];
      const claim = this.sql('UPDATE announcements SET claimed_by = ? WHERE order_id = ?');
      for (const row of rows) {
        if (row.claimed_by !== null && row.claimed_by !== pid && isAlive(row.claimed_by)) continue;
        claim.run(pid, row.order_id);
        claimed[row.state].push(row.order_id);
      }
      return claimed;
    });
  }

  /** Announcements from before this store (Seller Tray 0.1's files): already raised, or held. */
  importAnnouncements(orderIds: readonly string[], state: 'raised' | 'held', now: string): void {
    const insert = this.sql(
      'INSERT OR IGNORE INTO announcements (order_id, state, queued_at, raised_at) VALUES (?, ?, ?, ?)',
    );
    for (const id of orderIds) insert.run(id, state, now, state === 'raised' ? now : null);
  }

  markRaised(orderIds: readonly string[], now: string): void {
    this.atomically(() => {
      const raised = this.sql(
        `UPDATE announcements SET state = 'raised', raised_at = ?, claimed_by = NULL WHERE order_id = ?`,
      );
      for (const id of orderIds) raised.run(now, id);
    });
  }

  // --- The outbox -----------------------------------------------------------------------------

  /** The outbox, oldest first; one order's items when given. */
  outboxItems(orderId?: string): OutboxItem[] {
    const rows = (
      orderId === undefined
        ? this.sql('SELECT json FROM outbox ORDER BY seq').all()
        : this.sql('SELECT json FROM outbox WHERE order_id = ? ORDER BY seq').all(orderId)
    ) as { json: string }[];
    return rows.map((row) => readOutboxItem(row.json));
  }

  outboxItem(requestId: string): OutboxItem | undefined {
    const row = this.sql('SELECT json FROM outbox WHERE request_id = ?').get(requestId) as
      | { json: string }
      | undefined;
    return row === undefined ? undefined : readOutboxItem(row.json);
  }

  pendingOutboxCount(): number {
    return (this.sql(`SELECT COUNT(*) AS n FROM outbox WHERE state = 'pending'`).get() as { n: number }).n;
  }

  /** Adds or updates an item; committed (and flushed) when this returns. */
  putOutboxItem(item: OutboxItem): void {
    this.atomically(() => {
      this.sql('INSERT OR IGNORE INTO orders (order_id) VALUES (?)').run(item.orderId);
      this.sql(
        `INSERT INTO outbox (request_id, order_id, status_code, state, event_id, json)
           VALUES ($requestId, $orderId, $statusCode, $state, $eventId, $json)
           ON CONFLICT (request_id) DO UPDATE SET state = $state, event_id = $eventId, json = $json`,
      ).run({
        $requestId: item.requestId,
        $orderId: item.orderId,
        $statusCode: item.statusCode,
        $state: item.state,
        $eventId: item.eventId ?? null,
        $json: JSON.stringify(item),
      });
      this.refreshEffectiveStatus(item.orderId);
    });
  }

  /** Removes an item (an undone status): the order shows its status as it was. */
  deleteOutboxItem(requestId: string): void {
    this.atomically(() => {
      const row = this.sql('DELETE FROM outbox WHERE request_id = ? RETURNING order_id').get(requestId) as
        | { order_id: string }
        | undefined;
      if (row) this.refreshEffectiveStatus(row.order_id);
    });
  }

  /** Drops confirmed items whose events the history now holds (it shows them from there); answers them. */
  forgetConfirmed(): OutboxItem[] {
    const rows = this.sql(
      `DELETE FROM outbox WHERE state = 'sent' AND event_id IN (SELECT key FROM events) RETURNING json`,
    ).all() as { json: string }[];
    return rows.map((row) => readOutboxItem(row.json));
  }

  // --- What could not be read ----------------------------------------------------------------

  /** Keeps items the reader could not use, raw with where and why; one row per item. */
  setAside(items: readonly UnreadableItem[], now: string): void {
    if (items.length === 0) return;
    this.atomically(() => {
      const keep = this.sql(
        `INSERT INTO unreadable (source, key, field_path, reason, raw, seen_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (source, key) DO UPDATE SET
             field_path = excluded.field_path, reason = excluded.reason, raw = excluded.raw`,
      );
      for (const item of items) {
        keep.run(item.kind, item.key, item.fieldPath, item.reason, JSON.stringify(item.raw) ?? 'null', now);
      }
    });
  }

  /** Items kept aside that the user has not been told of yet (`markTold` when told). */
  untoldAside(): KeptAside[] {
    return this.keptAside('WHERE told = 0');
  }

  /** The latest items kept aside, told or not (for a diagnosis), and how many there are. */
  aside(limit: number): { items: KeptAside[]; total: number } {
    const { n } = this.sql('SELECT COUNT(*) AS n FROM unreadable').get() as { n: number };
    return { items: this.keptAside('ORDER BY id DESC LIMIT ?', limit), total: n };
  }

  markTold(items: readonly KeptAside[]): void {
    this.atomically(() => {
      const told = this.sql('UPDATE unreadable SET told = 1 WHERE source = ? AND key = ?');
      for (const item of items) told.run(item.kind, item.key);
    });
  }

  private keptAside(clause: string, ...params: number[]): KeptAside[] {
    const rows = this.sql(`SELECT source, key, field_path, reason, seen_at FROM unreadable ${clause}`).all(
      ...params,
    ) as { source: ItemKind; key: string; field_path: string; reason: string; seen_at: string }[];
    return rows.map((r) => ({
      kind: r.source,
      key: r.key,
      fieldPath: r.field_path,
      reason: r.reason,
      seenAt: r.seen_at,
    }));
  }

  // --- Small values ---------------------------------------------------------------------------

  /** The page size the marketplace was found to allow, when it is smaller than asked. */
  learnedPageSize(): number | undefined {
    const value = Number(this.meta('page-size'));
    return Number.isInteger(value) && value > 0 ? value : undefined;
  }

  rememberPageSize(size: number): void {
    if (size !== this.learnedPageSize()) this.setMeta('page-size', String(size));
  }

  private meta(key: string): string | undefined {
    return (this.sql('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)
      ?.value;
  }

  private setMeta(key: string, value: string): void {
    this.sql('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = ?').run(
      key,
      value,
      value,
    );
  }
}

/** An order that arrived on this laptop and was not opened here yet. */
const UNOPENED = `EXISTS (SELECT 1 FROM announcements a WHERE a.order_id = o.order_id AND a.opened_at IS NULL)`;

/** An order that arrived while the app ran: the first sync's backlog was never announced. */
const ARRIVED = `EXISTS (SELECT 1 FROM announcements a WHERE a.order_id = o.order_id)`;

/** An order that arrived since `$recent`. */
const JUST_ARRIVED = `EXISTS (SELECT 1 FROM announcements a WHERE a.order_id = o.order_id AND a.queued_at >= $recent)`;

/** Since when the order has its status: its latest event, or the user's mark the history does not show yet. */
const STATUS_SINCE = `CASE WHEN o.effective_status IS o.status
    THEN (SELECT e.event_time FROM events e WHERE e.order_id = o.order_id
            ORDER BY e.event_ms DESC, e.event_time DESC, e.key DESC LIMIT 1)
    ELSE (SELECT json_extract(x.json, '$.createdAt') FROM outbox x WHERE x.order_id = o.order_id
            ORDER BY x.seq DESC LIMIT 1)
  END`;

/** The same as ms since the epoch, to compare and order by whatever way the time was written (one index look-up). */
const STATUS_SINCE_MS = `CASE WHEN o.effective_status IS o.status
    THEN (SELECT MAX(e.event_ms) FROM events e WHERE e.order_id = o.order_id)
    ELSE (SELECT (julianday(json_extract(x.json, '$.createdAt')) - 2440587.5) * 86400000 FROM outbox x
            WHERE x.order_id = o.order_id ORDER BY x.seq DESC LIMIT 1)
  END`;

/** In progress since before `$stalledBefore` (ms); never when that is null (the limit is off). */
const STALLED = `(o.effective_status = '${IN_PROGRESS}' AND COALESCE((${STATUS_SINCE_MS}) < $stalledBefore, 0))`;

/**
 * The stalled orders' ids, found once per statement: the rest of the list is read past them
 * from the inbox's index alone, with no look-up of each row.
 */
const NOT_STALLED = `o.order_id NOT IN (SELECT o.order_id FROM orders o WHERE ${STALLED})`;

/** What an inbox row shows, for `orders o`. */
const INBOX_COLUMNS = `o.order_id, o.effective_status, o.purchase_type, o.purchased_at, o.buyer, o.product, o.total_amount, o.total_currency,
  (SELECT x.state FROM outbox x WHERE x.order_id = o.order_id ORDER BY x.seq DESC LIMIT 1) AS delivery,
  ${UNOPENED} AS unopened, NOT ${ARRIVED} AS backlog, ${STATUS_SINCE} AS status_since`;

/** The query's filter and search as SQL over `orders o`, with its parameters. */
function inboxCondition(query: InboxQuery): { condition: string; params: Params } {
  const where: string[] = ['1'];
  const now = Date.parse(query.now ?? '');
  const days = query.stalledAfterDays ?? 0;
  const known = Number.isFinite(now);
  const params: Params = {
    $recent: known ? new Date(now - JUST_ARRIVED_MINUTES * MINUTE).toISOString() : null,
    $stalledBefore: known && days > 0 ? now - days * DAY : null,
  };
  if (query.filter !== 'all') {
    where.push('o.effective_status = $status');
    params.$status = query.filter;
  }
  const search = query.search.trim().toLowerCase();
  if (search.length >= 3) {
    // The trigram index finds any substring of three characters or more, as a phrase.
    where.push('o.rowid IN (SELECT rowid FROM order_search WHERE order_search MATCH $phrase)');
    params.$phrase = `"${search.replaceAll('"', '""')}"`;
  } else if (search !== '') {
    where.push(`o.rowid IN (SELECT rowid FROM order_search WHERE text LIKE $like ESCAPE '\\')`);
    params.$like = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  }
  return { condition: where.map((w) => `(${w})`).join(' AND '), params };
}

/** A group of the inbox as SQL over `orders o`: which orders, in which order, where it starts in the list. */
interface Segment extends InboxGroup {
  where: string;
  order: string;
}

type Params = Record<string, string | number | null>;

/** Only the parameters `sql` names: SQLite refuses a named parameter its statement does not have. */
function bound(sql: string, params: Params): Params {
  return Object.fromEntries(Object.entries(params).filter(([name]) => sql.includes(name)));
}

function inboxRow(row: OrderRow): InboxRow {
  return {
    orderId: row.order_id,
    status: row.effective_status ?? undefined,
    purchaseType: row.purchase_type ?? undefined,
    since: row.purchased_at ?? undefined,
    statusSince: row.status_since ?? undefined,
    waiting: row.effective_status === WAITING,
    unopened: row.unopened === 1,
    backlog: row.backlog === 1 && row.effective_status === WAITING,
    delivery: (row.delivery as OutboxItem['state'] | null) ?? null,
    ...(row.buyer === null ? {} : { buyer: row.buyer }),
    ...(row.product === null ? {} : { product: row.product }),
    ...(row.total_amount === null || row.total_currency === null
      ? {}
      : { total: { amount: row.total_amount, currencyCode: row.total_currency } }),
  };
}

/** What a search finds an order by: id, buyer, our account id, products, contact e-mails. */
function searchText(orderId: string, order: Order | undefined, licenses: License[] | undefined): string {
  const parts: (string | undefined)[] = [orderId];
  if (order) {
    const buyer = order.buyerCustomerParty;
    parts.push(buyer.party?.partyName, buyer.supplierAssignedAccountId, buyer.buyerContact?.name);
    parts.push(buyer.buyerContact?.electronicMail);
    for (const line of order.documentLines) {
      const item = line.lineItem;
      parts.push(item?.name, item?.sellersItemId, item?.delivery?.contact?.electronicMail);
    }
  }
  for (const license of licenses ?? []) parts.push(license.electronicMail);
  return parts
    .filter((p): p is string => !!p)
    .join('\n')
    .toLowerCase();
}

/** SQLite's words for a file that is not a sound database. */
function isDamage(error: unknown): boolean {
  const text = String((error as Error)?.message ?? error);
  return /not a database|malformed|corrupt|disk image/i.test(text);
}

/** The outbox items that can still be read from a damaged database, row by row. */
function readableOutbox(file: string): OutboxItem[] {
  const items: OutboxItem[] = [];
  let db: Database | undefined;
  try {
    db = openReadOnly(file);
    const ids = db.prepare('SELECT seq FROM outbox ORDER BY seq').all() as { seq: number }[];
    const one = db.prepare('SELECT json FROM outbox WHERE seq = ?');
    for (const { seq } of ids) {
      try {
        items.push(readOutboxItem((one.get(seq) as { json: string }).json));
      } catch {
        // This row is unreadable; the others may not be.
      }
    }
  } catch {
    // Nothing more can be read.
  } finally {
    db?.close();
  }
  return items;
}
