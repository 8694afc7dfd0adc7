// Opening an account's SQLite database (node:sqlite, built into Node 22 and Electron's Node, so
// no native module to build or ship): WAL so readers never wait for the poller, a busy timeout so
// the app and `seller-tray watch` share one file, and forward migrations counted by
// `PRAGMA user_version`.
//
// Durability: WAL with `synchronous = NORMAL`. A commit is in the -wal file when it returns, so it
// survives the app's crash or a kill -9; only a power cut (or an OS crash) before the next
// checkpoint may roll the last commits back, never part of one, never damaging the file. What
// such a loss costs: the latest events, documents and the cursor with them (read again from the
// marketplace: the cursor goes back with the events), an opened or reminded mark (an order shows
// unopened again, a reminder may repeat). The outbox and the announcement queue need no FULL
// sync of their own: the journal (journal.ts) is written and flushed before every commit that
// changes them, and the store puts back from it what the database lost; a status whose "sent"
// was lost is posted again under its request id, read back first (status-post.ts). FULL cost a
// flush per commit: 1.5 s of a 100,000-event first start.
import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { bootId, isProcessAlive } from '../process-alive';
import { MIGRATIONS } from './schema';

export type Database = DatabaseSync;

/** A database this version cannot use without losing what is in it: it is left as it is. */
export class StoreVersionError extends Error {}

/** SQLite's primary result code of a node:sqlite error (its `errcode`'s low byte); undefined for any other error. */
export function sqliteCode(error: unknown): number | undefined {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  return code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number' ? errcode & 0xff : undefined;
}

let sqlite: typeof import('node:sqlite') | undefined;

/**
 * node:sqlite, loaded on first use with only its own ExperimentalWarning silenced (Node 22 prints
 * one at load; it says nothing the user can act on). Every other warning still prints.
 */
function sqliteModule(): typeof import('node:sqlite') {
  if (sqlite) return sqlite;
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if ((type ?? (warning as Error).name) === 'ExperimentalWarning' && /SQLite/i.test(text)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    sqlite = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite');
  } finally {
    process.emitWarning = emitWarning;
  }
  return sqlite;
}

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * After a commit, SQLite copies the log (-wal) into the database file once it holds this many
 * pages (its own default). A first start's backlog waits for ten times as many (AccountStore's
 * backlog writes): the events' and orders' ids are random, so each part of it writes again most
 * pages of their indexes, and a checkpoint after each part copied them all again, with a flush
 * of each file: a 100,000-event first start flushes 83 times instead of 506 and writes 8 % fewer
 * bytes (test/bench/README.md, session 41). A power cut may then cost more of the backlog, which
 * the marketplace gives again (the cursor goes back with it).
 */
export const CHECKPOINT_PAGES = 1000;
export const BACKLOG_CHECKPOINT_PAGES = 10_000;

/** The log's size (bytes) it is cut back to when it starts again after a checkpoint (SQLite keeps the largest it reached otherwise). */
export const JOURNAL_SIZE_LIMIT = 4 * 2 ** 20;

/** How long a write waits for another process's (the app and `watch` share the file). */
const BUSY_TIMEOUT_MS = 10_000;

export interface OpenedDatabase {
  db: Database;
  /** The last process to use the file closed it; false after a crash (or for a file never closed). */
  closedCleanly: boolean;
}

/**
 * Opens (creating when absent, readable by this user only) and migrates; throws when the file
 * cannot be read as a database or is too new.
 */
