import { describe, expect, it } from 'vitest';
import { type FetchPage, walkConsuming, walkStable } from './pagination';

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/** An in-memory "new" listing that drops what it returns (consume) or keeps it (sticky). */
function newListing(size: number, consume: boolean) {
  const items = Array.from({ length: size }, (_, i) => `e${i}`);
  const requests: number[] = [];
  const fetchPage: FetchPage<string> = async (offset, limit) => {
    requests.push(offset);
    const page = items.slice(offset, offset + limit);
    const hasMore = offset + page.length < items.length;
    if (consume) items.splice(offset, page.length);
    return { hasMore, items: page };
  };
  return { fetchPage, requests, items };
}

describe('walking a consuming listing', () => {
  it('reads every item once from a consuming listing, at offset 0 throughout', async () => {
    const listing = newListing(25, true);
    expect(await collect(walkConsuming(listing.fetchPage, 10, (x) => x))).toEqual(
      Array.from({ length: 25 }, (_, i) => `e${i}`),
    );
    expect(listing.requests).toEqual([0, 0, 0]);
  });

  it('reads every item once from a retaining listing, paying one repeated page', async () => {
    const listing = newListing(25, false);
    const items = await collect(walkConsuming(listing.fetchPage, 10, (x) => x));
    expect(items).toEqual(Array.from({ length: 25 }, (_, i) => `e${i}`));
    expect(listing.requests).toEqual([0, 0, 10, 20]);
  });

  it('would skip items of a consuming listing if it grew the offset (why it does not)', async () => {
    const listing = newListing(25, true);
    const items = await collect(walkStable(listing.fetchPage, 10));
    expect(items).toHaveLength(15);
    expect(items).not.toContain('e10');
  });

  it('stops at an empty page even if the server claims more', async () => {
    const fetchPage: FetchPage<string> = async () => ({ hasMore: true, items: [] });
    expect(await collect(walkConsuming(fetchPage, 10, (x) => x))).toEqual([]);
  });

  it('gives up on a listing that never ends', async () => {
    let n = 0;
    const endless: FetchPage<string> = async () => ({ hasMore: true, items: [`x${n++}`] });
    await expect(collect(walkConsuming(endless, 1, (x) => x, 50))).rejects.toThrow(
      'did not end after 50 pages',
    );
    await expect(collect(walkStable(endless, 1, 50))).rejects.toThrow('did not end after 50 pages');
  });
});

describe('walking a stable listing', () => {
  it('moves the offset by the items it got, short pages included', async () => {
    const requests: number[] = [];
    const fetchPage: FetchPage<number> = async (offset, limit) => {
      requests.push(offset);
      const items = Array.from({ length: Math.min(limit - 1, 30 - offset) }, (_, i) => offset + i);
      return { hasMore: offset + items.length < 30, items };
    };
    expect(await collect(walkStable(fetchPage, 10))).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(requests).toEqual([0, 9, 18, 27, 36]); // 36: one read-ahead past the end
  });

  it('reads one page ahead on a long walk, and none on a walk of one page', async () => {
    const requests: number[] = [];
    let answered = 0;
    const fetchPage: FetchPage<number> = async (offset, limit) => {
      requests.push(offset);
      await new Promise((r) => setTimeout(r, 5));
      answered += 1;
      const items = Array.from({ length: Math.max(0, Math.min(limit, 25 - offset)) }, (_, i) => offset + i);
      return { hasMore: offset + items.length < 25, items };
    };
    const seenInFlight: number[] = [];
    for await (const item of walkStable(fetchPage, 10)) {
      if (item % 10 === 0) seenInFlight.push(requests.length - answered);
    }
    expect(requests).toEqual([0, 10, 20, 30]); // 30: the read-ahead past the end
    expect(seenInFlight).toEqual([2, 2, 1]); // while page 1 is read, pages 2 and 3 are on their way

    const single: number[] = [];
    const onePage: FetchPage<number> = async (offset) => {
      single.push(offset);
      return { hasMore: false, items: [offset] };
    };
    expect(await collect(walkStable(onePage, 10))).toEqual([0]);
    expect(single).toEqual([0]);
  });
});
