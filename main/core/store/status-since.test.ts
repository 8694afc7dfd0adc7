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

const event = (statusCode: string, at: number, description = statusCode): MarketplaceEvent =>
  eventOf(`o-1-${statusCode}`, 'o-1', statusCode, at, description);
const eventOf = (
  id: string,
  orderId: string,
  statusCode: string,
  at: number,
  description = statusCode,
): MarketplaceEvent => ({
  eventId: id,
  eventTypeCode: 'ServicePurchased',
  statusCode,
  description,
  eventTime: iso(at),
  additionalProperties: [{ name: 'orderId', value: orderId }],
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

it('an order in progress, completed and in progress again while the laptop was off, is in progress since it was started again', () => {
  poll([eventOf('e-1', 'o-1', 'ProvisioningStarted', now - 10 * MINUTE)]);
  poll([eventOf('e-2', 'o-1', 'ProvisioningInProgress', now)]);
  expect(row()?.statusSince).toBe(iso(now));
  const first = now;
  // Off for a day; meanwhile a colleague completed it, and a day later reopened it.
  now += 26 * HOUR;
  poll([
    eventOf('e-3', 'o-1', 'ProvisioningCompleted', first + 2 * HOUR),
    eventOf('e-4', 'o-1', 'ProvisioningInProgress', now - 5 * MINUTE),
  ]);
  expect(row()?.status).toBe('ProvisioningInProgress');
  expect(row()?.statusSince).toBe(iso(now - 5 * MINUTE));
  // Started again five minutes ago: not stalled a day on.
  expect(store.attentionCounts({ now: iso(now), reminderAfterMinutes: 0, stalledAfterDays: 1 }).stalled).toBe(
    0,
  );
});

it('an order bought and started by a colleague while this laptop was off three days is stalled by the marketplace stamps, as on a laptop that was on', () => {
  poll([eventOf('e-0', 'o-0', 'ProvisioningStarted', now - HOUR)]);
  const off = now;
  now += 72 * HOUR;
  poll([
    eventOf('e-1', 'o-1', 'ProvisioningStarted', off + HOUR),
    eventOf('e-2', 'o-1', 'ProvisioningInProgress', off + 2 * HOUR),
  ]);
  const started = store
    .inboxPage({ filter: 'all', search: '', sort: 'newest', offset: 0, limit: 10 })
    .rows.find((r) => r.orderId === 'o-1');
  expect(started?.status).toBe('ProvisioningInProgress');
  expect(started?.statusSince).toBe(iso(off + 2 * HOUR));
  expect(store.attentionCounts({ now: iso(now), reminderAfterMinutes: 0, stalledAfterDays: 2 }).stalled).toBe(
    1,
  );
});
