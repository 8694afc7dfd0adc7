// The kill -9 tests of crash.test.ts with two accounts (issue 23), each on a marketplace of its own:
// a first start of both (the app starts them in one process) killed midway, and the app and
// `seller-tray watch` on one data folder. What is announced is announced once and names its
// account; what is marked reaches its own marketplace once. (`watch` runs of two accounts killed at
// random instants: accounts.test.ts, "two accounts across kill -9".)
import { rm } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accountFolder, accountRef } from '../main/core/account/account-ref';
import type { Transport } from '../main/core/api/transport';
import { ensurePrivateDir, userDataDir } from '../main/core/paths';
import { KeytarSecretStore, secretOwner } from '../main/core/secrets';
import type { ServiceEvent } from '../main/core/service';
import { ConfSettingsStore } from '../main/core/settings';
import type { Simulator } from '../simulator/server';
import type { ClientCredential } from '../simulator/store';
import { expectAnnouncedOnce, type KilledRun } from './support/announced-once';
import { makeDataDir } from './support/core';
import { killWhen, listingsNoted, type StoreNow, storeNow } from './support/first-start-kill';
import { accountsIn, oneSellerMarketplace } from './support/one-seller-marketplace';
import { endedOrKilled, spawnTs } from './support/processes';
import { admin } from './support/raw-api';
import { until } from './support/shell-fakes';
import { openTestService, serviceCalls } from './support/test-service';
import { type Announced, watchOnce } from './support/watch-once';

const EU_CLIENT = { clientId: 'eu-client', clientSecret: 'eu-secret-41c9' };
const US_CLIENT = { clientId: 'us-client', clientSecret: 'us-secret-8d2e' };
const secrets = new KeytarSecretStore();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

interface Account {
  label: 'EU' | 'US';
  marketplace: Simulator;
  client: ClientCredential;
  sellerId: number;
}

/** EU and US, each on a marketplace of its own: seeded `seeds`, with `orders`. */
async function euAndUs(seeds: [number, number], orders: [number, number]): Promise<[Account, Account]> {
  const [eu, us] = await Promise.all([
    oneSellerMarketplace(seeds[0], 2001, orders[0], EU_CLIENT),
    oneSellerMarketplace(seeds[1], 3001, orders[1], US_CLIENT),
  ]);
  return [
    { label: 'EU', marketplace: eu, client: EU_CLIENT, sellerId: 2001 },
    { label: 'US', marketplace: us, client: US_CLIENT, sellerId: 3001 },
  ];
}

async function closed(accounts: Account[]): Promise<void> {
  for (const { marketplace } of accounts) await marketplace.close();
}

const idOf = ({ marketplace, client }: Account) =>
  accountRef({ baseUrl: marketplace.url, clientId: client.clientId }).id;

/**
 * A laptop whose data folder lists the accounts (its other settings the defaults, but `more`), their
 * secrets in the keychain; `env` runs the CLI there. Removed after the test.
 */
async function laptopWith(accounts: Account[], more: Parameters<typeof accountsIn>[3] = {}) {
  const home = await makeDataDir();
  const env = {
    SELLER_API_BASE_URL: '',
    SELLER_CLIENT_ID: '',
    SELLER_CLIENT_SECRET: '',
    XDG_CONFIG_HOME: home,
  };
  const dataRoot = ensurePrivateDir(userDataDir(env));
  await accountsIn(
    dataRoot,
    Object.fromEntries(accounts.map(({ label, marketplace, client }) => [label, { marketplace, client }])),
    secrets,
    more,
  );
  cleanups.push(async () => {
    for (const { marketplace, client } of accounts)
      await secrets.delete(secretOwner(marketplace.url, client.clientId));
    await rm(home, { recursive: true, force: true });
  });
  const folder = (account: Account) => accountFolder(dataRoot, idOf(account));
  return { env, dataRoot, folder };
}

/** The app's service over the folder in this process, each request it sends through `transport`. */
async function appOn(dataRoot: string, transport?: Transport) {
  const { service, events } = await openTestService(dataRoot, {
    secrets,
    ...(transport ? { transport } : {}),
  });
  cleanups.unshift(() => service.close());
  return { service, events, ...serviceCalls(service) };
}

