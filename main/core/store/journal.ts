// The store's journal: small side files beside the account's database holding what no damage may
// take, the statuses not yet confirmed, the new orders not yet announced, and the newest purchase
// this laptop recorded. SQLite cannot read a database cut shorter than its header says, and a
// commit that lives only in the -wal file is gone with that file; these files, written durably
// (durable-file.ts) before each such commit, are what a rebuilt store starts from. The statuses
// refused have a file of their own (issue 27): they pile up, and rewriting them at each mark,
// delivery and undo cost as much as they were many.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileDurably } from '../durable-file';
import { OutboxItem } from '../outbox';

export const JOURNAL_FILE = 'seller-tray.journal.json';
/** The refused statuses' part of the journal, apart: they pile up, and change far less often. */
export const REFUSED_FILE = 'seller-tray.refused.json';

/** The latest announcements raised that the journal keeps: more than a day of any seller's orders. */
export const RAISED_KEPT = 1_000;

const Journal = z.object({
  version: z.literal(1),
  /**
   * Every outbox item waiting to be sent (pending). Those the marketplace refused are in
   * REFUSED_FILE; a journal of an earlier version holds them here too.
   */
  outbox: z.array(OutboxItem),
  /**
   * New orders queued for announcement and not raised yet, and the latest ones raised (so a
   * poll read again after the -wal file was lost does not announce them twice).
   */
  announcements: z.array(
    z.object({
      orderId: z.string().min(1),
      state: z.enum(['pending', 'held', 'raised']),
      /**
       * When the order arrived here (its wait's start, which a rebuilt store keeps). An earlier
       * version leaves it out: its wait then counts from its purchase stamp, never from after now.
       */
      arrivedAt: z.string().optional(),
    }),
  ),
  /** The newest purchase event's time (ms) recorded: a rebuilt store announces purchases after it. */
  newestPurchaseMs: z.number().nullable(),
  /**
   * Written with REFUSED_FILE beside it. An earlier version leaves it out (and the refused file
   * untouched: after a downgrade it is older than the database), holding the refused marks here.
   */
  refusedApart: z.literal(true).optional(),
});
export type Journal = z.output<typeof Journal>;

/** Every outbox item the marketplace refused (failed): written only when they change. */
const Refused = z.object({ version: z.literal(1), outbox: z.array(OutboxItem) });
export type Refused = z.output<typeof Refused>;

function journalFile(dataDir: string): string {
  return join(dataDir, JOURNAL_FILE);
}

/** The journal, or undefined when there is none or it cannot be read (it is then rewritten at the next change). */
export function readJournal(dataDir: string): Journal | undefined {
  return readPart(journalFile(dataDir), Journal);
}

/** The refused statuses' part, read as the journal is. */
export function readRefused(dataDir: string): Refused | undefined {
  return readPart(join(dataDir, REFUSED_FILE), Refused);
}

/**
 * The journal's files that are there but cannot be used (damaged, or a newer version's form):
 * their reads are undefined, as none, so the open keeps them aside for support before rewriting.
 */
export function unreadableJournalFiles(dataDir: string): string[] {
  const parts: [string, z.ZodType<unknown>][] = [
    [journalFile(dataDir), Journal],
    [join(dataDir, REFUSED_FILE), Refused],
  ];
  return parts.filter(([file, schema]) => !readsAs(file, schema)).map(([file]) => file);
}

/** Whether `file` reads as `schema` says; true when it cannot be read at all (none, a folder, no permission): not damage. */
function readsAs(file: string, schema: z.ZodType<unknown>): boolean {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return true;
  }
  try {
    return schema.safeParse(JSON.parse(text)).success;
  } catch {
    return false;
  }
}

function readPart<T>(file: string, schema: z.ZodType<T>): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Synchronous and flushed: it is on disk before the database commit it describes. */
export function writeJournal(dataDir: string, journal: Journal): void {
  writeFileDurably(journalFile(dataDir), JSON.stringify(journal));
}

export function writeRefused(dataDir: string, refused: Refused): void {
  writeFileDurably(join(dataDir, REFUSED_FILE), JSON.stringify(refused));
}
