// Every quirk of simulator/quirks.ts read by the app's service beside a plain account (issue 23:
// "the tolerance tests still pass with two accounts"): one marketplace with the quirk, one as
// specified, on two origins. The quirks are QUIRKS' own keys, so one added later is covered here
// unchanged. Each run buys what makes the quirks bite (a plain purchase, one over the answer cap,
// one of another seller) and marks three orders (two of its own: the first post's answer lost so it
// is read back, the second's answered; and the other seller's, refused in the quirk's words); its
// marketplace's clock moves on 2 s
// after the backlog (tokens age), and some quirks get a fault of their own (ALSO_SCRIPTED). For
// each quirk, whatever it does:
// - it bit in both runs (the simulator's count of answers it altered), or its case is hollow;
// - the plain account is untouched: its purchase announced once naming it, its mark posted once to
//   its own marketplace, connected all along, nothing told its;
// - no credentials of either account reach the other's marketplace (counted there by client), and
//   all that is told names the quirky account;
// - the quirky account does beside the plain one what it does alone (the same service over that
//   account only): the same purchases announced, once each, the same connection and problems,
//   inbox, marks and posts; a purchase of its own not announced is one it told of.
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { accountRef } from '../main/core/account/account-ref';
import { KeytarSecretStore } from '../main/core/secrets';
import type { ServiceEvent } from '../main/core/service';
import type { ScriptedFault } from '../simulator/faults';
import { HUGE_MARKER, QUIRK_NAMES, type Quirk } from '../simulator/quirks';
import { startSimulator } from '../simulator/server';
import type { PurchaseRequest } from '../simulator/store';
import { arrived, openAccountsService, type ServedAccount } from './support/accounts-service';
import { admin } from './support/raw-api';
import { until } from './support/shell-fakes';

const PLAIN_CLIENT = { clientId: 'plain-client', clientSecret: 'plain-secret-5b1e' };
const QUIRKY_CLIENT = { clientId: 'quirky-client', clientSecret: 'quirky-secret-93af' };
const QUIRKY_SELLER = 8001;
const FOREIGN_SELLER = 8002;
const PLAIN_ORDERS = 40;
/** Orders enough for a listing longer than a page of 100 (138 events), so that paging quirks bite. */
const QUIRKY_ORDERS = 60;
/**
 * What buyers buy at the quirky marketplace in every run: plain purchases, one whose order is
 * over the cap under huge-items, and one of another seller that foreign-seller-events leaks.
 */
const QUIRKY_PURCHASES: PurchaseRequest[] = [
  {},
  { order: { note: HUGE_MARKER } },
  { sellerId: FOREIGN_SELLER },
  {},
];

/**
 * What makes a quirk bite that would only slow the other runs down: reads throttled, whose
 * Retry-After wild-retry-after bends to 0, -5 and 99999999999 (the app waits its backoff, real
 * time, then gives the poll up at the ceiling).
 */
const ALSO_SCRIPTED: Partial<Record<Quirk, z.input<typeof ScriptedFault>[]>> = {
  'wild-retry-after': [{ operation: 'listEvents', action: 'status', status: 429, times: 3 }],
};

const secrets = new KeytarSecretStore();

/**
 * A run's two marketplaces, new (seeded alike, a run's purchases and posts have the same ids in
 * each run; no turn of a quirk carried over from the run before), the quirky one under `quirk`.
 */
async function marketplaces(quirk: Quirk) {
  const plain = await startSimulator({
    port: 0,
    seed: 12,
    sellers: [{ sellerId: 9001, orders: PLAIN_ORDERS, clients: [PLAIN_CLIENT] }],
  });
  // Its clock, moved on by the run: the gateway's tokens lapse without a second of real waiting.
  const clock = { aheadMs: 0 };
  const quirky = await startSimulator({
    port: 0,
    seed: 11,
    clock: () => Date.now() + clock.aheadMs,
    sellers: [
      { sellerId: QUIRKY_SELLER, orders: QUIRKY_ORDERS, clients: [QUIRKY_CLIENT] },
      { sellerId: FOREIGN_SELLER, orders: 1, clients: [{ clientId: 'foreign', clientSecret: 'foreign' }] },
    ],
  });
  // The settings that make each quirk bite on a marketplace this small: a result window just past
  // its backlog (the purchases land beyond it), an answer past the 32 MiB cap that is not 1 GiB.
  const backlog = quirky.store.listEvents(QUIRKY_SELLER, 0, Number.MAX_SAFE_INTEGER).items.length;
  const faults = {
    quirks: [quirk],
    resultWindow: backlog + 2,
    hugeBytes: 40 * 2 ** 20,
  };
  expect((await admin(quirky.url, 'PATCH', 'faults', faults)).status).toBe(200);
  const accounts = {
    plain: { label: 'Plain', baseUrl: plain.url, ...secretOf(PLAIN_CLIENT) },
    quirky: { label: 'Quirky', baseUrl: quirky.url, ...secretOf(QUIRKY_CLIENT) },
  };
  const close = async () => {
    await plain.close();
    await quirky.close();
  };
  return { plain, quirky, clock, accounts, close };
}

