// An order's truth whatever the marketplace's clocks, ids and numbers do (issue 20): over real
// loopback HTTP, the simulator plays one way a real marketplace behaves (simulator/quirks.ts) and
// several laptops (cores on their own data folders) poll it. Each purchase is announced once on
// every laptop, the status a person marked shows everywhere (on a laptop started later too), and
// no reminder fires for an order already marked.

import { afterEach, describe, expect, it } from 'vitest';
import { Claimant } from '../main/core/claimant';
import { TransitionError } from '../main/core/mark';
import { AccountStore } from '../main/core/store/account-store';
import { describeMark } from '../preload/marked-by';
import { bigNumber, LONG_CURRENCY, type Quirk } from '../simulator/quirks';
import { inbox, type Laptop, makeDataDir, openLaptop } from './support/core';
import { runTs } from './support/processes';
import { admin } from './support/raw-api';
import { sharedMarketplace } from './support/shared-marketplace';
import { databaseOfVersion } from './support/store-files';

const ORDERS = 30;
/** How far ahead the laptops' clock runs: a day on, every waiting order is due its reminder. */
let ahead = 0;

const market = sharedMarketplace({ seed: 20, orders: ORDERS });
const { laptops } = market;
afterEach(() => {
  ahead = 0;
});

async function quirks(...names: Quirk[]): Promise<void> {
  expect((await admin(market.sim.url, 'PATCH', 'faults', { quirks: names })).status).toBe(200);
}

/** A laptop that has read the backlog (its first poll), with reminders after 15 minutes. */
async function startedLaptop(): Promise<Laptop> {
  const laptop = await openLaptop(market.sim.url, undefined, {
    settings: { reminderAfterMinutes: 15 },
    now: () => Date.now() + ahead,
  });
  laptops.push(laptop);
  laptop.core.start();
  await laptop.core.checkNow();
  await laptop.core.backlogRead();
  return laptop;
}

/** Two polls: one learns, the next has announced and fetched at the latest. */
async function poll(laptop: Laptop): Promise<void> {
  await laptop.core.checkNow();
  await laptop.core.checkNow();
}

const announced = (laptop: Laptop) =>
  laptop.events.flatMap((e) => (e.type === 'orders-arrived' ? e.orderIds : []));
const rowsOf = (laptop: Laptop, orderId: string) =>
  inbox(laptop.core).filter((row) => row.orderId.toLowerCase() === orderId.toLowerCase());

/**
 * A day later: each laptop reminds of as many orders as its inbox shows waiting (one by one, or
 * as "N orders still waiting"; those whose purchase time cannot be read too), never the marked one.
 */
async function remindsOfWaitingOnly(all: readonly Laptop[], marked: string): Promise<void> {
  ahead = 24 * 3_600_000;
  for (const laptop of all) {
    await laptop.core.checkNow();
    const waiting = inbox(laptop.core).filter((row) => row.waiting);
    const reminders = laptop
      .notifications()
      .filter((n) => n.kind === 'reminder' || / still waiting$/.test(n.title));
    const reminded = reminders.reduce(
      (n, r) => n + (r.kind === 'reminder' ? 1 : Number.parseInt(r.title, 10)),
      0,
    );
    expect(waiting.length).toBeGreaterThan(0);
    expect(reminded).toBe(waiting.length);
    expect(waiting.map((row) => row.orderId)).not.toContain(marked);
    expect(reminders.map((r) => r.orderId)).not.toContain(marked);
  }
}

/**
 * The promise under one quirk: laptops A and B poll as the purchase comes in, A marks it In
 * progress; D was running but polls only after the mark; C starts after it all.
 */
async function markedEverywhere(): Promise<{ orderId: string; all: Laptop[] }> {
  const [a, b, d] = [await startedLaptop(), await startedLaptop(), await startedLaptop()];
  const orderId = (await admin(market.sim.url, 'POST', 'purchases', {})).json.orderId as string;
  await poll(a);
  await poll(b);
  await a.core.markStatus({ orderId, statusCode: 'ProvisioningInProgress', description: 'On it' });
  await a.core.deliverOutbox();
  for (const laptop of [a, b, d]) await poll(laptop);
  const c = await startedLaptop();
  await poll(c);

  for (const laptop of [a, b, d]) {
    expect(announced(laptop).filter((id) => id === orderId)).toHaveLength(1);
  }
  expect(announced(c)).toEqual([]); // its backlog: shown, not announced
  for (const laptop of [a, b, c, d]) {
    const rows = rowsOf(laptop, orderId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ orderId, status: 'ProvisioningInProgress', waiting: false });
    expect(laptop.core.status().connection).toBe('ok');
  }
  await remindsOfWaitingOnly([a, b, c, d], orderId);
  return { orderId, all: [a, b, c, d] };
}

