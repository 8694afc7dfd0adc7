// The Insights channel (issue 26) over two simulated marketplaces on loopback HTTP: each account's
// figures match what its marketplace's own listing says (orders, first actions, completions,
// Failed reasons), "all" adds the accounts together, opening Insights costs the marketplaces no
// call, and a request the window could not have meant is refused in words.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SellerApiClient } from '../main/core/api/client';
import { KeytarSecretStore, secretOwner } from '../main/core/secrets';
import { SellerTrayService } from '../main/core/service';
import { ConfSettingsStore, DEFAULT_SETTINGS } from '../main/core/settings';
import type { Insights } from '../preload/insights';
import type { Simulator } from '../simulator/server';
import { ManualTimers, makeDataDir } from './support/core';
import { oneSellerMarketplace } from './support/one-seller-marketplace';
import { serviceCalls } from './support/test-service';

const EU = { clientId: 'eu-client', clientSecret: 'eu-secret-41c9' };
const US = { clientId: 'us-client', clientSecret: 'us-secret-8d2e' };
const secrets = new KeytarSecretStore();

let eu: Simulator;
let us: Simulator;
let dir: string;
let service: SellerTrayService;
let calls: ReturnType<typeof serviceCalls>;
const sent: string[] = [];

beforeAll(async () => {
  eu = await oneSellerMarketplace(11, 2001, 40, EU);
  us = await oneSellerMarketplace(12, 3001, 25, US);
  dir = await makeDataDir();
  const settings = new ConfSettingsStore({ cwd: dir });
  const accounts = [
    { label: 'EU', baseUrl: eu.url, clientId: EU.clientId },
    { label: 'US', baseUrl: us.url, clientId: US.clientId },
  ];
  settings.save({ ...DEFAULT_SETTINGS, accounts });
  await secrets.set(secretOwner(eu.url, EU.clientId), EU.clientSecret);
  await secrets.set(secretOwner(us.url, US.clientId), US.clientSecret);
  service = await SellerTrayService.open({
    settings,
    secrets,
    dataRoot: dir,
    timers: new ManualTimers(),
    transport: (url, init) => {
      sent.push(url);
      return fetch(url, init);
    },
  });
  calls = serviceCalls(service);
  await calls.call('checkNow');
});
afterAll(async () => {
  await service.close();
  await secrets.delete(secretOwner(eu.url, EU.clientId));
  await secrets.delete(secretOwner(us.url, US.clientId));
  await rm(dir, { recursive: true, force: true });
  await eu.close();
  await us.close();
});

/** The last 100 days (the simulator's orders are of the last 90), in UTC. */
const PERIOD = {
  product: null,
  from: new Date(Date.now() - 99 * 86_400_000).toISOString().slice(0, 10),
  to: new Date().toISOString().slice(0, 10),
  bucket: 'week' as const,
  utcOffsetMinutes: 0,
};

async function accountIds(): Promise<{ eu: string; us: string }> {
  const { accounts } = await calls.call('getState');
  const id = (label: string) => accounts.find((a) => a.label === label)?.id ?? '';
  return { eu: id('EU'), us: id('US') };
}

/** What the marketplace's own "all" listing says, counted here from its events. */
async function listed(sim: Simulator, client: typeof EU) {
  const api = new SellerApiClient({
    baseUrl: sim.url,
    credentials: { clientId: client.clientId, clientSecret: async () => client.clientSecret },
  });
  const orders = new Map<string, Set<string>>();
  const reasons = new Map<string, number>();
  for await (const page of api.allEvents()) {
    for (const event of page.items) {
      const orderId = event.additionalProperties?.find((p) => p.name === 'orderId')?.value;
      if (orderId === undefined) continue;
      orders.set(orderId, (orders.get(orderId) ?? new Set()).add(event.statusCode));
      if (event.statusCode === 'ProvisioningFailed') {
        const reason = event.detailedDescription?.trim() || event.description;
        reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      }
    }
  }
  const statuses = [...orders.values()];
  return {
    orders: statuses.length,
    acted: statuses.filter((s) => [...s].some((status) => status !== 'ProvisioningStarted')).length,
    completed: statuses.filter((s) => s.has('ProvisioningCompleted')).length,
    reasons: [...reasons].map(([reason, count]) => ({ reason, count })),
  };
}

const ordersOf = (insights: Insights) => insights.buckets.reduce((sum, b) => sum + b.orders, 0);
const byReason = (rows: { reason: string; count: number }[]) =>
  [...rows].sort((a, b) => a.reason.localeCompare(b.reason));

describe('getInsights', () => {
  it("gives each account's figures as its marketplace's listing has them, and all of them together", async () => {
    const ids = await accountIds();
    const [euFound, usFound, all] = await Promise.all([
      calls.call('getInsights', { ...PERIOD, account: ids.eu }),
      calls.call('getInsights', { ...PERIOD, account: ids.us }),
      calls.call('getInsights', { ...PERIOD, account: 'all' }),
    ]);
    for (const [found, sim, client] of [
      [euFound, eu, EU],
      [usFound, us, US],
    ] as const) {
      const truth = await listed(sim, client);
      expect(ordersOf(found)).toBe(truth.orders);
      expect(found.firstAction.count).toBe(truth.acted);
      expect(found.completed.count).toBe(truth.completed);
      expect(byReason(found.failedReasons)).toEqual(byReason(truth.reasons));
    }
    expect(euFound.accounts).toEqual([ids.eu]);
    expect(all.accounts.sort()).toEqual([ids.eu, ids.us].sort());
    expect(ordersOf(all)).toBe(40 + 25);
    expect(all.buckets.map((b) => b.orders)).toEqual(
      euFound.buckets.map((b, i) => b.orders + (usFound.buckets[i]?.orders ?? 0)),
    );
    expect(all.firstAction.count).toBe(euFound.firstAction.count + usFound.firstAction.count);
    // The median of both lies between the two accounts' own.
    const medians = [euFound.firstAction.medianMs ?? 0, usFound.firstAction.medianMs ?? 0].sort(
      (a, b) => a - b,
    );
    expect(all.firstAction.medianMs).toBeGreaterThanOrEqual(medians[0] ?? 0);
    expect(all.firstAction.medianMs).toBeLessThanOrEqual(medians[1] ?? 0);
  });

  it('costs the marketplaces no call', async () => {
    const before = sent.length;
    for (const bucket of ['day', 'week'] as const)
      await calls.call('getInsights', { ...PERIOD, bucket, account: 'all' });
    expect(sent.slice(before)).toEqual([]);
  });

  it('refuses what the window could not have meant, in words', async () => {
    const refused = (payload: object) =>
      calls.refusal('getInsights', { ...PERIOD, account: 'all', ...payload });
    expect((await refused({ from: PERIOD.to, to: PERIOD.from })).message).toMatch(
      /on or after its first day/,
    );
    expect((await refused({ from: '2024-01-01', to: '2026-01-01' })).message).toMatch(/at most 367 days/);
    expect((await refused({ from: '2026-13-01' })).code).toBe('invalid-input');
    expect((await refused({ bucket: 'month' })).code).toBe('invalid-input');
    expect((await refused({ utcOffsetMinutes: 24 * 60 })).code).toBe('invalid-input');
    expect((await refused({ product: 'x'.repeat(201) })).code).toBe('invalid-input');
    expect((await refused({ extra: 1 })).code).toBe('invalid-input');
    const unknown = await refused({ account: 'no-such-account' });
    expect(unknown).toMatchObject({ code: 'not-found' });
    expect(unknown.message).toMatch(/not connected/);
  });
});
