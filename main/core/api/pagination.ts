// Walking offset/limit paged listings, as real servers page them: pages shorter than asked,
// pages that say there is more and bring nothing, offsets ignored. A walk yields pages, each
// with only the items it had not yielded yet (readable or not), and where it read them.
import type { Listed } from './wire';

export interface PageOf<T> extends Listed<T> {
  hasMore: boolean;
}

/** A page as a walk yields it: the items new to this walk, and where it read them. */
export interface WalkedPage<T> extends Listed<T> {
  offset: number;
  /** Where the next page starts: after every item this page brought, new or not. */
  end: number;
  /** The page's last item, new or not: a cursor checks it is still there next time. */
  lastKey: string | undefined;
  /**
   * The walk ends here although the listing said it had more: it answered `MAX_EMPTY_PAGES` empty
   * pages in a row at its end, read as the end (a listing that says "more" forever).
   */
  endless?: true;
}

export type FetchPage<T> = (offset: number) => Promise<PageOf<T>>;

/** A walk longer than this is a server that never ends, not a real listing. */
export const MAX_PAGES = 10_000;

/** Pages in a row that say there is more yet bring nothing: the listing's end, whatever it says. */
export const MAX_EMPTY_PAGES = 3;

export class PaginationError extends Error {}

/** A request that may be abandoned unread: its failure then must not surface as unhandled. */
function settleQuietly<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** What one walk has seen: it drops items it yielded before and spots a listing going round. */
class WalkLedger<T> {
  private readonly seen = new Set<string>();
  private emptyRun = 0;

  constructor(private readonly keyOf: (item: T) => string) {}

  /** The page's items this walk has not yielded yet; `endless` after too many empty pages. */
  take(page: PageOf<T>, offset: number): WalkedPage<T> & { repeated: number } {
    const end = offset + page.keys.length;
    const keys = [...new Set(page.keys)].filter((key) => !this.seen.has(key));
    const fresh = new Set(keys);
    // Each key once, even when a page repeats an item.
    const claim = (key: string) => fresh.delete(key);
    const taken = {
      offset,
      end,
      lastKey: page.keys.at(-1),
      keys,
      items: page.items.filter((item) => claim(this.keyOf(item))),
      unreadable: page.unreadable.filter((item) => claim(item.key)),
      repeated: page.keys.length - keys.length,
    };
    for (const key of keys) this.seen.add(key);
    // A page that brings nothing new (a tie read again at the end included) counts as empty.
    this.emptyRun = page.hasMore && keys.length === 0 ? this.emptyRun + 1 : 0;
    // Trailing empty pages are the end, not a failure: polling must go on (docs/api-client.md, tolerant reader).
    return this.emptyRun >= MAX_EMPTY_PAGES ? { ...taken, endless: true } : taken;
  }
}

/**
 * How many places a stable listing has, from pages of one item (`fetchOne`): offsets doubling
 * from the `atLeast` places known to hold something until one holds nothing, then the interval
 * halved, about 2·log2(n) requests, so its newest end can be read without reading the rest. A
 * place holds something when its page brings an item or says there is more: the places of a
 * gap (pages that say there is more and bring nothing) count, as a walk steps over them too,
 * unless the listing says "more" forever past its end (then only items count). A
 * server that ignores the offset answers the same item at two offsets: refused, as a walk
 * refuses it.
 */
export async function listingLength<T>(
  fetchOne: FetchPage<T>,
  maxLength: number,
  atLeast = 0,
): Promise<number> {
  const offsetOf = new Map<string, number>();
  // Once two probes in a row only say there is more, the listing says "more" forever past its
  // end (no gap is that long): from then on only places that bring an item hold something.
  let itemsOnly = false;
  let saidMore = 0;
  const holds = async (offset: number): Promise<boolean> => {
    const page = await fetchOne(offset);
    const key = page.keys[0];
    if (key !== undefined) {
      const earlier = offsetOf.get(key);
      if (earlier !== undefined) {
        throw new PaginationError(
          `the listing answered the same item at offsets ${earlier} and ${offset}: it seems to ignore the offset`,
        );
      }
      offsetOf.set(key, offset);
    }
    saidMore = key === undefined && page.hasMore ? saidMore + 1 : 0;
    return key !== undefined || (page.hasMore && !itemsOnly);
  };
  if (atLeast === 0 && !(await holds(0))) return 0;
  let holding = Math.max(0, atLeast - 1);
  let withItem = holding;
  let empty = 2 * holding + 1;
  while (await holds(empty)) {
    if (empty >= maxLength) throw new PaginationError(`the listing did not end before offset ${empty}`);
    if (saidMore >= 2) {
      itemsOnly = true;
      holding = withItem;
      break;
    }
    if (saidMore === 0) withItem = empty;
    holding = empty;
    empty = 2 * empty + 1;
  }
  while (empty - holding > 1) {
    const middle = holding + Math.floor((empty - holding) / 2);
    if (await holds(middle)) holding = middle;
    else empty = middle;
  }
  return empty;
}

/**
 * How many of the page's last places hold items tied with its last item (`tieOf` gives the same
 * value), that one included, at most half the page: where the next page should start again, as
 * the tie may go on past the page (so the last item is read again whenever it has a value). An
 * unreadable item ends the run.
 */
