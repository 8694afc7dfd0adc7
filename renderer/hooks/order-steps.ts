// ↑/↓ from an order's page: the order before or after it in the inbox, as the inbox lists
// them now. The list may have moved since the order was opened (new arrivals above it, or
// this very order moved by a status just marked), so a window of rows around where it was is
// read, and the step is taken from wherever it is now; when it has left the list, the order
// that took its place is the next one.
import type { Bridge, OrderListItem } from '../../preload/contract';
import { call } from '../bridge/call';
import type { InboxQuery } from '../components/inbox-query';

/** Rows read on each side of where the order was. */
const AROUND = 25;

export interface Place {
  orderId: string;
  /** Its position in the inbox when it was opened; undefined when opened from elsewhere. */
  index: number | undefined;
}

/** The row one step away from the order, and its position; null at either end of the list. */
export async function orderStep(
  bridge: Bridge,
  query: InboxQuery,
  from: Place,
  step: 1 | -1,
): Promise<{ row: OrderListItem; index: number } | null> {
  const offset = Math.max(0, (from.index ?? 0) - AROUND);
  const page = await call(bridge, 'listOrders', { ...query, offset, limit: 2 * AROUND + 1 });
  const at = page.orders.findIndex((row) => row.orderId === from.orderId);
  let target: number;
  if (at >= 0) target = at + step;
  else if (from.index === undefined) return null;
  else target = from.index - offset + (step === 1 ? 0 : -1);
  const row = page.orders[target];
  return row ? { row, index: offset + target } : null;
}