export function openDatabase(file: string): OpenedDatabase {
  const { DatabaseSync } = sqliteModule();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'a', 0o600)); // SQLite gives its -wal and -shm files the same mode
  const db = new DatabaseSync(file);
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec(`PRAGMA journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
    db.exec('PRAGMA foreign_keys = ON');
    migrate(db, file);
    optimize(db);
    const closedCleanly = takeCleanCloseMark(db);
    const { dev, ino } = statSync(file);
    const here = `${dev}:${ino}`;
    fileOf.set(db, here);
    const shared = stillOpenHere(here);
    if (shared) shared.connections.add(db);
    else openHere.set(here, { connections: new Set([db]), unclean: false });
    return { db, closedCleanly };
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * This process's connections to each file (by device and inode), and whether one of them closed
 * otherwise than cleanly: two cores of one process may share an account's folder, and the file
 * lists its users by process.
 */
const openHere = new Map<string, { connections: Set<Database>; unclean: boolean }>();

/** This process's connections to a file, without those closed other than by closeDatabase (a test's). */
function stillOpenHere(here: string): { connections: Set<Database>; unclean: boolean } | undefined {
  const shared = openHere.get(here);
  if (!shared) return undefined;
  for (const db of shared.connections) if (!db.isOpen) shared.connections.delete(db);
  if (shared.connections.size > 0) return shared;
  openHere.delete(here);
  return undefined;
}
const fileOf = new WeakMap<Database, string>();

/**
 * Whether every process that used the file before closed it (none was killed), recording this
 * process as a user until it closes. The full check reads the whole file (0.6 s for 100,000
 * events), so it runs only after a crash; the small tables that hold what the user did are
 * checked at every open, in microseconds.
 */
function takeCleanCloseMark(db: Database): boolean {
  for (const table of ['outbox', 'announcements', 'meta']) {
    const rows = db.prepare(`PRAGMA quick_check(${table})`).all() as { quick_check: string }[];
    if (rows[0]?.quick_check !== 'ok') return false;
  }
  const { clean, marked } = transaction(db, () => {
    const rebooted = forgetEarlierBoot(db);
    const users = openBy(db);
    const crashed = rebooted
      ? users.length > 0
      : users.some((pid) => pid !== process.pid && !isProcessAlive(pid));
    const marked = db.prepare(`DELETE FROM meta WHERE key = 'closed-cleanly'`).run().changes > 0;
    const running = rebooted ? [] : users.filter((pid) => pid !== process.pid && isProcessAlive(pid));
    setOpenBy(db, [...running, process.pid]);
    return { clean: !crashed && (marked || running.length > 0 || isNew(db)), marked };
  });
  // Taking the mark must reach the main file: were it only in the -wal file, losing that file
  // after a crash would bring back a stale "closed cleanly" and skip the check. Nobody else has
  // the file open when the mark was there, so the checkpoint waits for no one.
  if (marked) checkpoint(db);
  return clean;
}

/**
 * Whether the file was last opened in an earlier boot of the computer (a power cut, a restart):
 * the pids it holds (its users, the claims of announcements and automation runs) then name no
 * process of ours, though this boot's processes may have them, which would hold those claims
 * for good; the claims are let go, for this process to take over. Notes this boot. A file that
 * noted none yet (an earlier version's), or a system without a boot id, keeps its pids as they are.
 */
function forgetEarlierBoot(db: Database): boolean {
  const boot = bootId();
  if (boot === undefined) return false;
  const noted = db.prepare(`SELECT value FROM meta WHERE key = 'boot'`).get() as
    | { value: string }
    | undefined;
  if (noted?.value === boot) return false;
  db.prepare(
    `INSERT INTO meta (key, value) VALUES ('boot', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
  ).run(boot);
  if (noted === undefined) return false;
  db.exec('UPDATE announcements SET claimed_by = NULL WHERE claimed_by IS NOT NULL');
  db.exec('UPDATE automation_runs SET claimed_by = NULL WHERE claimed_by IS NOT NULL');
  return true;
}

/**
 * Closes a connection openDatabase made. When it is this process's last on the file and every one
 * of them closed `clean` (nothing left undone, no damage seen), the process is no longer listed,
 * and the last process to leave marks the file closed cleanly. Otherwise the process stays listed,
 * as a killed one does: the file is checked whole at the next open after the others left.
 */
