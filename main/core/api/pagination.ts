// Walking offset/limit paged listings.

export interface PageOf<T> {
  hasMore: boolean;
  items: T[];
}

export type FetchPage<T> = (offset: number, limit: number) => Promise<PageOf<T>>;

/** A walk longer than this is a server that never ends, not a real listing. */
export const MAX_PAGES = 10_000;

export class PaginationError extends Error {}

/** Every item of a stable listing (items stay where they are), page by page. */
export async function* walkStable<T>(
  fetchPage: FetchPage<T>,
  limit: number,
  maxPages = MAX_PAGES,
): AsyncGenerator<T> {
  let offset = 0;
  for (let pages = 0; pages < maxPages; pages++) {
    const page = await fetchPage(offset, limit);
    yield* page.items;
    if (!page.hasMore || page.items.length === 0) return;
    offset += page.items.length;
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
