// The proof of delivery in the store (issue 26): records outlive the outbox, a damaged file's
// are carried into the rebuilt database, and a status an older version sent is recorded as read
// back when it is confirmed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { garbleIndexPage } from '../../../test/support/store-files';
import type { MarketplaceEvent } from '../api/wire';
import type { OutboxItem } from '../outbox';
import { AccountStore } from './account-store';

let dir: string;
let store: AccountStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'records-'));
  store = AccountStore.open(dir, () => Date.parse(NOW)).store;
});
afterEach(async () => {
  store.close();
  await rm(dir, { recursive: true, force: true });
});

const NOW = '2026-11-26T10:00:00.000Z';
const purchase: MarketplaceEvent = {
  eventId: 'o-1-started',
  eventTypeCode: 'ServicePurchased',
  statusCode: 'ProvisioningStarted',
  description: 'A purchase',
  eventTime: '2026-11-26T09:00:00Z',
  additionalProperties: [{ name: 'orderId', value: 'o-1' }],
};
const poll = (events: MarketplaceEvent[]) =>
  store.recordPoll({ events, cursor: undefined, backlog: false, paused: false, now: NOW, automations: [] });
const sent = (requestId: string, more: Partial<OutboxItem> = {}): OutboxItem => ({
  requestId,
  orderId: 'o-1',
  statusCode: 'ProvisioningCompleted',
  description: 'Done',
  createdAt: '2026-11-26T09:30:00.000Z',
  state: 'sent',
  attempts: 1,
  sentAt: '2026-11-26T09:30:01.000Z',
  ...more,
});

it('carries the records a damaged file still shows into the rebuilt database', async () => {
  poll([purchase]); // an order in the inbox's index, whose page is then garbled
  store.putOutboxItem(sent('r-confirmed', { readBackAt: NOW }));
  expect(store.forgetConfirmed().map((i) => i.requestId)).toEqual(['r-confirmed']);
  store.putOutboxItem(sent('r-undone', { state: 'pending', attempts: 0 }));
  store.deleteOutboxItem('r-undone', { as: 'undone', at: NOW });
  const before = store.statusRecords();
  expect(before).toHaveLength(2);
  store.close(false); // not closed cleanly: the next open checks the file
  await garbleIndexPage(dir, 'orders_inbox');
  const opening = AccountStore.open(dir);
  store = opening.store;
  expect(opening.problems.join(' ')).toContain('damaged');
  expect(store.statusRecords()).toEqual(before);
});

it('records as read back a status an older version sent (no sentAtPoll), confirmed by the history', () => {
  poll([{ ...purchase, eventId: 'e-older' }]);
  store.putOutboxItem(sent('r-older', { eventId: 'e-older' }));
  expect(store.forgetConfirmed().map((i) => i.requestId)).toEqual(['r-older']);
  expect(store.statusRecords().map((r) => r.item.readBackAt)).toEqual([NOW]);
});