export function closeDatabase(db: Database, clean: boolean): void {
  const here = fileOf.get(db);
  const shared = here === undefined ? undefined : openHere.get(here);
  try {
    if (!shared || here === undefined) return;
    shared.connections.delete(db);
    shared.unclean ||= !clean;
    if (stillOpenHere(here)) return;
    if (!shared.unclean) markClosedCleanly(db);
  } finally {
    db.close();
  }
}

/**
 * The file's last connection of this process closed cleanly: the process is no longer listed, and
 * the last process to leave marks the file closed cleanly, but only once everything is in the main
 * file (the -wal file checkpointed and emptied): the mark then means no commit depends on the -wal file.
 */
function markClosedCleanly(db: Database): void {
  const last = transaction(db, () => {
    const others = openBy(db).filter((pid) => pid !== process.pid);
    setOpenBy(db, others);
    return others.length === 0;
  });
  if (!last || !checkpoint(db)) return;
  db.exec(`INSERT OR IGNORE INTO meta (key, value) VALUES ('closed-cleanly', '1')`);
  if (!checkpoint(db)) db.exec(`DELETE FROM meta WHERE key = 'closed-cleanly'`);
}

/**
 * Copies the -wal file into the main file and empties it; false when another connection kept it
 * busy. It does not wait for that connection (a quit never hangs on it): busy, it is left undone.
 */