describe('a status follows causality, not the clocks', () => {
  it('counts a status posted as after its purchase when purchases are stamped by a clock ahead', async () => {
    await quirks('clock-skew');
    await markedEverywhere();
  });

  it('keeps the status marked last on every laptop when the servers that stamp statuses are hours apart', async () => {
    // In progress is stamped three hours ahead: Completed, marked after it, bears an earlier time.
    await quirks('server-clocks');
    const [a, b] = [await startedLaptop(), await startedLaptop()];
    const orderId = (await admin(market.sim.url, 'POST', 'purchases', {})).json.orderId as string;
    await poll(a);
    await poll(b);
    const mark = async (laptop: Laptop, statusCode: 'ProvisioningInProgress' | 'ProvisioningCompleted') => {
      await laptop.core.markStatus({
        orderId,
        statusCode,
        description: describeMark(statusCode, 'Anna Virtanen'),
      });
      await laptop.core.deliverOutbox();
    };
    await mark(a, 'ProvisioningInProgress');
    await poll(b);
    await mark(b, 'ProvisioningCompleted');
    for (const laptop of [a, b]) await poll(laptop);
    const c = await startedLaptop();
    await poll(c);
    for (const laptop of [a, b, c]) {
      expect(rowsOf(laptop, orderId)[0]?.status).toBe('ProvisioningCompleted');
      const view = await laptop.core.order(orderId);
      expect(view.status).toBe('ProvisioningCompleted');
      expect(view.statusReversal).toBeUndefined();
      expect(view.history.map((e) => e.statusCode)).toEqual([
        'ProvisioningStarted',
        'ProvisioningInProgress',
        'ProvisioningCompleted',
      ]);
    }
  });

  it('updates the store when a post rewrites the purchase event in place under its eventId', async () => {
    await quirks('in-place-updates');
    const { orderId, all } = await markedEverywhere();
    const [a, b] = all;
    // Completed on B: A, which marked In progress, follows (its own mark was read back).
    await b?.core.markStatus({ orderId, statusCode: 'ProvisioningCompleted', description: 'Done' });
    await b?.core.deliverOutbox();
    for (const laptop of all) {
      await poll(laptop);
      expect(rowsOf(laptop, orderId)[0]?.status).toBe('ProvisioningCompleted');
    }
    expect(a && (await a.core.order(orderId)).history.map((e) => e.statusCode)).toEqual([
      'ProvisioningCompleted',
    ]);
  });

  it('says so when another laptop moved a completed order back, and asks before marking behind it', async () => {
    const [a, b] = [await startedLaptop(), await startedLaptop()];
    const orderId = (await admin(market.sim.url, 'POST', 'purchases', {})).json.orderId as string;
    await poll(a);
    await poll(b);
    const mark = async (laptop: Laptop, statusCode: 'ProvisioningInProgress' | 'ProvisioningCompleted') => {
      const description = describeMark(statusCode, 'Anna Virtanen');
      await laptop.core.markStatus({ orderId, statusCode, description, override: true });
      await laptop.core.deliverOutbox();
    };
    await mark(a, 'ProvisioningInProgress');
    await mark(a, 'ProvisioningCompleted');
    // B has not polled since the order was new: before its mark, the history is read again.
    await expect(
      b.core.markStatus({ orderId, statusCode: 'ProvisioningInProgress', description: 'Started' }),
    ).rejects.toThrow(/Marking an order In progress while it is Completed .*is unusual/);
    expect(rowsOf(b, orderId)[0]?.status).toBe('ProvisioningCompleted');
    await expect(
      b.core.markStatus({ orderId, statusCode: 'ProvisioningInProgress', description: 'Started' }),
    ).rejects.toBeInstanceOf(TransitionError);

    // Moved back anyway, with the name the app writes: every laptop says so.
    await b.core.markStatus({
      orderId,
      statusCode: 'ProvisioningInProgress',
      description: describeMark('ProvisioningInProgress', 'Bruno Costa'),
      override: true,
    });
    await b.core.deliverOutbox();
    for (const laptop of [a, b]) {
      await poll(laptop);
      const view = await laptop.core.order(orderId);
      expect(view.status).toBe('ProvisioningInProgress');
      expect(view.statusReversal).toBe('Marked In progress by Bruno Costa after it was Completed');
    }
  });
});

