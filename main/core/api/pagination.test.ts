import { describe, expect, it } from 'vitest';
import {
  type FetchPage,
  listingLength,
  type PageOf,
  tiedAtEnd,
  walkConsuming,
  walkStable,
} from './pagination';
import type { UnreadableItem } from './wire';

const self = (x: string | number) => String(x);

/** Every item a walk yields, readable and unreadable (by key), page after page. */
async function collect<T>(walk: AsyncIterable<{ items: T[]; unreadable: UnreadableItem[] }>) {
  const items: T[] = [];
  const aside: string[] = [];
  for await (const page of walk) {
    items.push(...page.items);
    aside.push(...page.unreadable.map((u) => u.key));
  }
  return Object.assign(items, { aside });
}

/** A page of readable items; those named in `odd` come back unreadable, in their place. */
function pageOf<T extends string | number>(
  items: T[],
  hasMore: boolean,
  odd: ReadonlySet<T> = new Set(),
): PageOf<T> {
  return {
    hasMore,
    items: items.filter((i) => !odd.has(i)),
    unreadable: items
      .filter((i) => odd.has(i))
      .map((i) => ({ kind: 'event', key: String(i), fieldPath: 'statusCode', reason: 'odd', raw: i })),
    keys: items.map(String),
  };
}

/** An in-memory "new" listing that drops what it returns (consume) or keeps it (sticky). */
function newListing(size: number, consume: boolean, limit = 10) {
  const items = Array.from({ length: size }, (_, i) => `e${i}`);
  const requests: number[] = [];
  const fetchPage: FetchPage<string> = async (offset) => {
    requests.push(offset);
    const page = items.slice(offset, offset + limit);
    const hasMore = offset + page.length < items.length;
    if (consume) items.splice(offset, page.length);
    return pageOf(page, hasMore);
  };
  return { fetchPage, requests, items };
}

describe('walking a consuming listing', () => {
  it('reads every item once from a consuming listing, at offset 0 throughout', async () => {
    const listing = newListing(25, true);
    expect([...(await collect(walkConsuming(listing.fetchPage, self, () => 10)))]).toEqual(
      Array.from({ length: 25 }, (_, i) => `e${i}`),
    );
    expect(listing.requests).toEqual([0, 0, 0]);
  });

  it('reads every item once from a retaining listing, paying one repeated page', async () => {
    const listing = newListing(25, false);
    const items = await collect(walkConsuming(listing.fetchPage, self, () => 10));
    expect([...items]).toEqual(Array.from({ length: 25 }, (_, i) => `e${i}`));
    expect(listing.requests).toEqual([0, 0, 10, 20]);
  });

  it('would skip items of a consuming listing if it grew the offset (why it does not)', async () => {
    const listing = newListing(25, true);
    const items = await collect(walkStable(listing.fetchPage, self, () => 10));
    expect(items).toHaveLength(15);
    expect(items).not.toContain('e10');
  });

  it('ends at an empty page at offset 0, whatever it says of more', async () => {
    const requests: number[] = [];
    const fetchPage: FetchPage<string> = async (offset) => {
      requests.push(offset);
      return pageOf([], true);
    };
    expect([...(await collect(walkConsuming(fetchPage, self, () => 10)))]).toEqual([]);
    expect(requests).toEqual([0]);
  });

  it('reads three empty pages that claim more at the end of a listing as its end, saying so', async () => {
    const items = Array.from({ length: 25 }, (_, i) => `e${i}`);
    const requests: number[] = [];
    // Says "more" on every page, its last one and those past its end included.
    const endless: FetchPage<string> = async (offset) => {
      requests.push(offset);
      return pageOf(items.slice(offset, offset + 10), true);
    };
    for (const walker of [walkStable, walkConsuming]) {
      const pages = [];
      for await (const page of walker(endless, self, () => 10)) pages.push(page);
      expect(pages.flatMap((p) => p.items)).toEqual(items);
      expect(pages.at(-1)?.endless).toBe(true);
    }
  });

  it('gives up on a listing that never ends', async () => {
    let n = 0;
    const endless: FetchPage<string> = async () => pageOf([`x${n++}`], true);
    await expect(collect(walkConsuming(endless, self, () => 1, 50))).rejects.toThrow(
      'did not end after 50 pages',
    );
    await expect(collect(walkStable(endless, self, () => 1, 50))).rejects.toThrow(
      'did not end after 50 pages',
    );
  });
});

