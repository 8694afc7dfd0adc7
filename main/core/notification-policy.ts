// Which notifications to raise: small pure decisions, so the one place that raises them
// (the shell's notifier) never has to think. Every request carries plain, capped text: buyer and
// product names are the marketplace's words (marketplace-text.ts).

import {
  capped,
  NAME_MAX,
  notificationBody,
  notificationTitle,
  plainText,
} from '../../preload/marketplace-text';
import type { NotificationRequest } from '../../preload/model';
import { formatMoney, orderTotal } from '../../preload/money';
import { isPlainPurchase, purchaseTypeLabel } from '../../preload/order-status';
import type { Order } from './api/wire';

// Declared for every process in preload/model.ts.
export type { NotificationRequest } from '../../preload/model';

/** More new orders than this in one poll become one summary. */
export const SUMMARY_THRESHOLD = 3;

/** What a notification says about an order: buyer, product × quantity, total. */
export interface OrderBrief {
  orderId: string;
  buyer: string;
  product: string;
  /** The total as text in the core's locale; '' when the order has none. */
  total: string;
  /** The purchase event's type, when known: a trial or an upgrade is named in the title. */
  purchaseType?: string | undefined;
  /** The account's label while the app serves more than one: titles name it ("New order in EU from …"). */
  account?: string | undefined;
}

/** The brief of an order, its total written in `locale` (the runtime's default when absent). */
export function briefOf(orderId: string, order: Order | undefined, locale?: string): OrderBrief {
  if (!order) return { orderId, buyer: 'A buyer', product: 'a product', total: '' };
  const total = orderTotal(order);
  return { orderId, ...buyerAndProduct(order), total: total ? formatMoney(total, locale) : '' };
}

/** Who bought what, as a notification and an inbox row name them: the buyer, the first product × quantity. */
export function buyerAndProduct(order: Order): { buyer: string; product: string } {
  const line = order.documentLines[0]?.lineItem;
  const quantity = line?.quantity?.value;
  const more = order.documentLines.length > 1 ? ` and ${order.documentLines.length - 1} more` : '';
  return {
    buyer:
      order.buyerCustomerParty.party?.partyName ?? order.buyerCustomerParty.buyerContact?.name ?? 'A buyer',
    product: `${line?.name ?? 'a product'}${quantity === undefined ? '' : ` × ${quantity}`}${more}`,
  };
}

/** One notification per new order, or one summary when there are more than a few. */
export function purchaseNotifications(orders: readonly OrderBrief[]): NotificationRequest[] {
  if (orders.length === 0) return [];
  if (orders.length > SUMMARY_THRESHOLD) return [summary(orders, 'new orders')];
  return orders.map((o) =>
    cleaned({
      kind: 'order',
      title: `New ${isPlainPurchase(o.purchaseType) ? 'order' : purchaseTypeLabel(o.purchaseType ?? '').toLowerCase()}${inAccount(o)} from ${o.buyer}`,
      body: o.total ? `${name(o.product)} — ${o.total}` : o.product,
      orderId: o.orderId,
    }),
  );
}

/** The orders that came in while notifications were paused, as one summary. */
export function resumeSummary(orders: readonly OrderBrief[]): NotificationRequest[] {
  return orders.length === 0
    ? []
    : [summary(orders, orders.length === 1 ? 'new order while paused' : 'new orders while paused')];
}

function summary(orders: readonly OrderBrief[], what: string): NotificationRequest {
  const names = [...new Set(orders.map((o) => name(o.buyer)))];
  const shown = names.slice(0, 2).join(', ');
  const rest = names.length > 2 ? ` and ${names.length - 2} more` : '';
  return cleaned({
    kind: 'summary',
    title: `${orders.length} ${what}${inAccount(orders[0])}`,
    body: `From ${shown}${rest}`,
  });
}

/** " in EU": the account of the orders, named where the app serves several (one core: one account). */
const inAccount = (o: OrderBrief | undefined): string => (o?.account ? ` in ${name(o.account)}` : '');

/** A name within a text, short enough that what follows it (the total, the count) still shows. */
const name = (text: string): string => capped(plainText(text), NAME_MAX);

/** An automation failed for an order: told once, a click opens the order (its output, Run again). */
export function automationFailedNotification(
  brief: OrderBrief,
  automation: string,
  what: string,
): NotificationRequest {
  return cleaned({
    kind: 'automation-failed',
    title: `Automation ${automation} failed${inAccount(brief)}`,
    body: `${name(brief.buyer)}: ${what}`,
    orderId: brief.orderId,
  });
}

/** The request as it may be shown: title and body plain, within their lengths. */
function cleaned(request: NotificationRequest): NotificationRequest {
  return { ...request, title: notificationTitle(request.title), body: notificationBody(request.body) };
}

export interface WaitingOrder {
  orderId: string;
  /** When the purchase event arrived, ms since the epoch. */
  since: number;
}

/** Orders waiting longer than `afterMs` that have not been reminded of yet. */
export function dueReminders(
  waiting: readonly WaitingOrder[],
  reminded: ReadonlySet<string>,
  nowMs: number,
  afterMs: number,
): WaitingOrder[] {
  if (afterMs <= 0) return [];
  return waiting.filter((o) => !reminded.has(o.orderId) && nowMs - o.since >= afterMs);
}

/**
 * Orders announced again: reminders, or (`urgent`) new orders nobody started within the
 * escalation delay; several as one summary.
 */
export function reminderNotifications(
  orders: readonly OrderBrief[],
  waitedFor: string,
  urgent = false,
): NotificationRequest[] {
  if (orders.length > SUMMARY_THRESHOLD) {
    return [
      urgent
        ? {
            kind: 'urgent',
            title: `Urgent: ${orders.length} new orders not started${inAccount(orders[0])}`,
            body: `Waiting for over ${waitedFor}`,
          }
        : {
            kind: 'summary',
            title: `${orders.length} orders still waiting${inAccount(orders[0])}`,
            body: `Waiting for over ${waitedFor}`,
          },
    ];
  }
  return orders.map((o) =>
    cleaned({
      kind: urgent ? 'urgent' : 'reminder',
      title: urgent
        ? `Urgent: not started${inAccount(o)}, ${o.buyer}`
        : `Still waiting${inAccount(o)}: ${o.buyer}`,
      body: `${o.product} has waited for over ${waitedFor}`,
      orderId: o.orderId,
    }),
  );
}
