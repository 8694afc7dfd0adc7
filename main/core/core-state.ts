// The small state a laptop keeps between runs (the event history is in the event log):
// the feed cursor, which orders were notified or reminded of, and the status outbox.
import { renameSync } from 'node:fs';
import { z } from 'zod';
import { readTextIfExists, writeFileDurably } from './durable-file';
import { OutboxItem } from './outbox';

export const CoreState = z.object({
  version: z.literal(1),
  /** Absent until the first sync: then what is found is the backlog, not news. */
  cursor: z.object({ offset: z.int().min(0), lastEventId: z.string().optional() }).optional(),
  /** New orders this laptop has learned after its first start (and notified of, unless paused or off). */
  notified: z.array(z.string()),
  /** Orders this laptop has reminded of: never again. */
  reminded: z.array(z.string()),
  /** Orders that arrived while notifications were paused: one summary on resume. */
  held: z.array(z.string()),
  outbox: z.array(OutboxItem),
});
export type CoreState = z.infer<typeof CoreState>;

export const EMPTY_STATE: CoreState = { version: 1, notified: [], reminded: [], held: [], outbox: [] };

export interface StateLoad {
  state: CoreState;
  /** For the user, when the file could not be used and was kept aside. */
  problem?: string;
}

export async function loadState(file: string, now: () => number = Date.now): Promise<StateLoad> {
  const text = await readTextIfExists(file);
  if (text === undefined) return { state: structuredClone(EMPTY_STATE) };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = CoreState.safeParse(json);
  if (parsed.success) return { state: parsed.data };
  const aside = `${file}.corrupt-${new Date(now()).toISOString().replace(/[:.]/g, '-')}`;
  renameSync(file, aside);
  return {
    state: structuredClone(EMPTY_STATE),
    problem: `Seller Tray's state file could not be read; it was kept as ${aside}. Orders are read again from the marketplace; statuses not yet sent from that file are in it, not lost.`,
  };
}

export function saveState(file: string, state: CoreState): void {
  writeFileDurably(file, JSON.stringify(state));
}
