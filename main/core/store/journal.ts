// The store's journal: a small side file beside the account's database holding what no damage may
// take, the statuses not yet confirmed, the new orders not yet announced, and the newest purchase
// this laptop recorded. SQLite cannot read a database cut shorter than its header says, and a
// commit that lives only in the -wal file is gone with that file; this file, written durably
// (durable-file.ts) before each such commit, is what a rebuilt store starts from.
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
  /** Every outbox item not confirmed by the marketplace (pending or failed). */
  outbox: z.array(OutboxItem),
  /**
   * New orders queued for announcement and not raised yet, and the latest ones raised (so a
   * poll read again after the -wal file was lost does not announce them twice).
   */
  announcements: z.array(
    z.object({ orderId: z.string().min(1), state: z.enum(['pending', 'held', 'raised']) }),
  ),
  /** The newest purchase event's time (ms) recorded: a rebuilt store announces purchases after it. */
  newestPurchaseMs: z.number().nullable(),
});
export type Journal = z.output<typeof Journal>;

export function journalFile(dataDir: string): string {
  return join(dataDir, JOURNAL_FILE);
}

/** The journal, or undefined when there is none or it cannot be read (it is then rewritten at the next change). */
export function readJournal(dataDir: string): Journal | undefined {
  try {
    const parsed = Journal.safeParse(JSON.parse(readFileSync(journalFile(dataDir), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Synchronous and flushed: it is on disk before the database commit it describes. */
export function writeJournal(dataDir: string, journal: Journal): void {
  writeFileDurably(journalFile(dataDir), JSON.stringify(journal));
}
