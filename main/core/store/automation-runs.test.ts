// Automations' runs in the store (issue 24): queued in the poll's transaction with the
// announcement, once per automation and new order, taken over with the same delivery id when
// the process running them is gone, and gone with an order found to be another seller's.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { databaseOfVersion, garbleIndexPage } from '../../../test/support/store-files';
import type { MarketplaceEvent, Order } from '../api/wire';
import { Claimant } from '../claimant';
import { AccountStore } from './account-store';
import { MIGRATIONS } from './schema';

let dir: string;
let store: AccountStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runs-'));
  store = AccountStore.open(dir).store;
});
afterEach(async () => {
  store.close();
  await rm(dir, { recursive: true, force: true });
});

const NOW = '2026-11-22T00:00:00.000Z';
const purchase = (orderId: string): MarketplaceEvent => ({
  eventId: `${orderId}-started`,
  eventTypeCode: 'ServicePurchased',
  statusCode: 'ProvisioningStarted',
  description: 'A purchase',
  eventTime: '2026-11-21T10:00:00Z',
  additionalProperties: [{ name: 'orderId', value: orderId }],
});
const learn = (events: MarketplaceEvent[], options: { backlog?: boolean; automations?: string[] } = {}) =>
  store.recordPoll({
    events,
    cursor: undefined,
    backlog: options.backlog ?? false,
    paused: false,
    now: NOW,
    automations: options.automations ?? ['slack', 'provision'],
  });
/** The order's document arrived (runs wait for it). */
const fetched = (orderId: string) =>
  store.saveOrder(
    orderId,
    {
      orderId,
      documentCurrencyCode: 'EUR',
      buyerCustomerParty: {},
      sellerSupplierParty: {},
      documentLines: [],
    } as unknown as Order,
    [],
    NOW,
  );
const alive = () => true;
const gone = () => false;
/** Two processes on the store, as their cores claim. */
const app = new Claimant(alive, 100);
const watch = new Claimant(alive, 200);

it('queues a run of each automation with the announcement, once however often the order is read', () => {
  learn([purchase('o-1')]);
  learn([purchase('o-1')]);
  const runs = store.runsFor('o-1');
  expect(runs.map((r) => [r.automation, r.trigger, r.state, r.attempts])).toEqual([
    ['slack', 'new-order', 'queued', 0],
    ['provision', 'new-order', 'queued', 0],
  ]);
  expect(new Set(runs.map((r) => r.deliveryId)).size).toBe(2);
});

it('queues none for the first start backlog, nor when no automation is on', () => {
  learn([purchase('o-1')], { backlog: true });
  learn([purchase('o-2')], { automations: [] });
  expect([...store.runsFor('o-1'), ...store.runsFor('o-2')]).toEqual([]);
});

it('commits the runs with the announcement or not at all', () => {
  // The poll's transaction fails after recording (as when the disk is full at the commit).
  expect(() =>
    store.atomically(() => {
      learn([purchase('o-3')]);
      throw new Error('disk full');
    }),
  ).toThrow('disk full');
  expect(store.claimAnnouncements(app, false).pending).toEqual([]);
  expect(store.runsFor('o-3')).toEqual([]);
  learn([purchase('o-3')]);
  expect(store.claimAnnouncements(app, false).pending).toEqual(['o-3']);
  expect(store.runsFor('o-3')).toHaveLength(2);
});

it('takes a run once; a run no one runs any more is taken again under the same delivery id', () => {
  learn([purchase('o-1')], { automations: ['provision'] });
  // Not before its order has been read: no attempt spent waiting for it.
  expect(store.claimRuns(app, alive, NOW, 4)).toEqual([]);
  fetched('o-1');
  const [first] = store.claimRuns(app, alive, NOW, 4);
  // Claimed, it waits until it really starts, no attempt counted; then it runs from then.
  expect(first).toMatchObject({ state: 'queued', attempts: 0, startedAt: null });
  const later = '2026-11-22T00:00:05.000Z';
  store.startRun(app, first?.deliveryId ?? '', { at: later, attempt: 1 });
  expect(store.run(first?.deliveryId ?? '')).toMatchObject({
    state: 'running',
    startedAt: later,
    attempts: 1,
  });
  // Another process while the first runs it: nothing to take.
  expect(store.claimRuns(watch, alive, NOW, 4)).toEqual([]);
  // The first was killed: the next takes it again, same delivery id, its first attempt counted.
  const [again] = store.claimRuns(watch, gone, NOW, 4);
  // The first attempt's start is not this one's: none until this one starts it.
  expect(again).toMatchObject({
    deliveryId: first?.deliveryId,
    state: 'queued',
    attempts: 1,
    startedAt: null,
  });
  // Another's start is not written for this one's claim.
  store.startRun(app, first?.deliveryId ?? '', { at: NOW, attempt: 2 });
  expect(store.run(first?.deliveryId ?? '')).toMatchObject({ startedAt: null, attempts: 1 });
});

