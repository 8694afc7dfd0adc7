// One inbox across accounts (issue 23): the real service over two simulators on two origins, its
// inbox read through the bridge's listOrders. The merged list pages the same whatever the page
// size, keeps each account's own order, sums the groups' counts, finds by search in every account,
// filters by account, places unopened arrivals where they are listed, reads again only the store
// of the account that changed, and a bulk mark of rows of both accounts reaches each row's own
// marketplace only.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountId, accountFolder, accountRef } from '../main/core/account/account-ref';
import type { SecretStore } from '../main/core/secrets';
import { SellerTrayService } from '../main/core/service';
import { ConfSettingsStore, DEFAULT_SETTINGS } from '../main/core/settings';
import { AccountStore } from '../main/core/store/account-store';
import type { Channel, OrderListItem, OrderPage, Requests, Responses } from '../preload/contract';
import type { Simulator } from '../simulator/server';
import { makeDataDir } from './support/core';
import { oneSellerMarketplace } from './support/one-seller-marketplace';
import { exitOf, spawnTs, waitForLine } from './support/processes';
import { admin } from './support/raw-api';

const EU = { clientId: 'eu-client', clientSecret: 'eu-secret-41c9' };
const US = { clientId: 'us-client', clientSecret: 'us-secret-8d2e' };
const ORDERS = 45;

let eu: Simulator;
let us: Simulator;
let service: SellerTrayService;
let dir: string;
let euId: string;
let usId: string;

/** Each marketplace's secret, for its own origin only. */
function secretsFor(pairs: [string, string][]): SecretStore {
  const byOrigin = new Map(pairs);
  return {
    get: async ({ origin }) => byOrigin.get(origin),
    set: async () => undefined,
    delete: async () => false,
    adoptUnbound: async () => false,
  };
}

async function call<C extends Channel>(channel: C, payload?: Requests[C]): Promise<Responses[C]> {
  const answer = await service.handle(channel, payload as Requests[C]);
  if (!answer.ok) throw new Error(answer.error.message);
  return answer.value;
}

/** The whole list, read `limit` rows at a time. */
async function wholeList(query: Requests['listOrders'], limit: number): Promise<OrderListItem[]> {
  const rows: OrderListItem[] = [];
  for (let offset = 0; ; offset += limit) {
    const page = await call('listOrders', { ...query, offset, limit });
    rows.push(...page.orders);
    if (offset + limit >= page.total) return rows;
  }
}

const key = (row: OrderListItem) => `${row.account}/${row.orderId}`;

