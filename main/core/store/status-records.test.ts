// The proof of delivery in the store (issue 26): records outlive the outbox, a damaged file's
// are carried into the rebuilt database, and a status an older version sent is recorded as read
// back when it is confirmed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { garbleIndexPage, pollOnePurchase } from '../../../test/support/store-files';
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
  pollOnePurchase(store, 'o-1', NOW); // an order in the inbox's index, whose page is then garbled
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
  pollOnePurchase(store, 'o-1', NOW); // its event, o-1-started, in the history
  store.putOutboxItem(sent('r-older', { eventId: 'o-1-started' }));
  expect(store.forgetConfirmed().map((i) => i.requestId)).toEqual(['r-older']);
  expect(store.statusRecords().map((r) => r.item.readBackAt)).toEqual([NOW]);
});