const secretOf = (client: { clientId: string; clientSecret: string }) => ({
  clientId: client.clientId,
  secret: client.clientSecret,
});
const idOf = (account: ServedAccount) => accountRef(account).id;

/** What the quirky account did in a run: compared between its run alone and beside the plain one. */
interface Outcome {
  /** Its purchases announced, by their place in QUIRKY_PURCHASES, as often as each was. */
  announced: number[];
  connection: string;
  /** What its state says is wrong. */
  problem: string | undefined;
  /** The problems told as they came, without the account's name. */
  told: { message: string; details: string[] | undefined }[];
  /** The orders of its inbox. */
  orders: string[];
  /** How its marks stand after a poll (markState), and the posts its marketplace had. */
  marks: string[];
  posts: number;
}

type Call = Awaited<ReturnType<typeof openAccountsService>>['call'];

/**
 * How a mark of `orderId` in `account` stands: refused (Needs attention's failed), or its outbox
 * item's state as its order shows it, or "listed" once the marketplace lists the status.
 */
async function markState(call: Call, orderId: string, account: string): Promise<string> {
  const mark = (await call('getAttention')).failed.find(
    (m) => m.account === account && m.item.orderId === orderId,
  );
  if (mark) return `failed: ${mark.item.problem?.message}`;
  try {
    const item = (await call('getOrder', { orderId, account, reread: true })).outbox[0];
    return item ? `${item.state}${item.problem ? `: ${item.problem.message}` : ''}` : 'listed';
  } catch (error) {
    return `unreadable: ${(error as Error).message}`;
  }
}

/** Marks `orderId` In progress in `account` and waits for its first delivery to end. */
async function mark(call: Call, orderId: string, account: string): Promise<void> {
  await call('markStatus', { orderId, account, statusCode: 'ProvisioningInProgress', override: true });
  // Sent, listed or refused; one the marketplace failed to answer stays pending, to be tried again
  // by a timer (these never fire by themselves), and is compared as such.
  const ended = /^(sent|listed|failed)/;
  await until(async () => ended.test(await markState(call, orderId, account)), 3_000).catch(() => undefined);
}

/**
 * One run under `quirk`, on new marketplaces: the quirky account alone, or beside the plain one.
 * The service polls the backlog, then the purchases, marks orders of each account, and polls again.
 */
async function run(quirk: Quirk, beside: boolean) {
  const { plain, quirky, clock, accounts, close } = await marketplaces(quirk);
  const [plainId, quirkyId] = [idOf(accounts.plain), idOf(accounts.quirky)];
  const opened = await openAccountsService(beside ? [accounts.plain, accounts.quirky] : [accounts.quirky], {
    secrets,
    more: { reminderAfterMinutes: 0 }, // the backlog's reminders are no news of the run
  }).catch(async (error: unknown) => {
    await close();
    throw error;
  });
  try {
    const { call, events, service } = opened;
    await call('checkNow'); // the backlog: recorded, not announced
    const polled = events.length;
    clock.aheadMs += 2_000; // as if the run took its time: the tokens issued so far are 2 s old
    // From now on (a failure of the backlog's read would make the run's purchases backlog too):
    // its first post's answer lost, so the mark is read back before it is posted again.
    const script = [{ operation: 'sendEvent', action: 'dropAfterHandling' }, ...(ALSO_SCRIPTED[quirk] ?? [])];
    expect((await admin(quirky.url, 'PATCH', 'faults', { script })).status).toBe(200);
    const bought: string[] = [];
    for (const purchase of QUIRKY_PURCHASES)
      bought.push((await admin(quirky.url, 'POST', 'purchases', purchase)).json.orderId);
    const plainOrder = beside ? ((await admin(plain.url, 'POST', 'purchases')).json.orderId as string) : '';
    const posts = { plain: plain.requestCounts.sendEvent, quirky: quirky.requestCounts.sendEvent };
    await call('checkNow'); // learns them
    await call('checkNow'); // has them announced at the latest

    // Its own first purchase (its post's answer lost) and last (its post answered), and the other
    // seller's (its marketplace refuses it, in the quirk's words).
    const other = bought[QUIRKY_PURCHASES.findIndex(foreign)] ?? '';
    const marked = [bought[0] ?? '', bought.at(-1) ?? '', other];
    for (const orderId of marked) await mark(call, orderId, quirkyId);
    if (beside) await mark(call, plainOrder, plainId);
    await call('checkNow'); // one more poll: each mark listed, nothing posted again
    const state = service.state().accounts.find((a) => a.id === quirkyId);
    const whose = /^Quirky: /;
    const outcome: Outcome = {
      announced: arrived(events).flatMap((id) => (bought.includes(id) ? [bought.indexOf(id)] : [])),
      connection: state?.connection ?? 'not served',
      problem: state?.problem?.message,
      told: told(events).map(({ message, details }) => ({
        message: message.replace(whose, ''),
        details: details?.map((d) => d.replace(/request id [0-9a-f-]{36}/g, 'request id …')), // each call's own
      })),
      // The other seller's order, marked while unknown, may show a row for a while (not compared).
      orders: (await call('listOrders', { account: quirkyId, backlog: 'shown', limit: 500 })).orders
        .map((row) => row.orderId)
        .filter((orderId) => orderId !== other)
        .sort(),
      marks: await Promise.all(marked.map((orderId) => markState(call, orderId, quirkyId))),
      posts: quirky.requestCounts.sendEvent - posts.quirky,
    };
    return {
      outcome,
      events,
      afterBacklog: events.slice(polled),
      plainOrder,
      plainMark: beside ? await markState(call, plainOrder, plainId) : '',
      plainPosts: plain.requestCounts.sendEvent - posts.plain,
      state: service.state(),
      // The answers (or stored purchases and posts) the quirk altered: none would make the run hollow.
      bites: quirky.bites[quirk],
      plainId,
      quirkyId,
      // Whose credentials reached each marketplace.
      callers: { plain: Object.keys(plain.requestsByClient), quirky: Object.keys(quirky.requestsByClient) },
    };
  } finally {
    await opened.close();
    await close();
  }
}

