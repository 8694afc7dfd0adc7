// When an order's status began, as this laptop counts it (a stall counts from it): a marketplace
// stamp ahead of this laptop's clock is taken as the moment it was learned, and stays so.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { MarketplaceEvent } from '../api/wire';
import { AccountStore } from './account-store';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();

let dir: string;
let now: number;
let store: AccountStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'status-since-'));
  now = Date.parse('2026-11-22T00:00:00Z');
  store = AccountStore.open(dir, () => now).store;
});
afterEach(async () => {
  store.close();
  await rm(dir, { recursive: true, force: true });
});

const event = (statusCode: string, at: number, description = statusCode): MarketplaceEvent => ({
  eventId: `o-1-${statusCode}`,
  eventTypeCode: 'ServicePurchased',
  statusCode,
  description,
  eventTime: iso(at),
  additionalProperties: [{ name: 'orderId', value: 'o-1' }],
});
const poll = (events: MarketplaceEvent[]) =>
  store.recordPoll({ events, cursor: undefined, backlog: false, paused: false, now: iso(now) });
const row = () =>
  store.inboxPage({ filter: 'all', search: '', sort: 'newest', offset: 0, limit: 10 }).rows[0];

it('counts an order in progress from when this laptop learned it, though its event (stamped hours ahead) is listed again rewritten', () => {
  const ahead = 3 * HOUR; // the marketplace's clock
  poll([event('ProvisioningStarted', now + ahead - 10 * MINUTE)]);
  poll([event('ProvisioningInProgress', now + ahead)]);
  const learned = iso(now);
  expect(row()?.statusSince).toBe(learned);
  // Four hours later the marketplace updates that event in place (its description), as it may.
  const stamp = now + ahead;
  now += 4 * HOUR;
  poll([event('ProvisioningInProgress', stamp, 'Provisioning started by Anna Virtanen.')]);
  expect(row()?.status).toBe('ProvisioningInProgress');
  expect(row()?.statusSince).toBe(learned);
});
