// What this laptop learns from the marketplace on each poll.
//
// The "new" listing is read first, but it cannot be relied on: another laptop of the same
// seller may have consumed an event from it, and its path is a guess the spec leaves open. So
// every poll also reads the "all" listing from a persisted cursor (design notes §2: new items
// append there), which every laptop sees whole; when the "new" listing fails, the poll goes on
// from "all" alone. A poll thus costs two small requests whatever the length of the history.
import type { SellerApiClient } from './api/client';
import { SellerApiError } from './api/errors';
import { PaginationError, type WalkedPage } from './api/pagination';
import type { MarketplaceEvent, UnreadableItem } from './api/wire';

export interface FeedCursor {
  /** Items of the "all" listing already read, readable or not. */
  offset: number;
  /** The key of the last of them, to check that the listing has not shifted under the cursor. */
  lastEventId?: string | undefined;
}

export interface FeedSync {
  /** Events read by this sync, in listing order (some may be known already: the store drops those). */
  events: MarketplaceEvent[];
  /** Events that could not be read: kept aside, and the cursor moves past them. */
  unreadable: UnreadableItem[];
  /** True on the first sync of this laptop: what it found is history, not news. */
  backlog: boolean;
  cursor: FeedCursor;
  /** Why the "new" listing could not be used, when it could not: this sync read "all" alone. */
  newListingProblem?: string;
}

interface Walked {
  events: MarketplaceEvent[];
  unreadable: UnreadableItem[];
  firstKey: string | undefined;
  /** Where the walk ended, from its start, and the last item it read there. */
  end: number;
  lastKey: string | undefined;
}

async function walk(pages: AsyncIterable<WalkedPage<MarketplaceEvent>>): Promise<Walked> {
  const walked: Walked = { events: [], unreadable: [], firstKey: undefined, end: 0, lastKey: undefined };
  for await (const page of pages) {
    walked.firstKey ??= page.keys[0];
    walked.events.push(...page.items);
    walked.unreadable.push(...page.unreadable);
    walked.end = page.end;
    walked.lastKey = page.lastKey ?? walked.lastKey;
  }
  return walked;
}

/**
 * Reads what is new since `cursor` (undefined on the first start). Nothing is written here: the
 * caller records the events and the returned cursor in one transaction.
 */
export async function syncFeed(client: SellerApiClient, cursor: FeedCursor | undefined): Promise<FeedSync> {
  if (cursor === undefined) {
    const all = await walk(client.allEvents());
    return { ...readFrom(0, all), backlog: true };
  }

  let fresh: Walked | undefined;
  let newListingProblem: string | undefined;
  try {
    fresh = await walk(client.newEvents());
  } catch (error) {
    if (!isListingFailure(error)) throw error;
    newListingProblem = (error as Error).message;
  }

  // Read from one item before the cursor: it must be the last event read last time.
  const from = Math.max(0, cursor.offset - 1);
  let tail = await walk(client.allEvents(from));
  let start = from;
  if (cursor.offset > 0 && tail.firstKey !== cursor.lastEventId) {
    // The listing shifted (or was reset): read it whole once; the store drops what it knows.
    tail = await walk(client.allEvents());
    start = 0;
  }
  const read = readFrom(start, tail);
  return {
    events: [...(fresh?.events ?? []), ...read.events],
    unreadable: [...(fresh?.unreadable ?? []), ...read.unreadable],
    cursor: read.cursor,
    backlog: false,
    ...(newListingProblem === undefined ? {} : { newListingProblem }),
  };
}

function readFrom(start: number, walked: Walked): Omit<FeedSync, 'backlog'> {
  return {
    events: walked.events,
    unreadable: walked.unreadable,
    cursor: walked.lastKey
      ? { offset: start + walked.end, lastEventId: walked.lastKey }
      : { offset: start + walked.end },
  };
}

/** Answers about the caller rather than the listing: the credentials, or "slow down". */
const CALLER_STATUSES = new Set([401, 403, 429]);

/**
 * A failure of the "new" listing itself (absent, refused, broken, or not paging), as opposed to
 * the network, the credentials or a rate limit, which the "all" listing would meet too.
 */
function isListingFailure(error: unknown): boolean {
  if (error instanceof PaginationError) return true;
  if (!(error instanceof SellerApiError)) return false;
  return error.kind === 'schema' || (error.kind === 'http' && !CALLER_STATUSES.has(error.status ?? 0));
}
