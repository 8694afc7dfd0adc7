// One account's local truth: the event history, order documents and licenses, the status
// outbox, the announcement queue, reminders and the feed cursor, in one SQLite database. The
// network only feeds it; every view reads it. What changes together commits together.

import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { StatementSync } from 'node:sqlite';
import type { AutomationRun, RunState, RunTrigger } from '../../../preload/automations';
import { INBOX_PAGE_ROWS } from '../../../preload/contract';
import { plural } from '../../../preload/counted';
import {
  backlogShown,
  INBOX_GROUPS,
  type InboxGroup,
  type InboxGroupName,
  type InboxSort,
  JUST_ARRIVED_MINUTES,
} from '../../../preload/inbox-sort';
import type {
  AccountAttention,
  AttentionCounts,
  AttentionMark,
  Explained,
  InboxRow,
} from '../../../preload/model';
import { orderTotal } from '../../../preload/money';
import { causalOrder, isNewPurchase } from '../../../preload/order-status';
import { readPostReference } from '../../../preload/post-reference';
import type { RunbookTick } from '../../../preload/runbooks';
import { overCapKeyed, type ResultWindows, type ServerWait } from '../api/client';
import {
  asideLookup,
  eventKey,
  type ItemKind,
  type License,
  linkedOrderId,
  type MarketplaceEvent,
  type Order,
  orderIdOf,
  sameEvent,
  type UnreadableItem,
} from '../api/wire';
import { RETRY_MAX_WAIT_MS } from '../automation/delivery';
import type { Claimant } from '../claimant';
import { removeLeftoverTemporaries } from '../durable-file';
import type { FeedCursor } from '../event-feed';
import { ANOTHER_SELLER, anotherSellers, reusedId } from '../kept-aside';
import { buyerAndProduct } from '../notification-policy';
import { type OutboxItem, type PendingMark, readOutboxItem } from '../outbox';
import { showsMark } from '../status-post';
import type { StatusEnding, StatusRecord } from '../status-records';
import {
  asideStamp,
  BACKLOG_CHECKPOINT_PAGES,
  CHECKPOINT_PAGES,
  CommitMark,
  closeDatabase,
  type Database,
  isSound,
  keepAside,
  openDatabase,
  openReadOnly,
  optimize,
  sqliteCode,
  transaction,
} from './database';
import { type InsightsPart, type InsightsQuery, ORDER_ITEM, readInsights, timesTaken } from './insights';
import {
  JOURNAL_FILE,
  type Journal,
  RAISED_KEPT,
  REFUSED_FILE,
  type Refused,
  readJournal,
  readRefused,
  unreadableJournalFiles,
  writeJournal,
  writeRefused,
} from './journal';
import { RememberedReads, readAt } from './remembered-reads';

export const DATABASE_FILE = 'seller-tray.db';

const WAITING = 'ProvisioningStarted';
const IN_PROGRESS = 'ProvisioningInProgress';
const MINUTE = 60_000;

/**
 * An order whose fetch failed waits this long before it is fetched again, each further failure
 * of its own twice as long, at most FETCH_AGAIN_AT_MOST_MS (issue 27): orders the marketplace keeps failing
 * (a document the reader cannot use) are not fetched at every poll, however many there are.
 */
export const FETCH_AGAIN_AFTER_MS = MINUTE;
export const FETCH_AGAIN_AT_MOST_MS = 24 * 60 * MINUTE;
const DAY = 24 * 60 * MINUTE;

/**
 * A run's order has been read (its document stored), found by the order's key whatever the
 * statistics say: taken at a first start of a few orders, they made SQLite scan every order for
 * each run once thousands had come in (0.3 ms a claim at 2,000 orders, growing with them).
 */
const ORDER_READ =
  'EXISTS (SELECT 1 FROM orders o INDEXED BY sqlite_autoindex_orders_1 WHERE o.order_id = r.order_id AND o.document IS NOT NULL)';

/** How far ahead of this laptop's clock a purchase's stamp may be and still count as the newest recorded. */
const BELIEVABLE_AHEAD_MS = 24 * 60 * 60_000;
/** Meta key: a first start's history is being recorded (its value: which purchases are news, see recordPoll). */
const FIRST_SYNC = 'first-sync';
/** Meta key: where the first start's walk of the orders listing goes on from (walkOrders). */
const ORDERS_WALK = 'orders-walk';
/**
 * Meta key: when the first start's history was all recorded. An event kept aside then (its
 * unreadable row seen by then) and mended since is of that history: not announced, nor its order
 * when first learned later. A store whose first start ended before this was noted notes, at its
 * next poll, when the last event it kept aside by then was seen: all of those count as that history.
 */
const BACKLOG_RECORDED_AT = 'backlog-recorded-at';
/**
 * Meta key: the kinds of item (event, order) of which an earlier version told one over the answer
 * cap, kept aside by its place (migration 24 removed those rows). Until the next walk of the events
 * listing ends, an item over the cap of such a kind is that item read again under its new key:
 * kept aside as told.
 */
const OVER_CAP_TOLD_BY_PLACE = 'over-cap-told-by-place';

export interface StoredOrder {
  orderId: string;
  document: Order | undefined;
  /** Undefined until fetched (the first start's backlog fetches them when the order is opened). */
  licenses: License[] | undefined;
  fetchedAt: string | null;
  /** Why the last fetch failed, when it did: what happened and what to do, and the detail. */
  fetchError: Explained | null;
  /** When a failed fetch is tried again (ISO time, `ordersToFetch`'s rule); null when none waits. */
  fetchAgainAt: string | null;
  status: string | undefined;
  purchasedAt: string | undefined;
  /** The purchase event's type (ServicePurchased, Trial, ...), once its event is known. */
  purchaseType: string | undefined;
  /** While it waits, since when for this laptop (WAITS_SINCE). */
  waitingSince: string | undefined;
}

/** A stored order with its document and licenses as the JSON text stored (null until read). */
export interface StoredOrderJson {
  document: string | null;
  licenses: string | null;
  status: string | undefined;
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
  /** When the groups next change by the clock alone (ISO), or null: the window reads the list again then. */
  regroupsAt: string | null;
  /** A search, while the first start's orders wait for the search index: it may miss some. */
  searchIncomplete?: true;
}

/** What an inbox across accounts reads of each account's store (main/core/inbox-across.ts). */
export type InboxReader = Pick<
  AccountStore,
  | 'inboxVersion'
  | 'inboxPage'
  | 'inboxOutline'
  | 'inboxKeys'
  | 'inboxKeysOf'
  | 'inboxRowsBefore'
  | 'inboxGroupRows'
>;

/** The most inbox reads a store keeps: a few queries' outlines and a few pages' keys. */
const INBOX_READS_KEPT = 32;

/** Which connection a store reads through: a store's connection, or a new one after a rebuild, never reads as another's. */
let connections = 0;

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
  /** For the log (at warn): what was found wrong that changes nothing the user sees. */
  warnings: string[];
}

/** What a store put back after losing it, from its journal. */
interface Restored {
  /** Statuses not yet confirmed. */
  statuses: number;
  /** New orders' announcements, queued or raised. */
  announcements: number;
  /** The journal had recorded newer purchases than the database: it lost a poll, read again. */
  history: boolean;
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
  waiting_since: string | null;
  unopened: number;
  backlog: number;
  buyer: string | null;
  product: string | null;
  total_amount: number | null;
  total_currency: string | null;
  total_exact: string | null;
  delivery: string | null;
}

export class AccountStore {
  /** Prepared once, run many times: preparing costs more than most of these statements' runs. */
  private readonly statements = new Map<string, StatementSync>();
  private damageSeen = false;
  /** The transaction running changed what the journal holds: it is rewritten before the commit. */
  private journalChanged = false;
  /** It changed the refused marks (REFUSED_FILE), and whether one became refused (written first then). */
  private refusedChanged = false;
  private refusedGained = false;
  /**
   * A journal file written for a transaction that did not commit: rewritten by the next one, or
   * it would hold that change until one of its own (a refusal never committed, put back by the
   * next open over the mark's delivery since).
   */
  private journalAhead = false;
  private refusedAhead = false;

  /** Which file the database is (its inode): another process on the folder may replace it. */
  private fileId: number;
  /** The last successful poll's time (LAST_POLL_FILE), if one is known. */
  private lastPollAt: string | undefined;
  /** How many polls succeeded on this laptop (LAST_POLL_FILE's count; see the constructor). */
  private polls: number;
  /** The store may hold OVER_CAP_TOLD_BY_PLACE (as it opened): the next walk's end removes it. */
  private overCapToldByPlace: boolean;
  /** What the open found wrong that only the log is told (StoreOpening.warnings). */
  private readonly warnings: string[] = [];
  /** The inbox's counts and sort keys as last read, kept until the store changes or the clock regroups it (remembered). */
  private readonly inboxReads = new RememberedReads(INBOX_READS_KEPT);
  /** This connection's number among all stores' (inboxVersion). */
  private connection = ++connections;
  /** The commits on this connection's file, any process's (inboxVersion). */
  private commits: CommitMark;

  private constructor(
    private db: Database,
    private readonly dataDir: string,
    private readonly now: () => number,
  ) {
    this.fileId = statSync(this.file).ino;
    this.commits = new CommitMark(this.file);
    for (const name of removeLeftoverTemporaries(dataDir))
      this.warnings.push(`removed ${name}, left by a write its process did not finish (it ended first)`);
    const { lastPoll, damaged } = readLastPoll(dataDir);
    if (damaged) this.keepDamagedAside(join(dataDir, LAST_POLL_FILE), 'the next poll writes it anew');
    this.lastPollAt = lastPoll?.at;
    // Never behind a mark sent at a counted poll: its file lost, damaged or written by another
    // process counting fewer, a mark would wait that many more polls for Needs attention.
    this.polls = Math.max(lastPoll?.n ?? 0, this.highestSentAtPoll());
    this.overCapToldByPlace = this.meta(OVER_CAP_TOLD_BY_PLACE) !== undefined;
    this.deriveAllOrders();
  }

  /**
   * A side file of the store that is there but cannot be read: kept aside for support as a damaged
   * database is (`<file>.damaged-<time>`), and said in the log (what it means: `then`).
   */
  private keepDamagedAside(file: string, then: string): void {
    try {
      const aside = basename(keepAside(file, asideStamp(this.now())));
      this.warnings.push(
        `${basename(file)} could not be read (damaged) and was kept aside as ${aside}; ${then}`,
      );
    } catch {
      // A folder that cannot be written: read as none, as before, and left where it is.
    }
  }

  private get file(): string {
    return join(this.dataDir, DATABASE_FILE);
  }

