// What this laptop learns from the marketplace on each poll.
//
// The "new" listing is read first, but it cannot be relied on: another laptop of the same
// seller may have consumed an event from it. So every poll also reads the "all" listing
// from a persisted cursor (design notes §2: new items append there), which every laptop
// sees whole. A poll thus costs two small requests whatever the length of the history.
import type { SellerApiClient } from './api/client';
import type { MarketplaceEvent } from './api/wire';

export interface FeedCursor {
  /** Items of the "all" listing already read. */
  offset: number;
  /** The id of the last of them, to check that the listing has not shifted under the cursor. */
  lastEventId?: string | undefined;
}

export interface FeedSync {
  /** Events read by this sync, in listing order (some may be known already: the store drops those). */
  events: MarketplaceEvent[];
  /** True on the first sync of this laptop: what it found is history, not news. */
  backlog: boolean;
  cursor: FeedCursor;
}

async function collect(iterator: AsyncIterable<MarketplaceEvent>, into: MarketplaceEvent[]): Promise<void> {
  for await (const event of iterator) into.push(event);
}

/**
 * Reads what is new since `cursor` (undefined on the first start). Nothing is written here: the
 * caller records the events and the returned cursor in one transaction.
 */
export async function syncFeed(client: SellerApiClient, cursor: FeedCursor | undefined): Promise<FeedSync> {
  if (cursor === undefined) {
    const all: MarketplaceEvent[] = [];
    await collect(client.allEvents(), all);
    return { events: all, backlog: true, cursor: cursorAfter({ offset: 0 }, all) };
  }

  const seen: MarketplaceEvent[] = [];
  await collect(client.newEvents(), seen);

  // Read from one item before the cursor: it must be the last event read last time.
  const from = Math.max(0, cursor.offset - 1);
  const tail: MarketplaceEvent[] = [];
  await collect(client.allEvents(undefined, from), tail);
  let next: FeedCursor;
  if (cursor.offset > 0 && tail[0]?.eventId !== cursor.lastEventId) {
    // The listing shifted (or was reset): read it whole once; the store drops what it knows.
    const all: MarketplaceEvent[] = [];
    await collect(client.allEvents(), all);
    seen.push(...all);
    next = cursorAfter({ offset: 0 }, all);
  } else {
    seen.push(...tail.slice(cursor.offset > 0 ? 1 : 0));
    next = cursorAfter(cursor, tail.slice(cursor.offset > 0 ? 1 : 0));
  }
  return { events: seen, backlog: false, cursor: next };
}

function cursorAfter(cursor: FeedCursor, read: readonly MarketplaceEvent[]): FeedCursor {
  const last = read.at(-1);
  return last ? { offset: cursor.offset + read.length, lastEventId: last.eventId } : cursor;
}
