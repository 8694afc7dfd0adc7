// What this laptop learns from the marketplace on each poll.
//
// The "new" listing is read first, and what it hands over is given to the caller page by page
// before anything else is asked: it is gone from "new" once read, so it must be recorded before
// the rest of the poll can fail. It cannot be relied on alone: another laptop of the same seller
// may have taken an event from it, and its path is a guess the spec leaves open. So every poll
// also reads the "all" listing (design notes §2), which every laptop sees whole, from a cursor.
//
// The "all" listing changes under the cursor: the oldest events expire (retention) and shift every
// offset down, events arrive late before the newest, ties come back in another order, a search
// back end refuses offsets past a result window. So the cursor is the place after the last item
// read *and* the keys of the last items read: each poll reads from a little before that place (a
// look-back, which also brings late inserts near the end), finds one of those keys in what came
// back, and only when none is there (the listing shifted further) looks further back for them. A
// poll thus costs two small requests however the history changes.
import { eventTie, type SellerApiClient } from './api/client';
import { SellerApiError } from './api/errors';
import { PaginationError, tiedAtEnd } from './api/pagination';
import { itemKey, type Listed, type MarketplaceEvent, type UnreadableItem } from './api/wire';

export interface FeedCursor {
  /** Places of the "all" listing read, up to the last item read. */
  offset: number;
  /** The key of the last of them (all a cursor of older versions holds). */
  lastEventId?: string | undefined;
  /** Keys of the last items read (sorted: a set), to find the place again when the listing moved. */
  tail?: string[] | undefined;
  /** The listing says it has more past its end: a page shorter than asked is its end. */
  endless?: true | undefined;
  /**
   * How far the last event read had moved toward the start by the next poll (old events
   * expiring): the next poll looks back that much further, so its look-back stays whole.
   */
  drift?: number | undefined;
}

export interface FeedSync {
  /** Events read by this sync, in listing order (some may be known already: the store drops those). */
  events: MarketplaceEvent[];
  /** Events that could not be read: kept aside, and the cursor moves past them. */
  unreadable: UnreadableItem[];
  cursor: FeedCursor;
  /** The sync stopped at its page budget before the listing's end: another one goes on from `cursor`. */
  more: boolean;
  /** The "all" listing's result window, when this sync read up to it: what lies past is out of reach. */
  atWindow?: number | undefined;
}

/** Places read again before the cursor on every poll: late inserts there are still found. */
const LOOK_BACK = 50;
/** Keys of the last items read the cursor keeps. */
const TAIL_KEYS = 16;

/**
 * Reads the "new" listing, giving each page to `record` as soon as it is read. Says why the
 * listing could not be used, when it could not: the poll then goes on from "all" alone.
 */
export async function takeNewEvents(
  client: SellerApiClient,
  record: (page: Listed<MarketplaceEvent>) => void,
): Promise<string | undefined> {
  try {
    for await (const page of client.newEvents()) {
      if (page.keys.length > 0) record(page);
    }
    return undefined;
  } catch (error) {
    if (!isListingFailure(error)) throw error;
    return (error as Error).message;
  }
}

/**
 * Reads what is new in the "all" listing since `cursor` (undefined on the first start), so that
 * memory and each transaction stay bounded whatever the history's length. A first start walks
 * the whole listing once and hands every `maxPages` pages to `part` as it goes, each with the
 * cursor after it (the next page is already on its way meanwhile). From a cursor (a first start a
 * crash cut short, a laptop long offline) it reads about `maxPages` pages and says `more`: the
 * caller syncs again from the cursor returned. Nothing is written here: the caller records each
 * part's events and cursor in one transaction, and the rest this returns likewise.
 */