const foreign = (purchase: PurchaseRequest) => purchase.sellerId === FOREIGN_SELLER;

const told = (events: ServiceEvent[]) =>
  events.flatMap((event) =>
    event.type === 'problem' ? [{ message: event.message, details: event.details }] : [],
  );

describe('every marketplace quirk, read beside a plain account', () => {
  it.each(QUIRK_NAMES)('%s', async (quirk) => {
    const alone = await run(quirk, false);
    const both = await run(quirk, true);
    // The quirk bit in both runs (one that never changed an answer proves nothing), named if not.
    expect({ quirk, alone: alone.bites > 0, beside: both.bites > 0 }).toEqual({
      quirk,
      alone: true,
      beside: true,
    });

    // The plain account is untouched: its purchase announced once, naming it; its mark posted
    // once, to its own marketplace; connected all along; nothing told is its.
    expect(arrived(both.events).filter((id) => id === both.plainOrder)).toHaveLength(1);
    const plainNotices = both.events.flatMap((e) =>
      e.type === 'notification' && e.request.account === both.plainId ? [e.request] : [],
    );
    expect(plainNotices).toEqual([
      expect.objectContaining({
        kind: 'order',
        orderId: both.plainOrder,
        title: expect.stringMatching(/^New order in Plain from /),
      }),
    ]);
    expect(both.plainMark).toBe('listed');
    expect(both.plainPosts).toBe(1);
    for (const event of both.afterBacklog)
      if (event.type === 'app-state')
        expect(event.state.accounts.find((a) => a.id === both.plainId)).toMatchObject({
          connection: 'ok',
          problem: null,
        });
    for (const { message } of told(both.events)) expect(message).toMatch(/^Quirky: /);
    for (const event of both.events)
      if (event.type === 'notification' && event.request.account !== both.plainId)
        expect(event.request).toMatchObject({
          account: both.quirkyId,
          title: expect.stringContaining(' in Quirky'),
        });

    // Nothing of the quirky account reaches the plain marketplace, nor the plain one the quirky one.
    expect(both.callers).toEqual({ plain: [PLAIN_CLIENT.clientId], quirky: [QUIRKY_CLIENT.clientId] });

    // The quirky account does beside the plain one what it does alone, and keeps polling or says why.
    expect(both.outcome).toEqual(alone.outcome);
    expect(new Set(both.outcome.announced).size).toBe(both.outcome.announced.length);
    // A purchase of its own not announced is one it told of: kept aside, or a walk that fails.
    const own = QUIRKY_PURCHASES.flatMap((p, i) => (foreign(p) ? [] : [i]));
    if (own.some((i) => !both.outcome.announced.includes(i)))
      expect(both.outcome.told.length > 0 || both.outcome.problem !== undefined).toBe(true);
  });
});