beforeAll(async () => {
  eu = await oneSellerMarketplace(11, 2101, ORDERS, EU);
  us = await oneSellerMarketplace(12, 3101, ORDERS, US);
  dir = await makeDataDir();
  const settings = new ConfSettingsStore({ cwd: dir });
  settings.save({
    ...DEFAULT_SETTINGS,
    undoSeconds: 0,
    accounts: [
      { label: 'EU', baseUrl: eu.url, clientId: EU.clientId },
      { label: 'US', baseUrl: us.url, clientId: US.clientId },
    ],
  });
  const secrets = secretsFor([
    [new URL(eu.url).origin, EU.clientSecret],
    [new URL(us.url).origin, US.clientSecret],
  ]);
  service = await SellerTrayService.open({ settings, secrets, dataRoot: dir });
  euId = accountRef({ baseUrl: eu.url, clientId: EU.clientId }).id;
  usId = accountRef({ baseUrl: us.url, clientId: US.clientId }).id;
  await call('checkNow');
}, 60_000);
afterAll(async () => {
  await service?.close();
  await eu?.close();
  await us?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the inbox across two accounts', () => {
  it("lists both accounts' orders, counts summed, each account's rows in its own order, paged alike", async () => {
    const all = await call('listOrders', { backlog: 'shown', limit: 500 });
    const own = {
      eu: await call('listOrders', { backlog: 'shown', account: euId, limit: 500 }),
      us: await call('listOrders', { backlog: 'shown', account: usId, limit: 500 }),
    };
    expect(own.eu.total).toBeGreaterThan(0);
    expect(own.us.total).toBeGreaterThan(0);
    expect(all.total).toBe(own.eu.total + own.us.total);
    expect(all.orders).toHaveLength(all.total);
    expect(all.waiting).toBe(own.eu.waiting + own.us.waiting);
    for (const group of all.groups) {
      const held = (page: OrderPage) => page.groups.find((g) => g.name === group.name)?.holds ?? 0;
      expect(group.holds).toBe(held(own.eu) + held(own.us));
    }
    // Each account's rows keep the order its own list has; the filter lists one account only.
    expect(own.eu.orders.every((o) => o.account === euId)).toBe(true);
    expect(all.orders.filter((o) => o.account === euId).map(key)).toEqual(own.eu.orders.map(key));
    expect(all.orders.filter((o) => o.account === usId).map(key)).toEqual(own.us.orders.map(key));
    // Each row is in its group, and the groups' rows are interleaved by their order, not one account's after the other's.
    for (const group of all.groups) {
      const rows = all.orders.slice(group.start, group.start + group.size);
      if (group.name === 'rest') {
        const times = rows.map((r) => r.since ?? '');
        expect(times).toEqual([...times].sort().reverse());
      }
      if (group.name === 'backlog' || group.name === 'rest')
        expect(new Set(rows.map((r) => r.account)).size).toBe(rows.length > 0 ? 2 : 0);
    }
    // Any page size reads the same list.
    for (const limit of [1, 7, 30]) {
      expect((await wholeList({ backlog: 'shown' }, limit)).map(key)).toEqual(all.orders.map(key));
    }
  });

  it("folds the backlog by all accounts' size together, and a search finds in every account", async () => {
    const folded = await call('listOrders', {});
    const backlog = folded.groups.find((g) => g.name === 'backlog');
    expect(backlog?.holds).toBeGreaterThan(10);
    expect(backlog?.size).toBe(0);
    expect(folded.orders.some((o) => o.backlog)).toBe(false);

    const shown = await call('listOrders', { backlog: 'shown', limit: 500 });
    const [euRow] = shown.orders.filter((o) => o.account === euId);
    const [usRow] = shown.orders.filter((o) => o.account === usId);
    if (!euRow || !usRow) throw new Error('an account has no orders');
    for (const row of [euRow, usRow]) {
      const found = await call('listOrders', { search: row.orderId.slice(0, 13) });
      expect(found.orders.map(key)).toContain(key(row));
    }
    const onlyUs = await call('listOrders', { search: euRow.orderId.slice(0, 13), account: usId });
    expect(onlyUs.orders.map(key)).not.toContain(key(euRow));
  });

  it('places the unopened arrivals of both accounts where the merged list has them', async () => {
    const euOrder = (await admin(eu.url, 'POST', 'purchases')).json.orderId as string;
    const usOrder = (await admin(us.url, 'POST', 'purchases')).json.orderId as string;
    expect((await call('checkNow')).newOrders).toBe(2);
    const page = await call('listOrders', { backlog: 'shown', limit: 500 });
    const arrived = page.groups.find((g) => g.name === 'arrived');
    expect(arrived).toMatchObject({ start: 0, size: 2 });
    expect(page.unopened.map((u) => u.orderId).sort()).toEqual([euOrder, usOrder].sort());
    for (const { orderId, index } of page.unopened) expect(page.orders[index]?.orderId).toBe(orderId);
    expect(page.regroupsAt).not.toBeNull();
    // Opened in one account: the other's arrival keeps its place.
    await call('getOrder', { orderId: euOrder, account: euId });
    const after = await call('listOrders', { backlog: 'shown', limit: 500 });
    expect(after.unopened.map((u) => u.orderId)).toEqual([usOrder]);
    expect(after.orders[after.unopened[0]?.index ?? -1]?.orderId).toBe(usOrder);
  });

  it("reads again only the store of the account whose order arrived; the other's counts are remembered", async () => {
    // Each store's counting of its groups (what a remembered outline spares), by the store's folder.
    const prototype = AccountStore.prototype as unknown as { inboxGroups: (...args: unknown[]) => unknown };
    const original = prototype.inboxGroups;
    const counted: string[] = [];
    prototype.inboxGroups = function (this: { dataDir: string }, ...args: unknown[]) {
      counted.push(this.dataDir);
      return original.apply(this, args);
    };
    try {
      await call('listOrders', {});
      counted.length = 0;
      await call('listOrders', {});
      expect(counted).toEqual([]);
      await admin(us.url, 'POST', 'purchases');
      expect((await call('checkNow')).newOrders).toBe(1);
      counted.length = 0;
      const page = await call('listOrders', {});
      expect(page.orders[0]?.account).toBe(usId);
      expect(counted.length).toBeGreaterThan(0);
      expect(counted.every((folder) => folder.endsWith(usId))).toBe(true);
    } finally {
      prototype.inboxGroups = original;
    }
  });

  it("reads no row of the other account's store again when an arrival pushes one of its rows off the page", async () => {
    // Each store's statements for rows or keys of a group, by the store's folder.
    const prototype = AccountStore.prototype as unknown as { groupRows: (...args: unknown[]) => unknown };
    const original = prototype.groupRows;
    const read: string[] = [];
    prototype.groupRows = function (this: { dataDir: string }, ...args: unknown[]) {
      read.push(this.dataDir);
      return original.apply(this, args);
    };
    try {
      const query = { backlog: 'shown' as const, limit: 20 };
      const before = await call('listOrders', query);
      const accounts = new Set(before.orders.map((o) => o.account));
      expect(accounts).toEqual(new Set([euId, usId]));
      await admin(us.url, 'POST', 'purchases');
      expect((await call('checkNow')).newOrders).toBe(1);
      read.length = 0;
      const after = await call('listOrders', query);
      expect(after.orders[0]?.account).toBe(usId);
      // The EU rows still on the page are the first of those before, one fewer or as many.
      const eu = (page: OrderPage) => page.orders.filter((o) => o.account === euId).map(key);
      expect(eu(before).slice(0, eu(after).length)).toEqual(eu(after));
      expect(read.length).toBeGreaterThan(0);
      expect(read.filter((folder) => !folder.endsWith(usId))).toEqual([]);
    } finally {
      prototype.groupRows = original;
    }
  });

  it("marks a selection of both accounts' rows each by its own account, once", async () => {
    const page = await call('listOrders', { filter: 'ProvisioningStarted', backlog: 'shown', limit: 500 });
    const picked = [
      ...page.orders.filter((o) => o.account === euId).slice(0, 2),
      ...page.orders.filter((o) => o.account === usId).slice(0, 1),
    ];
    expect(picked).toHaveLength(3);
    const before = { eu: eu.requestCounts.sendEvent, us: us.requestCounts.sendEvent };
    for (const row of picked)
      await call('markStatus', {
        orderId: row.orderId,
        account: row.account,
        statusCode: 'ProvisioningInProgress',
      });
    const sent = async () =>
      (
        await Promise.all(
          picked.map(async (row) =>
            (
              await call('getOrder', { orderId: row.orderId, account: row.account })
            ).outbox.some((i) => i.state === 'sent'),
          ),
        )
      ).every(Boolean);
    const deadline = Date.now() + 10_000;
    while (!(await sent()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect({ eu: eu.requestCounts.sendEvent, us: us.requestCounts.sendEvent }).toEqual({
      eu: before.eu + 2,
      us: before.us + 1,
    });
  });

  it('remembers a page while nothing changed, and shows on the next read what another process wrote', async () => {
    const query = { backlog: 'shown' as const, limit: 500 };
    const before = await call('listOrders', query);
    // Nothing changed: the page as read before, not read again.
    expect((await call('listOrders', query)).orders).toBe(before.orders);
    const row = before.orders.find(
      (o) => o.account === euId && o.status !== 'ProvisioningInProgress' && o.delivery === null,
    );
    if (!row) throw new Error('no order to mark');
    // Another process on the account's folder (the CLI's way) marks a status: committed when it says "marked".
    const child = spawnTs('test/support/mark-status-child.ts', [
      eu.url,
      accountFolder(dir, euId as AccountId),
      row.orderId,
      'Marked by another process',
    ]);
    try {
      await waitForLine(child, /^marked /);
    } finally {
      child.kill('SIGKILL');
      await exitOf(child);
    }
    const after = await call('listOrders', query);
    expect(after.orders.find((o) => key(o) === key(row))).toMatchObject({ status: 'ProvisioningInProgress' });
    expect(after.orders.find((o) => key(o) === key(row))?.delivery).not.toBeNull();
    // The same in this process: a second connection to the other account's store opens an arrival.
    const arrived = after.orders.find((o) => o.account === usId && o.unopened);
    if (!arrived) throw new Error('no unopened arrival');
    const other = AccountStore.open(accountFolder(dir, usId as AccountId)).store;
    try {
      expect(other.markOpened(arrived.orderId, new Date().toISOString())).toBe(true);
    } finally {
      other.close();
    }
    const opened = await call('listOrders', query);
    expect(opened.orders.find((o) => key(o) === key(arrived))?.unopened).toBe(false);
    expect(opened.unopened.map((u) => u.orderId)).not.toContain(arrived.orderId);
  }, 30_000);

  it('says so when the account a query names is not served', async () => {
    const answer = await service.handle('listOrders', { account: 'no-such-account' });
    expect(answer.ok).toBe(false);
    if (!answer.ok) expect(answer.error.message).toMatch(/not connected/);
  });
});