it('counts an attempt when a run starts, not when it is claimed: one claimed again before it started keeps its count', () => {
  learn([purchase('o-1'), purchase('o-2')], { automations: ['hook'] });
  fetched('o-1');
  fetched('o-2');
  const [started, waiting] = store.claimRuns(app, alive, NOW, 4);
  store.startRun(app, started?.deliveryId ?? '', { at: NOW, attempt: 1 });
  // The process is killed (or stops): the run it claimed ahead never started.
  const again = store.claimRuns(watch, gone, NOW, 4);
  expect(again.find((r) => r.deliveryId === waiting?.deliveryId)).toMatchObject({ attempts: 0 });
  expect(again.find((r) => r.deliveryId === started?.deliveryId)).toMatchObject({ attempts: 1 });
  // Started and ended in one write: the attempt is counted with its start.
  const later = '2026-11-22T00:00:30.000Z';
  store.finishRun(waiting?.deliveryId ?? '', { state: 'succeeded', detail: 'delivered' }, later, {
    at: NOW,
    attempt: 1,
  });
  expect(store.run(waiting?.deliveryId ?? '')).toMatchObject({ attempts: 1, startedAt: NOW });
  // Ended without starting (its filters left the order out): no attempt counted.
  store.finishRun(started?.deliveryId ?? '', { state: 'skipped', detail: 'not for it' }, later);
  expect(store.run(started?.deliveryId ?? '')).toMatchObject({ attempts: 1, state: 'skipped' });
});

it('keeps what a run ended with, and a retry waits until it is due', () => {
  learn([purchase('o-1')], { automations: ['hook'] });
  fetched('o-1');
  const [run] = store.claimRuns(app, alive, NOW, 4);
  const id = run?.deliveryId ?? '';
  const later = '2026-11-22T00:00:30.000Z';
  const answer = { state: 'queued', dueAt: later, httpStatus: 503, detail: 'answered 503' } as const;
  store.finishRun(id, answer, NOW, { at: NOW, attempt: 1 });
  expect(store.claimRuns(app, alive, NOW, 4)).toEqual([]);
  expect(store.nextRunDue(NOW)).toBe(later);
  // Due by then: no longer the next to fall due.
  expect(store.nextRunDue(later)).toBeUndefined();
  const [retried] = store.claimRuns(app, alive, later, 4);
  expect(retried).toMatchObject({ deliveryId: id, attempts: 1, httpStatus: 503 });
  store.finishRun(id, { state: 'succeeded', httpStatus: 204, detail: 'delivered' }, later);
  expect(store.run(id)).toMatchObject({ state: 'succeeded', finishedAt: later, httpStatus: 204 });
  expect(store.nextRunDue(NOW)).toBeUndefined();
});

it('queues a run again under a new delivery id on request', () => {
  learn([purchase('o-1')], { automations: ['hook'] });
  const again = store.queueRun('o-1', 'hook', 'again', NOW);
  const ids = store.runsFor('o-1').map((r) => r.deliveryId);
  expect(ids).toHaveLength(2);
  expect(ids[1]).toBe(again);
});

it("drops an order's runs when it turns out to be another seller's", () => {
  learn([purchase('o-1')]);
  store.setOrderAside(
    'o-1',
    (event) => ({
      kind: 'event',
      key: event.eventId ?? '',
      fieldPath: 'orderId',
      reason: 'another seller',
      raw: event,
    }),
    NOW,
  );
  expect(store.runsFor('o-1')).toEqual([]);
});

it('keeps runs across a restart', () => {
  learn([purchase('o-1')], { automations: ['hook'] });
  store.close();
  store = AccountStore.open(dir).store;
  expect(store.runsFor('o-1').map((r) => r.state)).toEqual(['queued']);
});

