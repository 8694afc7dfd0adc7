// The inbox's order, as every process names it (the contract, the settings, the store, the
// window): its groups, top to bottom, and the orders' order within the waiting ones (the longest
// waiting or the newest first).
export const INBOX_SORTS = ['longest-waiting', 'newest'] as const;
export type InboxSort = (typeof INBOX_SORTS)[number];

/**
 * The inbox's groups, top to bottom: waiting orders that arrived within the last hour (newest
 * first whatever the sort), the other waiting orders that arrived while the app ran, orders in
 * progress past the in-progress limit (longest first), the first sync's waiting orders (the
 * backlog: there before Seller Tray first ran, so not alarms), then the rest newest first.
 */
export const INBOX_GROUPS = ['arrived', 'waiting', 'stalled', 'backlog', 'rest'] as const;
export type InboxGroupName = (typeof INBOX_GROUPS)[number];

/** One group of the list: where it starts, how many rows it has in the list, and (the backlog) how many it holds. */
export interface InboxGroup {
  name: InboxGroupName;
  start: number;
  /** Rows in the list: 0 for a backlog that is folded away. */
  size: number;
  /** The orders it holds, shown or not. */
  holds: number;
}

/** How long an arrival stays in "Just arrived", at the top. */
export const JUST_ARRIVED_MINUTES = 60;

/** A backlog of more orders than this is folded away until asked for. */
export const BACKLOG_SHOWN_UP_TO = 10;

/** Whether the backlog's orders are in the list: as the user chose, else when it is small. */
export function backlogShown(chosen: 'shown' | 'hidden' | 'by-size', holds: number): boolean {
  return chosen === 'by-size' ? holds <= BACKLOG_SHOWN_UP_TO : chosen === 'shown';
}