describe('walking a stable listing', () => {
  it('moves the offset by the items it got, short pages included', async () => {
    const requests: number[] = [];
    const fetchPage: FetchPage<number> = async (offset) => {
      requests.push(offset);
      const items = Array.from({ length: Math.min(9, 30 - offset) }, (_, i) => offset + i);
      return pageOf(items, offset + items.length < 30);
    };
    expect([...(await collect(walkStable(fetchPage, self, () => 10)))]).toEqual(
      Array.from({ length: 30 }, (_, i) => i),
    );
    expect(requests).toEqual([0, 9, 18, 27, 36]); // 36: one read-ahead past the end
  });

  it('moves past unreadable items, yielding them aside in their place', async () => {
    const odd = new Set([3, 12]);
    const fetchPage: FetchPage<number> = async (offset) => {
      const items = Array.from({ length: Math.min(10, 25 - offset) }, (_, i) => offset + i);
      return pageOf(items, offset + items.length < 25, odd);
    };
    const walked = await collect(walkStable(fetchPage, self, () => 10));
    expect([...walked]).toEqual(Array.from({ length: 25 }, (_, i) => i).filter((i) => !odd.has(i)));
    expect(walked.aside).toEqual(['3', '12']);
  });

  it('skips an empty page that claims more, and ends where the listing ends', async () => {
    const requests: number[] = [];
    // Offsets 10–19 hold nothing this caller may see; the listing goes on after them.
    const fetchPage: FetchPage<number> = async (offset) => {
      requests.push(offset);
      if (offset === 10) return pageOf([], true);
      const items = Array.from({ length: Math.max(0, Math.min(10, 35 - offset)) }, (_, i) => offset + i);
      return pageOf(items, offset + items.length < 35);
    };
    const items = await collect(walkStable(fetchPage, self, () => 10));
    expect([...items]).toEqual([
      ...Array.from({ length: 10 }, (_, i) => i),
      ...Array.from({ length: 15 }, (_, i) => 20 + i),
    ]);
  });

  it('fails after one repeated page when the server ignores the offset', async () => {
    const requests: number[] = [];
    const fetchPage: FetchPage<number> = async (offset) => {
      requests.push(offset);
      return pageOf([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], true);
    };
    await expect(collect(walkStable(fetchPage, self, () => 10))).rejects.toThrow(/ignore the offset/);
    expect(requests.length).toBeLessThanOrEqual(3); // the repeated page and at most one read ahead
  });

  it('reads one page ahead on a long walk, and none on a walk of one page', async () => {
    const requests: number[] = [];
    let answered = 0;
    const fetchPage: FetchPage<number> = async (offset) => {
      requests.push(offset);
      await new Promise((r) => setTimeout(r, 5));
      answered += 1;
      const items = Array.from({ length: Math.max(0, Math.min(10, 25 - offset)) }, (_, i) => offset + i);
      return pageOf(items, offset + items.length < 25);
    };
    const seenInFlight: number[] = [];
    for await (const _ of walkStable(fetchPage, self, () => 10))
      seenInFlight.push(requests.length - answered);
    expect(requests).toEqual([0, 10, 20, 30]); // 30: the read-ahead past the end
    expect(seenInFlight).toEqual([2, 2, 1]); // while page 1 is read, pages 2 and 3 are on their way

    const single: number[] = [];
    const onePage: FetchPage<number> = async (offset) => {
      single.push(offset);
      return pageOf([offset], false);
    };
    expect([...(await collect(walkStable(onePage, self, () => 10)))]).toEqual([0]);
    expect(single).toEqual([0]);
  });
});