/**
 * A status marked (In progress, `description`) on the first order of the account's inbox while its
 * marketplace fails: pending in the outbox once its post failed. Answers the order's id.
 */
async function markedWhileFailing(
  call: ReturnType<typeof serviceCalls>['call'],
  account: Account,
  description: string,
): Promise<string> {
  const { orders } = await call('listOrders', { account: idOf(account), backlog: 'shown', limit: 1 });
  const orderId = orders[0]?.orderId ?? '';
  await admin(account.marketplace.url, 'PATCH', 'faults', { errorRate: 1 });
  await call('markStatus', {
    orderId,
    account: idOf(account),
    statusCode: 'ProvisioningInProgress',
    description,
    override: true,
  });
  await until(async () => {
    const [item] = (await call('getOrder', { orderId, account: idOf(account) })).outbox;
    return item?.state === 'pending' && item.problem !== undefined;
  }, 15_000); // its retries fail first
  return orderId;
}

const arrived = (events: ServiceEvent[]) =>
  events.flatMap((event) => (event.type === 'orders-arrived' ? event.orderIds : []));
/** The notifications of new orders: which, in which account, and their titles. */
const newOrderNotices = (events: ServiceEvent[]) =>
  events.flatMap((event) =>
    event.type === 'notification' && event.request.kind === 'order'
      ? [{ orderId: event.request.orderId, account: event.request.account, title: event.request.title }]
      : [],
  );

describe('a first start of two accounts killed with kill -9 midway', () => {
  // EU's history of about 3,500 events and 1,500 orders, US's of about 1,400 and 600, read slowly
  // enough to be killed midway; US, the smaller, reaches its orders while EU still reads its history.
  let accounts: [Account, Account];
  beforeAll(async () => {
    accounts = await euAndUs([12, 13], [1_500, 600]);
    for (const { marketplace } of accounts)
      await admin(marketplace.url, 'PATCH', 'faults', { latencyMs: 15 });
  });
  afterAll(() => closed(accounts));

  type Stores = { EU: StoreNow | undefined; US: StoreNow | undefined };
  const inHistory = (s: StoreNow | undefined) => s?.firstSync !== undefined && s.events > 0;
  const inOrders = (s: StoreNow | undefined) => s?.firstSync === undefined && (s?.ordersWalk ?? 0) > 0;
  const done = (s: StoreNow | undefined) =>
    s?.cursor !== undefined && s.firstSync === undefined && s.ordersWalk === undefined;

  it.each([
    { at: "in one account's history", midway: (s: Stores) => inHistory(s.EU) },
    { at: "in both accounts' histories", midway: (s: Stores) => inHistory(s.EU) && inHistory(s.US) },
    {
      at: "in one account's history and the other's orders",
      midway: (s: Stores) => inHistory(s.EU) && inOrders(s.US),
    },
    {
      at: "in one account's orders, the other's first start done",
      midway: (s: Stores) => inOrders(s.EU) && done(s.US),
    },
  ])(
    '$at: each goes on from what it recorded, announces none of either backlog, then a purchase of each once, naming its account',
    async ({ midway }) => {
      const { dataRoot, folder } = await laptopWith(accounts);
      const stores = (): Stores => ({ EU: storeNow(folder(accounts[0])), US: storeNow(folder(accounts[1])) });
      const child = spawnTs('test/support/app-child.ts', [dataRoot]);
      const stdout = await killWhen(child, () => midway(stores()));
      expect(stdout, 'nothing of either backlog announced').not.toMatch(/arrived/);
      const killed = stores();
      expect(midway(killed), 'killed midway').toBe(true);

      const { transport, asked } = listingsNoted();
      const { events, call } = await appOn(dataRoot, transport);
      await call('checkNow');
      await until(() => accounts.every((account) => done(storeNow(folder(account)))), 60_000);
      for (const account of accounts) {
        const { marketplace, sellerId, label } = account;
        const before = killed[label];
        const { listEvents, listOrders } = asked(new URL(marketplace.url).origin);
        // Read on from the cursor it recorded (less the look-back of half a page), not from the start;
        // its orders from the page its walk reached, none again once its walk had ended.
        if (before?.cursor)
          expect(Math.min(...listEvents), label).toBeGreaterThanOrEqual(before.cursor.offset - 50);
        if (before?.ordersWalk !== undefined) expect(Math.min(...listOrders), label).toBe(before.ordersWalk);
        if (done(before)) expect(listOrders, label).toEqual([]);
        const after = storeNow(folder(account));
        expect(after?.events, label).toBe(marketplace.store.listEvents(sellerId, 0, 1_000_000).items.length);
        expect(after?.announcements, label).toBe(0);
        const orders = await call('listOrders', {
          account: idOf(account),
          backlog: 'shown',
          limit: 1,
        });
        expect(orders.total, label).toBe(
          marketplace.store.listOrderJson(sellerId, 0, 1_000_000).items.length,
        );
      }
      expect(arrived(events)).toEqual([]);

      const bought = new Map<string, Account>();
      for (const account of accounts)
        bought.set(
          (await admin(account.marketplace.url, 'POST', 'purchases')).json.orderId as string,
          account,
        );
      await call('checkNow');
      await call('checkNow');
      expect(arrived(events).sort()).toEqual([...bought.keys()].sort());
      // Each told once, in a notification naming its account (the backlogs' reminders aside).
      expect(newOrderNotices(events)).toEqual(
        expect.arrayContaining(
          [...bought].map(([orderId, account]) => ({
            orderId,
            account: idOf(account),
            title: expect.stringMatching(new RegExp(`^New order in ${account.label} from `)),
          })),
        ),
      );
      expect(newOrderNotices(events)).toHaveLength(2);
    },
    90_000,
  );
});

