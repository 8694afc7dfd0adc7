// Several marketplace accounts in one app (issue 23): two simulators on two origins serve one
// service, each account with its own session, schedule and backoff. Marks go to the marketplace
// of the order's account only, and each secret only to its own origin (counted at the simulators
// and at the transport); one account down or refusing its secret leaves the other working.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { openAppService } from '../main/app-service';
import { addAccount, removeAccount } from '../main/core/account/account-list';
import { accountFolder, accountRef, keychainEntry } from '../main/core/account/account-ref';
import { interruptedRemovals, writeRemovalNote } from '../main/core/account/removal-notes';
import { AccountSession } from '../main/core/account/session';
import { watchFile } from '../main/core/file-watch';
import { ensurePrivateDir, userDataDir } from '../main/core/paths';
import { linuxPolicySource } from '../main/core/policy/sources';
import { KeytarSecretStore, secretOwner } from '../main/core/secrets';
import { SellerTrayService, type ServiceEvent } from '../main/core/service';
import { ConfSettingsStore, type Settings as CoreSettings, DEFAULT_SETTINGS } from '../main/core/settings';
import { DATABASE_FILE, UNCONFIRMED_AFTER_POLLS } from '../main/core/store/account-store';
import { openDatabase } from '../main/core/store/database';
import { Notifier } from '../main/shell/notifier';
import { OrderLinks } from '../main/shell/order-links';
import { startTray } from '../main/shell/tray-menu';
import type { AutomationSetting } from '../preload/automations';
import type { ShellEvent } from '../preload/contract';
import type { Settings } from '../preload/model';
import { orderLink, parseOrderLink } from '../preload/order-link';
import { UNTIL_RESUMED } from '../preload/pause';
import { namedAccount } from '../preload/served-account';
import type { AccountEntry } from '../preload/settings-declaration';
import type { Simulator } from '../simulator/server';
import { arrived, openAccountsService, type ServedAccount } from './support/accounts-service';
import { expectAnnouncedOnce } from './support/announced-once';
import { ManualTimers, makeDataDir } from './support/core';
import { memorySecrets } from './support/memory-secrets';
import { oneSellerMarketplace } from './support/one-seller-marketplace';
import { recordingPorts } from './support/order-link-ports';
import { runTs } from './support/processes';
import { admin } from './support/raw-api';
import { recordingLog } from './support/recording-log';
import { FakeNotifications, FakeTray, until } from './support/shell-fakes';
import { serviceCalls } from './support/test-service';
import { watchOnce } from './support/watch-once';

const EU_CLIENT = { clientId: 'eu-client', clientSecret: 'eu-secret-41c9' };
const US_CLIENT = { clientId: 'us-client', clientSecret: 'us-secret-8d2e' };

let eu: Simulator;
let us: Simulator;
const secrets = new KeytarSecretStore();
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  eu = await oneSellerMarketplace(1, 2001, 3, EU_CLIENT);
  us = await oneSellerMarketplace(2, 3001, 3, US_CLIENT);
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});
afterAll(async () => {
  await eu.close();
  await us.close();
});

/** A service over the given accounts, each secret stored in the keychain for its own marketplace. */
async function openService(
  accounts: ServedAccount[],
  demo?: { baseUrl: string; clientId: string; clientSecret: string },
  more: Partial<Settings> = {},
) {
  const opened = await openAccountsService(accounts, { secrets, demo, more });
  cleanups.push(opened.close);
  return opened;
}