export async function syncFeed(
  client: SellerApiClient,
  cursor: FeedCursor | undefined,
  maxPages = Number.POSITIVE_INFINITY,
  part?: (sync: FeedSync) => void,
): Promise<FeedSync> {
  if (cursor === undefined) {
    const read = new Reading(Number.POSITIVE_INFINITY);
    read.endless = await read.walk(client, 0, read.window(), { every: maxPages, part });
    return read.sync(client);
  }
  const read = new Reading(maxPages);
  const reach = client.resultWindows.listEvents ?? Number.POSITIVE_INFINITY;
  const lookBack = Math.min(LOOK_BACK, Math.floor(client.pageSize / 2));
  // Looking back further by the last drift, no further than one page still reaches the old end.
  const drift = Math.max(Math.min(0, cursor.drift ?? 0), lookBack - client.pageSize);
  const from = Math.max(0, Math.min(cursor.offset, reach) - lookBack + drift);
  await read.tail(client, from, cursor.endless === true);
  const known = new Set(cursor.tail ?? (cursor.lastEventId ? [cursor.lastEventId] : []));
  // None of the last keys read came back: the listing shifted further than the look-back (old
  // events expired), or was rebuilt. Unless the place is out of the window's reach anyway.
  if (from > 0 && cursor.offset <= reach && known.size > 0 && !read.holdsAny(known)) {
    await read.back(client, from, known);
  }
  const place = cursor.lastEventId === undefined ? undefined : read.placeOf(cursor.lastEventId);
  // Found nearer to the first place read than the look-back: the places before it too.
  const lookedFrom = place === undefined ? undefined : Math.max(0, place + 1 - lookBack);
  if (lookedFrom !== undefined && lookedFrom < read.start) {
    await read.range(client, lookedFrom, read.start, read.window(true, lookedFrom));
  }
  return read.sync(client, place === undefined ? 0 : Math.min(0, place - (cursor.offset - 1)));
}

/** What one sync read of the "all" listing, in listing order, each item once. */
class Reading {
  /** Parts of the listing read, oldest first, each with the place it starts at. */
  private readonly windows: (Listed<MarketplaceEvent> & { start: number })[] = [];
  private seen = new Set<string>();
  /** The place after the last item read. */
  private end = 0;
  /** Whether the listing says "more" past its end. */
  endless = false;
  /** The walk stopped at the page budget, before the listing's end. */
  private stoppedEarly = false;

  /** `pagesLeft`: how many more pages a walk may read (the first page of a tail counts too). */
  constructor(private pagesLeft: number) {}

  holdsAny(keys: ReadonlySet<string>): boolean {
    return this.windows.some((w) => w.keys.some((key) => keys.has(key)));
  }

  /** The first place read. */
  get start(): number {
    return Math.min(...this.windows.map((w) => w.start));
  }

  /** Where an item read is now in the listing, if it was read. */
  placeOf(key: string): number | undefined {
    for (const window of this.windows) {
      const index = window.keys.indexOf(key);
      if (index >= 0) return window.start + index;
    }
    return undefined;
  }

  /**
   * From `from` to the end: one page, and a walk on only when it says there is more. A listing
   * known to say "more" forever ends at a page shorter than asked.
   */
  async tail(client: SellerApiClient, from: number, endless: boolean): Promise<void> {
    const window = this.window(false, from);
    const first = await client.listEvents({ offset: from, limit: client.pageSize });
    this.pagesLeft -= 1;
    this.take(first, window);
    if (first.keys.length > 0) this.end = Math.max(this.end, from + first.keys.length);
    // At the result window's edge nothing more can be read, whatever the page says.
    if (
      !first.hasMore ||
      from + first.keys.length >= (client.resultWindows.listEvents ?? Number.POSITIVE_INFINITY)
    ) {
      return;
    }
    if (endless && first.keys.length < client.pageSize) {
      this.endless = true;
      return;
    }
    const next =
      first.keys.length > 0
        ? from + first.keys.length - tiedAtEnd(first, (e) => itemKey('event', e), eventTie)
        : from + client.pageSize;
    this.endless = await this.walk(client, next, window);
  }