describe('the app and seller-tray watch on one data folder with two accounts', () => {
  let accounts: [Account, Account];
  beforeAll(async () => {
    accounts = await euAndUs([1, 2], [3, 3]);
  });
  afterAll(() => closed(accounts));

  it('lose nothing of each other: a pending status of each account is delivered once to its own marketplace, an order of each announced once', async () => {
    const { env, dataRoot } = await laptopWith(accounts, { undoSeconds: 0 });
    expect(await watchOnce(env)).toEqual({ announced: [], killed: false }); // the backlogs: silent
    const { events, call } = await appOn(dataRoot);
    await call('checkNow');

    // A status marked in each account while its marketplace fails: it waits in the app's outbox.
    const targets = new Map<Account, string>();
    for (const account of accounts)
      targets.set(account, await markedWhileFailing(call, account, `Shared in ${account.label}`));
    for (const { marketplace } of accounts) await admin(marketplace.url, 'PATCH', 'faults', { errorRate: 0 });
    const bought: Announced[] = [];
    for (const { label, marketplace } of accounts)
      bought.push({
        account: label,
        orderId: (await admin(marketplace.url, 'POST', 'purchases')).json.orderId,
      });

    // watch delivers the app's pending statuses and announces the orders, each naming its account.
    const watched = await watchOnce(env);
    expect(watched.announced).toHaveLength(2);
    expect(watched.announced).toEqual(expect.arrayContaining(bought));
    await call('checkNow');
    expect(arrived(events)).toEqual([]); // announced once for this folder, by watch
    for (const account of accounts) {
      const { label, marketplace, sellerId } = account;
      const described = marketplace.store.listEvents(sellerId, 0, 100_000).items.map((e) => e.description);
      // Posted once, and only to its own marketplace (its description names the person who marked it).
      const shared = described.filter((d) => d?.includes('Shared in '));
      expect(shared, label).toEqual([expect.stringMatching(new RegExp(`: Shared in ${label}$`))]);
      const order = await call('getOrder', { orderId: targets.get(account) ?? '', account: idOf(account) });
      expect(order.status, label).toBe('ProvisioningInProgress');
      expect(
        order.outbox.filter((item) => item.state !== 'sent'),
        label,
      ).toEqual([]);
    }
  }, 60_000);

  it('announce at the start of the app what each account held while paused, once', async () => {
    // Paused while watch learns an order of each: held, with its document, for the next start.
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const { env, dataRoot } = await laptopWith(accounts, { pausedUntil: until });
    expect(await watchOnce(env)).toEqual({ announced: [], killed: false }); // the backlogs: silent
    const bought: string[] = [];
    for (const { marketplace } of accounts)
      bought.push((await admin(marketplace.url, 'POST', 'purchases')).json.orderId);
    expect(await watchOnce(env)).toEqual({ announced: [], killed: false });
    const settings = new ConfSettingsStore({ cwd: dataRoot });
    settings.save({ ...settings.load().settings, pausedUntil: null });

    const { events, call } = await appOn(dataRoot);
    await call('checkNow');
    expect(arrived(events).sort()).toEqual(bought.sort());
  }, 60_000);
});