describe("the laptop's clock", () => {
  it('reads the history again before a mark once the clock was set back since the last read', async () => {
    // B's clock runs an hour ahead, then is set right (by NTP, or by hand) before its next mark.
    ahead = 3_600_000;
    const [a, b] = [await startedLaptop(), await startedLaptop()];
    const [orderId, other] = [
      (await admin(market.sim.url, 'POST', 'purchases', {})).json.orderId as string,
      (await admin(market.sim.url, 'POST', 'purchases', {})).json.orderId as string,
    ];
    await poll(a);
    await poll(b);
    // A mark on B reads the history first (and marks right after it share that read).
    await b.core.markStatus({ orderId: other, statusCode: 'ProvisioningInProgress', description: 'Started' });
    for (const statusCode of ['ProvisioningInProgress', 'ProvisioningCompleted'] as const) {
      await a.core.markStatus({
        orderId,
        statusCode,
        description: describeMark(statusCode, 'Anna Virtanen'),
      });
      await a.core.deliverOutbox();
    }
    ahead = 0;
    await expect(
      b.core.markStatus({ orderId, statusCode: 'ProvisioningInProgress', description: 'Started' }),
    ).rejects.toThrow(/Marking an order In progress while it is Completed .*is unusual/);
    expect(rowsOf(b, orderId)[0]?.status).toBe('ProvisioningCompleted');
  });

  it('sends a mark held for undo though the clock was set back an hour meanwhile: a hold lasts at most the longest one', async () => {
    const laptop = await openLaptop(market.sim.url, undefined, {
      settings: { undoSeconds: 10 },
      now: () => Date.now() + ahead,
    });
    laptops.push(laptop);
    laptop.core.start();
    await laptop.core.checkNow();
    await laptop.core.backlogRead();
    const orderId = (await admin(market.sim.url, 'POST', 'purchases', {})).json.orderId as string;
    await poll(laptop);
    const held = await laptop.core.markStatus({
      orderId,
      statusCode: 'ProvisioningInProgress',
      description: 'On it',
    });
    expect(held.notBefore).toBeDefined();
    ahead = -3_600_000;
    const [item] = await laptop.core.deliverOutbox();
    expect(item).toMatchObject({ requestId: held.requestId, state: 'sent' });
  });
});

