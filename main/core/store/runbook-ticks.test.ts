// Runbook ticks in the store (issue 26): kept by order, product and step; and, like the
// automations' runs, not journaled, so a damaged file's ticks are carried into the rebuilt one.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { garbleIndexPage, pollOnePurchase } from '../../../test/support/store-files';
import { AccountStore } from './account-store';

let dir: string;
let store: AccountStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ticks-'));
  store = AccountStore.open(dir).store;
});
afterEach(async () => {
  store.close();
  await rm(dir, { recursive: true, force: true });
});

const NOW = '2026-11-26T10:00:00.000Z';

it('keeps a tick per order, product (any case) and step, once', () => {
  store.tickRunbookStep('o-1', 'SS-STD', 'Create the tenant', true, NOW);
  store.tickRunbookStep('o-1', 'ss-std', 'Create the tenant', true, '2026-11-26T11:00:00.000Z');
  store.tickRunbookStep('o-1', 'AN-ADD', 'Create the tenant', true, NOW);
  store.tickRunbookStep('o-2', 'SS-STD', 'Create the tenant', true, NOW);
  expect(store.runbookTicks('o-1')).toEqual([
    { itemId: 'an-add', step: 'Create the tenant', tickedAt: NOW },
    { itemId: 'ss-std', step: 'Create the tenant', tickedAt: NOW },
  ]);
  store.tickRunbookStep('o-1', 'AN-ADD', 'Create the tenant', false, NOW);
  expect(store.runbookTicks('o-1').map((t) => t.itemId)).toEqual(['ss-std']);
});

it('carries the ticks a damaged file still shows into the rebuilt database', async () => {
  pollOnePurchase(store, 'o-1', NOW); // an order in the inbox's index, whose page is then garbled
  store.tickRunbookStep('o-1', 'SS-STD', 'Create the tenant', true, NOW);
  store.close(false); // not closed cleanly: the next open checks the file
  await garbleIndexPage(dir, 'orders_inbox');
  const opening = AccountStore.open(dir);
  store = opening.store;
  expect(opening.problems.join(' ')).toContain('damaged');
  expect(store.runbookTicks('o-1')).toEqual([{ itemId: 'ss-std', step: 'Create the tenant', tickedAt: NOW }]);
});