describe("polls of two accounts in the app's process killed with kill -9 at random points under faults", () => {
  let accounts: [Account, Account];
  beforeAll(async () => {
    accounts = await euAndUs([3, 4], [3, 3]);
  });
  afterAll(() => closed(accounts));

  /** The app started on the folder in a process of its own, checking now once, killed after `killAfterMs` unless it ended. */
  async function appOnce(dataRoot: string, killAfterMs?: number): Promise<KilledRun> {
    const { stdout, killed } = await endedOrKilled(
      spawnTs('test/support/app-child.ts', [dataRoot, '--once']),
      killAfterMs,
    );
    const announced = [...stdout.matchAll(/^arrived (\S+)$/gm)].map((match) => match[1] ?? '');
    return { announced, killed };
  }

  it('every purchase of each marketplace is announced on every laptop, and each mark reaches its own marketplace once', async () => {
    const laptops = [
      await laptopWith(accounts, { undoSeconds: 0 }),
      await laptopWith(accounts, { undoSeconds: 0 }),
    ];
    for (const { dataRoot } of laptops)
      expect(await appOnce(dataRoot)).toEqual({ announced: [], killed: false });

    // A status marked in each account on the first laptop while its marketplace fails: it waits in
    // that laptop's outbox for the runs below.
    const { dataRoot: markedOn } = laptops[0] ?? { dataRoot: '' };
    const { call, service } = await appOn(markedOn);
    for (const account of accounts) await markedWhileFailing(call, account, `Marked in ${account.label}`);
    await service.close();

    const runs = laptops.map((): KilledRun[] => []);
    const purchases: string[] = [];
    const faults = (set: object) =>
      Promise.all(accounts.map(({ marketplace }) => admin(marketplace.url, 'PATCH', 'faults', set)));
    await faults({ errorRate: 0.15, dropRate: 0.05, latencyMs: 20 });
    // Random kill instants may all come after the runs ended on a fast machine: rounds then go on,
    // killed at 100 ms (before a process can finish), until a kill has landed.
    for (let round = 0; round < 5 || (!runs.flat().some((run) => run.killed) && round < 10); round++) {
      for (const { marketplace } of accounts)
        purchases.push((await admin(marketplace.url, 'POST', 'purchases')).json.orderId);
      const killAfterMs = () => (round < 5 ? 300 + Math.random() * 2500 : 100);
      const done = await Promise.all(laptops.map(({ dataRoot }) => appOnce(dataRoot, killAfterMs())));
      for (const [i, run] of done.entries()) runs[i]?.push(run);
    }
    await faults({ errorRate: 0, dropRate: 0, latencyMs: 0 });
    for (const [i, { dataRoot }] of laptops.entries()) runs[i]?.push(await appOnce(dataRoot));

    expect(runs.flat().some((run) => run.killed)).toBe(true);
    for (const laptopRuns of runs) expectAnnouncedOnce(laptopRuns, purchases);
    for (const { label, marketplace, sellerId } of accounts) {
      const described = marketplace.store.listEvents(sellerId, 0, 100_000).items.map((e) => e.description);
      const marked = described.filter((d) => d?.includes('Marked in '));
      expect(marked, label).toEqual([expect.stringMatching(new RegExp(`: Marked in ${label}$`))]);
    }
  }, 180_000);
});
