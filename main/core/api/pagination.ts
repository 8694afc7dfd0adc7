// Walking offset/limit paged listings.

export interface PageOf<T> {
  hasMore: boolean;
  items: T[];
}

export type FetchPage<T> = (offset: number, limit: number) => Promise<PageOf<T>>;

/** A walk longer than this is a server that never ends, not a real listing. */
export const MAX_PAGES = 10_000;

export class PaginationError extends Error {}

/** A request that may be abandoned unread: its failure then must not surface as unhandled. */
function settleQuietly<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/**
 * Every item of a stable listing (items stay where they are), page by page.
 *
 * Once a page says there is more, the page after the next one is requested too, assuming
 * pages as long as this one, so the server prepares it while this side parses: a long walk then costs
 * about the slower of the two sides instead of their sum. A walk of one page (a poll
 * with little new) sends no extra request; a longer one at most one unneeded request at
 * its end, and a guess that a short page proves wrong is dropped and asked again.
 */
export async function* walkStable<T>(
  fetchPage: FetchPage<T>,
  limit: number,
  maxPages = MAX_PAGES,
): AsyncGenerator<T> {
  let offset = 0;
  let current = settleQuietly(fetchPage(0, limit));
  let ahead: { offset: number; page: Promise<PageOf<T>> } | undefined;
  for (let pages = 0; pages < maxPages; pages++) {
    const page = await current;
    if (!page.hasMore || page.items.length === 0) {
      yield* page.items;
      return;
    }
    const next = offset + page.items.length;
    current = ahead?.offset === next ? ahead.page : settleQuietly(fetchPage(next, limit));
    // The server may cap pages below `limit`: the page just read is the best guess of the next.
    const guess = next + page.items.length;
    ahead = { offset: guess, page: settleQuietly(fetchPage(guess, limit)) };
    yield* page.items;
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
  limit: number,
  idOf: (item: T) => string,
  maxPages = MAX_PAGES,
): AsyncGenerator<T> {
  const yielded = new Set<string>();
  let offset = 0;
  let retains = false;
  for (let pages = 0; pages < maxPages; pages++) {
    const page = await fetchPage(offset, limit);
    let repeated = 0;
    for (const item of page.items) {
      const id = idOf(item);
      if (yielded.has(id)) {
        repeated += 1;
        continue;
      }
      yielded.add(id);
      yield item;
    }
    if (!page.hasMore || page.items.length === 0) return;
    if (retains && repeated === page.items.length) {
      throw new PaginationError(
        `the listing repeats items already read at offset ${offset}: it ignores the offset`,
      );
    }
    if (repeated > 0) retains = true;
    if (retains) offset += page.items.length;
  }
  throw new PaginationError(`the listing did not end after ${maxPages} pages`);
}