  private sql(text: string): StatementSync {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  /**
   * Opens the account's database in `dataDir`, putting back what its journal holds and it lost.
   * A damaged one is kept aside and a new one made from the journal (and the statuses the damaged
   * file still shows); the marketplace then refills the history (shown, not announced again, but
   * for purchases newer than any recorded). A database from a newer version throws.
   */
  static open(dataDir: string, now: () => number = Date.now): StoreOpening {
    const file = join(dataDir, DATABASE_FILE);
    // Either journal file says a database was here.
    const missing =
      !existsSync(file) && [JOURNAL_FILE, REFUSED_FILE].some((f) => existsSync(join(dataDir, f)));
    // A -wal file without its database belongs to a file that is gone: it is not replayed into a new one.
    if (!existsSync(file) && existsSync(`${file}-wal`)) keepAside(file, asideStamp(now()));
    try {
      const { db, closedCleanly } = openDatabase(file);
      if (closedCleanly || isSound(db)) {
        const store = new AccountStore(db, dataDir, now);
        const restored = store.restoreFromJournal();
        const lost = missing || restored.statuses + restored.announcements > 0 || restored.history;
        const problems = lost ? [lostWords(missing ? 'missing' : 'lost-changes', restored)] : [];
        return { store, problems, warnings: store.warnings };
      }
      closeDatabase(db, false);
    } catch (error) {
      if (!isDamage(error)) throw error;
    }
    const { db, aside } = AccountStore.setAside(file, now);
    const store = new AccountStore(db, dataDir, now);
    return { store, problems: [store.restoreAfterDamage(aside)], warnings: store.warnings };
  }

  /**
   * Damage met while running: the file is set aside and a new one made at once, carrying over
   * what the journal and the damaged file still hold. Says what happened, for the user.
   */
  rebuild(): string {
    this.statements.clear();
    this.inboxReads.forget();
    this.connection = ++connections;
    try {
      closeDatabase(this.db, false);
    } catch {
      // Already unusable: it is set aside all the same.
    }
    this.commits.close();
    this.damageSeen = false;
    // Another process on this folder (the app and `watch`) met it first and made a new file: use that.
    if (existsSync(this.file) && statSync(this.file).ino !== this.fileId) {
      this.db = openDatabase(this.file).db;
      this.fileId = statSync(this.file).ino;
      return lostWords('damaged', this.restoreFromJournal());
    }
    const { db, aside } = AccountStore.setAside(this.file, this.now);
    this.db = db;
    this.fileId = statSync(this.file).ino;
    return this.restoreAfterDamage(aside);
  }

  /** Keeps the damaged file (and its -wal and -shm files) aside and opens a new database. */
  private static setAside(file: string, now: () => number): { db: Database; aside: string } {
    const aside = keepAside(file, asideStamp(now()));
    return { db: openDatabase(file).db, aside };
  }

  /** Fills a new database from the journal, and the statuses still readable from the damaged file. */
  private restoreAfterDamage(aside: string): string {
    const words = lostWords('damaged', this.restoreFromJournal(readableOutbox(aside)), aside);
    this.putBackRuns(
      readableRows(aside, `SELECT * FROM automation_runs WHERE state IN ('queued', 'running')`),
    );
    this.putBackTicks(readableRows(aside, 'SELECT order_id, item_id, step, ticked_at FROM runbook_ticks'));
    this.putBackStatusRecords(
      readableRows(aside, 'SELECT request_id, marked_at, item, ended, ended_at FROM status_records'),
    );
    return words;
  }

  /**
   * The proof of delivery a damaged file still shows (kept 400 days, long after the journal's
   * outbox lets a status go); the journal's outbox items, restored first, win over these.
   */
  private putBackStatusRecords(
    rows: readonly {
      request_id: string;
      marked_at: string;
      item: string;
      ended: string | null;
      ended_at: string | null;
    }[],
  ): void {
    if (rows.length === 0) return;
    this.atomically(() => {
      const insert = this.sql(
        'INSERT OR IGNORE INTO status_records (request_id, marked_at, item, ended, ended_at) VALUES (?, ?, ?, ?, ?)',
      );
      for (const r of rows) insert.run(r.request_id, r.marked_at, r.item, r.ended, r.ended_at);
    });
  }

  /** The runbook ticks a damaged file still shows (not journaled either: a person ticks them again if lost). */
  private putBackTicks(
    rows: readonly { order_id: string; item_id: string; step: string; ticked_at: string }[],
  ): void {
    if (rows.length === 0) return;
    this.atomically(() => {
      const insert = this.sql(
        'INSERT OR IGNORE INTO runbook_ticks (order_id, item_id, step, ticked_at) VALUES (?, ?, ?, ?)',
      );
      for (const r of rows) insert.run(r.order_id, r.item_id, r.step, r.ticked_at);
    });
  }

  /**
   * The automations' runs not finished that a damaged file still shows, queued again under their
   * delivery ids (the journal does not hold runs: rewriting it at each delivery would cost more
   * than the rare damage). They wait for their orders, which the marketplace refills.
   */
  private putBackRuns(rows: readonly RunRow[]): void {
    if (rows.length === 0) return;
    this.atomically(() => {
      const insert = this.sql(
        `INSERT OR IGNORE INTO automation_runs (delivery_id, order_id, automation, trigger, state, attempts, queued_at, due_at)
           VALUES (?, ?, ?, ?, 'queued', ?, ?, ?)`,
      );
      for (const r of rows)
        insert.run(r.delivery_id, r.order_id, r.automation, r.trigger, r.attempts, r.queued_at, r.due_at);
    });
  }

  /**
   * Puts back what the journal holds and the database lacks (its commits lost with the -wal file,
   * or the whole file lost), with `salvaged` items for a journal that lacks them; answers how many
   * statuses and announcements came back. Kept in step with the journal from then on: rewritten
   * when it does not say what the database does (not at every open: a durable write is two
   * flushes, which wait for whatever else the disk is writing).
   */
  private restoreFromJournal(salvaged: readonly OutboxItem[] = []): Restored {
    return this.atomically(() => {
      // Read under the write lock: another process on the folder writes them in its transactions.
      for (const file of unreadableJournalFiles(this.dataDir))
        this.keepDamagedAside(file, 'the database still holds what it held, and it is written anew from it');
      const journal = readJournal(this.dataDir);
      const earlierForm = journal !== undefined && journal.refusedApart !== true;
      const refused = earlierForm ? undefined : readRefused(this.dataDir);
      // An earlier version's journal may hold a stamp from a clock gone wrong: none, as it would keep.
      const newestNoted = journal?.newestPurchaseMs ?? null;
      const newestInJournal =
        newestNoted !== null && believable(newestNoted, this.now()) ? newestNoted : null;
      const restored: Restored = {
        statuses: 0,
        announcements: 0,
        history:
          (newestInJournal ?? Number.NEGATIVE_INFINITY) > (this.newestPurchase() ?? Number.NEGATIVE_INFINITY),
      };
      const items = new Map(salvaged.filter((i) => i.state !== 'sent').map((i) => [i.requestId, i]));
      for (const item of [...(refused?.outbox ?? []), ...(journal?.outbox ?? [])])
        items.set(item.requestId, item);
      // The journal is written before each commit: an item it holds otherwise lost that commit.
      for (const item of items.values()) {
        const stored = this.outboxItem(item.requestId);
        if (stored?.state === item.state && stored.attempts === item.attempts) continue;
        this.putOutboxItem(item);
        restored.statuses += 1;
      }
      const now = new Date(this.now()).toISOString();
      const queue = this.sql(
        `INSERT INTO announcements (order_id, state, queued_at, raised_at, opened_at, arrived_at)
           VALUES ($id, $state, $now, IIF($state = 'raised', $now, NULL), IIF($state = 'raised', $now, NULL), $arrived)
           ON CONFLICT (order_id) DO UPDATE SET state = excluded.state, raised_at = excluded.raised_at,
             claimed_by = NULL WHERE announcements.state != excluded.state`,
      );
      for (const { orderId, state, arrivedAt } of journal?.announcements ?? []) {
        const put = Number(
          queue.run({ $id: orderId, $state: state, $now: now, $arrived: arrivedAt ?? null }).changes,
        );
        restored.announcements += put;
        // An order the database still holds (its -wal file lost) waits from its arrival again.
        if (put > 0) this.deriveOrder(orderId, false);
      }
      this.noteNewestPurchase(newestInJournal);
      this.journalChanged =
        journal === undefined || JSON.stringify(this.journal()) !== JSON.stringify(journal);
      this.refusedChanged =
        refused === undefined || JSON.stringify(this.refusedJournal()) !== JSON.stringify(refused);
      // A journal of the earlier form holds the refused marks: they move to the refused file, written first.
      this.refusedGained = earlierForm;
      return restored;
    });
  }

  /**
   * Closes the database, noting that it was closed cleanly (the next open can skip the full
   * check) when `clean`: nothing was left undone. Not after damage seen while it was open, nor
   * after a close that gave up waiting: the next open then checks it whole.
   */
  close(clean = true): void {
    closeDatabase(this.db, clean && !this.damageSeen);
    this.commits.close();
  }

  /** SQLite found damage while in use; whether `error` says so. */
  noteIfDamage(error: unknown): boolean {
    if (isDamage(error)) this.damageSeen = true;
    return this.damageSeen;
  }

  /**
   * Runs several changes as one: all of them or none reach the disk. The journal's files are
   * written before the commit when they change what they hold, so they are never behind the
   * database: the one a mark enters first, so that a kill between the two leaves it in one or
   * both, never in neither. `backlog`: a first start's write (its events, its orders' documents,
   * its search index), after which the log is copied into the file only once large
   * (BACKLOG_CHECKPOINT_PAGES); the next other write copies it as usual.
   */
  atomically<T>(work: () => T, backlog = false): T {
    if (this.db.isTransaction) return work();
    if (backlog) this.db.exec(`PRAGMA wal_autocheckpoint = ${BACKLOG_CHECKPOINT_PAGES}`);
    try {
      return this.committed(work);
    } finally {
      if (backlog) this.db.exec(`PRAGMA wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
    }
  }

  private committed<T>(work: () => T): T {
    const result = transaction(this.db, () => {
      this.journalChanged = this.journalAhead;
      this.refusedChanged = this.refusedAhead;
      this.refusedGained = false;
      const result = work();
      // Until the commit, what they are about to hold may never be.
      this.journalAhead = this.journalChanged;
      this.refusedAhead = this.refusedChanged;
      const writes = [
        () => this.journalChanged && writeJournal(this.dataDir, this.journal()),
        () => this.refusedChanged && writeRefused(this.dataDir, this.refusedJournal()),
      ];
      for (const write of this.refusedGained ? writes.reverse() : writes) write();
      return result;
    });
    this.journalAhead = false;
    this.refusedAhead = false;
    return result;
  }

  /** An outbox item's change from state `was` to `is` (undefined: absent): which journal files it changes. */
  private noteOutboxChange(was: string | undefined, is: string | undefined): void {
    if (was === 'pending' || is === 'pending') this.journalChanged = true;
    if (was === 'failed' || is === 'failed') this.refusedChanged = true;
    if (is === 'failed' && was !== 'failed') this.refusedGained = true;
  }

  /** What the journal holds, as the database (this transaction's changes included) says. */
  private journal(): Journal {
    const announcements = this.sql(
      `SELECT order_id, state, arrived_at FROM announcements WHERE state != 'raised'
       UNION ALL SELECT * FROM (SELECT order_id, state, arrived_at FROM announcements WHERE state = 'raised'
                                ORDER BY raised_at DESC LIMIT ${RAISED_KEPT})`,
    ).all() as {
      order_id: string;
      state: Journal['announcements'][number]['state'];
      arrived_at: string | null;
    }[];
    return {
      version: 1,
      outbox: this.pendingOutboxItems(),
      announcements: announcements.map((a) => ({
        orderId: a.order_id,
        state: a.state,
        ...(a.arrived_at === null ? {} : { arrivedAt: a.arrived_at }),
      })),
      newestPurchaseMs: this.newestPurchase() ?? null,
      refusedApart: true,
    };
  }

  /** The refused marks' file (REFUSED_FILE), as the database says (outbox_failed). */
  private refusedJournal(): Refused {
    const rows = this.sql(
      `SELECT json FROM outbox INDEXED BY outbox_failed WHERE state = 'failed' ORDER BY seq`,
    ).all() as { json: string }[];
    return { version: 1, outbox: rows.map((row) => readOutboxItem(row.json)) };
  }

  /** The newest purchase event's time recorded (ms), if any: one an earlier version took from a clock gone wrong is none. */
  private newestPurchase(): number | undefined {
    const value = Number(this.meta('newest-purchase-ms') ?? Number.NaN);
    return Number.isFinite(value) && believable(value, this.now()) ? value : undefined;
  }

  /** Records a purchase time (ms) as the newest when it is; answers whether it was (the journal holds it too). */
  private noteNewestPurchase(ms: number | null): boolean {
    if (ms === null || !(ms > (this.newestPurchase() ?? Number.NEGATIVE_INFINITY))) return false;
    this.setMeta('newest-purchase-ms', String(ms));
    return true;
  }

  // --- The feed -------------------------------------------------------------------------------

  cursor(): FeedCursor | undefined {
    const value = this.meta('cursor');
    return value === undefined ? undefined : (JSON.parse(value) as FeedCursor);
  }

  /**
   * A first start's reading of the history is under way: it is recorded in several transactions
   * (recordPoll with `more`), and goes on from the cursor after a crash, still as history.
   */
  firstSyncUnderway(): boolean {
    return this.meta(FIRST_SYNC) !== undefined;
  }

  /**
   * Records what a poll read, in one transaction: the events not known yet, the orders they
   * touch (to fetch again), the new orders to announce (none for a first start's backlog, and
   * held while paused), and the cursor. So the cursor is never ahead of the history. A backlog
   * may come in several records, each but the last with `more`: until the last, the cursor
   * stays marked as a first start's (firstSyncUnderway). Says how many events were new to this
   * laptop, how many new orders it queued to announce, and which orders' events changed (their
   * status and place in the inbox may have).
   */
  recordPoll(input: {
    events: readonly MarketplaceEvent[];
    /** Events that could not be read: kept aside, so the cursor may move past them. */
    unreadable?: readonly UnreadableItem[];
    /** Undefined leaves the cursor unset: the next poll reads the whole history (not announced). */
    cursor: FeedCursor | undefined;
    backlog: boolean;
    /** The backlog goes on in the next record. */
    more?: boolean | undefined;
    paused: boolean;
    now: string;
    /** The automations switched on for new orders: a run of each is queued with each announcement. */
    automations?: readonly string[] | undefined;
  }): { newEvents: number; newOrders: number; changed: string[] } {
    return this.atomically(() => {
      const underway = this.meta(FIRST_SYNC);
      const backlogGoesOn = input.backlog && input.more === true;
      // A backlog is not news, but for purchases newer than any this laptop recorded before it
      // began (a store rebuilt after damage reads the whole history again; the journal kept that
      // time). Taken when the backlog begins: its own pages must not raise it.
      const announceAfter: number | null | undefined = !input.backlog
        ? undefined
        : underway !== undefined
          ? (JSON.parse(underway) as { announceAfter: number | null }).announceAfter
          : (this.newestPurchase() ?? null);
      const newerThan = announceAfter === undefined ? undefined : (announceAfter ?? Number.POSITIVE_INFINITY);
      // Orders a backlog brings news of: a purchase newer than that. The rest of it is history.
      const news = new Set<string>();
      for (const event of input.events) {
        const orderId = orderIdOf(event);
        if (orderId !== undefined && isNewPurchase(event) && eventMs(event) > (newerThan ?? 0))
          news.add(orderId);
      }
      const history = input.backlog ? (orderId: string) => !news.has(orderId) : undefined;
      // A store whose first start ended before it noted when: what it kept aside by now is of it.
      if (!input.backlog && this.meta(BACKLOG_RECORDED_AT) === undefined) {
        const { at } = this.sql(`SELECT MAX(seen_at) AS at FROM unreadable WHERE source = 'event'`).get() as {
          at: string | null;
        };
        this.setMeta(BACKLOG_RECORDED_AT, at ?? new Date(0).toISOString());
      }
      const { fresh, firstLearned, changed, mendedHistory, readAgain } = this.insertEvents(
        input.events,
        input.now,
        history,
      );
      this.noteReadBack(input.events, input.now);
      this.setAside(input.unreadable ?? [], input.now);
      if (this.overCapToldByPlace && input.cursor !== undefined && !input.more) {
        this.sql('DELETE FROM meta WHERE key = ?').run(OVER_CAP_TOLD_BY_PLACE);
        this.overCapToldByPlace = false;
      }
      let newOrders = 0;
      const purchases = fresh.filter(isNewPurchase);
      const queue = this.sql(
        'INSERT OR IGNORE INTO announcements (order_id, state, queued_at, arrived_at) VALUES (?1, ?2, ?3, ?3)',
      );
      const arrived = new Set<string>();
      for (const event of purchases) {
        const orderId = orderIdOf(event);
        if (orderId === undefined || (newerThan !== undefined && !(eventMs(event) > newerThan))) continue;
        // Its order had events before: the purchase read again under another key (an id that
        // appeared, content that changed), announced when first learned or history.
        if (readAgain.has(orderId)) continue;
        arrived.add(orderId);
      }
      // An order first learned here in another status (a colleague's laptop moved it on, and the
      // marketplace rewrote its purchase event in place): new here too, unless it is history.
      if (!input.backlog) for (const orderId of firstLearned) arrived.add(orderId);
      for (const orderId of mendedHistory) arrived.delete(orderId);
      for (const orderId of arrived) {
        const queued = Number(queue.run(orderId, input.paused ? 'held' : 'pending', input.now).changes);
        newOrders += queued;
        // Its wait now starts at its arrival.
        if (queued > 0) this.deriveOrder(orderId, false);
        // In the announcement's transaction: a new order's automations run even if the process dies now.
        if (queued > 0)
          for (const name of input.automations ?? []) this.queueRun(orderId, name, 'new-order', input.now);
      }
      if (newOrders > 0) this.journalChanged = true;
      const newest = purchases
        .map(eventMs)
        .filter((ms) => believable(ms, Date.parse(input.now)))
        .reduce((a, b) => (b > a ? b : a), Number.NEGATIVE_INFINITY);
      // The journal learns the backlog's newest purchase once it is all recorded: were the store
      // lost midway, a rebuilt one must not take the rest of that backlog for news.
      if (this.noteNewestPurchase(newest) && !backlogGoesOn) this.journalChanged = true;
      if (backlogGoesOn) {
        if (underway === undefined) this.setMeta(FIRST_SYNC, JSON.stringify({ announceAfter }));
      } else if (input.backlog && input.cursor !== undefined) {
        // The whole history is recorded: its orders are read next, page by page (walkOrders).
        if (underway !== undefined) this.sql('DELETE FROM meta WHERE key = ?').run(FIRST_SYNC);
        this.journalChanged = true;
        this.setMeta(ORDERS_WALK, '0');
        this.setMeta(BACKLOG_RECORDED_AT, input.now);
      }
      const cursor = input.cursor && JSON.stringify(input.cursor);
      if (cursor && cursor !== this.meta('cursor')) this.setMeta('cursor', cursor);
      return { newEvents: fresh.length, newOrders, changed };
    }, input.backlog);
  }

  /** An order's events in causal order (the purchase first, then the statuses by their clock). */
  history(orderId: string): MarketplaceEvent[] {
    const rows = this.sql('SELECT json FROM events WHERE order_id = ? ORDER BY seq').all(orderId) as {
      json: string;
    }[];
    return causalOrder(rows.map((row) => JSON.parse(row.json) as MarketplaceEvent));
  }

  /**
   * Stores the events not known yet, and the known ones the marketplace has since rewritten under
   * the same id (a status post may update the purchase event in place). Answers the events new to
   * this laptop, the orders it learned of through them, and every order whose events changed.
   */
  private insertEvents(
    events: readonly MarketplaceEvent[],
    now: string,
    /** A backlog's: whether an order first learned from it is history (not news). */
    history?: (orderId: string) => boolean,
  ): {
    fresh: MarketplaceEvent[];
    firstLearned: string[];
    changed: string[];
    /** Orders of events a first start's backlog kept aside, mended since: history, not news. */
    mendedHistory: Set<string>;
    /** Orders whose purchase was read again under another key: no news (below, recordPoll). */
    readAgain: Set<string>;
  } {
    const insert = this.sql(
      `INSERT OR IGNORE INTO events (key, order_id, event_type, status, event_time, event_ms, json)
         VALUES ($key, $orderId, $type, $status, $time, $ms, $json)`,
    );
    const known = this.sql('SELECT json FROM events WHERE key = ?');
    const update = this.sql(
      `UPDATE events SET order_id = $orderId, event_type = $type, status = $status, event_time = $time,
           event_ms = $ms, json = $json
         WHERE key = $key`,
    );
    const keptAsForeign = this.sql(`SELECT 1 FROM unreadable WHERE source = ? AND key = ? AND reason LIKE ?`);
    // Looked up per event only when the store holds any such item (most never do): a first
    // start's hundred thousand events then cost one look each, not four.
    const anyForeign =
      this.sql(
        `SELECT 1 FROM unreadable INDEXED BY unreadable_foreign WHERE reason LIKE '${ANOTHER_SELLER}%' LIMIT 1`,
      ).get() !== undefined;
    const anyEventAside =
      this.sql(`SELECT 1 FROM unreadable WHERE source = 'event' LIMIT 1`).get() !== undefined;
    const backlogRecordedAt = this.meta(BACKLOG_RECORDED_AT);
    const ofBacklog = (seenAt: string) => backlogRecordedAt !== undefined && seenAt <= backlogRecordedAt;
    const mendedHistory = new Set<string>();
    /** Fresh events not found aside under their key: maybe under the one they had (mendedAside). */
    const unmatched: MarketplaceEvent[] = [];
    /** Orders that had events before: a purchase read again under another key is no news. */
    const readAgain = new Set<string>();
    const hadEvents = this.sql('SELECT 1 FROM events WHERE order_id = ? AND key != ? LIMIT 1');
    const othersOfOrder = this.sql('SELECT key, json FROM events WHERE order_id = ? AND key != ?');
    const drop = this.sql('DELETE FROM events WHERE key = ?');
    const foreignLater: UnreadableItem[] = [];
    const reusedIds: UnreadableItem[] = [];
    const fresh: MarketplaceEvent[] = [];
    const firstLearned: string[] = [];
    const touched = new Set<string>();
    for (const event of events) {
      const key = eventKey(event);
      // Another seller's, set aside when its order answered 404: it stays aside when read again.
      if (anyForeign && keptAsForeign.get('event', key, `${ANOTHER_SELLER}%`) !== undefined) continue;
      // A later event of an order set aside as another seller's is kept aside as it comes.
      const linked = orderIdOf(event);
      if (
        anyForeign &&
        linked !== undefined &&
        keptAsForeign.get('order', linked, `${ANOTHER_SELLER}%`) !== undefined
      ) {
        foreignLater.push(
          anotherSellers(event, 'orderId', `its order ${linked} is not found for this account (HTTP 404)`),
        );
        continue;
      }
      const orderId = orderIdOf(event) ?? null;
      const ms = eventMs(event);
      const row = {
        $key: key,
        $orderId: orderId,
        $type: event.eventTypeCode,
        $status: event.statusCode,
        $time: event.eventTime ?? null,
        $ms: Number.isFinite(ms) ? ms : null,
        $json: JSON.stringify(event),
      };
      if (insert.run(row).changes > 0) {
        // An event the server has since mended is no longer aside; one the backlog kept aside is history.
        const aside = anyEventAside
          ? (this.sql(`DELETE FROM unreadable WHERE source = 'event' AND key = ? RETURNING seen_at`).get(
              key,
            ) as { seen_at: string } | undefined)
          : undefined;
        if (aside !== undefined && ofBacklog(aside.seen_at) && orderId !== null) mendedHistory.add(orderId);
        else if (aside === undefined && anyEventAside && !history) unmatched.push(event);
        if (!history && orderId !== null && isNewPurchase(event) && hadEvents.get(orderId, key) !== undefined)
          readAgain.add(orderId);
        // The same event read before under another key (no id then, or none now): stored once, as now.
        if (!history && orderId !== null) {
          const others = othersOfOrder.all(orderId, key) as { key: string; json: string }[];
          for (const other of others) if (sameEvent(JSON.parse(other.json), event)) drop.run(other.key);
        }
        fresh.push(event);
      } else {
        const before = JSON.parse((known.get(key) as { json: string }).json) as MarketplaceEvent;
        // Known as it is (a seenTime set, a time written another way is no change): nothing to write.
        if (!rewritten(before, event)) continue;
        // A UUID naming another order is an id reused: the event stays as first read, its order
        // untouched, and the repeat is kept aside and told.
        const first = orderIdOf(before);
        if (first !== undefined && orderId !== null && first !== orderId) {
          reusedIds.push(reusedId(event, first));
          continue;
        }
        // Rewritten in place (its status, time or words; its type too): stored as it is now.
        update.run(row);
      }
      if (orderId !== null) touched.add(orderId);
    }
    // A status whose newest event is one read for the first time now began again (notAhead).
    const freshKeys = new Set(fresh.map(eventKey));
    if (anyEventAside && !history && fresh.length > 0) {
      const orders = new Set(fresh.map(orderIdOf).filter((id) => id !== undefined));
      for (const orderId of this.mendedAside(unmatched, orders, ofBacklog)) mendedHistory.add(orderId);
    }
    for (const orderId of touched) {
      if (this.learnOrder(orderId, now, history, mendedHistory)) {
        // A backlog's orders are indexed once, with their documents, after it (indexForSearchLater).
        if (!history) this.indexForSearch(orderId, undefined, undefined);
        firstLearned.push(orderId);
      } else {
        this.deriveOrder(orderId, true, freshKeys);
      }
    }
    this.setAside([...foreignLater, ...reusedIds], now);
    return { fresh, firstLearned, changed: [...touched], mendedHistory, readAgain };
  }

  /**
   * Events kept aside that `unmatched` are mended forms of under another key (`sameEvent`: no id
   * then, or another one) leave the aside table. Answers the orders among `orders` the backlog saw:
   * an event of theirs, or one naming them, kept aside by then (`ofBacklog`).
   */
  private mendedAside(
    unmatched: readonly MarketplaceEvent[],
    orders: ReadonlySet<string>,
    ofBacklog: (seenAt: string) => boolean,
  ): Set<string> {
    // Events kept aside before their lookup columns were (migration 22): read once.
    const unread = this.sql(
      `SELECT id, raw FROM unreadable INDEXED BY unreadable_lookup_unread WHERE lookup_read = 0 AND source = 'event'`,
    ).all() as { id: number; raw: string }[];
    const read = this.sql(
      'UPDATE unreadable SET lookup_read = 1, event_uuid = $uuid, event_ms = $ms, order_id = $order WHERE id = $id',
    );
    for (const row of unread) read.run({ $id: row.id, ...lookupColumns(JSON.parse(row.raw)) });
    // Only those that share a UUID or a time with an event read now (sameEvent needs one), or name its order.
    const looks = unmatched.map(asideLookup);
    const rows = this.sql(
      `SELECT u.id, u.raw, u.seen_at FROM (
           SELECT id FROM unreadable WHERE event_uuid IN (SELECT value FROM json_each($uuids))
           UNION SELECT id FROM unreadable WHERE event_ms IN (SELECT value FROM json_each($times))
           UNION SELECT id FROM unreadable WHERE order_id IN (SELECT value FROM json_each($orders))
         ) AS found CROSS JOIN unreadable u ON u.id = found.id
         WHERE u.source = 'event' AND u.reason NOT LIKE '${ANOTHER_SELLER}%'`,
    ).all({
      $uuids: JSON.stringify(looks.flatMap((look) => look.uuid ?? [])),
      $times: JSON.stringify(looks.flatMap((look) => look.ms ?? [])),
      $orders: JSON.stringify([...orders]),
    }) as { id: number; raw: string; seen_at: string }[];
    const remove = this.sql('DELETE FROM unreadable WHERE id = ?');
    const left = [...unmatched];
    const history = new Set<string>();
    for (const row of rows) {
      const raw = JSON.parse(row.raw) as unknown;
      const at = left.findIndex((event) => sameEvent(raw, event));
      const mended = at < 0 ? undefined : left.splice(at, 1)[0];
      if (mended !== undefined) remove.run(row.id);
      const orderId = mended === undefined ? linkedOrderId(raw) : orderIdOf(mended);
      if (ofBacklog(row.seen_at) && orderId !== undefined && orders.has(orderId)) history.add(orderId);
    }
    return history;
  }

  /**
   * The order's status, when it got it, its purchase time and type, from its events in causal
   * order (not by the clocks: a status posted answers the purchase whatever the two stamps say),
   * as the parameters of the statements that store them.
   */
  private derived(orderId: string): { params: Record<string, string | null>; latestKey: string | undefined } {
    // With each event, the descriptions of its properties: a post's reference among them names the step it followed.
    const rows = this.sql(
      `SELECT key, event_type, status, event_time,
              (SELECT json_group_array(json_extract(p.value, '$.description'))
                 FROM json_each(e.json, '$.additionalProperties') p) AS said
         FROM events e WHERE order_id = ? ORDER BY seq`,
    ).all(orderId) as {
      key: string;
      event_type: string;
      status: string;
      event_time: string | null;
      said: string | null;
    }[];
    const history = causalOrder(
      rows.map((r) => ({
        eventId: r.key,
        eventTypeCode: r.event_type,
        statusCode: r.status,
        description: '',
        ...(r.event_time === null ? {} : { eventTime: r.event_time }),
        additionalProperties: (JSON.parse(r.said ?? '[]') as (string | null)[]).map((description) => ({
          name: '',
          ...(typeof description === 'string' ? { description } : {}),
        })),
      })),
    );
    const latest = history.at(-1);
    const purchases = history.filter(isNewPurchase);
    // A status this laptop marked began when it was marked, in this laptop's clock (its record).
    const reference = latest && readPostReference(latest);
    const marked = reference
      ? (this.sql('SELECT marked_at FROM status_records WHERE request_id = ?').get(reference.requestId) as
          | { marked_at: string }
          | undefined)
      : undefined;
    const stamp = marked?.marked_at ?? latest?.eventTime;
    return {
      params: {
        $id: orderId,
        $status: latest?.statusCode ?? null,
        $statusAt: stamp === undefined ? null : notAhead(stamp, this.now()),
        $purchasedAt: purchases.find((p) => p.eventTime !== undefined)?.eventTime ?? null,
        $purchaseType: purchases[0]?.eventTypeCode ?? null,
      },
      latestKey: latest?.eventId,
    };
  }

  /**
   * Stores an order its events name for the first time, with what they say of it, in one write
   * (a first start learns tens of thousands: a row written once costs each of its indexes one
   * entry, not an entry and a move); answers false, writing nothing, for an order already stored.
   * One learned in a backlog waits for the search index's build (`unindexed`); history is never
   * escalated (a new order is, once, when nobody starts it).
   */
  private learnOrder(
    orderId: string,
    now: string,
    history: ((orderId: string) => boolean) | undefined,
    /** Orders a poll after the backlog learns that the backlog saw (kept aside then): history too. */
    mendedHistory: ReadonlySet<string>,
  ): boolean {
    // Most orders a poll touches are stored: a look by key, not their derivation and a refused insert.
    if (this.sql('SELECT 1 FROM orders WHERE order_id = ?').get(orderId) !== undefined) return false;
    const { changes } = this.sql(LEARN_ORDER).run({
      ...this.derived(orderId).params,
      $now: now,
      $unindexed: history ? 1 : 0,
      $escalatedAt: history?.(orderId) || mendedHistory.has(orderId) ? now : null,
    });
    return Number(changes) > 0;
  }

  /**
   * What the order's status comes from now, by the id a mark made now names it with: its latest
   * mark while the history does not show it (that mark's request id), else the last event of its
   * history in causal order (that event's id); nothing for an order without either.
   */
  latestStep(orderId: string): string | undefined {
    const mark = this.sql(`SELECT ${markedNotShown('request_id')} AS id`).get({ $id: orderId }) as {
      id: string | null;
    };
    return mark.id ?? this.history(orderId).at(-1)?.eventId;
  }

  /** Derives a stored order's status again from its events; `refetch` has it fetched again (they changed). */
  /** `read`: the keys of the events just read (none: a derivation of what the store held). */
  private deriveOrder(orderId: string, refetch: boolean, read?: ReadonlySet<string>): void {
    const { params, latestKey } = this.derived(orderId);
    const began = latestKey !== undefined && read?.has(latestKey) === true;
    this.sql(DERIVE_ORDER).run({ ...params, $refetch: refetch ? 1 : 0, $began: began ? 1 : 0 });
  }

  /** Derives every order's status again (once, after a store from before issue 20 migrated). */
  private deriveAllOrders(): void {
    if (this.meta('derive-statuses') === undefined) return;
    this.atomically(() => {
      const rows = this.sql('SELECT order_id FROM orders').all() as { order_id: string }[];
      for (const { order_id } of rows) this.deriveOrder(order_id, false);
      this.sql(`DELETE FROM meta WHERE key = 'derive-statuses'`).run();
    });
  }

  /**
   * The status the order shows: the user's latest mark while the marketplace's history does not
   * show it yet (pending, or sent but its event not read back), else the marketplace's.
   */
  private refreshEffectiveStatus(orderId: string): void {
    this.sql(
      `UPDATE orders SET effective_status = COALESCE(${MARKED}, status), since_ms = ${sinceMs('status', 'status_at')}
         WHERE order_id = $id`,
    ).run({ $id: orderId });
  }

  /**
   * Records the event a status post was answered with, at once: the marketplace has it, and may
   * have rewritten an event this laptop knows under its id (the purchase, updated in place).
   */
  recordPosted(event: MarketplaceEvent, now: string): void {
    if (orderIdOf(event) === undefined) return;
    this.atomically(() => this.insertEvents([event], now));
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
   * Stores orders of the orders listing (a first start's backlog): each only when the history
   * names it and it is not fetched yet. Their licenses are fetched when opened. `reached` is where
   * the walk goes on from after them (recorded with them, so a crash resumes there), or undefined
   * when the walk has ended.
   */
  saveListedOrders(orders: readonly Order[], reached: number | undefined, now: string): string[] {
    return this.atomically(() => {
      if (reached === undefined) this.sql('DELETE FROM meta WHERE key = ?').run(ORDERS_WALK);
      else this.setMeta(ORDERS_WALK, String(reached));
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
    }, true);
  }

  private storeDocument(orderId: string, order: Order, licenses: License[] | undefined, now: string): void {
    const { buyer, product } = buyerAndProduct(order);
    const total = orderTotal(order);
    this.sql(
      `UPDATE orders SET document = ?, licenses = COALESCE(?, licenses), fetched_at = ?, stale = 0,
           fetch_error = NULL, fetch_failures = 0, fetch_due_ms = NULL, buyer = ?, product = ?, total_amount = ?, total_currency = ?, total_exact = ?
         WHERE order_id = ?`,
    ).run(
      JSON.stringify(order),
      licenses ? JSON.stringify(licenses) : null,
      now,
      buyer,
      product,
      total?.amount ?? null,
      total?.currencyCode ?? null,
      total?.exact ?? null,
      orderId,
    );
    // From the document as stored (an UPDATE's expressions read the row as it was before it).
    this.sql(SET_ORDER_ITEM).run(orderId);
    this.indexForSearch(orderId, order, licenses);
  }

  /**
   * A fetch failed: the stored order (if any) stays; the reason shows beside it. It is fetched
   * again once its wait ends, or at once when its events change. Only the order's own failures
   * (`own`: a document the reader cannot use) lengthen its wait; one that may pass (an outage, no
   * network) waits FETCH_AGAIN_AFTER_MS, so an order bought during an outage is read soon after.
   * Answers whether the order is stored: its views then show a new time to try again, whatever the reason.
   */
  markFetchFailed(orderId: string, reason: Explained, own: boolean): boolean {
    const { changes } = this.sql(
      `UPDATE orders SET fetch_error = $reason, fetch_failures = fetch_failures + $own,
           fetch_due_ms = $now + IIF($own, MIN($most, $first * (1 << MIN(fetch_failures, 30))), $first)
         WHERE order_id = $id`,
    ).run({
      $id: orderId,
      $reason: JSON.stringify(reason),
      $own: own ? 1 : 0,
      $now: this.now(),
      $first: FETCH_AGAIN_AFTER_MS,
      $most: FETCH_AGAIN_AT_MOST_MS,
    });
    return Number(changes) > 0;
  }

  /**
   * Orders to fetch, less those in `skip`, newest purchase first: new and changed ones, and those
   * whose fetch failed and whose wait has ended (a new purchase whose first fetch failed is not put
   * behind a whole backlog). Each kind through an index of its own, so orders that keep failing (a
   * document the reader cannot use) cost a poll nothing while they wait.
   */
  ordersToFetch(limit: number, skip: ReadonlySet<string>): string[] {
    const due = (sql: string, ...params: number[]) =>
      (
        this.sql(sql).all(...params, limit + skip.size) as { order_id: string; purchased_at: string | null }[]
      ).filter((row) => !skip.has(row.order_id));
    const again = `SELECT order_id, purchased_at FROM orders INDEXED BY orders_to_fetch_again
      WHERE stale = 1 AND fetch_due_ms`;
    const now = this.now();
    const orders = [
      ...due(
        `SELECT order_id, purchased_at FROM orders INDEXED BY orders_to_fetch WHERE stale = 1 AND fetch_due_ms IS NULL
           ORDER BY purchased_at DESC LIMIT ?`,
      ),
      ...due(`${again} <= ? ORDER BY fetch_due_ms LIMIT ?`, now),
      // Set while the clock ran ahead (then set right): no wait is longer than FETCH_AGAIN_AT_MOST_MS.
      ...due(`${again} > ? ORDER BY fetch_due_ms DESC LIMIT ?`, now + FETCH_AGAIN_AT_MOST_MS),
    ];
    // Stable: of one purchase time, new and changed orders before those failed before.
    const newestFirst = (a: string | null, b: string | null) =>
      (a ?? '') < (b ?? '') ? 1 : (a ?? '') > (b ?? '') ? -1 : 0;
    return orders
      .toSorted((a, b) => newestFirst(a.purchased_at, b.purchased_at))
      .slice(0, limit)
      .map((row) => row.order_id);
  }

  storedOrder(orderId: string): StoredOrder | undefined {
    const row = this.orderRow(orderId);
    if (!row) return undefined;
    return {
      orderId,
      document: row.document === null ? undefined : (JSON.parse(row.document) as Order),
      licenses: row.licenses === null ? undefined : (JSON.parse(row.licenses) as License[]),
      fetchedAt: row.fetched_at,
      fetchError: row.fetch_error === null ? null : storedExplanation(row.fetch_error),
      fetchAgainAt: row.stale === 1 && row.fetch_due_ms !== null ? this.fetchAgainAt(row.fetch_due_ms) : null,
      status: row.effective_status ?? undefined,
      purchasedAt: row.purchased_at ?? undefined,
      purchaseType: row.purchase_type ?? undefined,
      waitingSince: row.waiting_since ?? undefined,
    };
  }

  /**
   * The stored order with its document and licenses as the JSON text stored (null until read):
   * what an automation sends on, without parsing it for every run.
   */
  storedOrderJson(orderId: string): StoredOrderJson | undefined {
    const row = this.orderRow(orderId);
    return (
      row && {
        document: row.document,
        licenses: row.licenses,
        status: row.effective_status ?? undefined,
        purchaseType: row.purchase_type ?? undefined,
      }
    );
  }

  private orderRow(orderId: string) {
    return this.sql(
      `SELECT document, licenses, fetched_at, fetch_error, stale, fetch_due_ms, effective_status, purchased_at,
         purchase_type, ${WAITING_SINCE} AS waiting_since FROM orders o WHERE order_id = ?`,
    ).get(orderId) as
      | {
          document: string | null;
          licenses: string | null;
          fetched_at: string | null;
          fetch_error: string | null;
          stale: number;
          fetch_due_ms: number | null;
          effective_status: string | null;
          purchased_at: string | null;
          purchase_type: string | null;
          waiting_since: string | null;
        }
      | undefined;
  }

  /**
   * When an order due at `dueMs` is fetched again, as `ordersToFetch` takes it: at the next fetch
   * (now) once due, or when the wait is longer than the longest (set while the clock ran ahead).
   */
  private fetchAgainAt(dueMs: number): string {
    const now = this.now();
    return new Date(dueMs <= now || dueMs > now + FETCH_AGAIN_AT_MOST_MS ? now : dueMs).toISOString();
  }

  /**
   * One page of the inbox, in its groups (preload/inbox-sort.ts): just arrived, waiting, stalled,
   * the backlog (left out of the list unless shown), then the rest; with the counts of all that
   * match and where the unopened ones are. Each group is read in its own order, so a page deep in
   * ten thousand orders costs no sort of them all.
   */
  inboxPage(query: InboxQuery): InboxPage {
    const { groups, outline } = this.outlineRead(query);
    const rows: InboxRow[] = [];
    for (const group of groups) {
      const from = Math.max(query.offset - group.start, 0);
      const wanted = Math.min(query.limit - rows.length, group.size - from);
      if (wanted <= 0) continue;
      rows.push(...this.inboxGroupRows(query, group.name, from, wanted, outline.regroupsAt));
    }
    return { rows, ...outline };
  }

  /** The list's groups and counts for a query, remembered (most polls change nothing the inbox shows). */
  private outlineRead(query: InboxQuery): { groups: Segment[]; outline: Omit<InboxPage, 'rows'> } {
    return this.remembered(['outline', query.backlog], query, () => {
      const { condition, params } = inboxCondition(query);
      const groups = this.inboxGroups(query, condition, params);
      const outline = this.outlineOf(query, groups, condition, params);
      return { value: { groups, outline }, regroupsAt: outline.regroupsAt };
    });
  }

  /**
   * What the inbox's reads stand on now: the commits seen, by this connection or another (the CLI,
   * another process on the folder), from the WAL index (CommitMark) or else SQLite's counters
   * (total_changes, data_version), and the connection itself (a rebuild starts a new one whose
   * counters start again). Synchronous transactions: no read falls between a write and its commit.
   * It never comes back once changed.
   */
  inboxVersion(): string {
    const commits = this.commits.seen();
    if (commits !== undefined) return `${this.connection}:${commits}`;
    const { version } = this.sql(
      "SELECT total_changes() || '/' || (SELECT data_version FROM pragma_data_version) AS version",
    ).get() as { version: string };
    return `${this.connection}:${version}`;
  }

  /**
   * A read of the inbox as last made, while this store has not changed since (inboxVersion) and
   * the clock has not reached the moment the list regroups (regroupsAt): between those, the same
   * query reads the same. So an inbox across accounts reads again only the store of the account
   * that changed.
   */
  // Each read that is not the counts' own takes the moment the list regroups from the counts (read
  // then, when not remembered): the keys of a list regroup with it.
  private remembered<T>(
    what: unknown[],
    query: Omit<InboxQuery, 'offset' | 'limit'>,
    read: () => { value: T; regroupsAt: string | null },
    covers?: (kept: T) => boolean,
  ): T {
    // What the rows depend on but the time, which the span [from, until) stands for (none without one).
    const { filter, search, sort, stalledAfterDays } = query;
    const name = JSON.stringify([...what, filter, search, sort, stalledAfterDays, query.now === undefined]);
    return this.inboxReads.read(name, this.inboxVersion(), readAt(query.now), read, covers);
  }

  /**
   * The inbox's outline without its rows (the backlog always in it): this store's part of an
   * inbox across accounts (main/core/inbox-across.ts), which sums the groups and merges the rows.
   */
  inboxOutline(query: Omit<InboxQuery, 'offset' | 'limit' | 'backlog'>): Omit<InboxPage, 'rows'> {
    return this.outlineRead({ ...query, backlog: 'shown', offset: 0, limit: 0 }).outline;
  }

  /** The sort keys of a group's first `limit` rows, in its order: what a merge across stores compares. */
  inboxKeys(
    query: Omit<InboxQuery, 'offset' | 'limit'>,
    name: InboxGroupName,
    limit: number,
  ): readonly InboxKey[] {
    // Regrouped when the list's outline is: its regroupsAt is the moment for the keys too. The
    // keys last read serve any fewer (an arrival in another store asks this one for fewer or more),
    // and all of them when they were all the group held.
    const read = this.remembered(
      ['keys', name],
      query,
      () => {
        const { condition, params } = inboxCondition({ ...query, offset: 0, limit });
        const group = { name, ...groupSql(query.sort)[name] };
        const keys = this.groupRows(KEY_COLUMNS, group, condition, params, limit, 0) as unknown as InboxKey[];
        return { value: { limit, keys }, regroupsAt: this.inboxOutline(query).regroupsAt };
      },
      (kept) => limit <= kept.limit || kept.keys.length < kept.limit,
    );
    return read.keys.length > limit ? read.keys.slice(0, limit) : read.keys;
  }

  /** The sort keys of these orders (the unopened ones, to place them in a merged list), remembered like the counts. */
  inboxKeysOf(
    query: Omit<InboxQuery, 'offset' | 'limit'>,
    orderIds: readonly string[],
  ): Map<string, InboxKey> {
    return this.remembered(['keys of', orderIds], query, () => {
      const one = this.sql(`SELECT ${KEY_COLUMNS} FROM orders o WHERE o.order_id = ?`);
      const keys = orderIds.flatMap((id) => {
        const key = one.get(id) as InboxKey | undefined;
        return key ? [[id, key] as const] : [];
      });
      return { value: new Map(keys), regroupsAt: this.inboxOutline(query).regroupsAt };
    });
  }

  /**
   * For each key (another store's rows), how many of this store's rows of the group come before
   * it: its place in a merged list, less the other stores' share. One pass over the group, the keys
   * placed by the group's own ORDER BY (no second comparator); on a tie this store's row comes first.
   * Remembered like the counts: another account's arrival does not make this store walk its group.
   */
  inboxRowsBefore(
    query: Omit<InboxQuery, 'offset' | 'limit'>,
    name: InboxGroupName,
    keys: readonly InboxKey[],
  ): number[] {
    return this.remembered(['before', name, keys], query, () => ({
      value: this.placeKeys(query, name, keys),
      regroupsAt: this.inboxOutline(query).regroupsAt,
    }));
  }

  private placeKeys(
    query: Omit<InboxQuery, 'offset' | 'limit'>,
    name: InboxGroupName,
    keys: readonly InboxKey[],
  ): number[] {
    const { condition, params } = inboxCondition({ ...query, offset: 0, limit: 0 });
    const group = groupSql(query.sort)[name];
    const sql = `SELECT mine, place FROM (
        SELECT mine, ROW_NUMBER() OVER (ORDER BY ${group.order}, mine) - 1 AS place FROM (
          SELECT ${KEY_COLUMNS}, NULL AS mine FROM orders o WHERE ${condition} AND ${group.where}
          UNION ALL SELECT value->>'order_id', value->>'purchased_at', value->>'since_ms', value->>'waits_since', key
            FROM json_each($keys)) o)
      WHERE mine IS NOT NULL ORDER BY place`;
    const placed = this.sql(sql).all(bound(sql, { ...params, $keys: JSON.stringify(keys) })) as {
      mine: number;
      place: number;
    }[];
    const before = new Array<number>(keys.length).fill(0);
    // Each key's place less the keys placed above it.
    placed.forEach(({ mine, place }, rank) => {
      before[mine] = place - rank;
    });
    return before;
  }

  /** One group's rows `offset` to `offset + limit`, in its order: a page's part of it (or a store's part of a merged page). */
  inboxGroupRows(
    query: Omit<InboxQuery, 'offset' | 'limit'>,
    name: InboxGroupName,
    offset: number,
    limit: number,
    /** When the list regroups by the clock alone, from the outline the caller read the page by. */
    regroupsAt: string | null,
  ): readonly InboxRow[] {
    const read = (): InboxRow[] => {
      const { condition, params } = inboxCondition({ ...query, offset, limit });
      return this.groupRows(INBOX_COLUMNS, groupSql(query.sort)[name], condition, params, limit, offset).map(
        inboxRow,
      );
    };
    // Longer runs (a CLI listing everything) are read, not kept.
    if (limit > INBOX_PAGE_ROWS) return read();
    // A store's run of a merged page changes its length with every arrival in another store (one
    // more row of that store on the page, one fewer of this one): the run last read, kept while
    // this store is unchanged, serves any run inside it, so the other stores' arrivals read only
    // their own store again. Regrouped when the caller's outline is.
    const run = this.remembered(
      ['rows', name],
      query,
      () => ({
        value: { offset, limit, rows: Object.freeze(read().map((row) => Object.freeze(row))) },
        regroupsAt,
      }),
      (kept) => kept.offset <= offset && offset + limit <= kept.offset + kept.limit,
    );
    return run.rows.slice(offset - run.offset, offset - run.offset + limit);
  }

  private groupRows(
    columns: string,
    group: Pick<Segment, 'where' | 'order' | 'table'>,
    condition: string,
    params: Params,
    limit: number,
    offset: number,
  ): OrderRow[] {
    const sql = `SELECT ${columns} FROM ${group.table} WHERE ${condition} AND ${group.where}
             ORDER BY ${group.order} LIMIT $limit OFFSET $offset`;
    return this.sql(sql).all(
      bound(sql, { ...params, $limit: limit, $offset: offset }),
    ) as unknown as OrderRow[];
  }

  private outlineOf(
    query: InboxQuery,
    groups: readonly Segment[],
    condition: string,
    params: Params,
  ): Omit<InboxPage, 'rows'> {
    const last = groups.at(-1);
    return {
      total: last ? last.start + last.size : 0,
      waiting: this.count(`${condition} AND o.waiting = 1`, params),
      groups: groups.map(({ name, start, size, holds }) => ({ name, start, size, holds })),
      unopened: this.unopenedIn(groups, condition, params),
      regroupsAt: this.regroupsAt(Date.parse(query.now ?? ''), condition, params),
      ...(query.search.trim() !== '' && this.searchIndexing() ? { searchIncomplete: true as const } : {}),
    };
  }

  /**
   * The next moment the list's groups change with no event: the first arrival leaves "just
   * arrived" an hour after it came, the first order in progress not stalled yet becomes stalled
   * (each the millisecond after its limit, as the conditions compare; the times read as whole ms).
   */
  private regroupsAt(now: number, condition: string, params: Params): string | null {
    if (params.$recent === null) return null;
    const moments: number[] = [];
    const arrived = `SELECT MIN(o.waits_since) AS at FROM announcements a JOIN orders o ON o.order_id = a.order_id
                       WHERE ${condition} AND o.waiting = 1 AND ${JUST_ARRIVED}`;
    const { at } = this.sql(arrived).get(bound(arrived, params)) as { at: string | null };
    if (at !== null) moments.push(Date.parse(at) + JUST_ARRIVED_MINUTES * MINUTE + 1);
    const stalledBefore = params.$stalledBefore;
    if (typeof stalledBefore === 'number') {
      const stalls = `SELECT MIN(o.since_ms) AS ms FROM orders o
                        WHERE ${condition} AND o.effective_status = '${IN_PROGRESS}' AND NOT ${STALLED}`;
      const { ms } = this.sql(stalls).get(bound(stalls, params)) as { ms: number | null };
      if (ms !== null) moments.push(Math.round(ms) + (now - stalledBefore) + 1);
    }
    const next = moments.filter(Number.isFinite).sort((a, b) => a - b)[0];
    return next === undefined ? null : new Date(next).toISOString();
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
    const arrived = arrivals(` AND ${JUST_ARRIVED}`);
    const announced = arrivals('');
    const stalled = params.$stalledBefore === null ? 0 : this.count(`${condition} AND ${STALLED}`, params);
    const backlog = waiting - announced;
    const holds: Record<InboxGroupName, number> = {
      arrived,
      waiting: announced - arrived,
      stalled,
      backlog,
      rest: total - waiting - stalled,
    };
    const sql = groupSql(query.sort);
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
    const unopened =
      'SELECT 1 FROM announcements INDEXED BY announcements_unopened WHERE opened_at IS NULL LIMIT 1';
    if (this.sql(unopened).get() === undefined) return [];
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

  /** An order was opened on this laptop: it is no longer marked as an unopened arrival. Answers whether it was. */
  /** One period's Insights figures (store/insights.ts). */
  insights(query: InsightsQuery): InsightsPart {
    return readInsights((text) => this.sql(text), query);
  }

  markOpened(orderId: string, now: string): boolean {
    const { changes } = this.sql(
      'UPDATE announcements SET opened_at = ? WHERE order_id = ? AND opened_at IS NULL',
    ).run(now, orderId);
    return Number(changes) > 0;
  }

  /** How many orders wait for action: kept by triggers (status_counts), so reading it costs nothing. */
  waitingCount(): number {
    return this.statusCount(WAITING);
  }

  /** How many orders show `status`, from status_counts. */
  private statusCount(status: string): number {
    const row = this.sql('SELECT n FROM status_counts WHERE status = ?').get(status) as
      | { n: number }
      | undefined;
    return row?.n ?? 0;
  }

  /** Waiting orders not reminded of yet (waitingNotYet), through orders_to_remind. */
  unremindedWaiting(now: string): { orderId: string; since: string }[] {
    return this.waitingNotYet('reminded_at', 'orders_to_remind', now);
  }

  markReminded(orderIds: readonly string[], now: string): void {
    this.markAnnouncedAgain('reminded_at', orderIds, now);
  }

  /**
   * New orders still waiting and not escalated yet, through the partial index orders_to_escalate
   * (those started, escalated or from before leave it), less those snoozed on this laptop.
   */
  unescalatedWaiting(now: string): { orderId: string; since: string }[] {
    const snoozed = new Set(
      (
        this.sql(
          `SELECT order_id FROM orders INDEXED BY orders_to_escalate
             WHERE effective_status = '${WAITING}' AND escalated_at IS NULL AND snoozed_until > ?`,
        ).all(now) as { order_id: string }[]
      ).map((r) => r.order_id),
    );
    return this.waitingNotYet('escalated_at', 'orders_to_escalate', now).filter(
      (o) => !snoozed.has(o.orderId),
    );
  }

  markEscalated(orderIds: readonly string[], now: string): void {
    this.markAnnouncedAgain('escalated_at', orderIds, now);
  }

  /**
   * Puts off an order's urgent announcement on this laptop until `until`: announced (again) then,
   * if nobody started it meanwhile. Answers whether the store knows the order.
   */
  snooze(orderId: string, until: string): boolean {
    const { changes } = this.sql(
      'UPDATE orders SET snoozed_until = ?, escalated_at = NULL WHERE order_id = ?',
    ).run(until, orderId);
    return Number(changes) > 0;
  }

  /** The orders of `orderIds` snoozed past `now`, and until when. */
  snoozedUntil(orderIds: readonly string[], now: string): Record<string, string> {
    const get = this.sql('SELECT snoozed_until FROM orders WHERE order_id = ? AND snoozed_until > ?');
    const found: Record<string, string> = {};
    for (const id of orderIds) {
      const row = get.get(id, now) as { snoozed_until: string } | undefined;
      if (row) found[id] = row.snoozed_until;
    }
    return found;
  }

  /**
   * Waiting orders not announced again yet in `column`, with the time they wait since (waitStart).
   * Through the partial index `index`, whose condition the query repeats word for word (a bound
   * parameter would keep SQLite from using it): a poll reads the few due, not every waiting order.
   * A wait that starts after `now` (this laptop's clock was set back since) starts again now, so
   * it lasts its minutes from the set back, not hours more: written, for every view to count alike.
   */
  private waitingNotYet(
    column: 'reminded_at' | 'escalated_at',
    index: 'orders_to_remind' | 'orders_to_escalate',
    now: string,
  ): { orderId: string; since: string }[] {
    const rows = this.sql(
      `SELECT * FROM (SELECT o.order_id, o.waits_since AS since FROM orders o INDEXED BY ${index}
         WHERE o.effective_status = '${WAITING}' AND o.${column} IS NULL) WHERE since IS NOT NULL`,
    ).all() as { order_id: string; since: string }[];
    const ahead = rows.filter((r) => Date.parse(r.since) > Date.parse(now)).map((r) => r.order_id);
    if (ahead.length > 0) this.waitFromNow(ahead, now);
    return rows.map((r) => ({ orderId: r.order_id, since: ahead.includes(r.order_id) ? now : r.since }));
  }

  /** The waits of `orderIds` start `now` (waitStart reads it: the arrival's, else the learning's time). */
  private waitFromNow(orderIds: readonly string[], now: string): void {
    this.atomically(() => {
      const arrived = this.sql(
        'UPDATE announcements SET arrived_at = ? WHERE order_id = ? AND arrived_at IS NOT NULL',
      );
      const learned = this.sql('UPDATE orders SET learned_at = ? WHERE order_id = ?');
      for (const id of orderIds) {
        if (Number(arrived.run(now, id).changes) === 0) learned.run(now, id);
        this.deriveOrder(id, false);
      }
    });
  }

  private markAnnouncedAgain(
    column: 'reminded_at' | 'escalated_at',
    orderIds: readonly string[],
    now: string,
  ): void {
    this.atomically(() => {
      const mark = this.sql(`UPDATE orders SET ${column} = ? WHERE order_id = ? AND ${column} IS NULL`);
      for (const id of orderIds) mark.run(now, id);
    });
  }

  /**
   * Writes the order's search text now, unless it waits for the index's build (indexForSearchLater):
   * an order first learned in a backlog is written once, with its document, not once per change.
   */
  private indexForSearch(orderId: string, order: Order | undefined, licenses: License[] | undefined): void {
    const { rowid, unindexed } = this.sql('SELECT rowid, unindexed FROM orders WHERE order_id = ?').get(
      orderId,
    ) as { rowid: number; unindexed: number };
    if (unindexed === 1) return;
    this.writeSearchText(rowid, searchText(orderId, order, licenses));
  }

  private writeSearchText(rowid: number, text: string): void {
    this.sql('DELETE FROM order_search WHERE rowid = ?').run(rowid);
    this.sql('INSERT INTO order_search (rowid, text) VALUES (?, ?)').run(rowid, text);
  }

  /**
   * Indexes up to `limit` of the orders that wait for the search index, in one transaction, with
   * what the store holds of them now; answers how many. Read through the partial index
   * \`orders_to_index\`, so it costs nothing once the index is built.
   */
  indexForSearchLater(limit: number): number {
    return this.atomically(() => {
      // The batch's rowids first, then each order's documents as it is indexed: a batch's
      // documents read at once lived through the whole transaction, long enough for the garbage
      // collector to move every one to the old generation (the largest share of a first start's).
      const rowids = this.sql(
        'SELECT rowid FROM orders INDEXED BY orders_to_index WHERE unindexed = 1 LIMIT ?',
      ).all(limit) as { rowid: number }[];
      const read = this.sql('SELECT order_id, document, licenses FROM orders WHERE rowid = ?');
      const done = this.sql('UPDATE orders SET unindexed = 0 WHERE rowid = ?');
      for (const { rowid } of rowids) {
        const row = read.get(rowid) as { order_id: string; document: string | null; licenses: string | null };
        const order = row.document === null ? undefined : (JSON.parse(row.document) as Order);
        const licenses = row.licenses === null ? undefined : (JSON.parse(row.licenses) as License[]);
        this.writeSearchText(rowid, searchText(row.order_id, order, licenses));
        done.run(rowid);
      }
      return rowids.length;
    }, true);
  }

  /**
   * The planner's statistics brought up to date, after a large change (a first start); `limited`,
   * each table's analysis bounded, for the runs made while the app is in use.
   */
  optimize(limited = false): void {
    optimize(this.db, limited);
  }

  /** Whether some orders wait for the search index (a search may miss them meanwhile). */
  searchIndexing(): boolean {
    return (
      this.sql('SELECT 1 FROM orders INDEXED BY orders_to_index WHERE unindexed = 1 LIMIT 1').get() !==
      undefined
    );
  }

  /** Where the first start's walk of the orders listing goes on from; undefined when there is none to do. */
  ordersWalkFrom(): number | undefined {
    const value = this.meta(ORDERS_WALK);
    return value === undefined ? undefined : Number(value);
  }

  // --- Announcements --------------------------------------------------------------------------

  /**
   * Takes the queued announcements this core may raise: unclaimed ones, and those claimed by a
   * core that is gone (its process killed while raising, or the core stopped). While paused none
   * are taken: those waiting become held, for one summary on resume. One another live core claimed
   * is its own to raise (or let go), paused here or not: re-stated held and unclaimed, this core
   * would raise it on resume while the other raises it too.
   */
  claimAnnouncements(claimant: Claimant, paused: boolean): ClaimedAnnouncements {
    // Most polls find none: they write nothing (no transaction, no sync).
    if (this.sql(`SELECT 1 FROM announcements WHERE state != 'raised' LIMIT 1`).get() === undefined) {
      return { pending: [], held: [] };
    }
    return this.atomically(() => {
      const claimed: ClaimedAnnouncements = { pending: [], held: [] };
      const rows = this.sql(
        `SELECT order_id, state, claimed_by, claim_token FROM announcements WHERE state != 'raised' ORDER BY queued_at`,
      ).all() as {
        order_id: string;
        state: 'pending' | 'held';
        claimed_by: number | null;
        claim_token: string | null;
      }[];
      const hold = this.sql(`UPDATE announcements SET state = 'held', claimed_by = NULL WHERE order_id = ?`);
      const claim = this.sql('UPDATE announcements SET claimed_by = ?, claim_token = ? WHERE order_id = ?');
      for (const row of rows) {
        if (row.claimed_by !== null && claimant.heldElsewhere(row.claimed_by, row.claim_token)) continue;
        if (!paused) {
          claim.run(claimant.pid, claimant.token, row.order_id);
          claimed[row.state].push(row.order_id);
        } else if (row.state === 'pending') {
          hold.run(row.order_id);
          this.journalChanged = true;
        }
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
    this.journalChanged = true;
  }

  /** Lets go of announcements `claimant` claimed and did not raise: the next to claim them raises them. */
  releaseAnnouncements(claimant: Claimant, orderIds: readonly string[]): void {
    this.atomically(() => {
      const release = this.sql(
        `UPDATE announcements SET claimed_by = NULL
           WHERE order_id = ? AND claimed_by = ? AND claim_token = ? AND state != 'raised'`,
      );
      for (const id of orderIds) release.run(id, claimant.pid, claimant.token);
    });
  }

  markRaised(orderIds: readonly string[], now: string): void {
    this.atomically(() => {
      const raised = this.sql(
        `UPDATE announcements SET state = 'raised', raised_at = ?, claimed_by = NULL WHERE order_id = ?`,
      );
      for (const id of orderIds) raised.run(now, id);
      this.journalChanged = true;
    });
  }

  // --- Automations' runs ---------------------------------------------------------------------

  /**
   * Queues a run of `automation` for the order under a new delivery id (answered); a new order's
   * run is queued once however often it is asked for (undefined then).
   */
  queueRun(orderId: string, automation: string, trigger: RunTrigger, now: string): string | undefined {
    const deliveryId = randomUUID();
    const inserted = this.sql(
      `INSERT OR IGNORE INTO automation_runs (delivery_id, order_id, automation, trigger, state, queued_at, due_at)
         VALUES (?, ?, ?, ?, 'queued', ?, ?)`,
    ).run(deliveryId, orderId, automation, trigger, now, now);
    return inserted.changes > 0 ? deliveryId : undefined;
  }

  /**
   * Claims up to `limit` runs this core may start now: queued ones that are due and whose order
   * has been read, and those no one runs any more (`stillRunning` says, from the core that
   * claimed each, its pid and token: a process killed in the middle, a core closed, or an earlier
   * process of this pid): run again,
   * same delivery id. Each taken stays queued (claimed_by says whose), its attempts as they were,
   * until startRun counts the attempt: a claimed run waits, it does not run, and one claimed again
   * before it started (its process killed, or a stop gave it back) starts as the attempt it was
   * claimed for. `take`, when given, is asked of each run before it is taken: whether its
   * automation has room for it (no: left queued, unclaimed).
   */
  claimRuns(
    claimant: Claimant,
    stillRunning: (claimedBy: number, token: string | null, deliveryId: string) => boolean,
    now: string,
    limit: number,
    /**
     * Only this run (a test or "Run again" started by hand), due or not; or only the due runs of
     * this order (its document just read): found by the order, not by looking through every run
     * queued, most of which wait for their orders while a poll's orders are read; or only this
     * automation's due runs (each is claimed within its own room).
     */
    only?: { run: string } | { order: string } | { automation: string },
    take?: (automation: string) => boolean,
  ): AutomationRun[] {
    // A due time further ahead than any wait (RETRY_MAX_WAIT_MS) was set by a clock since set
    // back (or run ahead, then set right): due now, as ordersToFetch's are. Each by its index.
    const setBack = new Date(Date.parse(now) + RETRY_MAX_WAIT_MS).toISOString();
    const due = (query: (when: string) => string, ...params: string[]) =>
      [
        ...this.sql(query('due_at <= ?')).all(...params, now, limit * 4),
        ...this.sql(query('due_at > ?')).all(...params, setBack, limit * 4),
      ] as RunClaim[];
    const candidates = () =>
      only === undefined
        ? due(
            // Only runs whose order has been read: the rest wait for it without spending an attempt.
            (when) => `SELECT delivery_id, automation, claimed_by, claim_token FROM automation_runs r
               WHERE state IN ('queued', 'running') AND ${when}
                 AND ${ORDER_READ}
               ORDER BY due_at LIMIT ?`,
          )
        : 'order' in only
          ? due(
              // By the order's index, named: with statistics of many runs due at the same time, SQLite
              // took the due index and walked every queued run for each order read (O(n²) a poll).
              (
                when,
              ) => `SELECT delivery_id, automation, claimed_by, claim_token FROM automation_runs r INDEXED BY automation_runs_by_order
                 WHERE order_id = ? AND state IN ('queued', 'running') AND ${when}
                   AND ${ORDER_READ}
                 ORDER BY due_at LIMIT ?`,
              only.order,
            )
          : 'automation' in only
            ? due(
                (when) => `SELECT delivery_id, automation, claimed_by, claim_token FROM automation_runs r
                   INDEXED BY automation_runs_due_by_automation
                   WHERE automation = ? AND state IN ('queued', 'running') AND ${when}
                     AND ${ORDER_READ}
                   ORDER BY due_at LIMIT ?`,
                only.automation,
              )
            : (this.sql(
                `SELECT delivery_id, automation, claimed_by, claim_token FROM automation_runs
                   WHERE state IN ('queued', 'running') AND delivery_id = ?`,
              ).all(only.run) as RunClaim[]);
    // Most polls find none: they write nothing (inside a caller's transaction, one look is enough).
    if (!this.db.isTransaction && candidates().length === 0) return [];
    return this.atomically(() => {
      // A run claimed by a process gone, perhaps started, waits again until this one starts it:
      // an earlier attempt's start is not this one's.
      const claim = this.sql(
        `UPDATE automation_runs SET state = 'queued', claimed_by = ?, claim_token = ?, started_at = NULL
           WHERE delivery_id = ? RETURNING *`,
      );
      const taken: AutomationRun[] = [];
      for (const row of candidates()) {
        if (taken.length >= limit) break;
        if (row.claimed_by !== null && stillRunning(row.claimed_by, row.claim_token, row.delivery_id))
          continue;
        if (take && !take(row.automation)) continue;
        taken.push(runOf(claim.get(claimant.pid, claimant.token, row.delivery_id) as unknown as RunRow));
      }
      return taken;
    });
  }

  /**
   * The automations with runs not ended, by their names: looked up one name after another in the
   * due index (a handful of automations, however many runs each has waiting).
   */
  runAutomations(): string[] {
    const next = this.sql(
      `SELECT automation FROM automation_runs INDEXED BY automation_runs_due_by_automation
         WHERE state IN ('queued', 'running') AND automation > ? ORDER BY automation LIMIT 1`,
    );
    const names: string[] = [];
    for (let row = next.get(''); row !== undefined; row = next.get(names.at(-1) ?? '')) {
      names.push((row as { automation: string }).automation);
    }
    return names;
  }

  /**
   * A run `claimant` claimed has really started (its command spawned, its request sent): its attempt,
   * `start.attempt` (the one the run was told), is counted in the same write as its time.
   */
  startRun(claimant: Claimant, deliveryId: string, start: RunStart): void {
    this.sql(
      `UPDATE automation_runs SET state = 'running', started_at = ?, attempts = ?
         WHERE delivery_id = ? AND claimed_by = ? AND claim_token = ? AND state = 'queued'`,
    ).run(start.at, start.attempt, deliveryId, claimant.pid, claimant.token);
  }

  /**
   * Gives back runs `claimant` claimed but never started (a stop came first): unclaimed, their
   * attempts as they were (none was counted), for this or another core to take.
   */
  releaseRuns(claimant: Claimant, deliveryIds: readonly string[]): void {
    if (deliveryIds.length === 0) return;
    this.sql(
      `UPDATE automation_runs SET claimed_by = NULL
         WHERE state = 'queued' AND claimed_by = ? AND claim_token = ?
           AND delivery_id IN (SELECT value FROM json_each(?))`,
    ).run(claimant.pid, claimant.token, JSON.stringify(deliveryIds));
  }

  /** A run's end: succeeded, failed or skipped (its filters left the order out), or queued again at `dueAt`. */
  finishRun(
    deliveryId: string,
    outcome: {
      state: Exclude<RunState, 'running'>;
      dueAt?: string | undefined;
      exitCode?: number | null | undefined;
      httpStatus?: number | null | undefined;
      detail: string;
      output?: string | null | undefined;
    },
    now: string,
    /** Its start, if that is not written yet (its start and end are written together). */
    start?: RunStart,
  ): void {
    this.sql(
      `UPDATE automation_runs SET state = $state, claimed_by = NULL, due_at = COALESCE($due, due_at),
           started_at = COALESCE($started, started_at), attempts = COALESCE($attempt, attempts),
           finished_at = IIF($state = 'queued', NULL, $now), exit_code = $exit, http_status = $http,
           detail = $detail, output = $output
         WHERE delivery_id = $id`,
    ).run({
      $id: deliveryId,
      $state: outcome.state,
      $due: outcome.dueAt ?? null,
      $now: now,
      $started: start?.at ?? null,
      $attempt: start?.attempt ?? null,
      $exit: outcome.exitCode ?? null,
      $http: outcome.httpStatus ?? null,
      $detail: outcome.detail,
      $output: outcome.output ?? null,
    });
  }

  run(deliveryId: string): AutomationRun | undefined {
    const row = this.sql('SELECT * FROM automation_runs WHERE delivery_id = ?').get(deliveryId) as
      | RunRow
      | undefined;
    return row && runOf(row);
  }

  /** The runs waiting (to start, or to be tried again) or failed, newest first, at most `limit`. */
  runsWaitingOrFailed(limit = 100): AutomationRun[] {
    const rows = this.sql(
      "SELECT * FROM automation_runs WHERE state IN ('queued', 'running', 'failed') ORDER BY queued_at DESC, rowid DESC LIMIT ?",
    ).all(limit) as unknown as RunRow[];
    return rows.map(runOf);
  }

  /** An order's runs, oldest first. */
  runsFor(orderId: string): AutomationRun[] {
    const rows = this.sql('SELECT * FROM automation_runs WHERE order_id = ? ORDER BY queued_at, rowid').all(
      orderId,
    ) as unknown as RunRow[];
    return rows.map(runOf);
  }

  // --- Runbooks ------------------------------------------------------------------------------

  /** The runbook steps ticked on an order, as they were ticked (oldest first). */
  runbookTicks(orderId: string): RunbookTick[] {
    const rows = this.sql(
      'SELECT item_id, step, ticked_at FROM runbook_ticks WHERE order_id = ? ORDER BY ticked_at, item_id, step',
    ).all(orderId) as { item_id: string; step: string; ticked_at: string }[];
    return rows.map((r) => ({ itemId: r.item_id, step: r.step, tickedAt: r.ticked_at }));
  }

  /** Ticks a runbook's step on an order (again: kept as first ticked), or takes the tick back. */
  tickRunbookStep(orderId: string, itemId: string, step: string, ticked: boolean, now: string): void {
    const product = itemId.toLowerCase();
    if (ticked) {
      this.sql(
        'INSERT OR IGNORE INTO runbook_ticks (order_id, item_id, step, ticked_at) VALUES (?, ?, ?, ?)',
      ).run(orderId, product, step, now);
    } else {
      this.sql('DELETE FROM runbook_ticks WHERE order_id = ? AND item_id = ? AND step = ?').run(
        orderId,
        product,
        step,
      );
    }
  }

  /**
   * When the next queued run falls due after `now` (a retry waiting), if any. Those due already
   * are not: they wait for their order to be read or for a slot, and must not keep the others'
   * retries from a timer.
   */
  nextRunDue(now: string): string | undefined {
    const row = this.sql(
      `SELECT MIN(due_at) AS at FROM automation_runs WHERE state IN ('queued', 'running') AND due_at > ?`,
    ).get(now) as { at: string | null };
    return row.at ?? undefined;
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

  /** The marks waiting to be sent, oldest first (outbox_pending). */
  pendingOutboxMarks(): PendingMark[] {
    const rows = this.sql(
      `SELECT request_id, order_id FROM outbox INDEXED BY outbox_pending WHERE state = 'pending' ORDER BY seq`,
    ).all() as { request_id: string; order_id: string }[];
    return rows.map((row) => ({ requestId: row.request_id, orderId: row.order_id }));
  }

  /** The marks waiting to be sent, whole, oldest first (outbox_pending): the held ones among them, the journal's. */
  pendingOutboxItems(): OutboxItem[] {
    const rows = this.sql(
      `SELECT json FROM outbox INDEXED BY outbox_pending WHERE state = 'pending' ORDER BY seq`,
    ).all() as { json: string }[];
    return rows.map((row) => readOutboxItem(row.json));
  }

  outboxItem(requestId: string): OutboxItem | undefined {
    const row = this.sql('SELECT json FROM outbox WHERE request_id = ?').get(requestId) as
      | { json: string }
      | undefined;
    return row === undefined ? undefined : readOutboxItem(row.json);
  }

  pendingOutboxCount(): number {
    return this.outboxCount('pending');
  }

  /** The outbox's marks of a kind (its state, or 'not-read-back': sent, not shown back yet), kept by triggers. */
  private outboxCount(kind: OutboxItem['state'] | 'not-read-back'): number {
    const row = this.sql('SELECT n FROM outbox_counts WHERE kind = ?').get(kind) as { n: number } | undefined;
    return row?.n ?? 0;
  }

  /** Adds or updates an item; committed (and flushed) when this returns. */
  putOutboxItem(item: OutboxItem): void {
    this.atomically(() => {
      const was = this.sql('SELECT state FROM outbox WHERE request_id = ?').get(item.requestId) as
        | { state: string }
        | undefined;
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
      this.sql(
        `INSERT INTO status_records (request_id, marked_at, item) VALUES (?, ?, ?)
           ON CONFLICT (request_id) DO UPDATE SET item = excluded.item`,
      ).run(item.requestId, item.createdAt, JSON.stringify(item));
      this.refreshEffectiveStatus(item.orderId);
      this.noteOutboxChange(was?.state, item.state);
    });
  }

  /** Removes an item (undone, or sent again as a new one): the order shows its status as it was. */
  deleteOutboxItem(requestId: string, ended: StatusEnding): void {
    this.atomically(() => {
      const row = this.sql('DELETE FROM outbox WHERE request_id = ? RETURNING order_id, state').get(
        requestId,
      ) as { order_id: string; state: string } | undefined;
      this.sql('UPDATE status_records SET ended = ?, ended_at = ? WHERE request_id = ?').run(
        ended.as,
        ended.at,
        requestId,
      );
      if (row) this.refreshEffectiveStatus(row.order_id);
      this.noteOutboxChange(row?.state, undefined);
    });
  }

  /**
   * Drops confirmed items, those a poll's listing showed (the history shows them from there; the
   * answer to the post alone does not confirm it); answers them. An item sent before read-backs
   * were recorded (no sentAtPoll) is confirmed, as before, once its event is in the history: it is
   * recorded as read back now, so its proof of delivery says confirmed rather than sent.
   */
  forgetConfirmed(): OutboxItem[] {
    return this.atomically(() => {
      const readBackAt = new Date(this.now()).toISOString();
      const older = this.sql(
        `UPDATE outbox INDEXED BY outbox_sent_uncounted SET json = json_set(json, '$.readBackAt', ?)
           WHERE state = 'sent' AND json_extract(json, '$.readBackAt') IS NULL
             AND json_extract(json, '$.sentAtPoll') IS NULL AND ${IN_HISTORY('outbox')}
           RETURNING request_id, json`,
      ).all(readBackAt) as { request_id: string; json: string }[];
      const record = this.sql('UPDATE status_records SET item = ? WHERE request_id = ?');
      for (const row of older) record.run(row.json, row.request_id);
      const rows = this.sql(
        `DELETE FROM outbox INDEXED BY outbox_read_back WHERE state = 'sent' AND json_extract(json, '$.readBackAt') IS NOT NULL
           RETURNING json`,
      ).all() as { json: string }[];
      return rows.map((row) => readOutboxItem(row.json));
    });
  }

  /** Every status marked here since `since` (ISO; all when absent), oldest first: the proof of delivery. */
  statusRecords(since?: string): StatusRecord[] {
    const rows = this.sql(
      `SELECT item, ended, ended_at FROM status_records WHERE marked_at >= ? ORDER BY marked_at, request_id`,
    ).all(since ?? '') as { item: string; ended: StatusEnding['as'] | null; ended_at: string | null }[];
    return rows.map((row) => ({
      item: readOutboxItem(row.item),
      ...(row.ended === null ? {} : { ended: { as: row.ended, at: row.ended_at ?? '' } }),
    }));
  }

  /** Forgets the records of statuses marked before `before` (ISO) that have left the outbox. */
  forgetStatusRecords(before: string): void {
    this.sql(
      'DELETE FROM status_records WHERE marked_at < ? AND request_id NOT IN (SELECT request_id FROM outbox)',
    ).run(before);
  }

  /**
   * The first `limit` marks of a kind, in the order they were marked, with what the inbox shows of
   * their orders: those refused (outbox_failed), or those sent and not shown back (UNCONFIRMED,
   * outbox_unconfirmed: the range read is the page and the few sent since). Not every such mark:
   * a marketplace may have lost thousands.
   */
  private marksToConfirm(kind: 'unconfirmed' | 'failed', limit: number): AttentionMark[] {
    const [index, where, params] =
      kind === 'failed'
        ? ['outbox_failed', `x.state = 'failed'`, { $limit: limit }]
        : ['outbox_unconfirmed', UNCONFIRMED, { $limit: limit, $sentBy: this.unconfirmedSentBy() }];
    const rows = this.sql(
      `SELECT x.json, o.buyer, o.product FROM outbox x INDEXED BY ${index} LEFT JOIN orders o ON o.order_id = x.order_id
         WHERE ${where} ORDER BY x.seq LIMIT $limit`,
    ).all(params) as { json: string; buyer: string | null; product: string | null }[];
    return rows.map((row) => ({
      item: readOutboxItem(row.json),
      ...(row.buyer === null ? {} : { buyer: row.buyer }),
      ...(row.product === null ? {} : { product: row.product }),
    }));
  }

  /** The last poll whose marks sent and not shown back are unconfirmed now (UNCONFIRMED's $sentBy). */
  private unconfirmedSentBy(): number {
    return this.pollsSucceeded() - UNCONFIRMED_AFTER_POLLS;
  }

  /**
   * Sent statuses that a listing read by a poll shows, recorded as read back: by the event id
   * the post was answered with, else by the request id the event names (status-post.ts). A post
   * shows as an event of its order: only the marks of the events' orders are looked at, whatever
   * the outbox holds (a marketplace that lost thousands of marks).
   */
  private noteReadBack(events: readonly MarketplaceEvent[], now: string): void {
    const byOrder = new Map<string, MarketplaceEvent[]>();
    for (const event of events) {
      const orderId = orderIdOf(event);
      if (orderId !== undefined) byOrder.set(orderId, [...(byOrder.get(orderId) ?? []), event]);
    }
    const marksOf = this.sql(
      `SELECT json FROM outbox INDEXED BY outbox_by_order
         WHERE order_id = ? AND state = 'sent' AND json_extract(json, '$.readBackAt') IS NULL`,
    );
    for (const [orderId, listed] of byOrder) {
      for (const row of marksOf.all(orderId) as { json: string }[]) {
        const item = readOutboxItem(row.json);
        if (listed.some((event) => showsMark(event, item))) this.putOutboxItem({ ...item, readBackAt: now });
      }
    }
  }

  // --- Needs attention ----------------------------------------------------------------------

  /**
   * How many things need attention, each kind counted through an index or the outbox (which holds
   * only what is not confirmed): what a poll adds to the tray's count costs what waits, not what
   * the history holds.
   */
  attentionCounts(limits: AttentionLimits): AttentionCounts {
    const { params } = attentionParams(limits);
    return {
      notStarted: params.$notStartedBefore === null ? 0 : this.notStartedCount(params.$notStartedBefore),
      stalled: params.$stalledBefore === null ? 0 : this.stalledCount(params.$stalledBefore),
      unconfirmed: this.unconfirmedCount(),
      failed: this.outboxCount('failed'),
      keptAside: (
        this.sql(
          `SELECT COUNT(*) AS n FROM unreadable INDEXED BY unreadable_shown
             WHERE id > ? AND reason NOT LIKE '${ANOTHER_SELLER}%'`,
        ).get(this.asideSeenUpTo()) as { n: number }
      ).n,
    };
  }

  /** The Needs attention view: each kind's count and its first `limit` rows. */
  attention(
    limits: AttentionLimits,
    limit: number,
  ): Omit<AccountAttention, 'reminderAfterMinutes' | 'stalledAfterDays' | 'escalateAfterMinutes'> {
    const { params } = attentionParams(limits);
    const rows = (index: string, where: string, order: string) => {
      const sql = `SELECT ${INBOX_COLUMNS} FROM orders o INDEXED BY ${index} WHERE ${where} ORDER BY ${order} LIMIT $limit`;
      return (this.sql(sql).all(bound(sql, { ...params, $limit: limit })) as unknown as OrderRow[]).map(
        inboxRow,
      );
    };
    const aside = this.sql(
      `SELECT id, source, key, field_path, reason, seen_at FROM unreadable
         WHERE id > ? AND reason NOT LIKE '${ANOTHER_SELLER}%' ORDER BY id DESC LIMIT ?`,
    ).all(this.asideSeenUpTo(), limit) as {
      id: number;
      source: string;
      key: string;
      field_path: string;
      reason: string;
      seen_at: string;
    }[];
    // Each in its index's order (no sort of all that match): the newest waiting past the delay first.
    const notStarted =
      params.$notStartedBefore === null
        ? []
        : rows(
            'orders_waiting_by_wait',
            `o.effective_status = '${WAITING}' AND o.waits_since < $notStartedBefore`,
            'o.waits_since DESC, o.purchased_at DESC, o.order_id',
          );
    return {
      counts: this.attentionCounts(limits),
      notStarted,
      snoozed: this.snoozedUntil(
        notStarted.map((row) => row.orderId),
        limits.now,
      ),
      // The longest in progress first.
      stalled:
        params.$stalledBefore === null
          ? []
          : rows(
              'orders_in_progress_since',
              `${LISTED_IN_PROGRESS('o.')} AND julianday(o.status_at) < $inProgressBeforeDay`,
              'julianday(o.status_at)',
            ),
      unconfirmed: this.marksToConfirm('unconfirmed', limit),
      failed: this.marksToConfirm('failed', limit),
      keptAside: aside.map((r) => ({
        id: r.id,
        kind: r.source,
        key: r.key,
        fieldPath: r.field_path,
        reason: r.reason,
        seenAt: r.seen_at,
      })),
    };
  }

  /** The request ids of an order's sent statuses that the listings did not show (UNCONFIRMED), oldest first. */
  unconfirmedOf(orderId: string): string[] {
    const rows = this.sql(
      `SELECT x.request_id FROM outbox x INDEXED BY outbox_by_order
         WHERE x.order_id = $orderId AND ${UNCONFIRMED} ORDER BY x.seq`,
    ).all({ $orderId: orderId, $sentBy: this.unconfirmedSentBy() }) as { request_id: string }[];
    return rows.map((row) => row.request_id);
  }

  /**
   * How many marks UNCONFIRMED says: all not shown back (counted by triggers) less those sent
   * lately (outbox_not_read_back's range) and those sent before polls were counted (their own
   * index: the planner's statistics, all of one poll, would otherwise have it walk the outbox).
   */
  private unconfirmedCount(): number {
    const notYet = (index: string, where: string, ...params: number[]) =>
      (
        this.sql(
          `SELECT COUNT(*) AS n FROM outbox INDEXED BY ${index}
             WHERE state = 'sent' AND json_extract(json, '$.readBackAt') IS NULL
             AND json_extract(json, '$.sentAtPoll') ${where}`,
        ).get(...params) as { n: number }
      ).n;
    return (
      this.outboxCount('not-read-back') -
      notYet('outbox_not_read_back', '> ?', this.unconfirmedSentBy()) -
      notYet('outbox_sent_uncounted', 'IS NULL')
    );
  }

  /**
   * Waiting orders that wait since before `before` (waitStart): all waiting orders (counted by
   * triggers) less those waiting since then or since a time not known, index ranges of what came
   * lately (orders_waiting_by_wait), not a walk of every waiting order.
   */
  private notStartedCount(before: string): number {
    const since = (where: string) => {
      const sql = `SELECT COUNT(*) AS n FROM orders INDEXED BY orders_waiting_by_wait
                     WHERE effective_status = '${WAITING}' AND ${where}`;
      return (this.sql(sql).get(bound(sql, { $before: before })) as { n: number }).n;
    };
    return this.waitingCount() - since('waits_since >= $before') - since('waits_since IS NULL');
  }

  /**
   * Orders the marketplace lists in progress since before `before` (ms), kept as time passes
   * (stalled_count, migration 19): the count kept for the last moment counted, plus the orders
   * between that moment and this one (orders_in_progress_since's range: those whose limit passed
   * since), less them when the moment went back (the clock set back, the limit raised). Read in one
   * statement (one snapshot, whatever another process writes); the moment is moved, in a write,
   * only when orders lie between: a count that finds none commits nothing and waits for no writer.
   */
  private stalledCount(before: number): number {
    const to = julianDay(before);
    const counted = () => {
      const { from, n, passed } = this.sql(
        `SELECT s.before_day AS "from", s.n, (SELECT COUNT(*) FROM orders INDEXED BY orders_in_progress_since
             WHERE ${LISTED_IN_PROGRESS('')}
               AND julianday(status_at) >= MIN(s.before_day, $to) AND julianday(status_at) < MAX(s.before_day, $to)
           ) AS passed FROM stalled_count s`,
      ).get({ $to: to }) as { from: number; n: number; passed: number };
      return { passed, n: to >= from ? n + passed : n - passed };
    };
    const seen = counted();
    if (seen.passed === 0) return seen.n;
    try {
      return this.atomically(() => {
        const { n } = counted();
        this.sql('UPDATE stalled_count SET before_day = ?, n = ?').run(to, n);
        return n;
      });
    } catch (error) {
      // The count read is right without the moment moved: a disk full, read-only or busy writer
      // costs the next count its range again, not the tray its count. Damage is told as anywhere.
      if (isDamage(error)) throw error;
      return seen.n;
    }
  }

  /** Items kept aside up to this id were looked at in the Needs attention view. */
  private asideSeenUpTo(): number {
    return Number(this.meta('aside-seen-up-to') ?? 0) || 0;
  }

  /** The user looked at the items kept aside up to `id`: they no longer need attention. */
  markAsideSeen(id: number): void {
    if (id > this.asideSeenUpTo()) this.setMeta('aside-seen-up-to', String(id));
  }

  // --- What could not be read ----------------------------------------------------------------

  /** Keeps items the reader could not use, raw with where and why; one row per item. */
  setAside(items: readonly UnreadableItem[], now: string): void {
    if (items.length === 0) return;
    this.atomically(() => {
      const toldByPlace = new Set<string>(
        this.overCapToldByPlace ? JSON.parse(this.meta(OVER_CAP_TOLD_BY_PLACE) ?? '[]') : [],
      );
      const keep = this.sql(
        `INSERT INTO unreadable (source, key, field_path, reason, raw, seen_at, told, lookup_read, event_uuid, event_ms, order_id)
           VALUES ($source, $key, $path, $reason, $raw, $now, $told, 1, $uuid, $ms, $order)
           ON CONFLICT (source, key) DO UPDATE SET
             field_path = excluded.field_path, reason = excluded.reason, raw = excluded.raw,
             lookup_read = 1, event_uuid = excluded.event_uuid, event_ms = excluded.event_ms,
             order_id = excluded.order_id`,
      );
      for (const item of items) {
        keep.run({
          $source: item.kind,
          $key: item.key,
          $path: item.fieldPath,
          $reason: item.reason,
          $raw: JSON.stringify(item.raw) ?? 'null',
          $now: now,
          $told: toldByPlace.has(item.kind) && overCapKeyed(item.key) ? 1 : 0,
          ...lookupColumns(item.kind === 'event' ? item.raw : undefined),
        });
      }
    });
  }

  /**
   * Sets an order that is not this account's aside (its events leaked into this account's
   * listing): its events are kept aside with `item`'s reason, and the order, its announcement and
   * reminder leave the store, so it is neither announced nor shown; its later events are kept
   * aside as they come (insertEvents). Answers whether the store held the order (else nothing
   * changed: it was set aside before, or never known).
   */
  setOrderAside(orderId: string, item: (event: MarketplaceEvent) => UnreadableItem, now: string): boolean {
    return this.atomically(() => {
      this.setAside(this.history(orderId).map(item), now);
      // The order itself, told with its events: what keeps its later events out.
      this.sql(
        `INSERT INTO unreadable (source, key, field_path, reason, raw, seen_at, told)
           VALUES ('order', ?, 'orderId', ?, ?, ?, 1) ON CONFLICT (source, key) DO NOTHING`,
      ).run(
        orderId,
        `${ANOTHER_SELLER}: its order answers 404 for this account`,
        JSON.stringify({ orderId }),
        now,
      );
      const row = this.sql('SELECT rowid FROM orders WHERE order_id = ?').get(orderId) as
        | { rowid: number }
        | undefined;
      if (row) this.sql('DELETE FROM order_search WHERE rowid = ?').run(row.rowid);
      // Another seller's order is neither announced nor handed to an automation.
      for (const table of ['events', 'announcements', 'automation_runs', 'runbook_ticks', 'orders']) {
        this.sql(`DELETE FROM ${table} WHERE order_id = ?`).run(orderId);
      }
      return row !== undefined;
    });
  }

  /** Items kept aside that the user has not been told of yet (`markTold` when told). */
  untoldAside(): KeptAside[] {
    return this.keptAside('INDEXED BY unreadable_untold WHERE told = 0');
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

  /**
   * A poll read the marketplace: when, and how many have so far, in a small file beside the
   * database (LAST_POLL_FILE), not in it: a poll that learns nothing commits nothing. Written
   * without a flush: a power cut may lose the last few, which only tells "Checked" a little early.
   */
  notePollSucceeded(now: string): void {
    this.lastPollAt = now;
    this.polls += 1;
    try {
      const lastPoll = { at: now, n: this.polls };
      writeFileSync(join(this.dataDir, LAST_POLL_FILE), JSON.stringify(lastPoll), { mode: 0o600 });
    } catch {
      // Said from memory while this process runs; the doctor then says an older time.
    }
  }

  /** When a poll last read the marketplace on this laptop (ISO), if one ever did. */
  lastSuccessfulPoll(): string | undefined {
    return this.lastPollAt;
  }

  /** How many polls read the marketplace on this laptop so far. */
  pollsSucceeded(): number {
    return this.polls;
  }

  /** The count of polls at which the latest mark not yet shown back was sent (0 when none). */
  private highestSentAtPoll(): number {
    const row = this.sql(
      `SELECT MAX(json_extract(json, '$.sentAtPoll')) AS n FROM outbox
         WHERE state = 'sent' AND json_extract(json, '$.readBackAt') IS NULL`,
    ).get() as { n: number | null };
    return row.n ?? 0;
  }

  /**
   * When the app (or `watch`) last read the marketplace with the store in `dataDir`, from its
   * file (the CLI's doctor, beside a running app); undefined when none did or it cannot be read.
   */
  static lastSuccessfulPollIn(dataDir: string): string | undefined {
    return parseLastPoll(readTextSync(join(dataDir, LAST_POLL_FILE)))?.at;
  }

  /** The page size the marketplace was found to allow, when it is smaller than asked. */
  learnedPageSize(): number | undefined {
    const value = Number(this.meta('page-size'));
    return Number.isInteger(value) && value > 0 ? value : undefined;
  }

  rememberPageSize(size: number): void {
    if (size !== this.learnedPageSize()) this.setMeta('page-size', String(size));
  }

  /** The result windows the marketplace's listings were found to have (meta `result-windows`). */
  learnedResultWindows(): ResultWindows {
    const value = this.meta('result-windows');
    const parsed: unknown = value === undefined ? undefined : JSON.parse(value);
    return typeof parsed === 'object' && parsed !== null ? (parsed as ResultWindows) : {};
  }

  rememberResultWindows(windows: ResultWindows): void {
    const value = JSON.stringify(windows);
    if (value !== '{}' && value !== this.meta('result-windows')) this.setMeta('result-windows', value);
  }

  /** The wait the marketplace last asked for (any process on this folder), if kept. */
  learnedServerWait(): ServerWait | undefined {
    const value = this.meta('server-wait');
    const parsed: unknown = value === undefined ? undefined : JSON.parse(value);
    return typeof parsed === 'object' && parsed !== null && typeof (parsed as ServerWait).untilMs === 'number'
      ? (parsed as ServerWait)
      : undefined;
  }

  /** Keeps the wait asked for; none (a poll that read the marketplace) ends one kept. */
  rememberServerWait(wait: ServerWait | undefined): void {
    const value = wait === undefined ? 'null' : JSON.stringify(wait);
    if (value !== (this.meta('server-wait') ?? 'null')) this.setMeta('server-wait', value);
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

/** Whether the marketplace rewrote an event in what an order shows of it (not a seenTime, not a time's form). */
function rewritten(before: MarketplaceEvent, after: MarketplaceEvent): boolean {
  const instant = (event: MarketplaceEvent) => (event.eventTime ? Date.parse(event.eventTime) : Number.NaN);
  return (
    orderIdOf(before) !== orderIdOf(after) ||
    before.eventTypeCode !== after.eventTypeCode ||
    before.statusCode !== after.statusCode ||
    before.description !== after.description ||
    before.detailedDescription !== after.detailedDescription ||
    !Object.is(instant(before), instant(after))
  );
}

/** How long order `$id` took to its first action and to Completed, from its purchase `$purchasedAt`. */
const TIMES = timesTaken('$id', '$purchasedAt');

/**
 * Whether outbox item `x`'s event, by the id its post was answered with, is in its order's history
 * (an event's id is its order's: another order may have an event of that id).
 */
const IN_HISTORY = (x: string) =>
  `EXISTS (SELECT 1 FROM events e INDEXED BY events_by_order
             WHERE e.order_id = ${x}.order_id AND json_extract(e.json, '$.eventId') = ${x}.event_id)`;

/** A column of the latest mark the user made on order `$id`, when the marketplace's history does not show that mark yet. */
const markedNotShown = (column: 'status_code' | 'request_id') =>
  `(SELECT CASE WHEN x.state = 'pending' OR NOT ${IN_HISTORY('x')}
                    THEN x.${column} END
          FROM outbox x WHERE x.order_id = $id AND x.state != 'failed' ORDER BY x.seq DESC LIMIT 1)`;
/** The status the user marked on order `$id` that the marketplace's history does not show yet, if any. */
const MARKED = markedNotShown('status_code');

/** An order that arrived on this laptop and was not opened here yet. */
const UNOPENED = `EXISTS (SELECT 1 FROM announcements a WHERE a.order_id = o.order_id AND a.opened_at IS NULL)`;

/** An order that arrived while the app ran: the first sync's backlog was never announced. */
const ARRIVED = `EXISTS (SELECT 1 FROM announcements a WHERE a.order_id = o.order_id)`;

/**
 * When the wait of order `id` starts, in this laptop's time, given its purchase stamp and when it
 * was learned here: the one decision behind its reminder, its urgent announcement, its place in
 * Needs attention as not started, its place in the inbox ("longest waiting first", the merge across
 * accounts) and what the window says of its wait ("Waiting 5 min", "late" of its row and page). An
 * order that arrived counts from its arrival (when this laptop could first tell of it: the
 * marketplace's stamp is another clock's, hours behind or ahead, and a laptop that was off learns
 * late); the first start's backlog, never announced, and an arrival whose moment was not kept (a
 * journal or 0.1's files that did not hold it), from the purchase stamp, but never from after this
 * laptop learned of it (a stamp ahead of that is a clock ahead). Kept in `orders.waits_since`
 * (LEARN_ORDER, DERIVE_ORDER: an order's announcement is derived again), as UTC with ms, which
 * compares as text, through the index orders_waiting_by_wait.
 */
const waitStart = (id: string, purchasedAt: string, learnedAt: string) =>
  `strftime('%Y-%m-%dT%H:%M:%fZ', COALESCE((SELECT a.arrived_at FROM announcements a WHERE a.order_id = ${id}),
    CASE WHEN ${learnedAt} IS NULL OR julianday(${purchasedAt}) < julianday(${learnedAt})
      THEN ${purchasedAt} ELSE ${learnedAt} END))`;

/** When waiting order `o` waits since (waitStart), else null: what a view of the order says it waits since. */
const WAITING_SINCE = `IIF(o.effective_status = '${WAITING}', o.waits_since, NULL)`;

/** An order that arrived since `$recent` (by its wait's start, as its row counts it), of those ARRIVED. */
const JUST_ARRIVED = 'o.waits_since >= $recent';

/** Since when the order has its status: its latest event, or the user's mark the history does not show yet. */
const STATUS_SINCE = `CASE WHEN o.effective_status IS o.status
    THEN o.status_at
    ELSE (SELECT json_extract(x.json, '$.createdAt') FROM outbox x WHERE x.order_id = o.order_id
            ORDER BY x.seq DESC LIMIT 1)
  END`;

/**
 * STATUS_SINCE as ms since the epoch (compared and ordered whatever way the time was written), for
 * order `$id` as the UPDATE that sets its `status` and `status_at` to these leaves it: kept in
 * \`orders.since_ms\` with the effective status, so the stalled orders are read from an index
 * (\`orders_stalled_by_since\`), not worked out again for every order in progress at each inbox page.
 */
function sinceMs(status: string, statusAt: string): string {
  return `CASE WHEN COALESCE(${MARKED}, ${status}) IS ${status}
    THEN (julianday(${statusAt}) - 2440587.5) * 86400000
    ELSE (SELECT (julianday(json_extract(x.json, '$.createdAt')) - 2440587.5) * 86400000 FROM outbox x
            WHERE x.order_id = $id ORDER BY x.seq DESC LIMIT 1)
  END`;
}

/**
 * Statements run once per order or event, their text built once here: built at each call, a
 * text of a few kilobytes was made again and hashed for the statement cache every time (a first
 * start's hundred thousand events made a hundred megabytes of such garbage).
 */
const LEARN_ORDER = `INSERT OR IGNORE INTO orders (order_id, learned_at, unindexed, escalated_at, status, status_at,
     purchased_at, purchase_type, effective_status, since_ms, first_action_ms, completed_ms, waits_since)
   VALUES ($id, $now, $unindexed, $escalatedAt, $status, $statusAt, $purchasedAt, $purchaseType,
     COALESCE(${MARKED}, $status), ${sinceMs('$status', '$statusAt')}, ${TIMES.firstAction},
     ${TIMES.completed}, ${waitStart('$id', '$purchasedAt', '$now')})`;
/**
 * When the order's status began, as derived again: while the status stays with the same newest
 * event (`$began` 0: not one read for the first time now), never later than it was (a stamp ahead
 * of this laptop was taken as the moment it was learned, notAhead; that event listed again once
 * the clock passed its stamp must not move it on). A status that left and came back began again.
 * A colleague's status begins at its stamp, however late this laptop learned the order: a laptop
 * that was off sees the stall the others see.
 */
const STATUS_AT_KEPT = `CASE WHEN $began = 0 AND status IS $status AND status_at IS NOT NULL
     AND julianday(status_at) < julianday($statusAt) THEN status_at ELSE $statusAt END`;
const DERIVE_ORDER = `UPDATE orders SET stale = MAX(stale, $refetch),
     fetch_due_ms = CASE WHEN $refetch = 1 THEN NULL ELSE fetch_due_ms END,
     fetch_failures = CASE WHEN $refetch = 1 THEN 0 ELSE fetch_failures END, status = $status,
     status_at = ${STATUS_AT_KEPT}, purchased_at = $purchasedAt, purchase_type = $purchaseType,
     effective_status = COALESCE(${MARKED}, $status), since_ms = ${sinceMs('$status', STATUS_AT_KEPT)},
     first_action_ms = ${TIMES.firstAction}, completed_ms = ${TIMES.completed},
     waits_since = ${waitStart('$id', '$purchasedAt', 'learned_at')}
   WHERE order_id = $id`;
/** From the document as stored (an UPDATE's expressions read the row as it was before it). */
const SET_ORDER_ITEM = `UPDATE orders SET item = ${ORDER_ITEM('document')} WHERE order_id = ?`;

/** In progress since before `$stalledBefore` (ms); never when that is null (the limit is off). */
const STALLED = `(o.effective_status = '${IN_PROGRESS}' AND o.since_ms < $stalledBefore)`;

/**
 * The stalled orders' ids, found once per statement: the rest of the list is read past them
 * from the inbox's index alone, with no look-up of each row.
 */
const NOT_STALLED = `o.order_id NOT IN (SELECT o.order_id FROM orders o WHERE ${STALLED})`;

/**
 * A status sent from here needs attention when this many polls ended since it was sent and their
 * listings did not show it (sent by a poll's delivery, that poll counts, though it read the listing
 * before the post: two or three reads of the listing since, at the poll interval).
 */
export const UNCONFIRMED_AFTER_POLLS = 3;

/**
 * A mark sent from here (at a counted poll) that the listings of UNCONFIRMED_AFTER_POLLS polls since
 * did not show, over `outbox x`: `$sentBy` is the last poll whose marks count (unconfirmedSentBy).
 * What the index outbox_unconfirmed holds, less those sent since.
 */
const UNCONFIRMED = `x.state = 'sent' AND json_extract(x.json, '$.readBackAt') IS NULL
  AND json_extract(x.json, '$.sentAtPoll') <= $sentBy`;

/** What draws the Needs attention lists: the time now and the settings' limits. */
export interface AttentionLimits {
  now: string;
  /** A waiting order bought longer ago needs attention; 0 = never. */
  reminderAfterMinutes: number;
  /** An order in progress longer needs attention; 0 = never. */
  stalledAfterDays: number;
}

/** The limits as the queries' parameters: null where a limit is off (or the time unknown). */
function attentionParams(limits: AttentionLimits): {
  params: {
    $notStartedBefore: string | null;
    $stalledBefore: number | null;
    $inProgressBeforeDay: number | null;
  };
} {
  const now = Date.parse(limits.now);
  const known = Number.isFinite(now);
  const stalledBefore = known && limits.stalledAfterDays > 0 ? now - limits.stalledAfterDays * DAY : null;
  return {
    params: {
      // Purchase times are compared as text, through the index: ISO times in UTC, as marketplaces write them.
      $notStartedBefore:
        known && limits.reminderAfterMinutes > 0
          ? new Date(now - limits.reminderAfterMinutes * MINUTE).toISOString()
          : null,
      $stalledBefore: stalledBefore,
      $inProgressBeforeDay: stalledBefore === null ? null : julianDay(stalledBefore),
    },
  };
}

/** A moment (ms since the epoch) as SQLite's julianday() writes it. */
const julianDay = (ms: number): number => ms / DAY + 2440587.5;

/**
 * Listed in progress: the marketplace's status and the one shown (no mark of this laptop on its
 * way), the condition of the index orders_in_progress_since, which queries repeat word for word.
 */
const LISTED_IN_PROGRESS = (table: string) =>
  `${table}status = '${IN_PROGRESS}' AND ${table}effective_status = '${IN_PROGRESS}'`;

/** What an inbox row shows, for `orders o`. */
const INBOX_COLUMNS = `o.order_id, o.effective_status, o.purchase_type, o.purchased_at, o.buyer, o.product, o.total_amount, o.total_currency, o.total_exact,
  (SELECT CASE WHEN x.state = 'pending' AND json_extract(x.json, '$.problem') IS NOT NULL THEN 'retrying' ELSE x.state END
    FROM outbox x WHERE x.order_id = o.order_id ORDER BY x.seq DESC LIMIT 1) AS delivery,
  ${UNOPENED} AS unopened, NOT ${ARRIVED} AS backlog, ${STATUS_SINCE} AS status_since,
  ${WAITING_SINCE} AS waiting_since`;

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

/** Each group of the inbox as SQL over `orders o`: which orders, and in which order. */
function groupSql(
  sort: InboxSort | undefined,
): Record<InboxGroupName, Pick<Segment, 'where' | 'order' | 'table'>> {
  const order = (name: InboxGroupName) =>
    groupOrder(name, sort)
      .map(([column, direction]) => `o.${column} ${direction}`)
      .join(', ');
  // The waiting ones by their wait's start, through orders_waiting_by_wait (its condition word for word).
  const waits = `o.effective_status = '${WAITING}'`;
  const byWait = 'orders o INDEXED BY orders_waiting_by_wait';
  return {
    arrived: { where: `${waits} AND ${ARRIVED} AND ${JUST_ARRIVED}`, order: order('arrived'), table: byWait },
    waiting: {
      where: `${waits} AND ${ARRIVED} AND (${JUST_ARRIVED}) IS NOT 1`,
      order: order('waiting'),
      table: byWait,
    },
    stalled: { where: STALLED, order: order('stalled'), table: 'orders o' },
    backlog: { where: `${waits} AND NOT ${ARRIVED}`, order: order('backlog'), table: byWait },
    rest: { where: `o.waiting = 0 AND ${NOT_STALLED}`, order: order('rest'), table: 'orders o' },
  };
}

/** A row's sort key: the columns a group's order compares (KEY_COLUMNS), as read. */
export interface InboxKey {
  order_id: string;
  purchased_at: string | null;
  since_ms: number | null;
  waits_since: string | null;
}
type KeyColumn = keyof InboxKey;

/** What a merge across stores needs of a row, for `orders o`. */
const KEY_COLUMNS = 'o.order_id, o.purchased_at, o.since_ms, o.waits_since';

/**
 * Each group's order, declared once: the stores' ORDER BY is written from it (groupSql), and so is
 * the comparison a merge across stores makes (compareInboxKeys).
 */
function groupOrder(name: InboxGroupName, sort: InboxSort | undefined): [KeyColumn, 'ASC' | 'DESC'][] {
  // Waiting rows say how long they waited (waitStart), the others when they were bought. Orders
  // that arrived in one poll wait alike: the marketplace's order of their purchases goes between them.
  const newestFirst = (column: 'purchased_at' | 'waits_since'): [KeyColumn, 'ASC' | 'DESC'][] => [
    [column, 'DESC'],
    ...(column === 'waits_since' ? [['purchased_at', 'DESC'] as [KeyColumn, 'DESC']] : []),
    ['order_id', 'ASC'],
  ];
  switch (name) {
    case 'stalled':
      return [
        ['since_ms', 'ASC'],
        ['order_id', 'ASC'],
      ];
    case 'arrived':
      return newestFirst('waits_since');
    case 'waiting':
    case 'backlog':
      return sort === 'newest'
        ? newestFirst('waits_since')
        : [
            ['waits_since', 'ASC'],
            ['purchased_at', 'ASC'],
            ['order_id', 'DESC'],
          ];
    default:
      return newestFirst('purchased_at');
  }
}

/**
 * Two rows' keys compared as the group's ORDER BY compares them in SQLite: NULL before any value,
 * text by its code points (the times and ids are ASCII, where UTF-16 and SQLite's bytes agree).
 */
export function compareInboxKeys(
  name: InboxGroupName,
  sort: InboxSort | undefined,
): (a: InboxKey, b: InboxKey) => number {
  const order = groupOrder(name, sort);
  return (a, b) => {
    for (const [column, direction] of order) {
      const x = a[column];
      const y = b[column];
      const compared = x === y ? 0 : x === null ? -1 : y === null ? 1 : x < y ? -1 : 1;
      if (compared !== 0) return direction === 'ASC' ? compared : -compared;
    }
    return 0;
  };
}

/** A group of the inbox as SQL over `orders o`: which orders, in which order, where it starts in the list. */
interface Segment extends InboxGroup {
  where: string;
  order: string;
  /** The table its rows are read from, in its order: the waiting groups name their index (the planner took another and sorted). */
  table: string;
}

type Params = Record<string, string | number | null>;

/** Only the parameters `sql` names: SQLite refuses a named parameter its statement does not have. */
function bound(sql: string, params: Params): Params {
  return Object.fromEntries(Object.entries(params).filter(([name]) => sql.includes(name)));
}

/** The lookup columns of an item kept aside (`raw` an event's as it came; none for other kinds). */
function lookupColumns(raw: unknown): { $uuid: string | null; $ms: number | null; $order: string | null } {
  const { uuid, ms, order } = raw === undefined ? {} : asideLookup(raw);
  return { $uuid: uuid ?? null, $ms: ms ?? null, $order: order ?? null };
}

function inboxRow(row: OrderRow): InboxRow {
  return {
    orderId: row.order_id,
    status: row.effective_status ?? undefined,
    purchaseType: row.purchase_type ?? undefined,
    since: row.purchased_at ?? undefined,
    statusSince: row.status_since ?? undefined,
    ...(row.waiting_since === null ? {} : { waitingSince: row.waiting_since }),
    waiting: row.effective_status === WAITING,
    unopened: row.unopened === 1,
    backlog: row.backlog === 1 && row.effective_status === WAITING,
    delivery: (row.delivery as InboxRow['delivery']) ?? null,
    ...(row.buyer === null ? {} : { buyer: row.buyer }),
    ...(row.product === null ? {} : { product: row.product }),
    ...(row.total_amount === null || row.total_currency === null
      ? {}
      : {
          total: {
            amount: row.total_amount,
            currencyCode: row.total_currency,
            ...(row.total_exact === null ? {} : { exact: row.total_exact }),
          },
        }),
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

/** Where a successful poll writes when it was and how many there were: `{"at": ISO time, "n": count}`. */
export const LAST_POLL_FILE = 'last-poll.json';

/** What the last successful poll wrote in `dataDir`; `damaged` when a file is there that is not that. */
function readLastPoll(dataDir: string): { lastPoll?: LastPoll; damaged?: true } {
  const text = readTextSync(join(dataDir, LAST_POLL_FILE));
  if (text === undefined) return {};
  const lastPoll = parseLastPoll(text);
  return lastPoll ? { lastPoll } : { damaged: true };
}

interface LastPoll {
  at: string;
  n: number;
}

/** LAST_POLL_FILE's content, or undefined when it is not that. */
function parseLastPoll(text: string | undefined): LastPoll | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as { at?: unknown; n?: unknown } | null;
    return typeof parsed?.at === 'string' && Number.isSafeInteger(parsed.n)
      ? { at: parsed.at, n: parsed.n as number }
      : undefined;
  } catch {
    return undefined;
  }
}

/** A file's text; undefined when it cannot be read (none yet, or no permission). */
function readTextSync(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** A run's real start: when, and which attempt it is (1 for the first). */
export interface RunStart {
  at: string;
  attempt: number;
}

/** A run as claimRuns weighs it: whose claim it is (claimant.ts). */
type RunClaim = {
  delivery_id: string;
  automation: string;
  claimed_by: number | null;
  claim_token: string | null;
};

interface RunRow {
  delivery_id: string;
  order_id: string;
  automation: string;
  trigger: RunTrigger;
  state: RunState;
  claimed_by: number | null;
  attempts: number;
  queued_at: string;
  due_at: string;
  started_at: string | null;
  finished_at: string | null;
  exit_code: number | null;
  http_status: number | null;
  detail: string | null;
  output: string | null;
}

function runOf(row: RunRow): AutomationRun {
  return {
    deliveryId: row.delivery_id,
    orderId: row.order_id,
    automation: row.automation,
    trigger: row.trigger,
    state: row.state,
    claimed: row.claimed_by !== null,
    attempts: row.attempts,
    queuedAt: row.queued_at,
    dueAt: row.due_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    exitCode: row.exit_code,
    httpStatus: row.http_status,
    detail: row.detail,
    output: row.output,
  };
}

/**
 * Whether a purchase's stamp is no further ahead of this laptop's clock than time zones or drift
 * explain: one further is a clock gone wrong, and as the newest purchase recorded it would make a
 * rebuilt store take every purchase until then for history.
 */
function believable(ms: number, nowMs: number): boolean {
  return ms <= nowMs + BELIEVABLE_AHEAD_MS;
}

/**
 * A status's stamp as the time it started for this laptop: never after now, when this laptop
 * learns it (a stamp ahead is another clock's, hours ahead: an order in progress "since" then was
 * stalled, and said in progress for a negative time, hours late). The one such decision for the
 * stalled flags, the inbox's and Needs attention's alike, as WAITS_SINCE is for waiting orders.
 */
function notAhead(stamp: string, nowMs: number): string {
  return Date.parse(stamp) > nowMs ? new Date(nowMs).toISOString() : stamp;
}

/** An event's time in ms since the epoch; NaN when it has none or it cannot be read. */
function eventMs(event: MarketplaceEvent): number {
  return event.eventTime ? Date.parse(event.eventTime) : Number.NaN;
}

/** What the user is told when the database lost something, and what was put back. */
function lostWords(what: 'damaged' | 'missing' | 'lost-changes', restored: Restored, aside?: string): string {
  // Only what there was: "0 statuses … were carried over" told a person nothing.
  const carried = [
    restored.statuses > 0 && `${plural(restored.statuses, 'status', 'statuses')} not yet confirmed`,
    restored.announcements > 0 && `${plural(restored.announcements, 'announcement')} of new orders`,
  ].filter((part) => part !== false);
  const history =
    'order history is read again from the marketplace (no order is announced twice, none is missed)';
  const kept =
    carried.length === 0
      ? `The ${history}`
      : `${carried.join(' and ')} ${restored.statuses + restored.announcements === 1 ? 'was' : 'were'} carried over from its journal, and the ${history}`;
  switch (what) {
    case 'damaged':
      return `Seller Tray's order database was damaged and was kept aside${aside ? ` as ${aside}` : ''}. ${kept}.`;
    case 'missing':
      return `Seller Tray's order database was missing. ${kept}.`;
    case 'lost-changes':
      return `Seller Tray's order database had lost its latest changes (its -wal file was damaged or removed after Seller Tray was stopped abruptly). ${kept}.`;
  }
}

/** SQLite's own errors for a file that is not a sound database: SQLITE_CORRUPT and SQLITE_NOTADB. */
function isDamage(error: unknown): boolean {
  const code = sqliteCode(error);
  return code === 11 || code === 26;
}

/** The rows `query` still reads from a damaged file; none when they cannot be read. */
function readableRows<T>(file: string, query: string): T[] {
  let db: Database | undefined;
  try {
    db = openReadOnly(file);
    return db.prepare(query).all() as unknown as T[];
  } catch {
    return [];
  } finally {
    db?.close();
  }
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

/**
 * A failed fetch's reason as stored: an explanation (JSON); an earlier version stored the call's
 * message alone, which is then the detail.
 */
function storedExplanation(text: string): Explained {
  try {
    const value = JSON.parse(text) as Partial<Explained>;
    if (typeof value.message === 'string' && Array.isArray(value.details))
      return { message: value.message, details: value.details.map(String) };
  } catch {
    // Not JSON: an earlier version's message.
  }
  return {
    message: 'Seller Tray will try again; the detail is from an earlier version of Seller Tray.',
    details: [text],
  };
}