export function tiedAtEnd<T>(
  page: Listed<T>,
  keyOf: (item: T) => string,
  tieOf: ((item: T) => string | undefined) | undefined,
): number {
  if (tieOf === undefined) return 0;
  const byKey = new Map(page.items.map((item) => [keyOf(item), item]));
  const last = byKey.get(page.keys.at(-1) ?? '');
  const tie = last === undefined ? undefined : tieOf(last);
  if (tie === undefined) return 0;
  let run = 0;
  for (const key of page.keys.toReversed()) {
    const item = byKey.get(key);
    if (item === undefined || tieOf(item) !== tie) break;
    run += 1;
  }
  return Math.min(run, Math.floor(page.keys.length / 2));
}

/**
 * Every item of a stable listing (items stay where they are), page by page.
 *
 * The next page starts after the items a page brought, so a server that caps pages below the
 * size asked loses nothing; an empty page that says there is more is skipped by a page size, at
 * most `MAX_EMPTY_PAGES` in a row. A page that brings only items already read means the server
 * ignores the offset: the walk fails then, instead of asking up to `maxPages` times.
 *
 * Items listed in the same place of the order (ties: `tieOf` gives the same value) may come back
 * in another order at each call: the next page starts at the page's last run of ties, so none is
 * lost across the boundary (those read again are dropped).
 *
 * Once a page says there is more, the page after the next one is requested too, assuming
 * pages as long as this one, so the server prepares it while this side parses: a long walk then costs
 * about the slower of the two sides instead of their sum. A walk of one page (a poll
 * with little new) sends no extra request; a longer one at most one unneeded request at
 * its end, and a guess that a short page proves wrong is dropped and asked again.
 */
export async function* walkStable<T>(
  fetchPage: FetchPage<T>,
  keyOf: (item: T) => string,
  pageSize: () => number,
  maxPages = MAX_PAGES,
  tieOf?: (item: T) => string | undefined,
): AsyncGenerator<WalkedPage<T>> {
  const ledger = new WalkLedger(keyOf);
  let offset = 0;
  let current = settleQuietly(fetchPage(0));
  let ahead: { offset: number; page: Promise<PageOf<T>> } | undefined;
  let span = Number.POSITIVE_INFINITY;
  /** Places the page asked for last reads again (a tie at the end of the one before). */
  let again = 0;
  for (let pages = 0; pages < maxPages; pages++) {
    const page = await current;
    const fresh = ledger.take(page, offset);
    if (!page.hasMore || fresh.endless) {
      yield fresh;
      return;
    }
    if (fresh.repeated > again && fresh.keys.length === 0) {
      throw new PaginationError(
        `the listing answered items already read at offset ${offset}: it seems to ignore the offset`,
      );
    }
    const read = page.keys.length;
    // An empty page is stepped over by the fewest places a page said more after: a server that
    // caps pages below the size asked covered no more places than that.
    if (fresh.keys.length > 0) span = Math.min(span, read);
    again = read > 0 ? tiedAtEnd(page, keyOf, tieOf) : 0;
    const next = read > 0 ? fresh.end - again : offset + Math.min(pageSize(), span);
    current = ahead?.offset === next ? ahead.page : settleQuietly(fetchPage(next));
    // The server may cap pages below the size asked: the page just read is the best guess of the next.
    const guess = next + (read > 0 ? read - again : Math.min(pageSize(), span));
    ahead = { offset: guess, page: settleQuietly(fetchPage(guess)) };
    yield fresh;
    offset = next;
  }
  throw new PaginationError(`the listing did not end after ${maxPages} pages`);
}

/**
 * Every item of a listing that may drop items once they are read (the "new" events in
 * consume mode), or may keep them (sticky mode), exactly once.
 *
 * Growing the offset would skip items on a consuming listing, since each read shrinks it;
 * staying at offset 0 would loop forever on a retaining one. So the walk stays at its
 * offset while pages bring unseen items, and learns that the listing retains what it
 * returns when a page repeats items already yielded: from then on it moves past every
 * page it reads. A consuming listing costs no extra request; a retaining one costs one.
 */
export async function* walkConsuming<T>(
  fetchPage: FetchPage<T>,
  keyOf: (item: T) => string,
  pageSize: () => number,
  maxPages = MAX_PAGES,
): AsyncGenerator<WalkedPage<T>> {
  const ledger = new WalkLedger(keyOf);
  let offset = 0;
  let retains = false;
  for (let pages = 0; pages < maxPages; pages++) {
    const page = await fetchPage(offset);
    const fresh = ledger.take(page, offset);
    yield fresh;
    // Nothing at offset 0 is nothing left, whatever the page says of more.
    if (!page.hasMore || fresh.endless || (offset === 0 && page.keys.length === 0)) return;
    if (retains && fresh.repeated > 0 && fresh.keys.length === 0) {
      throw new PaginationError(
        `the listing repeats items already read at offset ${offset}: it ignores the offset`,
      );
    }
    if (fresh.repeated > 0) retains = true;
    if (page.keys.length === 0) offset += pageSize();
    else if (retains) offset += page.keys.length;
  }
  throw new PaginationError(`the listing did not end after ${maxPages} pages`);
}