/** The app over EU and US, each polled once, and US's id. */
async function euAndUsPolled() {
  const opened = await openService([
    { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
    { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId, secret: US_CLIENT.clientSecret },
  ]);
  await opened.call('checkNow');
  return { ...opened, usId: accountRef({ baseUrl: us.url, clientId: US_CLIENT.clientId }).id };
}

/** The app started again on `dir`'s laptop, and the problems it told at its start. */
async function startedAgain(dir: string) {
  const again = await SellerTrayService.open({
    settings: new ConfSettingsStore({ cwd: dir }),
    secrets,
    dataRoot: dir,
    timers: new ManualTimers(),
  });
  cleanups.push(() => again.close());
  const problems: string[] = [];
  again.onEvent((event) => {
    if (event.type === 'problem') problems.push(event.message);
  });
  again.listening();
  return { again, problems };
}

/** Two marketplaces seeded alike, so their orders have the same ids, served as EU and US. */
async function twinAccounts(orders = 2, more: Partial<Settings> = {}) {
  const twins = await Promise.all(
    [EU_CLIENT, US_CLIENT].map((client, i) => oneSellerMarketplace(7, 5001 + i, orders, client)),
  );
  const [euTwin, usTwin] = twins as [Simulator, Simulator];
  cleanups.push(async () => {
    for (const twin of twins) await twin.close();
  });
  const opened = await openService(
    [
      { label: 'EU', baseUrl: euTwin.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
      { label: 'US', baseUrl: usTwin.url, clientId: US_CLIENT.clientId, secret: US_CLIENT.clientSecret },
    ],
    undefined,
    more,
  );
  return { euTwin, usTwin, ...opened };
}

/** The secret a Basic Authorization value carries. */
const basicSecret = (authorization: string) => {
  const decoded = Buffer.from(authorization.replace(/^Basic /, ''), 'base64').toString('utf8');
  return decoded.slice(decoded.indexOf(':') + 1);
};

describe('two accounts on two marketplaces', () => {
  it('are both polled, new orders of each arrive, and a mark goes to its own marketplace only, once', async () => {
    const { call, events, sent, service } = await openService([
      { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
      { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId, secret: US_CLIENT.clientSecret },
    ]);
    await call('checkNow');
    const euOrder = (await admin(eu.url, 'POST', 'purchases')).json.orderId as string;
    const usOrder = (await admin(us.url, 'POST', 'purchases')).json.orderId as string;
    const { newOrders } = await call('checkNow');
    expect(newOrders).toBe(2);
    expect(arrived(events)).toEqual(expect.arrayContaining([euOrder, usOrder]));
    // With more than one account, each notification names its own.
    const titles = new Map(
      events.flatMap((e) => (e.type === 'notification' ? [[e.request.orderId, e.request.title]] : [])),
    );
    expect(titles.get(euOrder)).toMatch(/^New order in EU from /);
    expect(titles.get(usOrder)).toMatch(/^New order in US from /);
    // The window shows the first account's orders; the state has every account's standing.
    expect(service.state()).toMatchObject({
      baseUrl: eu.url,
      clientId: EU_CLIENT.clientId,
      connection: 'ok',
    });
    expect(service.state().accounts.map((a) => [a.label, a.open, a.connection])).toEqual([
      ['EU', true, 'ok'],
      ['US', true, 'ok'],
    ]);

    const sentBefore = { eu: eu.requestCounts.sendEvent, us: us.requestCounts.sendEvent };
    await call('markStatus', { orderId: usOrder, statusCode: 'ProvisioningInProgress' });
    await until(async () =>
      (await call('getOrder', { orderId: usOrder })).outbox.some((i) => i.state === 'sent'),
    );
    expect({ eu: eu.requestCounts.sendEvent, us: us.requestCounts.sendEvent }).toEqual({
      eu: sentBefore.eu,
      us: sentBefore.us + 1,
    });
    await call('markStatus', { orderId: euOrder, statusCode: 'ProvisioningInProgress' });
    await until(async () =>
      (await call('getOrder', { orderId: euOrder })).outbox.some((i) => i.state === 'sent'),
    );
    expect({ eu: eu.requestCounts.sendEvent, us: us.requestCounts.sendEvent }).toEqual({
      eu: sentBefore.eu + 1,
      us: sentBefore.us + 1,
    });

    // Each secret went to its own origin only: every Basic credential sent carries that origin's.
    const own = new Map([
      [new URL(eu.url).origin, EU_CLIENT.clientSecret],
      [new URL(us.url).origin, US_CLIENT.clientSecret],
    ]);
    const basics = sent.filter((s) => s.authorization?.startsWith('Basic '));
    expect(new Set(basics.map((s) => s.origin)).size).toBe(2);
    for (const { origin, authorization } of basics)
      expect(basicSecret(authorization ?? '')).toBe(own.get(origin));
  });

  it('announce every new order of each account on every laptop, though "new" hands each event over once', async () => {
    const both = [
      { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
      { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId, secret: US_CLIENT.clientSecret },
    ];
    const laptops = [await openService(both), await openService(both)];
    for (const { call } of laptops) await call('checkNow'); // the backlog: recorded, not announced
    const purchases = [
      ['EU', (await admin(eu.url, 'POST', 'purchases')).json.orderId as string],
      ['US', (await admin(us.url, 'POST', 'purchases')).json.orderId as string],
      ['US', (await admin(us.url, 'POST', 'purchases')).json.orderId as string],
    ];
    // The first laptop takes the "new" events; the second learns them all the same.
    for (const { call, events } of laptops) {
      await call('checkNow');
      const titles = new Map(
        events.flatMap((e) => (e.type === 'notification' ? [[e.request.orderId, e.request.title]] : [])),
      );
      for (const [label, orderId] of purchases) {
        expect(titles.get(orderId)).toMatch(new RegExp(`^New order in ${label} from `));
      }
      expect(new Set(arrived(events))).toEqual(new Set(purchases.map(([, orderId]) => orderId)));
    }
  });

  it("find a linked order no account has heard of yet in its own account's marketplace", async () => {
    const { call, service } = await openService([
      { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
      { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId, secret: US_CLIENT.clientSecret },
    ]);
    await call('checkNow');
    // Bought after the last poll: only the US marketplace knows it.
    const usOrder = (await admin(us.url, 'POST', 'purchases')).json.orderId as string;
    expect(await service.lookUpOrder(usOrder)).toEqual({
      found: true,
      account: accountRef({ baseUrl: us.url, clientId: US_CLIENT.clientId }).id,
    });
    expect((await call('getOrder', { orderId: usOrder })).order.orderId).toBe(usOrder);
    const nowhere = await service.lookUpOrder('0b8f4e4c-5d2e-4b7a-9f1e-2a6c3d4e5f60');
    expect(nowhere).toMatchObject({ found: false, reason: 'not-in-account' });
  });

  it('tell an order id both marketplaces use apart by the account its row names', async () => {
    const { euTwin, usTwin, call } = await twinAccounts();
    await call('checkNow');
    const usAccount = accountRef({ baseUrl: usTwin.url, clientId: US_CLIENT.clientId }).id;
    const [row] = (await call('listOrders', {})).orders;
    if (!row) throw new Error('no order listed');
    expect(row.account).toBe(accountRef({ baseUrl: euTwin.url, clientId: EU_CLIENT.clientId }).id);
    // The same id in the other marketplace: its own order there.
    expect((await call('getOrder', { orderId: row.orderId, account: usAccount })).order.orderId).toBe(
      row.orderId,
    );
    const before = { eu: euTwin.requestCounts.sendEvent, us: usTwin.requestCounts.sendEvent };
    await call('markStatus', {
      orderId: row.orderId,
      account: usAccount,
      statusCode: 'ProvisioningInProgress',
    });
    await until(async () =>
      (await call('getOrder', { orderId: row.orderId, account: usAccount })).outbox.some(
        (i) => i.state === 'sent',
      ),
    );
    expect({ eu: euTwin.requestCounts.sendEvent, us: usTwin.requestCounts.sendEvent }).toEqual({
      eu: before.eu,
      us: before.us + 1,
    });
  });

  it('open an order id both marketplaces use in the account its notification or link names', async () => {
    const { euTwin, usTwin, call, service } = await twinAccounts();
    await call('checkNow');
    const [euNew, usNew] = (await Promise.all(
      [euTwin, usTwin].map(async (twin) => (await admin(twin.url, 'POST', 'purchases')).json.orderId),
    )) as [string, string];
    expect(usNew).toBe(euNew);
    const ids = {
      eu: accountRef({ baseUrl: euTwin.url, clientId: EU_CLIENT.clientId }).id as string,
      us: accountRef({ baseUrl: usTwin.url, clientId: US_CLIENT.clientId }).id as string,
    };
    const notifications = new FakeNotifications(true);
    const shown: ShellEvent[] = [];
    const copied: string[] = [];
    const notifier = new Notifier({
      service,
      notifications,
      show: (event) => shown.push(event),
      copyText: (text) => copied.push(text),
    });
    cleanups.push(async () => notifier.stop());
    await call('checkNow');
    // Each notification carries its own account; a click opens that account's order, not the namesake.
    const [usNotice] = notifications.created.filter((n) => n.options.title.startsWith('New order in US'));
    if (!usNotice) throw new Error('the US order was not notified');
    usNotice.emit('click');
    expect(shown).toEqual([{ type: 'open-order', orderId: euNew, account: ids.us }]);
    // Its Copy link names the account; "Start provisioning" is posted by the US marketplace only.
    usNotice.emit('action', { actionIndex: 1 });
    expect(copied).toEqual([`seller-tray://order/US/${euNew}`]);
    const before = { eu: euTwin.requestCounts.sendEvent, us: usTwin.requestCounts.sendEvent };
    usNotice.emit('action', { actionIndex: 0 });
    await until(async () =>
      (await call('getOrder', { orderId: euNew, account: ids.us })).outbox.some((i) => i.state === 'sent'),
    );
    expect({ eu: euTwin.requestCounts.sendEvent, us: usTwin.requestCounts.sendEvent }).toEqual({
      eu: before.eu,
      us: before.us + 1,
    });

    // Links: one naming the account (its label in any case, or its id) opens that account's order.
    const { ports, shown: opened } = recordingPorts((orderId, account) =>
      service.lookUpOrder(orderId, account),
    );
    const links = new OrderLinks();
    links.ready(ports);
    for (const link of [
      `seller-tray://order/US/${euNew}`,
      `seller-tray://order/eu/${euNew}`,
      `seller-tray://order/${ids.us}/${euNew}`,
      `seller-tray://order/${euNew}`,
    ])
      links.open([link]);
    await until(async () => opened.length === 4);
    expect(opened.slice(0, 3)).toEqual([
      { order: euNew, account: ids.us },
      { order: euNew, account: ids.eu },
      { order: euNew, account: ids.us },
    ]);
    // The old form, its id in both accounts: nothing opens, and the window says which to choose from.
    expect(opened[3]?.problem).toMatch(/EU and US each have an order with this id/);
    // The old form still opens an id only one account has (bought in the EU since the last check).
    const euOnly = (await admin(euTwin.url, 'POST', 'purchases')).json.orderId as string;
    expect(await service.lookUpOrder(euOnly)).toEqual({ found: true, account: ids.eu });
  });

  it("write and open the link of an order whose account is labelled like another account's id: that account's order, not the namesake", async () => {
    const { euTwin, usTwin, call, service } = await twinAccounts();
    const ids = {
      eu: accountRef({ baseUrl: euTwin.url, clientId: EU_CLIENT.clientId }).id as string,
      us: accountRef({ baseUrl: usTwin.url, clientId: US_CLIENT.clientId }).id as string,
    };
    // A label may be any plain word, the EU account's id too (accounts add, Settings → Accounts).
    await call('renameAccount', { account: ids.us, label: ids.eu });
    await call('checkNow');
    const [row] = (await call('listOrders', { account: ids.us })).orders;
    if (!row) throw new Error('no US order listed');
    // The twin marketplaces hold the same order ids: the EU account has a namesake of this one.
    expect((await call('getOrder', { orderId: row.orderId, account: ids.eu })).order.orderId).toBe(
      row.orderId,
    );
    const us = service.state().accounts.find((a) => a.id === ids.us);
    if (!us) throw new Error('the US account is not served');
    const target = parseOrderLink(orderLink(row.orderId, us) ?? '');
    if (!target) throw new Error('no link');
    expect(await service.lookUpOrder(target.orderId, target.account)).toEqual({
      found: true,
      account: ids.us,
    });
  });

  it('open a link naming an account no longer served in no other account, though another has an order of that id', async () => {
    const { usTwin, call, service } = await twinAccounts();
    const usId = accountRef({ baseUrl: usTwin.url, clientId: US_CLIENT.clientId }).id;
    await call('checkNow');
    const [row] = (await call('listOrders', { account: usId })).orders;
    if (!row) throw new Error('no US order listed');
    const link = `seller-tray://order/US/${row.orderId}`;
    await call('removeAccount', { account: usId, discardUndelivered: true });
    // The EU marketplace has an order of that id too (the twins are seeded alike): not the one linked.
    const { ports, shown: opened } = recordingPorts((orderId, account) =>
      service.lookUpOrder(orderId, account),
    );
    const links = new OrderLinks();
    links.ready(ports);
    links.open([link]);
    await until(async () => opened.length === 1);
    expect(opened).toEqual([
      {
        problem: expect.stringMatching(/names the account US, which Seller Tray does not serve/),
        details: [`Order id: ${row.orderId}`, 'no account US is served'],
      },
    ]);
  });

  it('take the demo as the first account while it lasts, the others kept behind it', async () => {
    const { call, service } = await openService(
      [{ label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret }],
      { baseUrl: us.url, ...US_CLIENT },
    );
    await call('startDemo');
    await call('checkNow');
    const standing = () => service.state().accounts.map((a) => [a.label, a.open, a.connection]);
    expect(standing()).toEqual([
      ['Demo', true, 'ok'],
      ['EU', true, 'ok'],
    ]);
    expect(service.state()).toMatchObject({ setup: 'demo', baseUrl: us.url });
    await call('setSettings', { demoMode: false });
    expect(standing()).toEqual([['EU', true, 'ok']]);
    expect(service.state()).toMatchObject({ setup: 'configured', baseUrl: eu.url });
    expect((await call('getSettings')).accounts).toEqual([
      { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId },
    ]);
  });

  it('are added, reconnected, renamed and removed through the bridge, a removal with statuses to send asked twice', async () => {
    const { call, service, dir } = await openService([
      { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
    ]);
    const refused = async (channel: 'addAccount' | 'removeAccount', payload: object) => {
      const answer = await service.handle(channel, payload as never);
      if (answer.ok) throw new Error(`${channel} was accepted`);
      return answer.error;
    };
    const us1 = { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId };
    const wrong = await refused('addAccount', { ...us1, secret: 'wrong' });
    expect(wrong).toMatchObject({
      code: 'api-http',
      message: expect.stringMatching(/^The marketplace rejected/),
    });
    expect(
      await refused('addAccount', { ...us1, label: 'eu', secret: US_CLIENT.clientSecret }),
    ).toMatchObject({
      code: 'invalid-input',
    });
    expect((await call('getSettings')).accounts.map((a) => a.label)).toEqual(['EU']);
    cleanups.push(() => secrets.delete(secretOwner(us.url, US_CLIENT.clientId)).then(() => undefined));
    await call('addAccount', { ...us1, secret: US_CLIENT.clientSecret });
    await call('checkNow');
    const standing = () => service.state().accounts.map((a) => [a.label, a.connection, a.pendingOutbox]);
    expect(standing()).toEqual([
      ['EU', 'ok', 0],
      ['US', 'ok', 0],
    ]);
    const usId = accountRef(us1).id;
    await call('renameAccount', { account: usId, label: 'Americas' });
    expect(standing().map(([label]) => label)).toEqual(['EU', 'Americas']);
    // Reconnected by its label: the address stays, the new secret is checked first.
    await call('addAccount', { label: 'americas', secret: US_CLIENT.clientSecret });
    await call('checkNow');

    // A status that cannot be delivered yet: the removal is refused until it is discarded.
    const usOrder = (await admin(us.url, 'POST', 'purchases')).json.orderId as string;
    await call('checkNow');
    await admin(us.url, 'PATCH', 'faults', { errorRate: 1 });
    cleanups.push(() => admin(us.url, 'PATCH', 'faults', { errorRate: 0 }).then(() => undefined));
    await call('markStatus', { orderId: usOrder, account: usId, statusCode: 'ProvisioningInProgress' });
    await until(async () => service.state().accounts[1]?.pendingOutbox === 1);
    const buyer = (await call('getOrder', { orderId: usOrder, account: usId })).order.buyerCustomerParty.party
      ?.partyName;
    expect(await refused('removeAccount', { account: usId })).toMatchObject({
      code: 'undelivered-statuses',
      message: 'Americas has 1 marked status not yet delivered to its marketplace',
      // Each one named, to be looked at before it is discarded.
      details: [`In progress for ${buyer} (order ${usOrder})`],
    });
    expect(standing().map(([label]) => label)).toEqual(['EU', 'Americas']);
    await call('removeAccount', { account: usId, discardUndelivered: true });
    expect(standing()).toEqual([['EU', 'ok', 0]]);
    expect(existsSync(accountFolder(dir, usId))).toBe(false);
    expect(await secrets.get(secretOwner(us.url, US_CLIENT.clientId))).toBeUndefined();
  });

  it('are never listed again with an empty store when the keychain refuses to delete a removed one', async () => {
    const { service, call, dir, usId } = await euAndUsPolled();
    expect(existsSync(accountFolder(dir, usId))).toBe(true);
    const refusing = vi
      .spyOn(secrets, 'delete')
      .mockRejectedValueOnce(new Error('The keychain refused to delete the secret (it is locked)'));
    onTestFinished(() => refusing.mockRestore());
    const answer = await service.handle('removeAccount', { account: usId });
    expect(answer.ok ? undefined : answer.error).toMatchObject({
      code: 'removal-unfinished',
      message: `the removal of US did not finish: The keychain refused to delete the secret (it is locked); Seller Tray finishes it when it next starts, as seller-tray accounts remove --id ${usId} does now`,
    });
    // Its data is gone, so it is not put back: the list no longer has it, its note tells the rest.
    expect(service.state().accounts.map((a) => a.label)).toEqual(['EU']);
    expect((await call('getSettings')).accounts.map((a) => a.label)).toEqual(['EU']);
    expect(existsSync(accountFolder(dir, usId))).toBe(false);
    expect(interruptedRemovals(dir, []).map((note) => note.entry.label)).toEqual(['US']);

    // The app ships without the CLI: its next start finishes the removal (the keychain willing).
    const usSecret = secretOwner(us.url, US_CLIENT.clientId);
    expect(await secrets.get(usSecret)).toBe(US_CLIENT.clientSecret);
    await service.close();
    const { again, problems } = await startedAgain(dir);
    // Finished in the background, after the start.
    await until(async () => interruptedRemovals(dir, []).length === 0);
    expect(await secrets.get(usSecret)).toBeUndefined();
    expect(again.state().accounts.map((a) => a.label)).toEqual(['EU']);
    expect(problems).toEqual([]);
  });

  it('put back at the next start when the removal, interrupted, finds statuses still to deliver, and say so', async () => {
    const { service, call, dir, usId } = await euAndUsPolled();
    const [order] = (await call('listOrders', { limit: 100 })).orders.filter((row) => row.account === usId);
    if (!order) throw new Error('no order in US');
    await admin(us.url, 'PATCH', 'faults', { errorRate: 1 });
    cleanups.push(() => admin(us.url, 'PATCH', 'faults', { errorRate: 0 }).then(() => undefined));
    await call('markStatus', {
      orderId: order.orderId,
      account: usId,
      statusCode: 'ProvisioningInProgress',
      description: 'kept through an interrupted removal',
      override: true,
    });
    await service.close();
    // A removal killed once its note was written and the list saved, before its folder moved.
    const store = new ConfSettingsStore({ cwd: dir });
    const listed = store.load().settings.accounts;
    const usEntry = listed.find((a) => a.label === 'US');
    if (!usEntry) throw new Error('US not listed');
    writeRemovalNote(dir, { entry: usEntry, at: 1, automations: [] });
    store.save({ ...store.load().settings, accounts: listed.filter((a) => a !== usEntry) });

    const { again, problems } = await startedAgain(dir);
    await until(async () => problems.length > 0);
    await until(async () => again.state().accounts.length === 2);
    expect(again.state().accounts.map((a) => a.label)).toEqual(['EU', 'US']);
    expect(problems).toEqual([
      'The account US was not removed and is listed again: US has 1 marked status not yet delivered to its marketplace. They are sent as it is checked: remove it again in Settings once they are, or to discard them.',
    ]);
    expect(interruptedRemovals(dir, store.load().settings.accounts)).toEqual([]);
    expect(existsSync(accountFolder(dir, usId))).toBe(true);
  });

  it('start without waiting for an interrupted removal another process holds up; its outcome is told after', async () => {
    const { service, dir, usId } = await euAndUsPolled();
    await service.close();
    // A removal of US killed during its hand-over (note written, list saved), and `seller-tray run`
    // (this test's session) still holding US's store, which waits 10 s to be handed over.
    const store = new ConfSettingsStore({ cwd: dir });
    const usEntry = store.load().settings.accounts.find((a) => a.label === 'US');
    if (!usEntry) throw new Error('US not listed');
    writeRemovalNote(dir, { entry: usEntry, at: 1, automations: [] });
    store.save({
      ...store.load().settings,
      accounts: store.load().settings.accounts.filter((a) => a.label !== 'US'),
    });
    const run = await AccountSession.open(accountRef(usEntry), {
      surface: 'app',
      dataRoot: dir,
      clientSecret: async () => US_CLIENT.clientSecret,
      settings: () => DEFAULT_SETTINGS,
    });
    onTestFinished(() => run.close());

    const started = Date.now();
    const { again, problems } = await startedAgain(dir);
    expect(Date.now() - started).toBeLessThan(5_000);
    // Started: EU polls, the window works, nothing is told yet.
    expect(again.state().accounts.map((a) => [a.label, a.open])).toEqual([['EU', true]]);
    expect(problems).toEqual([]);

    await until(async () => problems.length > 0, 20_000);
    expect(problems).toEqual([
      'The account US was not removed and is listed again: US is still open in another Seller Tray process (seller-tray run or watch, or an app that did not let it go): stop it and remove the account again.',
    ]);
    await until(async () => again.state().accounts.length === 2);
    expect(existsSync(accountFolder(dir, usId))).toBe(true);
    expect(await secrets.get(secretOwner(us.url, US_CLIENT.clientId))).toBe(US_CLIENT.clientSecret);
  }, 40_000);

  it('are each opened once when two changes reconnect at the same time', async () => {
    const { call } = await openService([
      { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
      { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId, secret: US_CLIENT.clientSecret },
    ]);
    const opens = vi.spyOn(AccountSession, 'open');
    onTestFinished(() => opens.mockRestore());
    const [euId, usId] = [eu, us].map(
      (sim, i) =>
        accountRef({ baseUrl: sim.url, clientId: [EU_CLIENT, US_CLIENT][i]?.clientId as string }).id,
    );
    // Each rename reopens its account (connect); the two overlap at the keychain's answers.
    await Promise.all([
      call('renameAccount', { account: euId as string, label: 'Europe' }),
      call('renameAccount', { account: usId as string, label: 'Americas' }),
    ]);
    expect(opens.mock.calls.map(([ref]) => ref.label).sort()).toEqual(['Americas', 'Europe']);
    const { accounts } = await call('getState');
    expect(accounts.map((a) => [a.label, a.open])).toEqual([
      ['Europe', true],
      ['Americas', true],
    ]);
  });

  it("read one marketplace's oddities tolerantly beside another's plain answers, each told as its own", async () => {
    const odd = await oneSellerMarketplace(11, 8001, 40, US_CLIENT);
    cleanups.push(() => odd.close());
    await admin(odd.url, 'PATCH', 'faults', {
      quirks: ['loose-values', 'unreadable-events', 'short-pages', 'post-no-body'],
    });
    const unreadable = odd.store.listEvents(8001, 0, 100_000).items.filter((e) => e.eventId.startsWith('0'));
    expect(unreadable.length).toBeGreaterThan(0); // the seed gives some
    const { call, events } = await openService([
      { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
      { label: 'US', baseUrl: odd.url, clientId: US_CLIENT.clientId, secret: US_CLIENT.clientSecret },
    ]);
    await call('checkNow');
    const bought = [
      (await admin(eu.url, 'POST', 'purchases')).json.orderId as string,
      (await admin(odd.url, 'POST', 'purchases')).json.orderId as string,
      (await admin(odd.url, 'POST', 'purchases')).json.orderId as string,
    ];
    expect((await call('checkNow')).newOrders).toBe(3);
    expect(arrived(events)).toEqual(expect.arrayContaining(bought));
    // What could not be read is told once, as the US account's.
    const problems = events.flatMap((e) => (e.type === 'problem' ? [e.message] : []));
    expect(problems).toEqual([
      expect.stringMatching(/^US: \d+ events? from the marketplace could not be read/),
    ]);
    const sent = { eu: eu.requestCounts.sendEvent, us: odd.requestCounts.sendEvent };
    for (const orderId of bought) await call('markStatus', { orderId, statusCode: 'ProvisioningInProgress' });
    for (const orderId of bought)
      await until(async () => (await call('getOrder', { orderId })).outbox.some((i) => i.state === 'sent'));
    expect({ eu: eu.requestCounts.sendEvent - sent.eu, us: odd.requestCounts.sendEvent - sent.us }).toEqual({
      eu: 1,
      us: 2,
    });
  });

  it("each follow their marketplace's own routes from the settings file, the others the built-in ones", async () => {
    const unseen = '/gateway/v2/events/unseen';
    const { call, sent } = await openService([
      {
        label: 'EU',
        baseUrl: eu.url,
        clientId: EU_CLIENT.clientId,
        secret: EU_CLIENT.clientSecret,
        api: { routes: { listNewEvents: { path: unseen } } },
      },
      { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId, secret: US_CLIENT.clientSecret },
    ]);
    await call('checkNow');
    await call('checkNow'); // the first poll reads "all" alone; this one asks "new" too
    const paths = (url: string) =>
      new Set(sent.filter((s) => s.origin === new URL(url).origin).map((s) => s.path));
    expect(paths(eu.url)).toContain(unseen);
    expect(paths(eu.url)).not.toContain('/seller/v1/marketplaceEvents/new');
    expect(paths(us.url)).toContain('/seller/v1/marketplaceEvents/new');
    expect(paths(us.url)).not.toContain(unseen);
  });

  it('keep working when another account is down or refuses its secret; the log names each', async () => {
    const down = await oneSellerMarketplace(4, 4001, 1, EU_CLIENT);
    await down.close();
    const { call, events, entries, service } = await openService([
      { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
      { label: 'Down', baseUrl: down.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
      { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId, secret: 'not-the-us-secret' },
    ]);
    await call('checkNow');
    const euOrder = (await admin(eu.url, 'POST', 'purchases')).json.orderId as string;
    const { newOrders } = await call('checkNow');
    expect(newOrders).toBe(1);
    expect(arrived(events)).toContain(euOrder);
    expect(service.state().accounts.map((a) => [a.label, a.connection])).toEqual([
      ['EU', 'ok'],
      ['Down', 'offline'],
      ['US', 'credentials-rejected'],
    ]);
    // Read in the app: its advice names the app's Settings (a terminal's names the CLI's commands).
    expect(service.state().accounts.find((a) => a.label === 'US')?.problem?.message).toBe(
      'The marketplace rejected the client id or secret. Enter the current secret with Replace secret in Settings → Accounts.',
    );
    const polls = (account: string) =>
      entries.filter((e) => e.message.startsWith('poll') && e.fields.account === account);
    expect(polls('EU').every((e) => e.message === 'poll ok')).toBe(true);
    // Check now answered at Down's first failed attempt; its poll ends after its retries.
    await until(async () => polls('Down').length > 0);
    expect(polls('Down').at(-1)?.fields).toMatchObject({ kind: 'network', next: 'backing-off' });
    expect(polls('US').at(-1)?.fields).toMatchObject({ next: 'credentials-rejected' });
  });
});

describe("one account held by its marketplace's Retry-After", () => {
  it('waits as it was asked while the other is polled, its new orders announced and its marks sent', async () => {
    const { call, events, service } = await openService([
      { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
      { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId, secret: US_CLIENT.clientSecret },
    ]);
    await call('checkNow');
    // The US marketplace asks for 15 minutes' quiet, on every call.
    await admin(us.url, 'PATCH', 'faults', {
      script: [{ action: 'status', status: 429, retryAfterSeconds: 900, times: 10_000 }],
    });
    cleanups.push(() => admin(us.url, 'PATCH', 'faults', { script: [] }).then(() => undefined));
    const usCalls = () => Object.values(us.requestCounts).reduce((a, b) => a + b, 0);
    await call('checkNow');
    const heldAt = usCalls();
    const euOrder = (await admin(eu.url, 'POST', 'purchases')).json.orderId as string;
    for (let i = 0; i < 3; i += 1) await call('checkNow');
    expect(arrived(events)).toContain(euOrder);
    await call('markStatus', { orderId: euOrder, statusCode: 'ProvisioningInProgress' });
    await until(async () =>
      (await call('getOrder', { orderId: euOrder })).outbox.some((i) => i.state === 'sent'),
    );
    // While its wait lasts, the US is asked only at each Check now (the person's own try, once a
    // press), never by EU's polls, order or mark.
    expect(usCalls() - heldAt).toBe(3);
    expect(service.state().accounts.map((a) => [a.label, a.connection])).toEqual([
      ['EU', 'ok'],
      ['US', 'server-problem'],
    ]);
    expect(service.state().accounts.find((a) => a.label === 'US')?.problem?.message).toMatch(
      /asked Seller Tray to slow down/,
    );
  });
});

describe('Needs attention and the counts with two accounts', () => {
  it("sum every account's counts and list every account's items, each acted on in its own account", async () => {
    const { euTwin, usTwin, call, service } = await twinAccounts(12, { reminderAfterMinutes: 15 });
    const ids = {
      eu: accountRef({ baseUrl: euTwin.url, clientId: EU_CLIENT.clientId }).id as string,
      us: accountRef({ baseUrl: usTwin.url, clientId: US_CLIENT.clientId }).id as string,
    };
    await call('checkNow');
    const own = async (account: string) => (await call('listOrders', { account, limit: 1 })).waiting;
    const seeded = { eu: await own(ids.eu), us: await own(ids.us) };
    expect(seeded.eu).toBeGreaterThan(0);
    expect(seeded.us).toBeGreaterThan(0);
    // A new order waits in the US only: the sums are not twice one account's.
    await admin(usTwin.url, 'POST', 'purchases');
    await call('checkNow');
    const state = service.state();
    expect(state.waitingCount).toBe(seeded.eu + seeded.us + 1);
    expect(state.accounts.map((a) => a.open)).toEqual([true, true]);

    // Needs attention reads the stores only: no marketplace call.
    const calls = () =>
      [euTwin, usTwin].reduce((n, sim) => n + Object.values(sim.requestCounts).reduce((a, b) => a + b, 0), 0);
    const before = calls();
    const view = await call('getAttention');
    expect(calls()).toBe(before);
    const accountsOf = (rows: { account: string }[]) => new Set(rows.map((r) => r.account));
    // The seeded waiting orders are past the 15-minute reminder; the new one is not yet.
    expect(view.notStarted.filter((r) => r.account === ids.eu)).toHaveLength(seeded.eu);
    expect(view.notStarted.filter((r) => r.account === ids.us)).toHaveLength(seeded.us);
    expect(view.counts.notStarted).toBe(seeded.eu + seeded.us);
    expect(state.attention.notStarted).toBe(seeded.eu + seeded.us);
    // The tray counts every account's waiting orders and what needs attention beside them.
    const tray = new FakeTray();
    const nothing = () => {};
    const control = startTray({
      service,
      tray,
      open: nothing,
      attention: nothing,
      insights: nothing,
      settings: nothing,
      help: nothing,
      quit: nothing,
    });
    cleanups.push(async () => control.stop());
    const { stalled, unconfirmed, failed, keptAside } = view.counts;
    expect(tray.title).toBe(String(seeded.eu + seeded.us + 1 + stalled + unconfirmed + failed + keptAside));
    // The newest purchase first, whichever account it is of.
    const times = view.notStarted.map((r) => Date.parse(r.since ?? ''));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    // Snoozed in the US, the same order id in the EU is not.
    const twin = view.notStarted.find(
      (r) =>
        r.account === ids.us && view.notStarted.some((e) => e.account === ids.eu && e.orderId === r.orderId),
    );
    if (!twin) throw new Error('no order id in both accounts');
    const until = new Date(Date.now() + 3_600_000).toISOString();
    await call('snoozeOrder', { orderId: twin.orderId, until, account: ids.us });
    const snoozed = (await call('getAttention')).notStarted.filter((r) => r.orderId === twin.orderId);
    expect(snoozed.map((r) => [r.account, r.snoozedUntil !== undefined])).toEqual(
      expect.arrayContaining([
        [ids.us, true],
        [ids.eu, false],
      ]),
    );

    // Items kept aside in both; marked seen in the EU, the US's stay.
    for (const twinSim of [euTwin, usTwin])
      await admin(twinSim.url, 'PATCH', 'faults', { quirks: ['unreadable-events'] });
    await call('checkNow');
    const aside = (await call('getAttention')).keptAside;
    expect(accountsOf(aside)).toEqual(new Set([ids.eu, ids.us]));
    const newestEu = aside.find((item) => item.account === ids.eu)?.id ?? 0;
    const usAside = service.state().attention.keptAside - aside.filter((i) => i.account === ids.eu).length;
    await call('markAsideSeen', { upToId: newestEu, account: ids.eu });
    const afterSeen = await call('getAttention');
    expect(accountsOf(afterSeen.keptAside)).toEqual(new Set([ids.us]));
    expect(afterSeen.counts.keptAside).toBe(usAside);
    expect(service.state().attention.keptAside).toBe(usAside);
  });

  it("send again a status the US marketplace did not show to the US only, its twin order's account untouched", async () => {
    const { euTwin, usTwin, call, service } = await twinAccounts();
    const us = accountRef({ baseUrl: usTwin.url, clientId: US_CLIENT.clientId }).id as string;
    await call('checkNow');
    const [row] = (await call('listOrders', { account: us })).orders;
    if (!row) throw new Error('no order listed');
    await admin(usTwin.url, 'PATCH', 'faults', { quirks: ['lost-posts'] });
    await call('markStatus', { orderId: row.orderId, account: us, statusCode: 'ProvisioningInProgress' });
    await until(async () =>
      (await call('getOrder', { orderId: row.orderId, account: us })).outbox.some((i) => i.state === 'sent'),
    );
    for (let poll = 0; poll < UNCONFIRMED_AFTER_POLLS; poll++) await call('checkNow');
    const [unconfirmed] = (await call('getAttention')).unconfirmed;
    expect(unconfirmed?.account).toBe(us);
    expect(service.state().attention.unconfirmed).toBe(1);
    await admin(usTwin.url, 'PATCH', 'faults', { quirks: [] });
    const posts = { eu: euTwin.requestCounts.sendEvent, us: usTwin.requestCounts.sendEvent };
    const { outcome } = await call('resendStatus', {
      requestId: unconfirmed?.item.requestId ?? '',
      account: unconfirmed?.account,
    });
    expect(outcome).toBe('sent-again');
    await until(async () => usTwin.requestCounts.sendEvent > posts.us);
    expect({ eu: euTwin.requestCounts.sendEvent, us: usTwin.requestCounts.sendEvent }).toEqual({
      eu: posts.eu,
      us: posts.us + 1,
    });
    // Named for the other account, the same request is not found there.
    await expect(
      call('resendStatus', {
        requestId: unconfirmed?.item.requestId ?? '',
        account: accountRef({ baseUrl: euTwin.url, clientId: EU_CLIENT.clientId }).id,
      }),
    ).rejects.toThrow();
  });
});

describe('Check now with one account down', () => {
  it('answers once each account answered or failed once, not after the retries; each failure shown as its own', async () => {
    const failing = await oneSellerMarketplace(5, 4501, 1, EU_CLIENT);
    cleanups.push(() => failing.close());
    const closed = await oneSellerMarketplace(6, 4601, 1, EU_CLIENT);
    await closed.close();
    const { call, service, sent } = await openService([
      { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
      { label: 'Errors', baseUrl: failing.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
      { label: 'Down', baseUrl: closed.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
      { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId, secret: 'not-the-us-secret' },
    ]);
    await call('checkNow');
    // "Errors" asks for 30 s before a retry (the client waits up to 60 s), "Down" refuses connections.
    await admin(failing.url, 'PATCH', 'faults', {
      script: [{ operation: 'listEvents', action: 'status', status: 503, retryAfterSeconds: 30 }],
    });
    await admin(eu.url, 'POST', 'purchases');
    const toDown = () => sent.filter((s) => s.origin === new URL(closed.url).origin).length;
    const [downBefore, startedAt] = [toDown(), Date.now()];
    const { newOrders, state } = await call('checkNow');
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    // One attempt at the closed marketplace, not its five (their backoff is 125 ms at least).
    expect(toDown() - downBefore).toBe(1);
    expect(newOrders).toBe(1);
    const byLabel = Object.fromEntries(state.accounts.map((a) => [a.label, a]));
    expect(byLabel.EU).toMatchObject({ connection: 'ok', problem: null });
    expect(byLabel.Errors?.connection).toBe('server-problem');
    expect(byLabel.Errors?.problem?.message).toMatch(/server error/);
    expect(byLabel.Down?.connection).toBe('offline');
    expect(byLabel.Down?.problem?.message).toMatch(/could not be reached/);
    expect(byLabel.US?.connection).toBe('credentials-rejected');
    // A check while Errors waits out its 30 s answers at once too, still saying why, for Errors only.
    const againAt = Date.now();
    const again = await call('checkNow');
    expect(Date.now() - againAt).toBeLessThan(5_000);
    expect(again.state.accounts.map((a) => [a.label, a.connection])).toEqual([
      ['EU', 'ok'],
      ['Errors', 'server-problem'],
      ['Down', 'offline'],
      ['US', 'credentials-rejected'],
    ]);
    expect(service.state().accounts.find((a) => a.label === 'Errors')?.problem?.message).toMatch(
      /server error/,
    );
  });
});

describe('accounts the CLI changes while the app runs', () => {
  it('are served, renamed and closed without a restart, the statuses another account holds kept', async () => {
    const home = await mkdtemp(join(tmpdir(), 'accounts-watch-'));
    const dataRoot = join(home, 'Seller Tray');
    ensurePrivateDir(dataRoot);
    const settings = new ConfSettingsStore({ cwd: dataRoot });
    settings.save({
      ...DEFAULT_SETTINGS,
      undoSeconds: 60, // a mark is held a minute: it waits, to be sent, through what follows
      accounts: [{ label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId }],
    });
    await secrets.set(secretOwner(eu.url, EU_CLIENT.clientId), EU_CLIENT.clientSecret);
    const { log, entries } = recordingLog();
    const service = await SellerTrayService.open({
      settings,
      secrets,
      dataRoot,
      timers: new ManualTimers(),
      log,
      settingsChanges: (changed) => watchFile(settings.path, changed),
    });
    cleanups.push(async () => {
      await service.close();
      await secrets.delete(secretOwner(eu.url, EU_CLIENT.clientId));
      await secrets.delete(secretOwner(us.url, US_CLIENT.clientId));
      await rm(home, { recursive: true, force: true });
    });
    const cli = (args: string[], input = '') =>
      runTs('main/cli/seller-tray.ts', args, { XDG_CONFIG_HOME: home, SELLER_CLIENT_SECRET: '' }, input);
    const account = (label: string) => service.state().accounts.find((a) => a.label === label);
    const { call } = serviceCalls(service);
    await call('checkNow');
    const orderId = (await call('listOrders', {})).orders[0]?.orderId ?? '';
    await call('markStatus', { orderId, statusCode: 'ProvisioningInProgress' });
    expect(account('EU')?.pendingOutbox).toBe(1);

    const added = await cli(
      ['accounts', 'add', 'US', '--base-url', us.url, '--client-id', US_CLIENT.clientId],
      US_CLIENT.clientSecret,
    );
    expect(added).toMatchObject({ code: 0, stderr: '' });
    await until(async () => account('US')?.open === true && account('US')?.lastSuccessfulPoll !== null);
    expect(account('US')?.connection).toBe('ok');
    const opened = (label: string) =>
      entries.filter((e) => e.message === 'account connected' && e.fields.account === label).length;
    // EU's session went on untouched: not reopened, its held status still waiting to be sent.
    expect(opened('EU')).toBe(1);
    expect(account('EU')?.pendingOutbox).toBe(1);

    expect((await cli(['accounts', 'rename', 'US', 'Americas'])).code).toBe(0);
    await until(async () => account('Americas')?.open === true);
    expect(opened('Americas')).toBe(1);

    // Removed while open here: handed over (the app closes its store), then its folder goes for good.
    const americas = accountFolder(
      dataRoot,
      accountRef({ baseUrl: us.url, clientId: US_CLIENT.clientId }).id,
    );
    expect(existsSync(americas)).toBe(true);
    // A status held in the app: counted once the app has handed the account over, so refused,
    // and the account put back (the app opens it again, the status still to send).
    const americasOrder = (await call('listOrders', { account: account('Americas')?.id })).orders.find(
      (o) => o.waiting,
    );
    await call('markStatus', {
      orderId: americasOrder?.orderId ?? '',
      account: account('Americas')?.id,
      statusCode: 'ProvisioningInProgress',
    });
    const refused = await cli(['accounts', 'remove', 'Americas']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Americas has 1 marked status not yet delivered');
    await until(async () => account('Americas')?.open === true);
    expect(account('Americas')?.pendingOutbox).toBe(1);
    expect(existsSync(americas)).toBe(true);

    expect((await cli(['accounts', 'remove', 'Americas', '--force'])).code).toBe(0);
    expect(service.state().accounts.map((a) => [a.label, a.open, a.pendingOutbox])).toEqual([
      ['EU', true, 1],
    ]);
    expect(opened('EU')).toBe(1);
    await call('checkNow');
    await service.close();
    expect(existsSync(americas)).toBe(false);
  });
});

describe('a settings file edited by hand while the app runs', () => {
  it('tells the window what was left out, and where a file it cannot use broke, once per change', async () => {
    const dir = await makeDataDir();
    const settings = new ConfSettingsStore({ cwd: dir });
    settings.save({
      ...DEFAULT_SETTINGS,
      accounts: [{ label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId }],
    });
    await secrets.set(secretOwner(eu.url, EU_CLIENT.clientId), EU_CLIENT.clientSecret);
    let fileChanged = () => {};
    const service = await SellerTrayService.open({
      settings,
      secrets,
      dataRoot: dir,
      timers: new ManualTimers(),
      settingsChanges: (changed) => {
        fileChanged = changed;
        return () => {};
      },
    });
    cleanups.push(async () => {
      await service.close();
      await secrets.delete(secretOwner(eu.url, EU_CLIENT.clientId));
      await rm(dir, { recursive: true, force: true });
    });
    const problems: string[] = [];
    service.onEvent((event) => {
      if (event.type === 'problem') problems.push(event.message);
    });
    service.listening();
    const saved = JSON.parse(readFileSync(settings.path, 'utf8'));
    const bad = { name: 'bad one', action: { type: 'webhook', url: 'http://billing.example/hook' } };
    const edited = async (text: string, told: number) => {
      writeFileSync(settings.path, text);
      fileChanged();
      await until(async () => problems.length >= told);
    };
    await edited(JSON.stringify({ ...saved, automations: [bad] }), 1);
    // The same problem read again (saved again as it was) is not told again; a file not JSON is.
    await edited(JSON.stringify({ ...saved, automations: [bad] }, null, 1), 1);
    await edited('{"automations": [', 2);
    await edited('{"automations": [', 2);
    await edited(JSON.stringify({ ...saved, automations: [bad, { ...bad, name: 'worse' }] }), 3);
    expect(problems).toEqual([
      expect.stringContaining('automations[0].action.url: the address must use https://'),
      `Your settings file ${settings.path} was unreadable (not valid JSON at line 1, column 18); it was left as it is, and the settings in force stay until it can be used.`,
      expect.stringContaining('automations[1].action.url: the address must use https://'),
    ]);
    expect(service.state().accounts.map((a) => a.label)).toEqual(['EU']);
  });
});

describe("the app's Settings and `accounts remove` removing one account at the same time", () => {
  it('take turns, round after round: the account ends gone with nothing left, and neither answer is untrue', async () => {
    const home = await mkdtemp(join(tmpdir(), 'accounts-both-remove-'));
    const dataRoot = join(home, 'Seller Tray');
    ensurePrivateDir(dataRoot);
    const settings = new ConfSettingsStore({ cwd: dataRoot });
    const euEntry = { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId };
    const usEntry = { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId };
    const usId = accountRef(usEntry).id;
    const usSecret = secretOwner(us.url, US_CLIENT.clientId);
    settings.save({ ...DEFAULT_SETTINGS, accounts: [euEntry] });
    await secrets.set(secretOwner(eu.url, EU_CLIENT.clientId), EU_CLIENT.clientSecret);
    const service = await SellerTrayService.open({
      settings,
      secrets,
      dataRoot,
      timers: new ManualTimers(),
      settingsChanges: (changed) => watchFile(settings.path, changed),
    });
    cleanups.push(async () => {
      await service.close();
      await secrets.delete(secretOwner(eu.url, EU_CLIENT.clientId));
      await secrets.delete(usSecret);
      await rm(home, { recursive: true, force: true });
    });
    const cliRemove = () =>
      runTs('main/cli/seller-tray.ts', ['accounts', 'remove', 'US'], {
        XDG_CONFIG_HOME: home,
        SELLER_CLIENT_SECRET: '',
      });
    const answers: string[] = [];
    for (let round = 0; round < 4; round++) {
      // US added (by the CLI, as the app sees it) and polled by the app.
      await secrets.set(usSecret, US_CLIENT.clientSecret);
      settings.save({ ...settings.load().settings, accounts: [euEntry, usEntry] });
      await until(async () => service.state().accounts.some((a) => a.id === usId && a.open));
      await service.handle('checkNow', undefined);

      const appRemove = () => service.handle('removeAccount', { account: usId });
      let both: [Awaited<ReturnType<typeof appRemove>>, Awaited<ReturnType<typeof cliRemove>>];
      if (round % 2 === 0) {
        // The CLI first: the app asks once the CLI's removal is under way (its note written).
        const cli = cliRemove();
        await until(async () => existsSync(join(dataRoot, 'removals', `${usId}.json`)), 20_000).catch(
          () => {},
        );
        both = [await appRemove(), await cli];
      } else {
        // The app first, its hand-over held up by a process that has US open (`seller-tray run`),
        // while the CLI starts and waits its turn.
        const run = await AccountSession.open(accountRef(usEntry), {
          surface: 'app',
          dataRoot,
          clientSecret: async () => US_CLIENT.clientSecret,
          settings: () => DEFAULT_SETTINGS,
        });
        const app = appRemove();
        const cli = cliRemove();
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        await run.close();
        both = [await app, await cli];
      }
      const [app, cli] = both;
      const appSaid = app.ok ? 'removed' : `${app.error.code}: ${app.error.message}`;
      // The CLI removed it, found it removed by the app, or started once the app was done.
      const cliSaid =
        cli.code === 0 && cli.stdout.startsWith('Removed account US')
          ? 'removed'
          : cli.code === 0 && cli.stdout.startsWith('Account US was removed meanwhile by another')
            ? 'removed by the other'
            : cli.code === 2 && cli.stderr.includes('there is no account labelled "US"')
              ? 'already gone'
              : JSON.stringify(cli);
      answers.push(`${appSaid} / ${cliSaid}`);
      expect(appSaid).toBe('removed');
      // First, the CLI removes it; second, it waited its turn (or came once the app was done).
      if (round % 2 === 0) expect(cliSaid).toBe('removed');
      else expect(['removed by the other', 'already gone']).toContain(cliSaid);
      await until(async () => service.state().accounts.every((a) => a.id !== usId));
      expect(settings.load().settings.accounts).toEqual([euEntry]);
      expect(existsSync(accountFolder(dataRoot, usId))).toBe(false);
      expect(existsSync(`${accountFolder(dataRoot, usId)}.removing`)).toBe(false);
      expect(interruptedRemovals(dataRoot, [])).toEqual([]);
      expect(await secrets.get(usSecret)).toBeUndefined();
    }
    console.info('the app / the CLI said:', answers);
  }, 120_000);
});

describe("two accounts' automations", () => {
  /** A command automation of node running `script` (by default printing "ran"). */
  const command = (
    name: string,
    accounts: AutomationSetting['accounts'],
    script = 'console.log("ran")',
  ): AutomationSetting => ({
    name,
    enabled: true,
    products: [],
    orderTypes: [],
    accounts,
    action: { type: 'command', command: [process.execPath, '-e', script], timeoutSeconds: 30 },
    reportStatus: null,
  });

  it("link the order as the app's Copy link does: naming its account", async () => {
    const euId = accountRef({ baseUrl: eu.url, clientId: EU_CLIENT.clientId }).id;
    const links = `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).link,process.env.SELLER_TRAY_ORDER_LINK))`;
    const { call, service } = await openService(
      [
        { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
        { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId, secret: US_CLIENT.clientSecret },
      ],
      undefined,
      { automationsEnabled: true, automations: [command('links', 'all', links)] },
    );
    await call('checkNow');
    const orderId = (await admin(eu.url, 'POST', 'purchases')).json.orderId as string;
    await call('checkNow');
    await until(async () =>
      (await call('getOrder', { orderId })).automationRuns.every((r) => r.finishedAt !== null),
    );
    const [run] = (await call('getOrder', { orderId })).automationRuns;
    // What Copy link copies on the order page (App.tsx, CopyOrderLink.tsx).
    const copied = orderLink(orderId, namedAccount(service.state().accounts, euId));
    expect(copied).toBe(`seller-tray://order/EU/${orderId}`);
    expect(run?.output?.trim()).toBe(`${copied} ${copied}`);
  });

  it('run only for the accounts each names, by id, so a renamed account keeps its automations', async () => {
    const euId = accountRef({ baseUrl: eu.url, clientId: EU_CLIENT.clientId }).id;
    const { call } = await openService(
      [
        { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
        { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId, secret: US_CLIENT.clientSecret },
      ],
      undefined,
      { automationsEnabled: true, automations: [command('eu only', [euId]), command('everyone', 'all')] },
    );
    await call('checkNow');
    const runsOf = async (orderId: string) => {
      await until(async () =>
        (await call('getOrder', { orderId })).automationRuns.every((r) => r.finishedAt !== null),
      );
      const { automationRuns } = await call('getOrder', { orderId });
      return automationRuns.map((r) => [r.automation, r.state]).sort();
    };
    const bought = async (sim: Simulator) => {
      const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId as string;
      await call('checkNow');
      return orderId;
    };
    const euOrder = await bought(eu);
    const usOrder = await bought(us);
    expect(await runsOf(euOrder)).toEqual([
      ['eu only', 'succeeded'],
      ['everyone', 'succeeded'],
    ]);
    expect(await runsOf(usOrder)).toEqual([['everyone', 'succeeded']]);

    await call('renameAccount', { account: euId, label: 'Europe' });
    expect(await runsOf(await bought(eu))).toEqual([
      ['eu only', 'succeeded'],
      ['everyone', 'succeeded'],
    ]);
  });
});

describe('two accounts across kill -9', () => {
  it('every purchase of each marketplace is announced naming its account, and each mark reaches its own marketplace exactly once', async () => {
    const home = await mkdtemp(join(tmpdir(), 'accounts-kill-'));
    const env = {
      SELLER_API_BASE_URL: '',
      SELLER_CLIENT_ID: '',
      SELLER_CLIENT_SECRET: '',
      XDG_CONFIG_HOME: home,
    };
    const dataRoot = userDataDir(env);
    const listed = [
      { label: 'EU', sim: eu, client: EU_CLIENT, sellerId: 2001 },
      { label: 'US', sim: us, client: US_CLIENT, sellerId: 3001 },
    ];
    new ConfSettingsStore({ cwd: ensurePrivateDir(dataRoot) }).save({
      ...DEFAULT_SETTINGS,
      accounts: listed.map(({ label, sim, client }) => ({
        label,
        baseUrl: sim.url,
        clientId: client.clientId,
      })),
    });
    for (const { sim, client } of listed)
      await secrets.set(secretOwner(sim.url, client.clientId), client.clientSecret);
    cleanups.push(async () => {
      for (const { sim, client } of listed) {
        await admin(sim.url, 'PATCH', 'faults', { errorRate: 0, dropRate: 0, latencyMs: 0 });
        await secrets.delete(secretOwner(sim.url, client.clientId));
      }
      await rm(home, { recursive: true, force: true });
    });
    expect(await watchOnce(env)).toMatchObject({ announced: [], killed: false }); // the backlogs: silent

    // A status marked in each account while its marketplace fails: both wait in their outboxes.
    for (const { label, sim, client } of listed) {
      const session = await AccountSession.open(
        accountRef({ label, baseUrl: sim.url, clientId: client.clientId }),
        {
          surface: 'app',
          dataRoot,
          clientSecret: async () => client.clientSecret,
          settings: () => ({ ...DEFAULT_SETTINGS, undoSeconds: 0 }),
        },
      );
      const [order] = session.core.orders({ filter: 'all', search: '', offset: 0, limit: 1 }).rows;
      if (!order) throw new Error(`no order in ${label}`);
      await admin(sim.url, 'PATCH', 'faults', { errorRate: 1 });
      await session.core.markStatus({
        orderId: order.orderId,
        statusCode: 'ProvisioningInProgress',
        description: `Marked in ${label}`,
        override: true,
      });
      await session.core.deliverOutbox();
      expect(session.core.status().pendingOutbox).toBe(1);
      await session.close();
    }

    const purchases: [string, string][] = [];
    const runs: Awaited<ReturnType<typeof watchOnce>>[] = [];
    for (const { sim } of listed)
      await admin(sim.url, 'PATCH', 'faults', { errorRate: 0.15, dropRate: 0.05, latencyMs: 20 });
    // Kills at random instants; on a fast machine every run may end before its kill, so rounds go
    // on, killed ever sooner, until one kill has landed (a process cannot even start within 100 ms).
    for (let round = 0; round < 5 || (!runs.some((run) => run.killed) && round < 10); round++) {
      for (const { label, sim } of listed)
        purchases.push([label, (await admin(sim.url, 'POST', 'purchases')).json.orderId]);
      runs.push(await watchOnce(env, round < 5 ? 150 + Math.random() * 1800 : 100));
    }
    for (const { sim } of listed)
      await admin(sim.url, 'PATCH', 'faults', { errorRate: 0, dropRate: 0, latencyMs: 0 });
    runs.push(await watchOnce(env));

    expect(runs.some((run) => run.killed)).toBe(true);
    expectAnnouncedOnce(
      runs.map((run) => ({
        announced: run.announced.map(({ account, orderId }) => `${account} ${orderId}`),
        killed: run.killed,
      })),
      purchases.map(([account, id]) => `${account} ${id}`),
    );
    for (const { label, sim, sellerId } of listed) {
      const descriptions = sim.store.listEvents(sellerId, 0, 100_000).items.map((e) => e.description);
      expect(descriptions.filter((d) => d === `Marked in ${label}`)).toHaveLength(1);
      expect(descriptions.filter((d) => d?.startsWith('Marked in ') && d !== `Marked in ${label}`)).toEqual(
        [],
      );
    }
  }, 120_000);
});

/** A store held by another process (`seller-tray run`, an app slow to let it go): a read under way. */
function heldStore(dir: string, entry: AccountEntry) {
  const { db } = openDatabase(join(accountFolder(dir, accountRef(entry).id), DATABASE_FILE));
  db.exec('BEGIN'); // its lock is held until the read ends
  db.prepare('SELECT count(*) FROM meta').get();
  return () => {
    if (!db.isOpen) return;
    db.exec('COMMIT');
    db.close();
  };
}

/**
 * A laptop (the CLI's view: the list kept as its file is) where EU is listed with its folder and
 * secret, and a removal of `entry` is held at its hand-over by a process holding its store: answers
 * once its note is written and the list saved without it; `letGo` ends that process's hold.
 */
async function cliLaptopWithEu() {
  const dir = await makeDataDir();
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const euEntry = { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId };
  const memory = memorySecrets();
  await memory.set(keychainEntry(accountRef(euEntry)), EU_CLIENT.clientSecret);
  let settings: CoreSettings = { ...DEFAULT_SETTINGS, accounts: [euEntry] };
  const current = () => settings;
  const save = (next: CoreSettings) => {
    settings = next;
    return settings;
  };
  const removalAtHandOver = async (entry: AccountEntry) => {
    const letGo = heldStore(dir, entry);
    cleanups.unshift(async () => letGo());
    let listSaved: () => void = () => {};
    const saved = new Promise<void>((resolve) => {
      listSaved = resolve;
    });
    const removal = removeAccount({ label: entry.label }, true, {
      secrets: memory,
      dataRoot: dir,
      handOverMs: 5_000,
      settings: current,
      updateSettings: (change) => {
        const next = save(change(current()));
        if (!next.accounts.some((a) => a.label === entry.label)) listSaved();
        return next;
      },
    });
    await saved;
    return { removal, letGo };
  };
  return { dir, euEntry, secrets: memory, current, save, removalAtHandOver };
}

describe('adding an account while a removal of it is under way', () => {
  it('under another label (the same marketplace client), waits its turn: the secret just stored is kept', async () => {
    const l = await cliLaptopWithEu();
    // The CLI's removal of EU has written its note and saved the list without EU; it waits for
    // the hand-over. The user adds that client again in Settings as "Europe": not the noted
    // label, so it did not wait, and the removal then deleted the secret just stored.
    const { removal, letGo } = await l.removalAtHandOver(l.euEntry);
    const ends: string[] = [];
    removal.then(() => ends.push('removal'));
    const adding = addAccount(
      {
        which: { label: 'Europe' },
        baseUrl: eu.url,
        clientId: EU_CLIENT.clientId,
        secret: EU_CLIENT.clientSecret,
      },
      { secrets: l.secrets, dataRoot: l.dir, settings: l.current },
    );
    adding.then(() => ends.push('add'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ends).toEqual([]); // both wait: the removal its hand-over, the add its turn
    letGo();
    await removal;
    l.save((await adding).settings);
    expect(ends).toEqual(['removal', 'add']);
    expect(l.current().accounts.map((a) => a.label)).toEqual(['Europe']);
    expect(await l.secrets.get(keychainEntry(accountRef(l.euEntry)))).toBe(EU_CLIENT.clientSecret);
  }, 20_000);

  it('bringing back an interrupted removal (`accounts add --id`) after another removal, saves the list as that one left it', async () => {
    const l = await cliLaptopWithEu();
    // EU's removal was interrupted (noted, unlisted); US is listed, its store held by a process.
    const usEntry = { label: 'US', baseUrl: 'https://us.example.com', clientId: 'us-client' };
    writeRemovalNote(l.dir, { entry: l.euEntry, at: 0, automations: [] });
    l.save({ ...l.current(), accounts: [usEntry] });
    // `accounts add --id <EU>` read the list before (a prompt for the secret, a wait) …
    const readBefore = l.current();
    // … while the app's Settings removes US: its turn taken, the list saved without US.
    const { removal, letGo } = await l.removalAtHandOver(usEntry);
    let reads = 0;
    const adding = addAccount(
      { which: { id: accountRef(l.euEntry).id }, secret: EU_CLIENT.clientSecret },
      // Its first read is the one made before; any read after the wait is the file as it is then.
      { secrets: l.secrets, dataRoot: l.dir, settings: () => (reads++ === 0 ? readBefore : l.current()) },
    );
    await new Promise((resolve) => setTimeout(resolve, 300)); // the add waits its turn
    letGo();
    expect((await removal).entry.label).toBe('US');
    l.save((await adding).settings); // as the CLI saves what addAccount answers
    // US's data and secret are gone: listed again it would be an account with an empty store.
    expect(l.current().accounts.map((a) => a.label)).toEqual(['EU']);
  }, 20_000);
});

/**
 * A laptop where EU is listed and the removals of `noted` were killed during their hand-over (note
 * written, list saved), each store still held by another process (`seller-tray run`), which the
 * app's start then waits 10 s for, in the background. Answers how to let each store go.
 */
async function laptopWithHeldRemovals(noted: AccountEntry[]) {
  const dir = await makeDataDir();
  const euEntry = { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId };
  const settings = new ConfSettingsStore({ cwd: dir });
  settings.save({ ...DEFAULT_SETTINGS, accounts: [euEntry] });
  const memory = memorySecrets();
  await memory.set(keychainEntry(accountRef(euEntry)), EU_CLIENT.clientSecret);
  const held = noted.map((entry, at) => {
    writeRemovalNote(dir, { entry, at: at + 1, automations: [] });
    return heldStore(dir, entry);
  });
  const letGo = () => {
    for (const release of held) release();
  };
  cleanups.push(async () => {
    letGo();
    await rm(dir, { recursive: true, force: true });
  });
  const open = () =>
    SellerTrayService.open({ settings, secrets: memory, dataRoot: dir, timers: new ManualTimers() });
  return { dir, settings, secrets: memory, euId: accountRef(euEntry).id, letGo, open };
}

const usNoted = { label: 'US', baseUrl: 'https://us.example.com', clientId: 'us-client' };
const apNoted = { label: 'AP', baseUrl: 'https://ap.example.com', clientId: 'ap-client' };
const said = (answer: { ok: true } | { ok: false; error: { code: string; message: string } }) =>
  answer.ok ? 'removed' : `${answer.error.code}: ${answer.error.message}`;

describe("Settings' removals meeting other removals in the app", () => {
  it("during the start's background finish: removes the account (the finish reconnecting does not reopen it)", async () => {
    const l = await laptopWithHeldRemovals([usNoted]);
    const service = await l.open();
    cleanups.unshift(() => service.close());
    // The user removes EU while the finish of US waits for its hand-over; US let go, the finish
    // reconnects the listed accounts: EU among them, still listed while it waited its turn, whose
    // removal then found its store open in this very process ("still open in another process").
    const removal = service.handle('removeAccount', { account: l.euId });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    l.letGo();
    expect(said(await removal)).toBe('removed');
    expect(l.settings.load().settings.accounts).toEqual([]);
  }, 40_000);

  it('two at once (Remove clicked on two accounts in a row): removes both, the one waiting its turn never reopened', async () => {
    const l = await laptopWithHeldRemovals([]);
    const usEntry = { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId };
    await l.secrets.set(keychainEntry(accountRef(usEntry)), US_CLIENT.clientSecret);
    const listed = l.settings.load().settings;
    l.settings.save({ ...listed, accounts: [...listed.accounts, usEntry] });
    const service = await l.open();
    cleanups.unshift(() => service.close());
    const answers = await Promise.all([
      service.handle('removeAccount', { account: l.euId }),
      service.handle('removeAccount', { account: accountRef(usEntry).id }),
    ]);
    expect(answers.map(said)).toEqual(['removed', 'removed']);
    expect(l.settings.load().settings.accounts).toEqual([]);
  }, 40_000);
});

describe("close() while the start's background finish runs", () => {
  it('ends within one hand-over, the rest left to the next start, and nothing is emitted once closed', async () => {
    const l = await laptopWithHeldRemovals([usNoted, apNoted]);
    const service = await l.open();
    const events: ServiceEvent[] = [];
    let closing = false;
    service.onEvent((event) => {
      if (closing) events.push(event);
    });
    service.listening();
    // Quit at once: the finish of US waits its hand-over (10 s, then put back); AP's waits for the
    // next start, and nothing is told to a window that is gone.
    const started = Date.now();
    closing = true;
    await service.close();
    const took = Date.now() - started;
    expect({ emittedOnceClosed: events.map((e) => e.type), closedWithinOneHandOver: took < 15_000 }).toEqual({
      emittedOnceClosed: [],
      closedWithinOneHandOver: true,
    });
    expect(interruptedRemovals(l.dir, l.settings.load().settings.accounts).map((n) => n.entry.label)).toEqual(
      ['AP'],
    );
  }, 40_000);
});

describe("one account's own pause", () => {
  const both = () =>
    openService([
      { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
      { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId, secret: US_CLIENT.clientSecret },
    ]);
  /** The orders a notification named, and the titles of the summaries. */
  const told = (events: ServiceEvent[]) => {
    const requests = events.flatMap((e) => (e.type === 'notification' ? [e.request] : []));
    return {
      orders: requests.flatMap((r) => (r.orderId ? [r.orderId] : [])),
      summaries: requests.filter((r) => r.kind === 'summary').map((r) => r.title),
    };
  };
  /** The "new" listings each marketplace has answered: one per poll. */
  const polls = () => ({ eu: eu.requestCounts.listNewEvents, us: us.requestCounts.listNewEvents });

  it("holds that account's notifications only, both polled and its orders read; summarised at the first poll after it ends", async () => {
    const { call, events, service, dir } = await both();
    await call('checkNow');
    const usId = service.state().accounts[1]?.id ?? '';
    const end = new Date(Date.now() + 3_600_000).toISOString();
    const state = await call('pauseNotifications', { until: end, account: usId });
    // The app is not paused; US says until when it is.
    expect(state.notificationsPausedUntil).toBeNull();
    expect(state.accounts.map((a) => [a.label, a.notificationsPausedUntil])).toEqual([
      ['EU', null],
      ['US', end],
    ]);
    // Kept in the settings file beside the list: a restart finds it paused.
    expect(new ConfSettingsStore({ cwd: dir }).load().settings.accountPauses).toEqual({ [usId]: end });

    events.length = 0;
    const before = polls();
    const euOrder = (await admin(eu.url, 'POST', 'purchases')).json.orderId as string;
    const usOrder = (await admin(us.url, 'POST', 'purchases')).json.orderId as string;
    expect((await call('checkNow')).newOrders).toBe(2);
    expect(polls()).toEqual({ eu: before.eu + 1, us: before.us + 1 });
    await until(async () => told(events).orders.includes(euOrder));
    expect(told(events).orders).not.toContain(usOrder);
    // The paused account's order is read all the same: in its inbox, with its buyer.
    const page = await call('listOrders', { account: usId });
    expect(page.orders.map((o) => o.orderId)).toContain(usOrder);

    // Resumed: told at its next poll, as the app's pause does, in one summary naming the account.
    expect((await call('pauseNotifications', { until: null, account: usId })).accounts[1]).toMatchObject({
      notificationsPausedUntil: null,
    });
    expect(new ConfSettingsStore({ cwd: dir }).load().settings.accountPauses).toEqual({});
    await call('checkNow');
    await until(async () => told(events).summaries.length > 0);
    expect(told(events).summaries).toEqual(['1 new order while paused in US']);
  });

  it('paused and resumed by the CLI while the app runs: the app follows the settings file', async () => {
    // The app's service as the app opens it (its settings file watched), the real CLI beside it.
    const home = await mkdtemp(join(tmpdir(), 'accounts-cli-pause-'));
    const dataRoot = ensurePrivateDir(userDataDir({ XDG_CONFIG_HOME: home }));
    new ConfSettingsStore({ cwd: dataRoot }).save({
      ...DEFAULT_SETTINGS,
      accounts: [
        { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId },
        { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId },
      ],
    });
    await secrets.set(secretOwner(eu.url, EU_CLIENT.clientId), EU_CLIENT.clientSecret);
    await secrets.set(secretOwner(us.url, US_CLIENT.clientId), US_CLIENT.clientSecret);
    const app = await openAppService(dataRoot, { policySource: linuxPolicySource(join(home, 'policies')) });
    cleanups.push(async () => {
      await app.service.close();
      await app.demo.stop();
      app.policies.close();
      await secrets.delete(secretOwner(eu.url, EU_CLIENT.clientId));
      await secrets.delete(secretOwner(us.url, US_CLIENT.clientId));
      await rm(home, { recursive: true, force: true });
    });
    const events: ServiceEvent[] = [];
    app.service.onEvent((event) => events.push(event));
    const { call } = serviceCalls(app.service);
    const cli = (...args: string[]) =>
      runTs('main/cli/seller-tray.ts', args, { XDG_CONFIG_HOME: home, SELLER_CLIENT_SECRET: '' });
    // EU's pause as the app's state says it, and as the last app-state event told the window and the
    // tray (which draw what those events carry).
    const euPause = () =>
      app.service.state().accounts.find((a) => a.label === 'EU')?.notificationsPausedUntil;
    const euPauseTold = () => {
      const last = events.findLast((event) => event.type === 'app-state');
      return last?.type === 'app-state' ? last.state.accounts[0]?.notificationsPausedUntil : undefined;
    };
    await call('checkNow');

    expect(await cli('accounts', 'pause', 'EU')).toMatchObject({ code: 0, stderr: '' });
    await until(async () => euPause() === UNTIL_RESUMED && euPauseTold() === UNTIL_RESUMED);
    events.length = 0;
    const held = (await admin(eu.url, 'POST', 'purchases')).json.orderId as string;
    const usOrder = (await admin(us.url, 'POST', 'purchases')).json.orderId as string;
    expect((await call('checkNow')).newOrders).toBe(2);
    await until(async () => told(events).orders.includes(usOrder));
    expect(told(events).orders).not.toContain(held);

    expect(await cli('accounts', 'resume', 'EU')).toMatchObject({ code: 0, stderr: '' });
    await until(async () => euPause() === null && euPauseTold() === null);
    const euOrder = (await admin(eu.url, 'POST', 'purchases')).json.orderId as string;
    await call('checkNow');
    await until(async () => told(events).orders.includes(euOrder));
    // What EU held is told as the app's own resume tells it: in one summary, never one by one.
    await until(async () => told(events).summaries.length > 0);
    expect(told(events)).toMatchObject({ summaries: ['1 new order while paused in EU'] });
    expect(told(events).orders).not.toContain(held);
  }, 60_000);

  it("are held while the app is paused too, the account's own pause outlasting the app's", async () => {
    const { call, events, service } = await both();
    await call('checkNow');
    const usId = service.state().accounts[1]?.id ?? '';
    const hour = new Date(Date.now() + 3_600_000).toISOString();
    const week = new Date(Date.now() + 7 * 24 * 3_600_000).toISOString();
    await call('pauseNotifications', { until: week, account: usId });
    await call('pauseNotifications', { until: hour });
    // The first poll's reminders of each backlog are told before the pauses.
    events.length = 0;
    await admin(eu.url, 'POST', 'purchases');
    await admin(us.url, 'POST', 'purchases');
    await call('checkNow');
    expect(told(events).orders).toEqual([]);
    // The app resumes: EU tells what it held; US, still paused on its own, holds on.
    const state = await call('pauseNotifications', { until: null });
    expect(state.accounts.map((a) => a.notificationsPausedUntil)).toEqual([null, week]);
    await admin(us.url, 'POST', 'purchases');
    await call('checkNow');
    await until(async () => told(events).summaries.length > 0);
    expect(told(events)).toEqual({ orders: [], summaries: ['1 new order while paused in EU'] });
  });

  it('goes with its account when it is removed, so the account added again is not found paused', async () => {
    const { call, service, dir } = await both();
    const usId = service.state().accounts[1]?.id ?? '';
    await call('pauseNotifications', {
      until: new Date(Date.now() + 3_600_000).toISOString(),
      account: usId,
    });
    await call('removeAccount', { account: usId });
    expect(new ConfSettingsStore({ cwd: dir }).load().settings.accountPauses).toEqual({});
  });

  it('of the one account served, is the pause the header and tray show, and their Resume ends it', async () => {
    const { call, service } = await openService([
      { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
    ]);
    const euId = service.state().accounts[0]?.id ?? '';
    const end = new Date(Date.now() + 3_600_000).toISOString();
    // Paused from Settings' row or `accounts pause EU`: the app's one account is paused, so the app is.
    expect((await call('pauseNotifications', { until: end, account: euId })).notificationsPausedUntil).toBe(
      end,
    );
    const resumed = await call('pauseNotifications', { until: null });
    expect(resumed.notificationsPausedUntil).toBeNull();
    expect(resumed.accounts[0]?.notificationsPausedUntil).toBeNull();
  });

  it('of an account no longer listed is dropped with it however it left (the window changing its marketplace)', async () => {
    const { call, service, dir } = await both();
    const euId = service.state().accounts[0]?.id ?? '';
    await call('pauseNotifications', {
      until: new Date(Date.now() + 3_600_000).toISOString(),
      account: euId,
    });
    // The window's form points its account elsewhere: EU's entry is replaced, its pause not kept for a return.
    await call('setSettings', { baseUrl: 'https://eu2.example.com', clientId: 'eu2-client' });
    expect(new ConfSettingsStore({ cwd: dir }).load().settings.accountPauses).toEqual({});
  });

  it('is refused for an account not in the list, naming none', async () => {
    const { service } = await both();
    const answer = await service.handle('pauseNotifications', { until: null, account: 'f00df00df00df00d' });
    expect(answer).toMatchObject({
      ok: false,
      error: { message: 'There is no such account in the list any more.' },
    });
    const bad = await service.handle('pauseNotifications', { until: null, account: '' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
  });
});

describe("what the accounts' starts announce while the app opens", () => {
  it('is heard by each listener the shell subscribes before it says it listens, however many awaits come between', async () => {
    const { service, call, dir } = await openService(
      [
        { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId, secret: EU_CLIENT.clientSecret },
        { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId, secret: US_CLIENT.clientSecret },
      ],
      undefined,
      { pausedUntil: new Date(Date.now() + 3_600_000).toISOString() },
    );
    await call('checkNow');
    const bought: string[] = [];
    for (const marketplace of [eu, us])
      bought.push((await admin(marketplace.url, 'POST', 'purchases')).json.orderId);
    await call('checkNow'); // held while paused, for the next start
    await service.close();
    const settings = new ConfSettingsStore({ cwd: dir });
    settings.save({ ...settings.load().settings, pausedUntil: null });

    const again = await SellerTrayService.open({
      settings,
      secrets,
      dataRoot: dir,
      timers: new ManualTimers(),
    });
    cleanups.push(() => again.close());
    // The window subscribes at once; the notifier only after an await (the shell's wiring may take one).
    const window: ServiceEvent[] = [];
    again.onEvent((event) => window.push(event));
    await until(() => arrived(window).length === bought.length);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const notifier: ServiceEvent[] = [];
    again.onEvent((event) => notifier.push(event));
    expect(arrived(notifier).sort()).toEqual(bought.sort());
    // Its listeners wired, the shell says so: a listener subscribed later hears only what comes after.
    again.listening();
    const later: ServiceEvent[] = [];
    again.onEvent((event) => later.push(event));
    expect(later).toEqual([]);
  });
});
