// Which order an id on the command line means: a whole id as it is, or the beginning of one (at
// least 4 hex digits) that begins exactly one order's id, as git takes a commit's. The API has
// no search and lists orders by issue time, not id, so only the whole listing can show that a
// beginning is unique: it is walked from the start, at most PREFIX_PAGES pages
// (docs/cli.md). The CLI reads the marketplace, not the app's store (as `orders list` does).
import { plural } from '../../preload/counted';
import { escapedControls } from '../../preload/marketplace-text';
import { canonicalOrderId } from '../../preload/order-link';
import type { SellerApiClient } from '../core/api/client';
import type { Order } from '../core/api/wire';
import { Refusal, UsageError } from './refusals';

/** The fewest hex digits a beginning must have: fewer would match most orders of a busy seller. */
export const MIN_PREFIX_DIGITS = 4;
/** The pages a beginning may cost: at 100 orders a page, sellers of up to 2,000 orders. */
export const PREFIX_PAGES = 20;

const WHOLE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An order id as given, its form checked: whole, or the beginning of one to look up. */
export interface OrderIdArgument {
  given: string;
  whole: boolean;
}

/** The order meant, and (when its beginning was looked up) the order as the listing has it. */
export interface ResolvedOrder {
  orderId: string;
  order?: Order | undefined;
}

/** Checks an id's form before any request: a mistake in it is a usage error, told at once. */
export function orderIdArgument(given: string): OrderIdArgument {
  if (WHOLE_ID.test(given)) return { given, whole: true };
  // Order ids are UUIDs (design notes §2): hex digits and dashes, in any case.
  if (!/^[0-9a-f-]+$/i.test(given)) {
    throw new UsageError(
      `"${escapedControls(given)}" is not an order id: order ids are hex digits (0-9, a-f) and dashes`,
    );
  }
  if (given.replace(/-/g, '').length < MIN_PREFIX_DIGITS) {
    throw new UsageError(
      `"${given}" is too short to name an order: give at least ${MIN_PREFIX_DIGITS} hex digits of its id, or all of it`,
    );
  }
  return { given, whole: false };
}

/**
 * The order an id means. A whole id costs nothing (the marketplace answers for it); a
 * beginning costs the orders listing's pages, refused past PREFIX_PAGES of them.
 */
export async function resolveOrderId(
  client: SellerApiClient,
  { given, whole }: OrderIdArgument,
  signal: AbortSignal,
): Promise<ResolvedOrder> {
  if (whole) return { orderId: canonicalOrderId(given) };
  const prefix = given.toLowerCase();
  // Every id beginning so, readable or not: an unreadable order is a candidate too.
  const ids: string[] = [];
  const orders = new Map<string, Order>();
  let pages = 0;
  let listed = 0;
  for await (const page of client.allOrders(0, { signal })) {
    if (++pages > PREFIX_PAGES) {
      throw new Refusal(
        'too-many-orders',
        `This seller has more than ${listed} orders, more than are read to find an id by its beginning: give the whole order id (orders list prints it).`,
      );
    }
    listed += page.keys.length;
    ids.push(...page.keys.filter((key) => key.toLowerCase().startsWith(prefix)));
    for (const order of page.items) {
      if (order.orderId?.toLowerCase().startsWith(prefix)) orders.set(order.orderId, order);
    }
  }
  const [only, ...others] = ids;
  if (only === undefined) {
    throw new Refusal(
      'no-such-order',
      `No order's id begins with "${given}" (of ${plural(listed, 'order')}).`,
    );
  }
  if (others.length > 0) {
    throw new Refusal(
      'ambiguous-order-id',
      `"${given}" begins the ids of ${ids.length} orders; give more of the id:`,
      // Each as `orders list` begins its line: id, issued, buyer (escaped where printed).
      ids.map((id) => {
        const order = orders.get(id);
        return [id, order?.issueTime, order?.buyerCustomerParty.party?.partyName].filter(Boolean).join('  ');
      }),
    );
  }
  return { orderId: only, order: orders.get(only) };
}