describe('finding where a stable listing ends', () => {
  /** A listing of `size` places answering pages of one item; `gap` places hold nothing but say there is more. */
  function places(size: number, gap: ReadonlySet<number> = new Set()) {
    const requests: number[] = [];
    const fetchOne: FetchPage<number> = async (offset) => {
      requests.push(offset);
      const hasMore = offset + 1 < size;
      return pageOf(offset < size && !gap.has(offset) ? [offset] : [], hasMore);
    };
    return { fetchOne, requests };
  }

  it.each([0, 1, 2, 3, 50, 64, 65, 10_000])(
    'finds %i places in about 2·log2(n) pages of one item',
    async (size) => {
      const listing = places(size);
      expect(await listingLength(listing.fetchOne, 1_000_000)).toBe(size);
      expect(listing.requests.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(size + 1)) + 2);
    },
  );

  it('starts from the places known to hold something (a first page read already)', async () => {
    const listing = places(10_000);
    expect(await listingLength(listing.fetchOne, 1_000_000, 101)).toBe(10_000);
    expect(listing.requests).not.toContain(0);
    expect(Math.min(...listing.requests)).toBe(201);
    const fromScratch = places(10_000);
    await listingLength(fromScratch.fetchOne, 1_000_000);
    expect(listing.requests.length).toBeLessThan(fromScratch.requests.length);
  });

  it('counts the places of a gap, as a walk steps over them', async () => {
    const gap = new Set(Array.from({ length: 50 }, (_, i) => 50 + i));
    expect(await listingLength(places(130, gap).fetchOne, 1_000_000)).toBe(130);
  });

  it('refuses a listing that ignores the offset, and one that never ends', async () => {
    const ignoring: FetchPage<number> = async () => pageOf([0], true);
    await expect(listingLength(ignoring, 1_000_000)).rejects.toThrow(/ignore the offset/);
    const endless: FetchPage<number> = async (offset) => pageOf([offset], true);
    await expect(listingLength(endless, 1_000)).rejects.toThrow('did not end before offset 1023');
  });

  it('ends a listing that says "more" past its end at its last item', async () => {
    for (const size of [1, 7, 100, 1_000]) {
      const endless: FetchPage<number> = async (offset) => pageOf(offset < size ? [offset] : [], true);
      expect(await listingLength(endless, 1_000_000)).toBe(size);
    }
  });
});

describe('ties at a page boundary', () => {
  const tieOf = (item: string) => item.split(':')[0];

  it('starts the next page at the last run of ties, at most half the page, none without a tie function', () => {
    const page = pageOf(['1:a', '2:b', '3:c', '3:d', '3:e'], true);
    expect(tiedAtEnd(page, self, tieOf)).toBe(2); // three tied, capped at half of five
    expect(tiedAtEnd(pageOf(['1:a', '2:b', '2:c', '3:d'], true), self, tieOf)).toBe(1);
    expect(tiedAtEnd(pageOf(['1:a', '2:b', '2:c', '2:d'], true), self, tieOf)).toBe(2);
    expect(tiedAtEnd(page, self, undefined)).toBe(0);
    // An unreadable item ends the run.
    expect(tiedAtEnd(pageOf(['1:a', '3:b', '3:c', '3:d'], true, new Set(['3:c'])), self, tieOf)).toBe(1);
    expect(tiedAtEnd(pageOf(['1:a', '3:b'], true, new Set(['3:b'])), self, tieOf)).toBe(0);
  });

  it('loses no item of a tie a server lists in another order at each call', async () => {
    // Places 3–5 hold one tie, listed rotated at each call; pages of four.
    const items = ['0:a', '1:b', '2:c', '3:d', '3:e', '3:f', '4:g', '5:h'];
    let call = 0;
    const flipping: FetchPage<string> = async (offset) => {
      const turn = call++;
      const listed = [...items];
      const tie = [items[3], items[4], items[5]] as string[];
      for (let i = 0; i < 3; i++) listed[3 + i] = tie[(i + turn) % 3] as string;
      return pageOf(listed.slice(offset, offset + 4), offset + 4 < items.length);
    };
    const read = await collect(walkStable(flipping, self, () => 4, 100, tieOf));
    expect([...read].sort()).toEqual([...items].sort());
  });
});
