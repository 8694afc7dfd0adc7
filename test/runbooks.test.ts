// Runbook ticks (issue 26) in the core over the simulator: kept per order and step on this laptop,
// through a restart and a kill -9, refused for an order this laptop does not know, and never a
// marketplace call (a runbook adds nothing to the request budget).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../simulator/server';
import { inbox, type Laptop, openLaptop, removeDataDir } from './support/core';
import { exitOf, spawnTs, waitForLine } from './support/processes';

let sim: Simulator;
let laptop: Laptop;
let orderId: string;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 26, orders: 3 });
  laptop = await openLaptop(sim.url);
  await laptop.core.start();
  orderId = inbox(laptop.core)[0]?.orderId ?? '';
  await laptop.core.order(orderId);
});
afterAll(async () => {
  await removeDataDir(laptop);
  await sim.close();
});

const calls = () => JSON.stringify(sim.requestCounts);

it('keeps ticks per order and step, through a restart, at no marketplace call', async () => {
  const before = calls();
  laptop.core.tickRunbookStep(orderId, 'SS-STD', 'Create the tenant', true);
  laptop.core.tickRunbookStep(orderId, 'ss-std', 'Send the welcome mail', true);
  // Ticked again: kept as first ticked. Taken back: gone.
  const first = laptop.core.tickRunbookStep(orderId, 'SS-STD', 'Create the tenant', true);
  expect(first.map((t) => [t.itemId, t.step])).toEqual([
    ['ss-std', 'Create the tenant'],
    ['ss-std', 'Send the welcome mail'],
  ]);
  laptop.core.tickRunbookStep(orderId, 'AN-ADD', 'Enable the add-on', true);
  laptop.core.tickRunbookStep(orderId, 'AN-ADD', 'Enable the add-on', false);
  expect(calls()).toBe(before);

  await laptop.core.close();
  laptop = await laptop.reopen();
  const view = await laptop.core.order(orderId);
  expect(view.runbookTicks.map((t) => t.step)).toEqual(['Create the tenant', 'Send the welcome mail']);
  expect(view.runbookTicks[0]?.tickedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  // Another order has none.
  const other = inbox(laptop.core)[1]?.orderId ?? '';
  expect(laptop.core.tickRunbookStep(other, 'SS-STD', 'x', false)).toEqual([]);
});

it('refuses to tick an order this laptop does not know', () => {
  expect(() =>
    laptop.core.tickRunbookStep('00000000-0000-4000-8000-000000000000', 'SS-STD', 'Create the tenant', true),
  ).toThrow(/does not know that order/);
});

it('keeps a tick the window was told of when the process is killed (kill -9) right after', async () => {
  await laptop.core.close();
  const child = spawnTs('test/support/runbook-tick-child.ts', [
    sim.url,
    laptop.dataDir,
    orderId,
    'BV-1TB',
    'Attach the vault',
  ]);
  await waitForLine(child, /^ticked 3$/);
  child.kill('SIGKILL');
  await exitOf(child);
  laptop = await laptop.reopen();
  expect((await laptop.core.order(orderId)).runbookTicks.map((t) => t.step)).toContain('Attach the vault');
});