it('comes to a store of the version before it, whose orders and announcements stay as they were', async () => {
  store.close();
  await rm(dir, { recursive: true, force: true });
  dir = await mkdtemp(join(tmpdir(), 'runs-upgrade-'));
  const before = MIGRATIONS.findIndex((m) => m.includes('CREATE TABLE automation_runs'));
  const db = databaseOfVersion(dir, before);
  db.exec(`INSERT INTO announcements (order_id, state, queued_at) VALUES ('o-9', 'raised', '${NOW}')`);
  db.close();
  store = AccountStore.open(dir).store;
  expect(store.claimAnnouncements(app, false).pending).toEqual([]);
  expect(store.runsFor('o-9')).toEqual([]);
  learn([purchase('o-10')], { automations: ['hook'] });
  expect(store.runsFor('o-10').map((r) => r.state)).toEqual(['queued']);
});

it('keeps unfinished runs, under their delivery ids, when the file is found damaged and set aside', async () => {
  learn([purchase('o-1')], { automations: ['hook'] });
  const [queued] = store.runsFor('o-1');
  store.close(false); // not closed cleanly: the next open checks the file
  await garbleIndexPage(dir, 'orders_inbox');

  const opening = AccountStore.open(dir);
  store = opening.store;
  expect(opening.problems.join(' ')).toContain('damaged');
  expect(store.runsFor('o-1')).toEqual([
    expect.objectContaining({ deliveryId: queued?.deliveryId, state: 'queued', automation: 'hook' }),
  ]);
});

it("takes an order's due runs by that order alone, those of other orders left for theirs", () => {
  learn([purchase('o-1'), purchase('o-2')], { automations: ['hook'] });
  fetched('o-1');
  fetched('o-2');
  const [mine, ...more] = store.claimRuns(app, alive, NOW, 4, { order: 'o-2' });
  expect(more).toEqual([]);
  expect(mine).toMatchObject({ orderId: 'o-2', state: 'queued', attempts: 0 });
  expect(store.claimRuns(app, alive, NOW, 4, { order: 'o-2' })).toEqual([]);
  expect(store.claimRuns(app, alive, NOW, 4).map((r) => r.orderId)).toEqual(['o-1']);
});

it('gives back runs claimed but never started: queued again, their attempts as they were, taken by anyone', () => {
  learn([purchase('o-1'), purchase('o-2')], { automations: ['hook'] });
  fetched('o-1');
  fetched('o-2');
  const claimed = store.claimRuns(app, alive, NOW, 4);
  expect(claimed).toHaveLength(2);
  // Another process's run is not given back by this one.
  store.releaseRuns(
    watch,
    claimed.map((r) => r.deliveryId),
  );
  expect(store.claimRuns(watch, alive, NOW, 4)).toEqual([]);
  store.releaseRuns(app, [claimed[0]?.deliveryId ?? '']);
  expect(store.run(claimed[0]?.deliveryId ?? '')).toMatchObject({
    state: 'queued',
    claimed: false,
    attempts: 0,
  });
  expect(store.run(claimed[1]?.deliveryId ?? '')).toMatchObject({
    state: 'queued',
    claimed: true,
    attempts: 0,
  });
  const [again] = store.claimRuns(watch, alive, NOW, 4);
  expect(again).toMatchObject({ deliveryId: claimed[0]?.deliveryId, attempts: 0 });
});

it("takes an automation's due runs by that automation alone, within the room asked of each; names the automations waiting", () => {
  learn([purchase('o-1'), purchase('o-2'), purchase('o-3')], { automations: ['hook', 'slow'] });
  for (const id of ['o-1', 'o-2', 'o-3']) fetched(id);
  expect(store.runAutomations()).toEqual(['hook', 'slow']);
  const slow = store.claimRuns(app, alive, NOW, 2, { automation: 'slow' });
  expect(slow.map((r) => r.automation)).toEqual(['slow', 'slow']);
  // An order's runs, each automation asked whether it has room: only hook has.
  const asked: string[] = [];
  const taken = store.claimRuns(app, alive, NOW, 4, { order: 'o-3' }, (automation) => {
    asked.push(automation);
    return automation === 'hook';
  });
  expect(taken.map((r) => r.automation)).toEqual(['hook']);
  expect(asked.sort()).toEqual(['hook', 'slow']);
  // Started and ended in one write: its start is kept with its end.
  const [run] = taken;
  store.finishRun(run?.deliveryId ?? '', { state: 'succeeded', detail: 'delivered' }, NOW, {
    at: '2026-11-21T23:59:59.000Z',
    attempt: 1,
  });
  expect(store.run(run?.deliveryId ?? '')).toMatchObject({
    state: 'succeeded',
    startedAt: '2026-11-21T23:59:59.000Z',
    attempts: 1,
  });
});
