// A one-time import of what Seller Tray 0.1 kept in files (state.json: cursor, notified,
// reminded and held orders, outbox; events.jsonl: the event history) into the account's
// database, in one transaction. The files are then kept aside as `<name>.imported`.

import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { plural } from '../../../preload/counted';
import { canonicalOrderId } from '../../../preload/order-link';
import { MarketplaceEvent } from '../api/wire';
import { StoredOutboxItem } from '../outbox';
import type { AccountStore } from './account-store';

const STATE_FILE = 'state.json';
const EVENT_LOG_FILE = 'events.jsonl';

/** An order id as 0.1 kept it, in the one form the store compares. */
const OrderId = z.string().transform(canonicalOrderId);

/** state.json as 0.1 wrote it. */
const LegacyState = z.object({
  version: z.literal(1),
  cursor: z.object({ offset: z.int().min(0), lastEventId: z.string().optional() }).optional(),
  notified: z.array(OrderId),
  reminded: z.array(OrderId),
  held: z.array(OrderId),
  outbox: z.array(
    StoredOutboxItem.transform((item) => ({ ...item, orderId: canonicalOrderId(item.orderId) })),
  ),
});

/** Imports the old files when there are any; returns what the user should know. */
export function importLegacyFiles(dataDir: string, store: AccountStore, now: string): string[] {
  const stateFile = join(dataDir, STATE_FILE);
  const logFile = join(dataDir, EVENT_LOG_FILE);
  if (!existsSync(stateFile) && !existsSync(logFile)) return [];
  const problems: string[] = [];
  const events: MarketplaceEvent[] = [];
  let unreadableLines = 0;
  for (const line of readIfExists(logFile).split('\n')) {
    if (line.trim() === '') continue;
    const event = MarketplaceEvent.safeParse(parseJson(line));
    if (event.success) events.push(event.data);
    else unreadableLines += 1;
  }
  const state = existsSync(stateFile) ? LegacyState.safeParse(parseJson(readIfExists(stateFile))) : undefined;
  if (state && !state.success) {
    problems.push(
      `The old state file ${stateFile} could not be read; it was kept as ${stateFile}.imported. Statuses not yet sent from it are in that file.`,
    );
  }
  const old = state?.success ? state.data : undefined;
  // Without a trustworthy cursor the history is read again from the marketplace (not announced).
  const cursor = unreadableLines === 0 ? old?.cursor : undefined;
  store.atomically(() => {
    store.recordPoll({ events, cursor, backlog: true, paused: false, now });
    store.importAnnouncements(old?.notified ?? [], 'raised', now);
    store.importAnnouncements(old?.held ?? [], 'held', now);
    store.markReminded(old?.reminded ?? [], now);
    for (const item of old?.outbox ?? []) store.putOutboxItem(item);
  });
  for (const file of [stateFile, logFile]) {
    if (existsSync(file)) renameSync(file, `${file}.imported`);
  }
  if (unreadableLines > 0) {
    problems.push(
      `${plural(unreadableLines, 'unreadable line')} of the old event history ${unreadableLines === 1 ? 'was' : 'were'} skipped; the history is read again from the marketplace.`,
    );
  }
  return problems;
}

function readIfExists(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
