// Reading the newest end of the marketplace's listings without reading the rest. Orders and
// events are listed oldest first (design notes §2: new items append) with offsets and a
// `hasMore`, but no count, no other order and no filter by order. A listing of one page is
// read as it is; of a longer one its end is found (pages of one item, about 2·log2 n requests)
// and read back from there, a window at a time, until the caller has what it needs: the CLI the
// newest orders and the events that say their statuses, the core whether a status it posted is
// really absent before sending it again. Each read ends when its `signal` aborts: the CLI aborts
// it when the command ends, failed or not.
import type { PageQuery, SellerApiClient } from './client';
import type { PageOf, WalkedPage } from './pagination';
import { type ItemKind, itemKey, type Listed, type MarketplaceEvent, type Order } from './wire';

/** A listing as this module reads it, through the client. */
interface Listing<T> {
  page: (query: PageQuery) => Promise<PageOf<T>>;
  /** How many places it has (`atLeast` known to hold something): where its newest end is. */
  places: (atLeast: number) => Promise<number>;
  walkFrom: (offset: number) => AsyncGenerator<WalkedPage<T>>;
}

/** Where a listing's newest end is: the whole listing when it is one page, else its length. */
type End<T> = { whole: Listed<T> } | { length: number };

async function locate<T>(client: SellerApiClient, listing: Listing<T>): Promise<End<T>> {
  const first = await listing.page({ offset: 0, limit: client.pageSize });
  if (!first.hasMore) return { whole: first }; // a small seller's
  // The first page said there is more after its items: one place more holds something.
  return { length: await listing.places(first.keys.length + 1) };
}

/**
 * The newest items of a listing, oldest first, read back from its end until `enough` says so;
 * with every key read in listing order, readable or not, to say where each item sits.
 */
async function readBack<T>(
  client: SellerApiClient,
  kind: ItemKind,
  listing: Listing<T>,
  end: End<T>,
  firstSpan: number,
  enough: (items: T[]) => boolean,
): Promise<Listed<T>> {
  if ('whole' in end) return end.whole;
  // Windows doubling back from the end, each read once: at most about twice what was needed.
  const windows: Listed<T>[] = [];
  const seen = new Set<string>();
  const read = (): Listed<T> => ({
    items: windows.toReversed().flatMap((w) => w.items),
    unreadable: windows.toReversed().flatMap((w) => w.unreadable),
    keys: windows.toReversed().flatMap((w) => w.keys),
  });
  // The first window reads on to the end, with whatever arrived meanwhile.
  let readFrom = Number.POSITIVE_INFINITY;
  for (let span = firstSpan; ; span *= 2) {
    // Where a walk from the listing's start would ask a page: a server with places that hold
    // nothing answers a page across their edge with the items after them, out of place.
    const pageSize = client.pageSize;
    const start = Math.floor(Math.max(0, end.length - span) / pageSize) * pageSize;
    const window: Listed<T> = { items: [], unreadable: [], keys: [] };
    for await (const page of listing.walkFrom(start)) {
      // Its last page may reach into the window read before it.
      const fresh = new Set(page.keys.filter((key) => !seen.has(key)));
      for (const key of fresh) seen.add(key);
      window.keys.push(...fresh);
      window.items.push(...page.items.filter((item) => fresh.has(itemKey(kind, item))));
      window.unreadable.push(...page.unreadable.filter((item) => fresh.has(item.key)));
      if (start + page.end >= readFrom) break;
    }
    windows.push(window);
    if (start === 0 || enough(read().items)) return read();
    readFrom = start;
  }
}

/**
 * The orders `orders list` prints, `limit` from the `offset`th newest, newest first, and the
 * orders that could not be read among their places: from the oldest one printed up to the next
 * newer order (or the newest end), and from the listing's start when no older order could be
 * read. Paging through with offsets thus tells each unreadable order once.
 */
export async function newestOrders(
  client: SellerApiClient,
  { offset, limit }: { offset: number; limit: number },
  signal: AbortSignal,
): Promise<Omit<Listed<Order>, 'keys'>> {
  const orders: Listing<Order> = {
    page: (query) => client.listOrders(query, { signal }),
    places: (atLeast) => client.orderPlaces(atLeast, { signal }),
    walkFrom: (offset) => client.allOrders(offset, { signal }),
  };
  const end = await locate(client, orders);
  // One more than printed: the next older order, where the printed ones' places begin.
  const count = offset + limit + 1;
  const read = await readBack(client, 'order', orders, end, count, (items) => items.length >= count);
  const newestFirst = read.items.toReversed();
  const printed = newestFirst.slice(offset, offset + limit);
  const oldest = printed.at(-1);
  // None printed: on the first page every order is unreadable; past it, they went with a page before.
  if (!oldest) return { items: [], unreadable: offset === 0 ? read.unreadable : [] };
  const placeOf = (order: Order) => read.keys.indexOf(itemKey('order', order));
  const newer = newestFirst[offset - 1];
  const places = new Set(
    read.keys.slice(
      newestFirst[offset + limit] ? placeOf(oldest) : 0,
      newer ? placeOf(newer) : read.keys.length,
    ),
  );
  return { items: printed, unreadable: read.unreadable.filter((item) => places.has(item.key)) };
}

/**
 * The newest events of the "all" listing, oldest first, back from its end until `enough` says
 * they suffice. Where the listing ends is looked for at once, while the caller reads what it
 * needs to say what is enough. Events are listed by time: once an event of an order is read,
 * so are its later ones.
 */
export function newestEvents(
  client: SellerApiClient,
  signal: AbortSignal,
): (enough: (events: MarketplaceEvent[]) => boolean) => Promise<Listed<MarketplaceEvent>> {
  const events: Listing<MarketplaceEvent> = {
    page: (query) => client.listEvents(query, { signal }),
    places: (atLeast) => client.eventPlaces(atLeast, { signal }),
    walkFrom: (offset) => client.allEvents(offset, { signal }),
  };
  const end = locate(client, events);
  end.catch(() => undefined); // a failure is told when read back; unread (aborted), it must not surface as unhandled
  return async (enough) => readBack(client, 'event', events, await end, client.pageSize, enough);
}
