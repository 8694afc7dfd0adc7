// The store's part of the tolerant reader, on a real SQLite file: what is kept aside is kept
// once, told once, and leaves when the item is read mended.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { MarketplaceEvent, UnreadableItem } from '../api/wire';
import { AccountStore } from './account-store';

let dir: string;
let store: AccountStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'store-'));
  store = AccountStore.open(dir).store;
});
afterEach(async () => {
  store.close();
  await rm(dir, { recursive: true, force: true });
});

const eventId = '0b7407a1-e604-42e2-a7cd-1f06f30d889a';
const odd: UnreadableItem = {
  kind: 'event',
  key: eventId,
  fieldPath: 'statusCode',
  reason: 'Invalid input: expected string, received number',
  raw: { eventId, statusCode: 17 },
};
const mended: MarketplaceEvent = {
  eventId,
  eventTypeCode: 'ServicePurchased',
  statusCode: 'ProvisioningStarted',
  description: 'A purchase',
  eventTime: '2026-11-20T10:00:00Z',
  additionalProperties: [{ name: 'orderId', value: 'o-1' }],
};
const poll = (events: MarketplaceEvent[], unreadable: UnreadableItem[]) =>
  store.recordPoll({
    events,
    unreadable,
    cursor: undefined,
    backlog: false,
    paused: false,
    now: '2026-11-22T00:00:00Z',
  });

it('keeps an unreadable item once however often it is read, and tells it once', () => {
  poll([], [odd]);
  poll([], [odd]);
  expect(store.aside(10).total).toBe(1);
  const untold = store.untoldAside();
  expect(untold).toEqual([expect.objectContaining({ kind: 'event', key: eventId, fieldPath: 'statusCode' })]);
  store.markTold(untold);
  poll([], [odd]);
  expect(store.untoldAside()).toEqual([]);
});

it('lets an item go from aside when the marketplace sends it mended', () => {
  poll([], [odd]);
  poll([mended], []);
  expect(store.aside(10).total).toBe(0);
  expect(store.history('o-1')).toHaveLength(1);
});
