// What the inbox asks the bridge for: a status filter and a search text.
import type { RequestOf } from '../../preload/contract';

export type InboxFilter = NonNullable<RequestOf<'listOrders'>['filter']>;

export interface InboxQuery {
  filter: InboxFilter;
  search: string;
}

export const INITIAL_QUERY: InboxQuery = { filter: 'all', search: '' };

export const FILTERS: readonly { value: InboxFilter; label: string }[] = [
  { value: 'all', label: 'All orders' },
  { value: 'waiting', label: 'Waiting for action' },
  { value: 'ProvisioningStarted', label: 'New' },
  { value: 'ProvisioningInProgress', label: 'In progress' },
  { value: 'ProvisioningCompleted', label: 'Completed' },
  { value: 'ProvisioningFailed', label: 'Failed' },
];