  /**
   * Windows doubling back from `until` until one holds a key of `known` or the listing's start
   * is read: after retention, the place the cursor had is earlier than it says. Each window is
   * read page by page up to where the one after it begins (nothing read ahead, nothing twice).
   */
  async back(client: SellerApiClient, until: number, known: ReadonlySet<string>): Promise<void> {
    for (let span = client.pageSize, stop = until; stop > 0; span *= 2) {
      const start = Math.max(0, stop - span);
      const window = this.window(true, start);
      await this.range(client, start, stop, window);
      if (window.keys.some((key) => known.has(key))) return;
      stop = start;
    }
  }

  /** The places from `start` up to `stop` into `window`, page by page (nothing read ahead). */
  async range(
    client: SellerApiClient,
    start: number,
    stop: number,
    window: Listed<MarketplaceEvent>,
  ): Promise<void> {
    for (let offset = start; offset < stop; ) {
      const page = await client.listEvents({ offset, limit: Math.min(client.pageSize, stop - offset) });
      this.take(page, window);
      if (page.keys.length === 0) break;
      offset += page.keys.length;
      this.end = Math.max(this.end, offset);
      if (!page.hasMore) break;
    }
  }

  /**
   * Pages from `start` to the listing's end (or the page budget) into `window`: whether it ended
   * saying "more". Stopped at the budget, the next sync goes on from the cursor (`more`). With
   * `parts`, what was read is handed over every `every` pages and the walk goes on.
   */
  async walk(
    client: SellerApiClient,
    start: number,
    window: Listed<MarketplaceEvent>,
    parts?: { every: number; part: ((sync: FeedSync) => void) | undefined },
  ): Promise<boolean> {
    let pages = 0;
    for await (const page of client.allEvents(start)) {
      this.take(page, window);
      if (page.keys.length > 0) this.end = Math.max(this.end, start + page.end);
      if (page.endless) return true;
      if (parts?.part && ++pages % parts.every === 0) {
        parts.part(this.sync(client, 0, true));
        // Handed over: only the last keys stay, for the cursor's tail, and only the last page's
        // are remembered as read (the client's walk drops the rest of what it read again): a first
        // start's memory holds no key of every event.
        window.items = [];
        window.unreadable = [];
        window.keys = window.keys.slice(-TAIL_KEYS);
        this.seen = new Set(page.keys);
      }
      if (--this.pagesLeft <= 0) {
        this.stoppedEarly = true;
        break;
      }
    }
    return false;
  }

  /** What was read, with the cursor after it; `more` for a part of a walk that goes on. */
  sync(client: SellerApiClient, drift = 0, more = false): FeedSync {
    const keys = this.windows.flatMap((w) => w.keys);
    const reach = client.resultWindows.listEvents;
    return {
      events: this.windows.flatMap((w) => w.items),
      unreadable: this.windows.flatMap((w) => w.unreadable),
      more: more || (this.stoppedEarly && !(reach !== undefined && this.end >= reach)),
      cursor: {
        offset: this.end,
        ...(keys.length > 0 ? { lastEventId: keys.at(-1), tail: keys.slice(-TAIL_KEYS).sort() } : {}),
        ...(this.endless ? { endless: true as const } : {}),
        ...(drift < 0 ? { drift } : {}),
      },
      atWindow: reach !== undefined && this.end >= reach ? reach : undefined,
    };
  }

  /** A new part of the listing to read into, from `start`; an earlier one (`older`) goes before those read. */
  window(older = false, start = 0): Listed<MarketplaceEvent> {
    const window: Listed<MarketplaceEvent> & { start: number } = {
      items: [],
      unreadable: [],
      keys: [],
      start,
    };
    if (older) this.windows.unshift(window);
    else this.windows.push(window);
    return window;
  }

  /** The page's items not read yet by this sync (a look-back or a flipped tie repeats some). */
  private take(page: Listed<MarketplaceEvent>, window: Listed<MarketplaceEvent>): void {
    const fresh = new Set(page.keys.filter((key) => !this.seen.has(key)));
    for (const key of fresh) this.seen.add(key);
    window.keys.push(...fresh);
    window.items.push(...page.items.filter((item) => fresh.has(itemKey('event', item))));
    window.unreadable.push(...page.unreadable.filter((item) => fresh.has(item.key)));
  }
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