describe('one order, one identity', () => {
  it('keeps one row per order when the marketplace writes its id in another case', async () => {
    await quirks('id-case');
    const { orderId, all } = await markedEverywhere();
    for (const laptop of all) {
      expect(inbox(laptop.core)).toHaveLength(ORDERS + 1);
      // Asked for in either case, it is the one order.
      expect((await laptop.core.order(orderId.toUpperCase())).status).toBe('ProvisioningInProgress');
    }
  });

  it("keeps every order's events apart when event ids are numbered within each order", async () => {
    await quirks('per-order-event-ids');
    const { all } = await markedEverywhere();
    // Each order keeps its own purchase: every one has a status, and as many wait on every laptop.
    const waiting = (laptop: Laptop) => inbox(laptop.core).filter((row) => row.waiting).length;
    for (const laptop of all) {
      const rows = inbox(laptop.core);
      expect(rows).toHaveLength(ORDERS + 1);
      expect(rows.filter((row) => row.status === undefined)).toEqual([]);
      expect(waiting(laptop)).toBe(waiting(all[0] as Laptop));
    }
  });

  it('merges the rows of an existing store that differ only by case, keeping the outbox and announcements', async () => {
    const dataDir = await makeDataDir();
    const id = '3f2b8c1e-9a4d-4c7b-8e2f-1a2b3c4d5e6f';
    const ID = id.toUpperCase();
    // As a store of version 4 held them: one order under two spellings.
    const db = databaseOfVersion(dataDir, 4);
    const event = (eventId: string, orderId: string, status: string, time: string) =>
      db
        .prepare(
          'INSERT INTO events (key, order_id, event_type, status, event_time, event_ms, json) VALUES (?, ?, ?, ?, ?, ?, ?)',
        )
        .run(
          eventId,
          orderId,
          'ServicePurchased',
          status,
          time,
          Date.parse(time),
          JSON.stringify({
            eventId,
            eventTypeCode: 'ServicePurchased',
            statusCode: status,
            eventTime: time,
            description: status,
            additionalProperties: [{ name: 'orderId', value: orderId }],
          }),
        );
    event('aaaaaaaa-0000-4000-8000-000000000001', id, 'ProvisioningStarted', '2026-11-20T11:00:00Z');
    event('aaaaaaaa-0000-4000-8000-000000000002', ID, 'ProvisioningInProgress', '2026-11-20T10:00:00Z');
    db.exec(`
      INSERT INTO orders (order_id, status, effective_status) VALUES ('${id}', 'ProvisioningStarted', 'ProvisioningStarted');
      INSERT INTO orders (order_id, status, effective_status) VALUES ('${ID}', 'ProvisioningInProgress', 'ProvisioningInProgress');
      INSERT INTO announcements (order_id, state, queued_at, raised_at) VALUES ('${ID}', 'raised', 't', 't');
      INSERT INTO announcements (order_id, state, queued_at) VALUES ('${id}', 'pending', 't');
      INSERT INTO outbox (request_id, order_id, status_code, state, json) VALUES ('r1', '${ID}', 'ProvisioningCompleted', 'pending',
        '{"requestId":"r1","orderId":"${ID}","statusCode":"ProvisioningCompleted","description":"Done","createdAt":"2026-11-20T12:00:00Z","state":"pending","attempts":0}');
    `);
    db.close();

    const { store } = AccountStore.open(dataDir);
    const page = store.inboxPage({ filter: 'all', search: '', offset: 0, limit: 10 });
    expect(page.rows.map((r) => [r.orderId, r.status])).toEqual([[id, 'ProvisioningCompleted']]);
    expect(store.history(id).map((e) => e.statusCode)).toEqual([
      'ProvisioningStarted',
      'ProvisioningInProgress',
    ]);
    expect(store.outboxItems().map((i) => [i.orderId, i.statusCode])).toEqual([
      [id, 'ProvisioningCompleted'],
    ]);
    // Raised under one spelling: not raised again under the other.
    expect(store.claimAnnouncements(new Claimant(), false)).toEqual({ pending: [], held: [] });
    store.close();
  });

  it('keeps the events of an earlier store whose ids are not UUIDs as the reader now tells them apart', async () => {
    const dataDir = await makeDataDir();
    const id = '3f2b8c1e-9a4d-4c7b-8e2f-1a2b3c4d5e6f';
    const event = {
      eventId: '5',
      eventTypeCode: 'ServicePurchased',
      statusCode: 'ProvisioningStarted',
      eventTime: '2026-11-20T10:00:00Z',
      description: 'New purchase',
      additionalProperties: [{ name: 'orderId', value: id }],
    };
    // As a store of version 19 held it: keyed by its id alone, the cursor's last keys so too.
    const db = databaseOfVersion(dataDir, 19);
    db.prepare(
      'INSERT INTO events (key, order_id, event_type, status, event_time, event_ms, json) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(
      '5',
      id,
      event.eventTypeCode,
      event.statusCode,
      event.eventTime,
      Date.parse(event.eventTime),
      JSON.stringify(event),
    );
    db.exec(`INSERT INTO meta (key, value) VALUES ('cursor', '{"offset":1,"lastEventId":"5","tail":["5"]}')`);
    db.close();

    const { store } = AccountStore.open(dataDir);
    // The cursor's keys of the old form are not looked for (the listing is not walked back for them).
    expect(store.cursor()).toEqual({ offset: 1 });
    // Read again by the next poll: known, not recorded twice.
    const read = store.recordPoll({
      events: [event],
      cursor: { offset: 1 },
      backlog: false,
      paused: false,
      now: '2026-11-21T00:00:00Z',
    });
    expect(read.newEvents).toBe(0);
    expect(store.history(id)).toHaveLength(1);
    store.close();
  });
});