function checkpoint(db: Database): boolean {
  db.exec('PRAGMA busy_timeout = 0');
  try {
    const row = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as { busy: number } | undefined;
    return row?.busy === 0;
  } catch {
    return false;
  } finally {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}

function openBy(db: Database): number[] {
  const row = db.prepare(`SELECT value FROM meta WHERE key = 'open-by'`).get() as
    | { value: string }
    | undefined;
  return row ? (JSON.parse(row.value) as number[]) : [];
}

function setOpenBy(db: Database, pids: readonly number[]): void {
  db.prepare(
    `INSERT INTO meta (key, value) VALUES ('open-by', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
  ).run(JSON.stringify(pids));
}

/** A database made by this open: nothing in it to check. */
function isNew(db: Database): boolean {
  return db.prepare('SELECT 1 FROM events LIMIT 1').get() === undefined && openBy(db).length <= 1;
}

/**
 * Gives the query planner statistics of the tables where they are missing or out of date (SQLite's
 * advice for connections that live long: at open, and after large changes such as a first start).
 * Without them it walked every order in progress and every waiting order for the inbox's counts
 * (45 ms a page on 42,000 orders, 7.6 ms with them). Cheap when they are current.
 */
export function optimize(db: Database, limited = false): void {
  // 0x10: each table's ANALYZE bounded (analysis_limit), for the runs made while the app is in use.
  db.exec(`PRAGMA optimize=${limited ? '0x10012' : '0x10002'}`);
}

/** Opens read-only, for taking what can still be read out of a damaged file. */
export function openReadOnly(file: string): Database {
  const { DatabaseSync } = sqliteModule();
  return new DatabaseSync(file, { readOnly: true });
}

/**
 * Whether another connection, in any process, has the database open: asked of SQLite's own locks
 * (an exclusive lock is refused while any other connection holds the file), so a process killed
 * (its locks went with it) or a process number reused never counts. Taken and let go at once.
 */
export function openElsewhere(file: string): boolean {
  try {
    const lock = lockExclusively(file);
    lock?.release();
    return lock === undefined;
  } catch {
    // Any other failure (a damaged file) says nobody can be using it well: it may go.
    return false;
  }
}

/**
 * Holds `file` against every other connection, in any process, until released: SQLite's exclusive
 * lock, which the OS drops with a process that dies, so a killed holder never leaves a lock to
 * judge stale. Undefined while another connection has the file open; any other failure throws.
 */
export function lockExclusively(file: string): { release: () => void } | undefined {
  const { DatabaseSync } = sqliteModule();
  const db = new DatabaseSync(file);
  try {
    db.exec('PRAGMA busy_timeout = 0');
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    return { release: () => db.close() };
  } catch (error) {
    db.close();
    if (/locked|busy/i.test(String(error))) return undefined;
    throw error;
  }
}

/** `PRAGMA quick_check`: whether SQLite finds the whole file sound. */
export function isSound(db: Database): boolean {
  const rows = db.prepare('PRAGMA quick_check').all() as { quick_check: string }[];
  return rows.length === 1 && rows[0]?.quick_check === 'ok';
}

function migrate(db: Database, file: string): void {
  const { user_version: version } = db.prepare('PRAGMA user_version').get() as { user_version: number };
  if (version > SCHEMA_VERSION) {
    throw new StoreVersionError(
      `${file} was written by a newer Seller Tray (data version ${version}; this one knows ${SCHEMA_VERSION}). Update Seller Tray; the file was left as it is.`,
    );
  }
  for (let next = version; next < SCHEMA_VERSION; next++) {
    transaction(db, () => {
      db.exec(MIGRATIONS[next] ?? '');
      db.exec(`PRAGMA user_version = ${next + 1}`);
    });
  }
}

/**
 * Runs `work` in one write transaction, taken at once so two processes never deadlock; inside
 * another transaction it simply joins it.
 */
export function transaction<T>(db: Database, work: () => T): T {
  if (db.isTransaction) return work();
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

/** The WAL index's header: the first of its two copies, which a commit writes last (sqlite.org/walformat.html). */
const WAL_INDEX_HEADER = 48;

/**
 * How many commits (by any connection, in any process) this mark has seen on a database, read
 * from its WAL index (the -shm file): every commit rewrites the index's header (its change
 * counter, frame count and salts), so a header unlike the last one read means a commit since.
 * One read of 48 bytes, under a microsecond, where `PRAGMA data_version` opens a read
 * transaction and takes its locks (several). Undefined when the file cannot be read (not in WAL
 * mode) and on Windows: the caller asks SQLite then. The header is read as the file holds it
 * (pread, coherent with SQLite's shared mapping of it on Linux and macOS, whose file reads and
 * mappings share one cache); a read torn by a commit differs, so it counts as one.
 */
export class CommitMark {
  private fd: number | undefined;
  private last = Buffer.alloc(WAL_INDEX_HEADER);
  private read = Buffer.alloc(WAL_INDEX_HEADER);
  private commits = 0;

  constructor(private readonly file: string) {}

  seen(): number | undefined {
    // Windows does not promise that a file read sees what a mapping of the file wrote (its
    // CreateFileMapping documentation): SQLite's data_version answers there.
    if (process.platform === 'win32') return undefined;
    try {
      this.fd ??= openSync(`${this.file}-shm`, 'r');
      if (readSync(this.fd, this.read, 0, WAL_INDEX_HEADER, 0) !== WAL_INDEX_HEADER) return undefined;
    } catch {
      return undefined;
    }
    if (!this.read.equals(this.last)) {
      [this.last, this.read] = [this.read, this.last];
      this.commits++;
    }
    return this.commits;
  }

  /**
   * After the database's own connection closed: on Linux and macOS closing any handle of a file
   * drops every lock this process holds on it, SQLite's too (sqlite.org/howtocorrupt.html §2.2).
   */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** The time in the name of a file kept aside (`<file>.damaged-<stamp>`): no colons, which Windows refuses. */
export function asideStamp(at: number): string {
  return new Date(at).toISOString().replace(/[:.]/g, '-');
}

/** Moves a damaged file (a database with its WAL files) aside, keeping it for support; returns the new name. */
export function keepAside(file: string, stamp: string): string {
  const aside = `${file}.damaged-${stamp}`;
  for (const suffix of ['', '-wal', '-shm']) {
    if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
  }
  return aside;
}
