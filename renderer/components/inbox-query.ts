// What the inbox asks the bridge for: a status filter, an account, a search text and an order; and how
// the filters and orders are named where people choose them.
import type { RequestOf } from '../../preload/contract';
import { SETTINGS } from '../../preload/settings-declaration';

export type InboxFilter = NonNullable<RequestOf<'listOrders'>['filter']>;
export type InboxSort = NonNullable<RequestOf<'listOrders'>['sort']>;

export interface InboxQuery {
  filter: InboxFilter;
  search: string;
  /** One account's orders (its id), or every served account's when not said. */
  account?: string | undefined;
  /** The first sync's waiting orders shown or folded away, as the user chose; by their number until then. */
  backlog?: 'shown' | 'hidden' | undefined;
}

export const INITIAL_QUERY: InboxQuery = { filter: 'all', search: '' };

/** The list a query asks the bridge for (listOrders without its place): what is said, no more. */
export function listQuery({ filter, search, backlog, account }: InboxQuery, sort: InboxSort) {
  return { filter, search, sort, ...(backlog ? { backlog } : {}), ...(account ? { account } : {}) };
}

/**
 * A row's identity in the list (the current row, the bulk selection): an order id may be in two
 * accounts' marketplaces. Without its account (a notification of one account) it is the order id.
 */
export function rowKey({ account, orderId }: { account?: string | undefined; orderId: string }): string {
  return account === undefined ? orderId : `${account}/${orderId}`;
}

/** One filter per status, each showing different orders (New is what waits for action), and All. */
export const FILTERS: readonly { value: InboxFilter; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'ProvisioningStarted', label: 'New' },
  { value: 'ProvisioningInProgress', label: 'In progress' },
  { value: 'ProvisioningCompleted', label: 'Completed' },
  { value: 'ProvisioningFailed', label: 'Failed' },
];

/** Waiting orders come first either way; then the longest waiting or the newest first (the setting's choices). */
export const INBOX_SORT_CHOICES = SETTINGS.inboxSort.choices;