describe('numbers the app does not compute with are text', () => {
  it('records and announces purchases with sellerId and lineId beyond 2^53, every digit kept', async () => {
    await quirks('big-numbers');
    const { orderId, all } = await markedEverywhere();
    for (const laptop of all) {
      const view = await laptop.core.order(orderId);
      expect(view.order.documentLines[0]?.lineId).toBe(bigNumber(1));
      expect(view.history[0]?.sellerId).toBe(bigNumber(1001));
    }
    // The notification names the buyer (the order was read, not set aside) and its exact total.
    const order = all[0] && (await all[0].core.order(orderId)).order;
    const buyer = order?.buyerCustomerParty.party?.partyName ?? '';
    const exact = order?.anticipatedMonetaryTotal?.exactAmount ?? '';
    expect(exact).toMatch(/^9223372036854775\d+(\.\d+)?$/);
    const told = all[0]?.notifications().find((n) => n.orderId === orderId);
    expect(told?.title).toContain(buyer);
    expect(told?.body.replace(/\D/g, '')).toContain(exact.split('.')[0]);
    for (const laptop of all) expect(rowsOf(laptop, orderId)[0]?.total?.exact).toBe(exact);
  });

  it('records and announces purchases whose unused fields are odd (sellerId an object, seenTime a number, no time)', async () => {
    await quirks('odd-unused-fields');
    await markedEverywhere();
  });

  it('reads an order whose currency code is not three letters, and shows the code as given', async () => {
    await quirks('long-currency');
    const { orderId, all } = await markedEverywhere();
    for (const laptop of all) {
      expect((await laptop.core.order(orderId)).order.documentCurrencyCode).toBe(LONG_CURRENCY);
      expect(rowsOf(laptop, orderId)[0]?.total?.currencyCode).toBe(LONG_CURRENCY);
    }
    const told = all[0]?.notifications().find((n) => n.orderId === orderId);
    expect(told?.body).toContain(LONG_CURRENCY);
  });
});

describe('seller-tray doctor', () => {
  it('says which fields it reads as absent, and which numbers it keeps exactly', async () => {
    await quirks('odd-unused-fields', 'big-numbers', 'id-case');
    const run = await runTs('main/cli/seller-tray.ts', ['doctor'], {
      SELLER_API_BASE_URL: market.sim.url,
      SELLER_CLIENT_ID: 'demo-client',
      SELLER_CLIENT_SECRET: 'demo-secret',
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('[].sellerId: {"id":');
    expect(run.stdout).toContain('[].seenTime: 1763632800 cannot be read: taken as absent');
    expect(run.stdout).toMatch(
      /anticipatedMonetaryTotal\.amount: 9223372036854775\S+ has more digits than a number holds/,
    );
    expect(run.stdout).toMatch(/orderId: "[0-9A-F-]{36}" in another case: read as "[0-9a-f-]{36}"/);
    expect(run.stdout).not.toContain('exactAmount');
    expect(run.stdout).toContain('Every operation answered');
  });
});

describe('an event id the marketplace reuses', () => {
  it('for another order: the event stays as first read, its order untouched, the repeat kept aside and told, on every laptop', async () => {
    const early = await startedLaptop();
    const first = (await admin(market.sim.url, 'POST', 'purchases', {})).json.orderId as string;
    await poll(early);
    await quirks('reused-event-ids');
    const second = (await admin(market.sim.url, 'POST', 'purchases', {})).json.orderId as string;
    const late = await startedLaptop(); // reads both in its backlog
    await poll(early);
    expect(announced(early)).toEqual([first]);
    for (const laptop of [early, late]) {
      expect(rowsOf(laptop, first)[0]?.status).toBe('ProvisioningStarted');
      expect((await laptop.core.order(first)).history.map((e) => e.statusCode)).toEqual([
        'ProvisioningStarted',
      ]);
      expect(rowsOf(laptop, second)).toEqual([]);
      const told = laptop.events.flatMap((e) => (e.type === 'problem' ? (e.details ?? []) : []));
      expect(told).toContainEqual(
        expect.stringContaining(`in ${second}: eventId: its id was read before for order ${first}`),
      );
    }
  });
});
