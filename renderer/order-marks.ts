// What the order page says of an order's marks: who marked it last and when (from the
// history, or from what this laptop marked and the marketplace has not listed yet), and since
// when it has been in.

import { parseMark } from '../preload/marked-by';
import type { MarketplaceEvent, Order } from '../preload/marketplace';
import type { OutboxItem } from '../preload/model';

export interface LastMark {
  status: string;
  at: string;
  /** Who marked it, when Seller Tray (on any laptop) posted it. */
  actor: string | undefined;
}

/** The latest status a person marked: this laptop's not yet listed, else the history's latest. */
export function lastMark(history: MarketplaceEvent[], outbox: OutboxItem[]): LastMark | undefined {
  const mine = outbox.filter((item) => item.state !== 'failed').at(-1);
  if (mine) return { status: mine.statusCode, at: mine.createdAt, actor: parseMark(mine.description)?.actor };
  const event = history.filter((e) => e.statusCode !== 'ProvisioningStarted' && e.eventTime).at(-1);
  if (!event?.statusCode || !event.eventTime) return undefined;
  return { status: event.statusCode, at: event.eventTime, actor: parseMark(event.description)?.actor };
}

/** When the order came in: its purchase event, else the order's issue time. */
export function receivedAt(history: MarketplaceEvent[], order: Order): string | undefined {
  return history.find((e) => e.statusCode === 'ProvisioningStarted')?.eventTime ?? order.issueTime;
}
