import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, constants, existsSync, openSync, readSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { describeMark } from '../../preload/marked-by';
import { parseOrderLink } from '../../preload/order-link';
import { statusLabel } from '../../preload/status-words';
import { bigNumber, type Quirk } from '../../simulator/quirks';
import { type Simulator, startSimulator } from '../../simulator/server';
import { startCaptureServer } from '../../test/support/capture-server';
import { CONTROL_OR_BIDI, FORGED_ORDER_ID, hostileOrder } from '../../test/support/hostile-order';
import { REPO_ROOT, runTs } from '../../test/support/processes';
import { admin } from '../../test/support/raw-api';
import { atTerminal } from '../../test/support/terminal';
import { osAccountName } from '../core/account-name';
import { SellerApiClient, type SellerApiClientOptions } from '../core/api/client';
import { PAGE } from '../core/api/routes';
import { Order, orderIdOf } from '../core/api/wire';
import { type CommandOptions, runCommand } from './commands';
import { PREFIX_PAGES } from './order-id';

let sim: Simulator;
let env: NodeJS.ProcessEnv;

/** `orders list` and `orders get` as seller-tray's defaults have them. */
const LIST_OPTIONS: CommandOptions = {
  all: false,
  offset: 0,
  limit: 50,
  actor: () => {
    throw new Error('reading marks nothing');
  },
};

/** A command as seller-tray runs it, in this process: a new client of `marketplace`, a new token. */
const command = (
  marketplace: Simulator,
  args: string[],
  options: CommandOptions,
  client: Partial<SellerApiClientOptions> = {},
) =>
  runCommand(
    new SellerApiClient({
      baseUrl: marketplace.url,
      credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
      ...client,
    }),
    args,
    options,
  );

/** Requests `marketplace` has received, of every operation or of one. */
const requestsTo = (marketplace: Simulator, operation?: keyof Simulator['requestCounts']) =>
  operation === undefined
    ? Object.values(marketplace.requestCounts).reduce((a, b) => a + b, 0)
    : marketplace.requestCounts[operation];

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 5, orders: 30 });
  env = {
    SELLER_API_BASE_URL: sim.url,
    SELLER_CLIENT_ID: 'demo-client',
    SELLER_CLIENT_SECRET: 'demo-secret',
  };
});
afterEach(() => admin(sim.url, 'POST', 'reset'));
afterAll(() => sim.close());

const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}, input = '') =>
  runTs('main/cli/seller-tray.ts', args, { ...env, ...extraEnv }, input);

async function json(args: string[]) {
  const run = await cli([...args, '--json']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
}

const firstOrderId = () => JSON.parse(sim.store.listOrderJson(1001, 0, 1).items[0] ?? '{}').orderId as string;

/** The orders a human-readable `orders list` printed: each line's first cell, its order id. */
const printedIds = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.split('\t')[0]);

/** The orders whose latest event (in the listing's order) says `status`, oldest first. */
function ordersWhose(marketplace: Simulator, status: string): string[] {
  const latest = new Map<string, string>();
  for (const event of marketplace.store.listEvents(1001, 0, 1_000_000).items) {
    latest.set(orderIdOf(event) ?? '', event.statusCode);
  }
  return [...latest].filter(([, code]) => code === status).map(([orderId]) => orderId);
}

/** An order of `marketplace` (seller-tray's test one by default) whose status is `status`. */
function orderWhose(status: string, marketplace = sim): string {
  const [orderId] = ordersWhose(marketplace, status);
  if (!orderId) throw new Error(`the simulator has no order whose status is ${status}`);
  return orderId;
}

/** An order's events as the marketplace holds them, oldest first. */
const eventsOf = (marketplace: Simulator, orderId: string) =>
  marketplace.store
    .listEvents(1001, 0, 100_000)
    .items.filter((e) => e.additionalProperties?.some((p) => p.name === 'orderId' && p.value === orderId));

describe('seller-tray reads', () => {
  it('pings, and says the credentials work', async () => {
    const run = await cli(['ping']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^access: public\ndate: \d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\nstage: prod\nversion: v1\ncredentials: accepted \(seller 1001\)\n$/,
    );
  });

  it('pings, and says the marketplace rejects a wrong secret, with exit status 1', async () => {
    const run = await cli(['ping'], { SELLER_CLIENT_SECRET: 'not-the-secret' });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('stage: prod\n');
    expect(run.stdout).toContain('credentials: rejected');
    expect(run.stdout).not.toContain('not-the-secret');
    const json = await cli(['ping', '--json'], { SELLER_CLIENT_SECRET: 'not-the-secret' });
    expect(JSON.parse(json.stdout)).toMatchObject({ stage: 'prod', credentials: { outcome: 'rejected' } });
  });

  it('pings without credentials, saying they were not checked', async () => {
    const run = await cli(['ping'], { SELLER_CLIENT_ID: '', SELLER_CLIENT_SECRET: '' });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/credentials: not checked \(no client id: /);
  });

  it('lists every order with --all --json, newest first, as the API has them (ids as text)', async () => {
    const orders = await json(['orders', 'list', '--all']);
    expect(orders).toHaveLength(30);
    const read = (offset: number) =>
      Order.parse(JSON.parse(sim.store.listOrderJson(1001, offset, 1).items[0] ?? ''));
    expect(orders[0]).toEqual(read(29));
    expect(orders[29]).toEqual(read(0));
  });

  it('lists the newest orders first, honouring --offset and --limit, one line per order with its status', async () => {
    const run = await cli(['orders', 'list', '--offset', '1', '--limit', '2']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const [orderId, issued, status] = lines[0]?.split('\t') ?? [];
    const second = JSON.parse(sim.store.listOrderJson(1001, 28, 1).items[0] ?? '');
    expect([orderId, issued]).toEqual([second.orderId, second.issueTime]);
    expect(['New', 'In progress', 'Completed', 'Failed']).toContain(status);
    // The same status the events say.
    expect(status).toBe(statusLabel(eventsOf(sim, orderId ?? '').at(-1)?.statusCode));
  });

  it('at a terminal, lists under a header with the columns lined up; piped, only the tab-separated rows', async () => {
    const argv = [
      process.execPath,
      '--import',
      'tsx',
      'main/cli/seller-tray.ts',
      'orders',
      'list',
      '--limit',
      '3',
    ];
    const shown = await atTerminal(argv, env, 'TOTAL', []);
    expect(shown.code).toBe(0);
    const lines = shown.output.replace(/\r/g, '').trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^ORDER +ISSUED +STATUS +BUYER +FIRST LINE +TOTAL$/);
    // Each column begins where its header does, and no tab reaches the terminal.
    const starts = (line: string) =>
      [...line.matchAll(/(?:^| {2})(\S)/g)].map((m) => (m.index ?? 0) + m[0].length - 1);
    for (const line of lines.slice(1)) {
      expect(line).not.toContain('\t');
      expect(line.slice(starts(lines[0] ?? '')[1] ?? 0)).toMatch(/^\d{4}-\d\d-\d\dT/); // ISSUED
    }
    const piped = await cli(['orders', 'list', '--limit', '3']);
    expect(piped.stdout).not.toContain('ORDER');
    expect(
      piped.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t')[0]),
    ).toEqual(lines.slice(1).map((line) => line.split(' ')[0]));
  });

  it('shows one order as a view to read, a labelled line per fact and a line per order line', async () => {
    const order = JSON.parse(sim.store.orderJson(1001, firstOrderId()) ?? '{}');
    const run = await cli(['orders', 'get', order.orderId]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^Order: +${order.orderId}$`));
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^Buyer: +${order.buyerCustomerParty.party.partyName}$`)),
    );
    expect(lines).toContain('Lines:');
    // One account: no line says whose it is; the buyer's own account id in the order page's words.
    expect(lines.filter((line) => line.startsWith('Account'))).toEqual([]);
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(`^Our account id: +${order.buyerCustomerParty.supplierAssignedAccountId}$`),
      ),
    );
    const first = order.documentLines[0].lineItem;
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(`^  1\\. ${first.name} \\(${first.sellersItemId}\\) × ${first.quantity.value}`),
      ),
    );
  });

  it('answers help without any configuration', async () => {
    const run = await cli(['help'], {
      SELLER_API_BASE_URL: '',
      SELLER_CLIENT_ID: '',
      SELLER_CLIENT_SECRET: '',
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: seller-tray/);
    expect(run.stderr).toBe('');
  });

  it("answers a command's --help with that command's part of the help, not all of it", async () => {
    const whole = (await cli(['help'])).stdout;
    const status = await cli(['status', '--help']);
    expect(status.code).toBe(0);
    expect(status.stderr).toBe('');
    const entry = whole.slice(whole.indexOf('  status <orderId>'), whole.indexOf('  accounts list'));
    expect(status.stdout).toContain(entry);
    expect(status.stdout).not.toContain('accounts list');
    expect(status.stdout).toMatch(/seller-tray --help lists every command and option\n$/);
    // A command of several words: each of them; one of its words: that one.
    const orders = (await cli(['orders', '--help'])).stdout;
    expect(orders).toContain('  orders list');
    expect(orders).toContain('  orders get <orderId>');
    const get = (await cli(['orders', 'get', '--help'])).stdout;
    expect(get).toContain('  orders get <orderId>');
    expect(get).not.toContain('  orders list');
    expect((await cli(['help', 'orders', 'get'])).stdout).toBe(get);
    // No such command: the whole help.
    expect((await cli(['frobnicate', '--help'])).stdout).toBe(whole);
  });

  it('tells a usage error in its line and where the commands are listed, not the whole help under it', async () => {
    const none = { SELLER_API_BASE_URL: '', SELLER_CLIENT_ID: '', SELLER_CLIENT_SECRET: '' };
    const unknownFlag = await cli(['orders', 'list', '--frobnicate'], none);
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toMatch(
      /^seller-tray: .*--frobnicate.*\nseller-tray --help lists the commands\n$/,
    );
    const unknownCommand = await cli(['automations', 'frobnicate']);
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toBe(
      'seller-tray: automations takes list, runs [--order ID], test NAME --order ID, run-again NAME --order ID, or secret NAME\nseller-tray --help lists the commands\n',
    );
  });

  it('names the option a typo was probably meant for', async () => {
    const none = { SELLER_API_BASE_URL: '', SELLER_CLIENT_ID: '', SELLER_CLIENT_SECRET: '' };
    const option = await cli(['orders', 'list', '--jsn'], none);
    expect(option.code).toBe(2);
    expect(option.stderr).toBe(
      'seller-tray: unknown option --jsn: did you mean --json?\nseller-tray --help lists the commands\n',
    );
    // Given with a value, as an option with one: the same.
    const valued = await cli(['orders', 'list', '--acount=EU'], none);
    expect(valued.stderr).toBe(
      'seller-tray: unknown option --acount: did you mean --account?\nseller-tray --help lists the commands\n',
    );
  });

  it.each([
    [
      ['orders', 'list', '--offset', '-1'],
      "seller-tray: Option '--offset' argument is ambiguous. Did you forget",
    ],
    [
      ['orders', 'list', '--limit', '2', '--limit', '3'],
      'seller-tray: --limit was given twice (2, then 3): give it once',
    ],
    [
      ['status', 'abcd', 'Completed', '--as', 'Anna', '--as=Ben'],
      'seller-tray: --as was given twice (Anna, then Ben): give it once',
    ],
    // A word where an option was meant (--all): not ignored, which would print one page.
    [
      ['orders', 'list', 'all'],
      'seller-tray: orders list takes no argument, not "all" (options begin with --)',
    ],
    [
      ['events', 'new', 'all'],
      'seller-tray: events new takes no argument, not "all" (options begin with --)',
    ],
    [
      ['licenses', 'list', '04f0'],
      'seller-tray: licenses list takes no argument, not "04f0" (options begin with --)',
    ],
    // An empty value (a script's unset "$URL"): not taken as absent, which would read another marketplace.
    [
      ['orders', 'list', '--base-url', ''],
      'seller-tray: --base-url was given empty: give it a value, or leave it out',
    ],
    [['ping', '--client-id='], 'seller-tray: --client-id was given empty: give it a value, or leave it out'],
  ])('refuses %j in one line of words (exit 2), before any request', async (args, words) => {
    const run = await cli(args);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toMatch(new RegExp(`^${words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    expect(run.stderr).not.toContain('\\n');
    expect(run.stdout).toBe('');
  });

  it('gets an order, its licenses and a license', async () => {
    const orderId = firstOrderId();
    expect((await json(['orders', 'get', orderId])).orderId).toBe(orderId);
    const licenses = await json(['licenses', 'list', '--order', orderId]);
    expect(licenses.length).toBeGreaterThan(0);
    const license = await json(['licenses', 'get', licenses[0].licenseId]);
    expect(license).toEqual(licenses[0]);
  });

  it('names the units of each line, as the window does, an unknown code as it came, and in the list', async () => {
    const line = (name: string, quantity: unknown, amount: number, baseQuantity: unknown) => ({
      lineItem: { name, quantity, price: { priceAmount: { amount, currencyCode: 'EUR' }, baseQuantity } },
    });
    const documentLines = [
      line('Seats', { value: 176, unitCode: 'USR' }, 9.95, { value: 1, unitCode: 'MON' }),
      line('Vault', { value: 1, unitCode: 'EA' }, 240, { value: 12, unitCode: 'MON' }),
      line('Support', { value: 2, unitCode: 'ann' }, 1499, { value: 1, unitCode: 'ANN' }),
      line('Odd', { value: 25, unitCode: 'SEAT' }, 5, { value: 1, unitCode: 'HUR' }),
    ];
    const orderId = (await admin(sim.url, 'POST', 'purchases', { order: { documentLines } })).json.orderId;
    const run = await cli(['orders', 'get', orderId]);
    expect(run.code).toBe(0);
    expect(run.stdout.split('Lines:\n')[1]?.split('History:\n')[0]).toBe(
      [
        '  1. Seats × 176 users at 9.95 EUR per month',
        '  2. Vault × 1 unit at 240 EUR per 12 months',
        '  3. Support × 2 years at 1499 EUR per year',
        '  4. Odd × 25 SEAT at 5 EUR per hour',
        '',
      ].join('\n'),
    );
    // The list names the first line's unit too: the order is the newest.
    const listed = await cli(['orders', 'list', '--limit', '1']);
    expect(listed.stdout.split('\t').slice(0, 5)).toEqual([
      orderId,
      expect.any(String),
      'New',
      expect.any(String),
      'Seats × 176 users',
    ]);
  });

  it('reads the "new" events once, and all events any time', async () => {
    const waiting = sim.store.summary()[0]?.newEvents ?? 0;
    expect(waiting).toBeGreaterThan(0);
    const fresh = await json(['events', 'new', '--all']);
    expect(fresh).toHaveLength(waiting);
    expect(await json(['events', 'new', '--all'])).toEqual([]);
    const all = await json(['events', 'all', '--all']);
    expect(all).toHaveLength(sim.store.summary()[0]?.events ?? -1);
  });
});

describe('orders list and orders get on a listing of several pages', () => {
  // More orders (and events) than a page holds: the CLI finds where each listing ends and reads back from there.
  let big: Simulator;
  let bigEnv: NodeJS.ProcessEnv;
  beforeAll(async () => {
    big = await startSimulator({ port: 0, seed: 6, orders: 260 });
    bigEnv = { SELLER_API_BASE_URL: big.url };
  });
  afterEach(() => admin(big.url, 'POST', 'reset'));
  afterAll(() => big.close());

  /** The order at `offset` of the listing, as the app reads it (ids as text). */
  const orderAt = (offset: number) =>
    Order.parse(JSON.parse(big.store.listOrderJson(1001, offset, 1).items[0] ?? '{}')) as Order & {
      orderId: string;
    };

  /** What `orders list --offset --limit` must print: the newest first, each with its latest event's status. */
  const expected = (offset: number, limit: number) =>
    Array.from({ length: limit }, (_, i) => {
      const order = orderAt(259 - offset - i);
      return [order.orderId, order.issueTime, statusLabel(eventsOf(big, order.orderId).at(-1)?.statusCode)];
    });

  it.each([
    { quirks: [], offset: 3, limit: 60 },
    { quirks: ['short-pages'], offset: 3, limit: 60 },
    { quirks: ['empty-page'], offset: 3, limit: 60 },
    // Reaching into the 50 places that hold nothing: read further back.
    { quirks: ['empty-page'], offset: 200, limit: 20 },
    { quirks: ['max-page-50', 'short-pages', 'empty-page'], offset: 3, limit: 60 },
  ])(
    'prints the newest orders with their statuses, quirks $quirks, from $offset',
    async ({ quirks, offset, limit }) => {
      await admin(big.url, 'PATCH', 'faults', { quirks });
      const run = await cli(['orders', 'list', '--offset', String(offset), '--limit', String(limit)], bigEnv);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const printed = run.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t').slice(0, 3));
      expect(printed).toEqual(expected(offset, limit));
    },
  );

  it('prints the newest orders as JSON, as the API has them (ids as text)', async () => {
    const run = await cli(['orders', 'list', '--limit', '2', '--json'], bigEnv);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([orderAt(259), orderAt(258)]);
  });

  it("shows an old order's whole history", async () => {
    const order = orderAt(5);
    const run = await cli(['orders', 'get', order.orderId], bigEnv);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    const history = lines.slice(lines.indexOf('History:') + 1).map((line) => line.split('  ')[2]);
    expect(history).toEqual(eventsOf(big, order.orderId).map((e) => statusLabel(e.statusCode)));
    expect(history[0]).toBe('New');
  });

  describe('items that could not be read', () => {
    /** The listing oldest first. */
    const listing = () => big.store.listOrderJson(1001, 0, 1000).items.map((o) => JSON.parse(o));
    /** Orders and events 'unreadable-orders' and 'unreadable-events' spoil; those 'unlinked-events' unlinks. */
    const spoilt = (id: string) => id.startsWith('0');
    const unlinked = (id: string) => id.startsWith('1');
    /** What stderr tells as unreadable: the keys of each kind, in order, and each detail line. */
    function told(stderr: string) {
      const lines = [...stderr.matchAll(/^ {2}(event|order) (\S+): .*$/gm)];
      const keys = (kind: string) => lines.filter((l) => l[1] === kind).map((l) => l[2] ?? '');
      return { events: keys('event'), orders: keys('order'), lines: lines.map((l) => l[0]) };
    }
    /**
     * `orders get` under `quirk` of an older order with an event it `affects`: the order's events
     * are read back along with other orders'. Its output, and the order's events.
     */
    async function getOlderOrder(quirk: string, affects: (eventId: string) => boolean) {
      await admin(big.url, 'PATCH', 'faults', { quirks: [quirk] });
      const order = listing()
        .slice(0, 200)
        .findLast((o) => eventsOf(big, o.orderId).some((e) => affects(e.eventId)));
      const run = await cli(['orders', 'get', order.orderId], bigEnv);
      expect(run.code).toBe(0);
      return { run, own: eventsOf(big, order.orderId) };
    }

    it("tells an order's own unreadable events, not those of other orders read along", async () => {
      const { run, own } = await getOlderOrder('unreadable-events', spoilt);
      const odd = own.filter((e) => spoilt(e.eventId));
      expect(told(run.stderr)).toMatchObject({ events: odd.map((e) => e.eventId), orders: [] });
      const history = run.stdout.split('History:\n')[1]?.trimEnd().split('\n') ?? [];
      expect(history).toHaveLength(own.length - odd.length);
    });

    it('tells the unreadable orders among those printed and their unreadable events, each page its own', async () => {
      await admin(big.url, 'PATCH', 'faults', { quirks: ['unreadable-events', 'unreadable-orders'] });
      const orders = listing();
      const readable = orders.filter((o) => !spoilt(o.orderId)).reverse();
      const place = (order: unknown) => orders.indexOf(order);
      const limit = 60;
      for (const offset of [0, limit]) {
        const printed = readable.slice(offset, offset + limit);
        // Its places: from the oldest printed up to the order printed before it, on the newer page.
        const places = orders.slice(
          place(printed.at(-1)),
          offset === 0 ? orders.length : place(readable[offset - 1]),
        );
        const unreadableOrders = places.map((o) => o.orderId).filter(spoilt);
        expect(unreadableOrders.length).toBeGreaterThan(0);
        const ids = new Set(printed.map((o) => o.orderId));
        const unreadableEvents = big.store
          .listEvents(1001, 0, 100_000)
          .items.filter((e) => spoilt(e.eventId) && ids.has(orderIdOf(e) ?? ''))
          .map((e) => e.eventId);

        const run = await cli(
          ['orders', 'list', '--offset', String(offset), '--limit', String(limit)],
          bigEnv,
        );
        expect(run.code).toBe(0);
        expect(printedIds(run.stdout)).toEqual([...ids]);
        const { events, orders: toldOrders } = told(run.stderr);
        expect(toldOrders.toSorted()).toEqual(unreadableOrders.toSorted());
        expect(events.toSorted()).toEqual(unreadableEvents.toSorted());
      }
    });

    it('refuses to mark an order none of whose events can be read as its own, telling those events', async () => {
      await admin(big.url, 'PATCH', 'faults', { quirks: ['unlinked-events'] });
      const own = (id: string) => eventsOf(big, id);
      const orderId = listing()
        .map((o) => o.orderId as string)
        .find((id) => own(id).length > 0 && own(id).every((e) => unlinked(e.eventId)));
      if (!orderId) throw new Error('seed 6 has no order all of whose events the quirk unlinks');
      const marked = own(orderId).length;
      const run = await cli(['status', orderId, 'InProgress'], bigEnv);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.split('\n')[0]).toMatch(
        new RegExp(
          `^seller-tray: No status was found for order ${orderId} \\(.+\\): none of the events the marketplace lists can be read as this order's, .* add --force to mark it In progress anyway\\.$`,
        ),
      );
      // Its own events are among those told, as possibly of an order not printed.
      expect(told(run.stderr).events).toEqual(expect.arrayContaining(own(orderId).map((e) => e.eventId)));
      expect(own(orderId)).toHaveLength(marked);
    });

    it('tells unreadable events that name no order, saying they may be of another order', async () => {
      const { run, own } = await getOlderOrder('unlinked-events', unlinked);
      const { events, lines } = told(run.stderr);
      // Its own among them, and none told as if it were known to be this order's.
      const ownUnlinked = own.filter((e) => unlinked(e.eventId)).map((e) => e.eventId);
      expect(events).toEqual(expect.arrayContaining(ownUnlinked));
      expect(events.every(unlinked)).toBe(true);
      for (const line of lines) {
        expect(line).toMatch(
          /\(it names no order that can be read, so it may be of an order not printed here\)$/,
        );
      }
    });
  });

  const received = () => requestsTo(big);

  it.each([
    { name: 'orders get of an order that is not there', args: ['orders', 'get', randomUUID()], failing: [] },
    // A server error, not retried here: the orders listing fails before the events' end is found.
    {
      name: 'orders list whose orders cannot be read',
      args: ['orders', 'list'],
      failing: [{ operation: 'listOrders', action: 'status', status: 500 }],
    },
  ])(
    'ends every request of a failed $name with it, so the process can exit at once',
    async ({ args, failing }) => {
      // The events listing answers slowly: where it ends is still being looked for when the command fails.
      const slowEvents = { operation: 'listEvents', action: 'delay', delayMs: 20, times: 1000 };
      await admin(big.url, 'PATCH', 'faults', { script: [...failing, slowEvents] });
      await expect(command(big, args, LIST_OPTIONS, { retry: { maxAttempts: 1 } })).rejects.toThrow(
        /NotFound|InternalServerError/,
      );
      const atFailure = received();
      expect(atFailure).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(received()).toBe(atFailure);
    },
  );

  it('says so when the marketplace ignores the offset, so that no listing can be read past its first page', async () => {
    await admin(big.url, 'PATCH', 'faults', { quirks: ['ignore-offset'] });
    const run = await cli(['orders', 'list'], bigEnv);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/listOrders: .*ignore the offset/);
  });
});

describe('an order id by its beginning, as git takes a commit', () => {
  const ORDERS = 1_000;
  let many: Simulator;
  let manyEnv: NodeJS.ProcessEnv;
  beforeAll(async () => {
    many = await startSimulator({ port: 0, seed: 7, orders: ORDERS });
    manyEnv = { SELLER_API_BASE_URL: many.url };
  });
  afterEach(() => admin(many.url, 'POST', 'reset'));
  afterAll(() => many.close());

  const ids = () =>
    many.store.listOrderJson(1001, 0, ORDERS).items.map((o) => JSON.parse(o).orderId as string);
  /** The shortest beginning of `orderId`, of at least 4 hex digits, that no other order's id has. */
  function uniqueBeginning(orderId: string): string {
    const all = ids();
    for (let length = 4; ; length++) {
      const beginning = orderId.slice(0, length);
      if (all.filter((id) => id.startsWith(beginning)).length === 1) return beginning;
    }
  }
  /**
   * A walk of the whole listing: its pages (each after the first starts at the one before's last
   * item, to see that the listing did not shift), and at most one read ahead past its end.
   */
  const wholeListing = Math.ceil((ORDERS - 1) / (PAGE.maxLimit - 1)) + 1;

  it('shows the one order whose id begins so, in any case, reading the orders listing once', async () => {
    const orderId = ids()[700] ?? '';
    const beginning = uniqueBeginning(orderId).toUpperCase();
    const before = requestsTo(many, 'listOrders');
    const run = await cli(['orders', 'get', beginning], manyEnv);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toMatch(new RegExp(`^Order: +${orderId}$`));
    expect(requestsTo(many, 'listOrders') - before).toBeLessThanOrEqual(wholeListing);
  });

  it("marks the one order whose id begins so, and lists that order's licenses", async () => {
    const orderId = orderWhose('ProvisioningStarted', many);
    const beginning = uniqueBeginning(orderId);
    const run = await cli(['status', beginning, 'InProgress', '--as', 'Anna Virtanen'], manyEnv);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^Marked order ${orderId} \\(.+\\) In progress as Anna Virtanen, from New;`),
    );
    expect(eventsOf(many, orderId).at(-1)?.statusCode).toBe('ProvisioningInProgress');
    const licenses = await cli(['licenses', 'list', '--order', beginning, '--json'], manyEnv);
    expect(licenses.code).toBe(0);
    const listed = JSON.parse(licenses.stdout);
    expect(listed.length).toBeGreaterThan(0);
    for (const license of listed) expect(orderIdOf(license)).toBe(orderId);
  });

  it('lists the orders an ambiguous beginning fits and exits 1, posting nothing', async () => {
    const byBeginning = new Map<string, string[]>();
    for (const id of ids()) byBeginning.set(id.slice(0, 4), [...(byBeginning.get(id.slice(0, 4)) ?? []), id]);
    const shared = [...byBeginning].filter(([, group]) => group.length > 1);
    expect(shared.length).toBeGreaterThan(0);
    for (const [beginning, group] of shared.slice(0, 2)) {
      const events = many.store.summary()[0]?.events;
      const run = await cli(['status', beginning, 'InProgress'], manyEnv);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      const [sentence, ...candidates] = run.stderr.trimEnd().split('\n');
      expect(sentence).toBe(
        `seller-tray: "${beginning}" begins the ids of ${group.length} orders; give more of the id:`,
      );
      expect(candidates.map((line) => line.trim().split(/ +/)[0])).toEqual(group);
      expect(many.store.summary()[0]?.events).toBe(events);
    }
  });

  it.each([
    { given: 'abc', words: '"abc" is too short to name an order: give at least 4 hex digits' },
    { given: '3f2-', words: 'too short' },
    { given: 'order-17', words: '"order-17" is not an order id' },
  ])(
    'refuses "$given" with exit status 2 before asking the marketplace anything',
    async ({ given, words }) => {
      const before = requestsTo(many);
      for (const args of [
        ['orders', 'get', given],
        ['status', given, 'InProgress'],
      ]) {
        const run = await cli(args, manyEnv);
        expect(run.code).toBe(2);
        expect(run.stderr).toContain(words);
      }
      expect(requestsTo(many)).toBe(before);
    },
  );

  it("counts a seller's one order in the singular when no order's id begins so", async () => {
    const one = await startSimulator({ port: 0, seed: 7, orders: 1 });
    try {
      const listed = one.store.listOrderJson(1001, 0, 10).items.map((o) => JSON.parse(o).orderId as string);
      expect(listed).toHaveLength(1);
      const mistyped = listed[0]?.startsWith('ffff') ? '0000' : 'ffff';
      const run = await cli(['orders', 'get', mistyped], { SELLER_API_BASE_URL: one.url });
      expect(run.stderr).toBe(`seller-tray: No order's id begins with "${mistyped}" (of 1 order).\n`);
      expect(run.code).toBe(1);
    } finally {
      await one.close();
    }
  });

  it("says no order's id begins so for an id mistyped or one character long, instead of the marketplace's 400", async () => {
    const orderId = ids()[3] ?? '';
    // One digit changed, and one digit too many.
    const place = 20;
    const mistyped = `${orderId.slice(0, place)}${orderId[place] === '0' ? '1' : '0'}${orderId.slice(place + 1, -1)}`;
    for (const given of [mistyped, `${orderId}0`]) {
      expect(ids().some((id) => id.startsWith(given))).toBe(false);
      const run = await cli(['orders', 'get', given], manyEnv);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(`seller-tray: No order's id begins with "${given}" (of ${ORDERS} orders).\n`);
    }
    // One digit short is the beginning of the one order.
    const short = await cli(['orders', 'get', orderId.slice(0, -1)], manyEnv);
    expect(short.stdout.split('\n')[0]).toMatch(new RegExp(`^Order: +${orderId}$`));
  });
});

describe('orders list on a seller of 10,000 orders', () => {
  const ORDERS = 10_000;
  let large: Simulator;
  beforeAll(async () => {
    large = await startSimulator({ port: 0, seed: 4, orders: ORDERS });
  });
  afterAll(() => large.close());

  const received = () => requestsTo(large);
  const pageSize = PAGE.maxLimit;
  /** Finding where a listing of `length` places ends: its first page, then pages of one item (listingLength's bound, pagination.test.ts). */
  const findEnd = (length: number) => 1 + 2 * Math.ceil(Math.log2(length + 1)) + 2;
  /**
   * Reading back from a listing's end until the last `needed` items are read, in windows doubling
   * from `firstSpan`: at most twice what is needed and a page for the first window's start, and
   * per window a page read ahead and one where it starts off its predecessor's edge.
   */
  const readBack = (needed: number, firstSpan: number) => {
    const windows = Math.ceil(Math.log2(Math.max(needed / firstSpan, 1))) + 1;
    return Math.ceil((Math.max(2 * needed, firstSpan) + pageSize) / pageSize) + 2 * windows;
  };

  it('reads only the newest end of both listings, about 2·log2 n requests, not the listings whole', async () => {
    const limit = PAGE.defaultLimit;
    const events = large.store.listEvents(1001, 0, 1_000_000).items;
    // The events it must read: back to the oldest of the printed orders' latest events.
    const printed = new Set(
      large.store.listOrderJson(1001, ORDERS - limit, limit).items.map((o) => JSON.parse(o).orderId),
    );
    const oldestLatest = Math.min(
      ...[...printed].map((id) => events.findLastIndex((e) => orderIdOf(e) === id)),
    );
    const bound =
      1 + // the token
      findEnd(ORDERS) +
      readBack(limit + 1, limit + 1) + // the orders printed, and the next older one
      findEnd(events.length) +
      readBack(events.length - oldestLatest, pageSize);
    // Both listings whole, a page read ahead past each end.
    const whole = 1 + Math.ceil(ORDERS / pageSize) + 1 + Math.ceil(events.length / pageSize) + 1;
    expect(bound).toBeLessThan(whole / 3);

    const before = received();
    const run = await cli(['orders', 'list'], { SELLER_API_BASE_URL: large.url });
    expect(run.code).toBe(0);
    expect(printedIds(run.stdout)).toEqual([...printed].reverse());
    expect(received() - before).toBeLessThanOrEqual(bound);
  });
  it('marks a recent order reading only the newest end of the events: its latest event, not its history', async () => {
    const events = large.store.listEvents(1001, 0, 1_000_000).items;
    const orderId = ordersWhose(large, 'ProvisioningStarted').at(-1) ?? '';
    const latest = events.findLastIndex((e) => orderIdOf(e) === orderId);
    // The token, the order (for its buyer), the events back to its latest one, the post.
    const bound = 1 + 1 + findEnd(events.length) + readBack(events.length - latest, pageSize) + 1;
    expect(bound).toBeLessThan((1 + Math.ceil(events.length / pageSize) + 1) / 3);
    const before = received();
    const run = await cli(['status', orderId, 'InProgress', '--as', 'Anna Virtanen'], {
      SELLER_API_BASE_URL: large.url,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/ In progress as Anna Virtanen, from New; the marketplace accepted it/);
    expect(received() - before).toBeLessThanOrEqual(bound);
    await admin(large.url, 'POST', 'reset');
  });

  it(`refuses an id by its beginning past ${PREFIX_PAGES} pages of orders, having read no more`, async () => {
    const orderId = JSON.parse(large.store.listOrderJson(1001, 0, 1).items[0] ?? '{}').orderId as string;
    const before = requestsTo(large, 'listOrders');
    const run = await cli(['orders', 'get', orderId.slice(0, 8)], { SELLER_API_BASE_URL: large.url });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    // As many as its pages held, each after the first starting at the one before's last order.
    const read = PREFIX_PAGES * (PAGE.maxLimit - 1) + 1;
    expect(run.stderr).toMatch(
      new RegExp(
        `^seller-tray: This seller has more than ${read} orders, more than are read to find an id by its beginning: give the whole order id`,
      ),
    );
    // Its pages, the one past them that shows there are more, and one read ahead.
    expect(requestsTo(large, 'listOrders') - before).toBeLessThanOrEqual(PREFIX_PAGES + 2);
  });
});

describe("the marketplace's text", () => {
  /** What reaches the terminal besides the tabs and line ends of the output's own structure. */
  const besidesStructure = (output: string) => output.replace(/[\t\n]/g, '');

  it('is escaped in human output: one line per order, the order id first, no control reaching the terminal', async () => {
    const orderId = (await admin(sim.url, 'POST', 'purchases', { order: hostileOrder })).json.orderId;
    const all = await cli(['orders', 'list', '--all']);
    expect(besidesStructure(all.stdout)).not.toMatch(CONTROL_OR_BIDI);
    const lines = all.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(31);
    const ids = new Set(sim.store.listOrderJson(1001, 0, 100).items.map((o) => JSON.parse(o).orderId));
    for (const line of lines) expect(ids.has(line.split('\t')[0])).toBe(true);
    const [id, , status, buyer, product, total] = lines[0]?.split('\t') ?? [];
    expect([id, status]).toEqual([orderId, 'New']); // the newest first
    expect(buyer).toContain(`\\x1b]0;pwned\\x07\\x1b[2J\\n${FORGED_ORDER_ID}\\tBcc:`);
    // The line and paragraph separators, line breaks to Python's splitlines, are escaped too.
    expect(buyer).toContain(`\\u2028${FORGED_ORDER_ID}\\u2029${FORGED_ORDER_ID}`);
    expect(product).toBe('\\u202e00.1$ :latoT\\u202c × 1');
    expect(total).toBe('9999.99 EUR');

    // One order's view: a line per fact, none forged by the buyer's line breaks.
    const one = await cli(['orders', 'get', orderId]);
    expect(one.code).toBe(0);
    expect(besidesStructure(one.stdout)).not.toMatch(CONTROL_OR_BIDI);
    const facts = one.stdout.trimEnd().split('\n');
    expect(facts.every((line) => /^(\w[\w ]*:| {2}\d+\. )/.test(line))).toBe(true);
    expect(facts.find((line) => line.startsWith('Buyer:'))).toContain(`\\n${FORGED_ORDER_ID}\\tBcc:`);
    expect(facts.find((line) => line.startsWith('Total:'))).toMatch(/ 9999\.99 EUR$/);
    // And the link that opens the order in Seller Tray (the same parser as the app's reads it back).
    const link = facts.find((line) => line.startsWith('Link:'))?.split(/ +/)[1] ?? '';
    expect(link).toBe(`seller-tray://order/${orderId}`);
    expect(parseOrderLink(link)).toEqual({ orderId });
  });

  it('stays exact in --json, with the characters a terminal acts on written as \\u escapes', async () => {
    const orderId = (await admin(sim.url, 'POST', 'purchases', { order: hostileOrder })).json.orderId;
    const run = await cli(['orders', 'get', orderId, '--json']);
    expect(besidesStructure(run.stdout)).not.toMatch(CONTROL_OR_BIDI);
    expect(JSON.parse(run.stdout)).toEqual(JSON.parse(sim.store.orderJson(1001, orderId) ?? ''));
  });
});

describe('seller-tray status', () => {
  const homes: string[] = [];
  afterAll(async () => {
    for (const dir of homes) await rm(dir, { recursive: true, force: true });
  });

  /** A laptop whose app saved settings (its "Your name"), the marketplace given by the environment. */
  async function laptopWith(settings: Record<string, unknown>): Promise<NodeJS.ProcessEnv> {
    const dir = await mkdtemp(join(tmpdir(), 'cli-marker-'));
    homes.push(dir);
    await mkdir(join(dir, 'Seller Tray'), { recursive: true });
    await writeFile(join(dir, 'Seller Tray', 'settings.json'), JSON.stringify(settings));
    return { XDG_CONFIG_HOME: dir };
  }

  it('writes who marked it into the description, as the app does: the saved "Your name", or --as', async () => {
    const orderId = orderWhose('ProvisioningStarted');
    const laptop = await laptopWith({ actorName: 'Anna Virtanen' });
    const started = await cli(['status', orderId, 'InProgress'], laptop);
    expect(started.code).toBe(0);
    expect(eventsOf(sim, orderId).at(-1)).toMatchObject({
      statusCode: 'ProvisioningInProgress',
      description: 'Provisioning started by Anna Virtanen.',
    });
    expect(eventsOf(sim, orderId).at(-1)).not.toHaveProperty('detailedDescription');

    const completed = await cli(['status', orderId, 'Completed', '--as', ' Bo Berg '], laptop);
    expect(completed.code).toBe(0);
    expect(eventsOf(sim, orderId).at(-1)).toMatchObject({
      statusCode: 'ProvisioningCompleted',
      description: 'Provisioning completed by Bo Berg.',
    });
  });

  it.each([
    ['the marketplace stored the post but its answer was lost', 'dropAfterHandling', 1],
    ['the connection dropped before the marketplace had the post', 'drop', 1],
  ] as const)(
    'posts once on a marketplace that does not deduplicate request ids, when %s',
    async (_, action, expected) => {
      const orderId = orderWhose('ProvisioningStarted');
      const before = eventsOf(sim, orderId).length;
      await admin(sim.url, 'PATCH', 'faults', {
        quirks: ['non-idempotent-posts'],
        script: [{ operation: 'sendEvent', action }],
      });
      const run = await cli(
        ['status', orderId, 'InProgress', '--json'],
        await laptopWith({ actorName: 'Anna' }),
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const marked = eventsOf(sim, orderId).slice(before);
      expect(marked).toHaveLength(expected);
      // What it printed is the event the marketplace holds, read back when the answer was lost.
      expect(JSON.parse(run.stdout)).toMatchObject({
        eventId: marked[0]?.eventId,
        statusCode: 'ProvisioningInProgress',
      });
    },
  );

  it('keeps working when a gateway lets its token lapse between calls (403), and keeps its words when it refuses', async () => {
    const orderId = orderWhose('ProvisioningStarted');
    // Pages of 10, a quarter second each: the walk outlasts the gateway's second.
    const laptop = await laptopWith({ actorName: 'Anna', api: { pageSize: 10 } });
    await admin(sim.url, 'PATCH', 'faults', { quirks: ['gateway-403'], latencyMs: 250 });
    const tokens = sim.requestCounts.createToken;
    const run = await cli(['events', 'all', '--all', '--json'], laptop);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toHaveLength(sim.store.listEvents(1001, 0, 100_000).items.length);
    expect(sim.requestCounts.createToken).toBeGreaterThan(tokens + 1); // renewed on the way
    await admin(sim.url, 'PATCH', 'faults', {
      latencyMs: 0,
      quirks: [],
      script: [{ operation: 'sendEvent', action: 'status', status: 403, times: 2 }],
    });
    const refused = await cli(['status', orderId, 'InProgress'], laptop);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'The marketplace does not allow this API client to post order statuses, also with a fresh sign-in (it said: “this client is not allowed to call this operation”).',
    );
    expect(refused.stderr).toContain('sendEvent: HTTP 403 Forbidden: Forbidden (this client is not allowed');
  });

  it("names this computer's account when no name was saved, as the app does", async () => {
    const orderId = orderWhose('ProvisioningStarted');
    const run = await cli(['status', orderId, 'InProgress'], await laptopWith({}));
    expect(run.code).toBe(0);
    expect(eventsOf(sim, orderId).at(-1)?.description).toBe(
      describeMark('ProvisioningInProgress', osAccountName()),
    );
  });

  it("puts the user's words after who marked it, and the reason in the detailed description", async () => {
    const orderId = orderWhose('ProvisioningInProgress');
    const laptop = await laptopWith({ actorName: 'Anna Virtanen' });
    const run = await cli(
      ['status', orderId, 'Failed', '--description', 'Could not provision', '--detail', 'Quota', '--json'],
      laptop,
    );
    expect(run.code).toBe(0);
    const event = JSON.parse(run.stdout);
    expect(event).toMatchObject({
      statusCode: 'ProvisioningFailed',
      description: 'Provisioning failed, reported by Anna Virtanen: Could not provision',
      detailedDescription: 'Quota',
      additionalProperties: [{ name: 'orderId', value: orderId }],
    });
    expect(eventsOf(sim, orderId).at(-1)?.eventId).toBe(event.eventId);
  });

  it("shows who marked each status in orders get, as the app's history does", async () => {
    const orderId = orderWhose('ProvisioningStarted');
    const laptop = await laptopWith({ actorName: 'Anna Virtanen' });
    await cli(['status', orderId, 'InProgress'], laptop);
    await cli(
      ['status', orderId, 'Failed', '--description', 'Stuck', '--detail', 'Quota', '--as', 'Bo Berg'],
      laptop,
    );
    const run = await cli(['orders', 'get', orderId]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toContainEqual(expect.stringMatching(/^Status: +Failed since \S+, marked by Bo Berg$/));
    const history = lines.slice(lines.indexOf('History:') + 1);
    expect(history).toHaveLength(eventsOf(sim, orderId).length);
    expect(history.at(-2)).toMatch(/^ {2}\d+\. \S+ {2}In progress {2}Marked by Anna Virtanen$/);
    expect(history.at(-1)).toMatch(/^ {2}\d+\. \S+ {2}Failed {2}Marked by Bo Berg: Stuck \(Quota\)$/);
  });

  it('says in a sentence what it marked, from which status, as whom, and the event the marketplace stored', async () => {
    const orderId = orderWhose('ProvisioningStarted');
    const buyer = JSON.parse(sim.store.orderJson(1001, orderId) ?? '{}').buyerCustomerParty.party.partyName;
    const run = await cli(['status', orderId, 'InProgress', '--as', 'Anna Virtanen']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const event = eventsOf(sim, orderId).at(-1);
    expect(event?.statusCode).toBe('ProvisioningInProgress');
    expect(run.stdout).toBe(
      `Marked order ${orderId} (${buyer}) In progress as Anna Virtanen, from New; the marketplace accepted it (event ${event?.eventId}).\n`,
    );
  });

  it('takes a status as orders list and orders get print it ("In progress"), in any case', async () => {
    const orderId = orderWhose('ProvisioningStarted');
    const listed = await cli(['orders', 'list', '--all']);
    const line = listed.stdout.split('\n').find((row) => row.startsWith(orderId));
    expect(line?.split('\t')[2]).toBe('New');
    for (const [word, code] of [
      [statusLabel('ProvisioningInProgress'), 'ProvisioningInProgress'],
      ['completed', 'ProvisioningCompleted'],
    ]) {
      const run = await cli(['status', orderId, word as string, '--as', 'Anna Virtanen']);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(eventsOf(sim, orderId).at(-1)?.statusCode).toBe(code);
    }
  });

  it('refuses Completed twice with exit status 1, saying the order already is, and posts it again only with --force', async () => {
    const orderId = orderWhose('ProvisioningStarted');
    const laptop = await laptopWith({ actorName: 'Anna Virtanen' });
    for (const step of ['InProgress', 'Completed'])
      expect((await cli(['status', orderId, step], laptop)).code).toBe(0);
    const marked = eventsOf(sim, orderId).length;
    const again = await cli(['status', orderId, 'Completed'], laptop);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(
      new RegExp(
        `^seller-tray: The order ${orderId} \\(.+\\) is already Completed since \\S+, marked by Anna Virtanen\\. Nothing was posted; add --force to mark it Completed again\\.\\n$`,
      ),
    );
    expect(eventsOf(sim, orderId)).toHaveLength(marked);

    const forced = await cli(['status', orderId, 'Completed', '--force', '--json'], laptop);
    expect(forced.code).toBe(0);
    expect(eventsOf(sim, orderId)).toHaveLength(marked + 1);
    // --json keeps the machine form: the stored event, exactly.
    expect(JSON.parse(forced.stdout)).toMatchObject({
      statusCode: 'ProvisioningCompleted',
      eventId: eventsOf(sim, orderId).at(-1)?.eventId,
      description: 'Provisioning completed by Anna Virtanen.',
    });
  });

  it('refuses to reopen a Completed order unless --force; with --json the refusal is also an object on stderr', async () => {
    const orderId = orderWhose('ProvisioningCompleted');
    const marked = eventsOf(sim, orderId).length;
    const run = await cli(['status', orderId, 'InProgress', '--json']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const [sentence, json] = run.stderr.trimEnd().split('\n');
    expect(sentence).toMatch(
      /is Completed since \S+: marking it In progress now is unusual, so the window asks first\. Nothing was posted; add --force to do it anyway\.$/,
    );
    expect(JSON.parse(json ?? '')).toEqual({
      error: { code: 'unusual-transition', message: sentence?.replace(/^seller-tray: /, '') },
    });
    expect(eventsOf(sim, orderId)).toHaveLength(marked);

    const forced = await cli(['status', orderId, 'InProgress', '--force', '--as', 'Bo Berg']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(
      / In progress as Bo Berg, from Completed \(--force\); the marketplace accepted it/,
    );
    expect(eventsOf(sim, orderId).at(-1)?.statusCode).toBe('ProvisioningInProgress');
  });

  /** The window's usual steps, written out here rather than read from the code under test. */
  const USUAL = new Set([
    'ProvisioningStarted ProvisioningInProgress',
    'ProvisioningInProgress ProvisioningCompleted',
    'ProvisioningInProgress ProvisioningFailed',
    'ProvisioningFailed ProvisioningInProgress',
  ]);
  const WORDS = {
    ProvisioningInProgress: 'InProgress',
    ProvisioningCompleted: 'Completed',
    ProvisioningFailed: 'Failed',
  } as const;
  it.each(
    ['ProvisioningStarted', 'ProvisioningInProgress', 'ProvisioningCompleted', 'ProvisioningFailed'].flatMap(
      (from) =>
        (Object.keys(WORDS) as (keyof typeof WORDS)[]).map((to) => ({
          from,
          to,
          usual: USUAL.has(`${from} ${to}`),
        })),
    ),
  )('from $from to $to: posted at once $usual, else only with --force', async ({ from, to, usual }) => {
    const orderId = orderWhose(from);
    const mark = (force: boolean) =>
      command(sim, ['status', orderId, WORDS[to]], {
        ...LIST_OPTIONS,
        actor: () => 'Anna Virtanen',
        description: 'Checked',
        detail: 'By the test',
        force,
      });
    const before = eventsOf(sim, orderId).length;
    if (usual) {
      await expect(mark(false)).resolves.toMatchObject({ result: { kind: 'mark', mark: { from, to } } });
    } else {
      await expect(mark(false)).rejects.toMatchObject({
        code: from === to ? 'same-status' : 'unusual-transition',
      });
      expect(eventsOf(sim, orderId)).toHaveLength(before);
      await expect(mark(true)).resolves.toMatchObject({ result: { mark: { from, to, forced: true } } });
    }
    expect(eventsOf(sim, orderId)).toHaveLength(before + 1);
    expect(eventsOf(sim, orderId).at(-1)?.statusCode).toBe(to);
  });

  it.each([
    { name: 'a colon', flags: ['--as', 'Anna: ops'], words: '--as must not contain a colon' },
    {
      name: '101 characters',
      flags: ['--as', 'x'.repeat(101)],
      words: '--as must be at most 100 characters',
    },
    { name: 'only spaces', flags: ['--as', '  '], words: '--as needs a name' },
  ])(
    'refuses a name of $name, which would not read back, with exit status 2, posting nothing',
    async ({ flags, words }) => {
      const orderId = firstOrderId();
      const before = eventsOf(sim, orderId).length;
      const run = await cli(['status', orderId, 'InProgress', ...flags]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(words);
      expect(run.stdout).toBe('');
      expect(eventsOf(sim, orderId)).toHaveLength(before);
    },
  );

  const failedNeeds = 'status Failed needs --description TEXT and --detail TEXT';
  it.each([
    {
      name: 'an unknown status',
      args: ['status', 'x', 'Done', '--description', 'd'],
      words:
        'seller-tray: "Done" is not a status to mark: give InProgress ("In progress"), Completed or Failed\n',
    },
    {
      name: 'Failed without --detail',
      args: ['status', 'x', 'Failed', '--description', 'Stuck'],
      words: failedNeeds,
    },
    {
      name: 'Failed without --description',
      args: ['status', 'x', 'Failed', '--detail', 'Quota'],
      words: failedNeeds,
    },
    {
      name: 'words longer than the app takes',
      args: ['status', 'x', 'Completed', '--description', 'd'.repeat(1001)],
      words: '--description must be at most 1000 characters',
    },
  ])('refuses $name with exit status 2', async ({ args, words }) => {
    const run = await cli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(words);
    expect(run.stdout).toBe('');
  });
});

describe("an order's truth whatever the marketplace's clocks, ids and numbers do (issue 20)", () => {
  /** The status `orders list` prints for an order (its third cell), and what it told on stderr. */
  async function listed(orderId: string): Promise<{ status: string | undefined; stderr: string }> {
    const run = await cli(['orders', 'list', '--limit', '5']);
    expect(run.code).toBe(0);
    const line = run.stdout.split('\n').find((l) => l.startsWith(`${orderId}\t`));
    return { status: line?.split('\t')[2], stderr: run.stderr };
  }

  it.each<Quirk>([
    'clock-skew',
    'in-place-updates',
    'id-case',
    'big-numbers',
    'odd-unused-fields',
    'long-currency',
  ])(
    'under %s, orders list and orders get show the status marked, and nothing is set aside',
    async (quirk) => {
      await admin(sim.url, 'PATCH', 'faults', { quirks: [quirk] });
      const orderId = (await admin(sim.url, 'POST', 'purchases', {})).json.orderId as string;
      expect(await listed(orderId)).toEqual({ status: 'New', stderr: '' });
      // The id as another spelling of it: the one order.
      const marked = await cli(['status', orderId.toUpperCase(), 'InProgress', '--as', 'Anna Virtanen']);
      expect(marked.code).toBe(0);
      expect(await listed(orderId)).toEqual({ status: 'In progress', stderr: '' });
      const got = await cli(['orders', 'get', orderId.toUpperCase()]);
      expect(got.stderr).toBe('');
      const lines = got.stdout.trimEnd().split('\n');
      expect(lines.at(-1)).toContain('In progress');
      expect(lines.at(-1)).toContain('Anna Virtanen');
    },
  );

  it('prints ids beyond 2^53 with every digit', async () => {
    await admin(sim.url, 'PATCH', 'faults', { quirks: ['big-numbers'] });
    const orderId = (await admin(sim.url, 'POST', 'purchases', {})).json.orderId as string;
    const order = await json(['orders', 'get', orderId]);
    expect(order.documentLines[0].lineId).toBe(bigNumber(1));
    expect(order.anticipatedMonetaryTotal.exactAmount).toMatch(/^9223372036854775\d+/);
    const run = await cli(['orders', 'get', orderId]);
    expect(run.stdout).toContain(bigNumber(1));
    // The total as the marketplace wrote it, every digit.
    expect(run.stdout).toMatch(
      new RegExp(`^Total: +${order.anticipatedMonetaryTotal.exactAmount.replace('.', '\\.')} `, 'm'),
    );
    expect(run.stdout).toContain(` at ${order.documentLines[0].lineItem.price.priceAmount.exactAmount} `);
  });

  it('says when another laptop moved a completed order back', async () => {
    const orderId = firstOrderId();
    for (const word of ['InProgress', 'Completed', 'InProgress']) {
      const as = word === 'Completed' ? 'Anna' : 'Bo';
      expect((await cli(['status', orderId, word, '--as', as, '--force'])).code).toBe(0);
    }
    const run = await cli(['orders', 'get', orderId]);
    expect(run.stdout).toMatch(/^Moved back: +Marked In progress by Bo after it was Completed$/m);
  });
});

describe('seller-tray failures', () => {
  it('reports a server error with its code, description and request id, and prints nothing', async () => {
    const run = await cli(['orders', 'get', crypto.randomUUID()]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/NotFound: Resource not found .*\(request id [0-9a-f-]{36}\)/);
  });

  it('prints nothing when a walk fails part-way', async () => {
    await admin(sim.url, 'PATCH', 'faults', {
      script: [{ operation: 'listOrders', action: 'status', status: 500, times: 100 }],
    });
    const run = await cli(['orders', 'list', '--all', '--limit', '5', '--json']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('InternalServerError');
  }, 60_000);

  it('says the credentials were rejected, without echoing the secret', async () => {
    const run = await cli(['orders', 'list'], { SELLER_CLIENT_SECRET: 'not-the-secret' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('rejected');
    expect(run.stderr).not.toContain('not-the-secret');
  });

  it("words its advice for the terminal (the CLI's commands and variables), never the app's Settings", async () => {
    const home = await mkdtemp(join(tmpdir(), 'cli-advice-'));
    try {
      const laptop = { XDG_CONFIG_HOME: home };
      const APP_ONLY = /Settings|order page|Diagnose connection|Check now/;
      const rejected = await cli(['watch', '--once'], { ...laptop, SELLER_CLIENT_SECRET: 'not-the-secret' });
      // The secret came from the variable, which is used before the keychain: fix or unset it.
      expect(rejected.stderr).toContain(
        `The marketplace rejected the client id or secret. Set SELLER_CLIENT_SECRET to the current client secret (it is used before the keychain), or unset it and store the secret with seller-tray login --base-url ${sim.url} --client-id demo-client.`,
      );
      expect(rejected.stderr).not.toMatch(APP_ONLY);
      // A permission the client lacks: the other client to use is added with the CLI's own command.
      await admin(sim.url, 'PATCH', 'faults', {
        script: ['listNewEvents', 'listEvents', 'listOrders'].map((operation) => ({
          operation,
          action: 'status',
          status: 403,
          times: 100,
        })),
      });
      const refused = await cli(['watch', '--once'], laptop);
      expect(refused.stderr).toContain(
        `Ask whoever manages your Seller Console to give the client that permission, or add another client with seller-tray accounts add LABEL --base-url ${sim.url} --client-id ID.`,
      );
      expect(refused.stderr).not.toMatch(APP_ONLY);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 60_000);

  it('watch --once with no secret stored says so once, in its own words, not as something that went wrong', async () => {
    const home = await mkdtemp(join(tmpdir(), 'cli-no-secret-'));
    try {
      const run = await cli(['watch', '--once'], {
        XDG_CONFIG_HOME: home,
        XDG_DATA_HOME: home,
        SELLER_CLIENT_ID: `never-stored-${randomUUID()}`,
        SELLER_CLIENT_SECRET: '',
      });
      expect(run.code).toBe(1);
      expect(run.stderr.match(/No client secret is stored for client never-stored-/g)).toHaveLength(1);
      expect(run.stderr).not.toContain('Something went wrong');
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 60_000);

  it('watch --once, whose one try failed, says so rather than that Seller Tray keeps trying', async () => {
    const home = await mkdtemp(join(tmpdir(), 'cli-once-'));
    const gone = await startSimulator({ port: 0, seed: 5, orders: 1 });
    await gone.close();
    try {
      const laptop = { XDG_CONFIG_HOME: home, XDG_DATA_HOME: home };
      const down = await cli(['watch', '--once'], { ...laptop, SELLER_API_BASE_URL: gone.url });
      expect(down.code).toBe(1);
      expect(down.stderr).toContain(
        'The marketplace could not be reached. Check your internet connection (and VPN, if you use one); watch --once does not try again: run it again later.',
      );
      await admin(sim.url, 'PATCH', 'faults', {
        script: [{ operation: 'createToken', action: 'status', status: 503, times: 100 }],
      });
      const failing = await cli(['watch', '--once'], laptop);
      expect(failing.code).toBe(1);
      expect(failing.stderr).toContain(
        'The marketplace is having problems (a server error); watch --once does not try again: run it again later; nothing you marked is lost.',
      );
      for (const run of [down, failing]) expect(run.stderr).not.toMatch(/keeps trying|tries again by itself/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 60_000);

  it.each([
    [['orders', 'list'], { SELLER_CLIENT_SECRET: '' }, 'SELLER_CLIENT_SECRET'],
    [['ping'], { SELLER_API_BASE_URL: '' }, 'SELLER_API_BASE_URL'],
    [['orders', 'list', '--client-secret', 's'], {}, "Unknown option '--client-secret'"],
    [['orders', 'list', '--limit', 'ten'], {}, '--limit'],
    [['orders', 'fly'], {}, 'unknown command'],
    [['orders', 'list'], { SELLER_API_BASE_URL: 'http://marketplace.example' }, 'https'],
  ])('refuses %j %j with exit status 2 or 1 and a message', async (args, extra, words) => {
    const run = await cli(args, extra);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(words);
    expect(run.stdout).toBe('');
  });
});

describe('standard output that cannot take the output', () => {
  /** The CLI with its stdout `stdout`: a pipe whose reader left before anything was written, or a file. */
  async function withStdout(
    args: string[],
    stdout: 'closed pipe' | number,
    extraEnv: NodeJS.ProcessEnv = {},
  ) {
    const child = spawn(process.execPath, ['--import', 'tsx', 'main/cli/seller-tray.ts', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env, ...extraEnv },
      stdio: ['ignore', stdout === 'closed pipe' ? 'pipe' : stdout, 'pipe'],
    });
    // As `| head -1` once it has its line: the pipe's reading end closed.
    child.stdout?.destroy();
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const [code] = await once(child, 'exit');
    return { code, stderr };
  }

  it.each([[['orders', 'list', '--all', '--json']], [['orders', 'list']], [['help']]])(
    'ends %j quietly when its reader left (| head), with exit status 141 as a shell reports it',
    async (args) => {
      const run = await withStdout(args, 'closed pipe');
      expect(run.stderr).toBe('');
      expect(run.code).toBe(141);
    },
    60_000,
  );

  it('leaves a new order watch could not print to be printed by the next watch, and stops quietly', async () => {
    const home = await mkdtemp(join(tmpdir(), 'cli-closed-'));
    try {
      const laptop = { XDG_CONFIG_HOME: home, XDG_DATA_HOME: home };
      expect((await cli(['watch', '--once'], laptop)).code).toBe(0);
      const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId;
      const unread = await withStdout(['watch', '--once'], 'closed pipe', laptop);
      expect(unread.stderr).toBe('');
      expect(unread.code).toBe(141);
      const next = await cli(['watch', '--once'], laptop);
      expect(next.stdout.split('\t')[0]).toBe(orderId);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 60_000);

  it('says how many new orders watch took but could not hand to a reader that stalled, then left: exit 1', async () => {
    const home = await mkdtemp(join(tmpdir(), 'cli-stalled-'));
    try {
      const laptop = { XDG_CONFIG_HOME: home, XDG_DATA_HOME: home };
      expect((await cli(['watch', '--once'], laptop)).code).toBe(0);
      // More lines than the pipe holds (64 KiB): the rest waits in the CLI's own stream.
      const purchases = 700;
      for (let i = 0; i < purchases; i += 50)
        await Promise.all(Array.from({ length: 50 }, () => admin(sim.url, 'POST', 'purchases')));
      // A real pipe (a FIFO) whose reader, this test, reads nothing until it leaves.
      const fifo = join(home, 'reader');
      await promisify(execFile)('mkfifo', [fifo]);
      const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      const writer = openSync(fifo, 'w');
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'main/cli/seller-tray.ts', 'watch', '--once', '--verbose'],
        { cwd: REPO_ROOT, env: { ...process.env, ...env, ...laptop }, stdio: ['ignore', writer, 'pipe'] },
      );
      closeSync(writer);
      let stderr = '';
      // New orders' announcements (each one a line on stdout), not reminders of the older ones waiting.
      const announced = () => stderr.match(/ announcement kind=new-order /g)?.length ?? 0;
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
      });
      const exited = once(child, 'exit');
      await vi.waitFor(() => expect(announced()).toBe(purchases), { timeout: 40_000, interval: 100 });
      // Each line is printed as its announcement is logged, in the same turn: all are written by now.
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The reader takes what reached it, then leaves, while the CLI cannot write meanwhile.
      child.kill('SIGSTOP');
      let received = '';
      const chunk = Buffer.alloc(1 << 16);
      for (;;) {
        let read = 0;
        try {
          read = readSync(reader, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        }
        if (read === 0) break;
        received += chunk.toString('utf8', 0, read);
      }
      closeSync(reader);
      child.kill('SIGCONT');
      const [code] = await exited;
      const reachedReader = received.split('\n').length - 1;
      expect(reachedReader).toBeLessThan(purchases);
      const lost = purchases - reachedReader;
      expect(stderr).toContain(
        `seller-tray: the reader of the output left before ${lost === 1 ? "1 new order's line" : `${lost} new orders' lines`} reached it: ${lost === 1 ? 'it is' : 'they are'} not printed again; \`seller-tray orders list\` shows the newest orders\n`,
      );
      expect(code).toBe(1);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 120_000);

  it('says a single line lost in the singular', async () => {
    // printLine as watch calls it: a line larger than any pipe holds, the reader stalled, then gone.
    const script = `import { guardOutput, outputClosed, outputFailure, printLine } from './main/cli/output.ts';
      guardOutput();
      printLine('x'.repeat(1 << 20) + '\\n');
      process.stderr.write('printed\\n');
      await outputClosed;
      process.exitCode = outputFailure();`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.includes('printed\n')) child.stdout?.destroy();
    });
    const [code] = await once(child, 'exit');
    expect(stderr).toBe(
      "printed\nseller-tray: the reader of the output left before 1 new order's line reached it: it is not printed again; `seller-tray orders list` shows the newest orders\n",
    );
    expect(code).toBe(1);
  }, 60_000);

  it.skipIf(!existsSync('/dev/full'))(
    'says in one line that the output could not be written on a full disk, exit 1',
    async () => {
      const full = openSync('/dev/full', 'w');
      try {
        const run = await withStdout(['orders', 'list', '--json'], full);
        expect(run.stderr).toBe(
          'seller-tray: the output could not be written: ENOSPC: no space left on device\n',
        );
        expect(run.code).toBe(1);
      } finally {
        closeSync(full);
      }
    },
    60_000,
  );
});

describe('the seller-tray bin', () => {
  it('is built by npm run build:cli into one file that runs on plain Node', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cli-'));
    try {
      const outfile = join(dir, 'seller-tray.mjs');
      await promisify(execFile)('npm', ['run', '-s', 'build:cli', '--', `--outfile=${outfile}`], {
        cwd: REPO_ROOT,
      });
      const { stdout } = await promisify(execFile)(process.execPath, [outfile, 'ping', '--json'], {
        env: { ...process.env, ...env },
        cwd: dir,
      });
      expect(JSON.parse(stdout)).toMatchObject({ stage: 'prod', version: 'v1' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('seller-tray login and watch', () => {
  /** A laptop: its own config home, and no credentials in its environment. */
  async function laptopEnv(): Promise<NodeJS.ProcessEnv> {
    const dir = await mkdtemp(join(tmpdir(), 'cli-laptop-'));
    homes.push(dir);
    return { SELLER_API_BASE_URL: '', SELLER_CLIENT_ID: '', SELLER_CLIENT_SECRET: '', XDG_CONFIG_HOME: dir };
  }
  const homes: string[] = [];
  afterAll(async () => {
    for (const dir of homes) await rm(dir, { recursive: true, force: true });
  });

  it('stores nothing when the secret is wrong', async () => {
    const laptop = await laptopEnv();
    const run = await cli(
      ['login', '--base-url', sim.url, '--client-id', 'demo-client-2'],
      laptop,
      'wrong\n',
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('rejected');
    const after = await cli(['orders', 'list'], laptop);
    expect(after.code).toBe(2);
    expect(after.stderr).toContain('no marketplace configured');
  });

  it("says no marketplace is configured rather than using the app's demo address", async () => {
    const laptop = await laptopEnv();
    const folder = join(laptop.XDG_CONFIG_HOME ?? '', 'Seller Tray');
    await mkdir(folder, { recursive: true });
    const demo = { baseUrl: 'http://127.0.0.1:45871', clientId: 'demo-client', demoMode: true };
    await writeFile(join(folder, 'settings.json'), JSON.stringify(demo));
    const run = await cli(['orders', 'list'], laptop);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no marketplace configured (the app is in demo mode');
    expect(run.stderr).not.toMatch(/ECONNREFUSED|45871/);

    // Logging in ends the demo, for the app too.
    await cli(['login', '--base-url', sim.url, '--client-id', 'demo-client-2'], laptop, 'demo-secret-2');
    const settings = JSON.parse(await readFile(join(folder, 'settings.json'), 'utf8'));
    expect(settings).toMatchObject({ baseUrl: sim.url, clientId: 'demo-client-2', demoMode: false });
    expect((await cli(['orders', 'list'], laptop)).code).toBe(0);
  });

  it('keeps the secret in the keychain, so later commands need none in the environment', async () => {
    const laptop = await laptopEnv();
    const run = await cli(
      ['login', '--base-url', sim.url, '--client-id', 'demo-client-2'],
      laptop,
      'demo-secret-2\n',
    );
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('Logged in as client demo-client-2 of seller 1001');
    const orders = await cli(['orders', 'list', '--json', '--all'], laptop);
    expect(orders.code).toBe(0);
    expect(JSON.parse(orders.stdout)).toHaveLength(30);
    const settings = await readFile(
      join(laptop.XDG_CONFIG_HOME ?? '', 'Seller Tray', 'settings.json'),
      'utf8',
    );
    expect(settings).toContain('demo-client-2');
    expect(settings).not.toContain('demo-secret-2');
  });

  it('at a terminal, reads the client secret without echo (the one reader of every secret: secret-input.ts)', async () => {
    const laptop = await laptopEnv();
    const login = [process.execPath, '--import', 'tsx', 'main/cli/seller-tray.ts', 'login'];
    const typed = await atTerminal(
      [...login, '--base-url', sim.url, '--client-id', 'demo-client-2'],
      laptop,
      'Client secret',
      ['demo-secret-2', '\r'],
    );
    expect(typed.output).toContain('Client secret (not shown as you type or paste it), then Enter: ');
    expect(typed.output).not.toContain('demo-secret-2');
    expect(typed.output).toContain('Logged in as client demo-client-2 of seller 1001');
    expect(typed.code).toBe(0);
  });

  it('sends the keychain secret only to the marketplace it logged in to', async () => {
    const laptop = await laptopEnv();
    await cli(['login', '--base-url', sim.url, '--client-id', 'demo-client-2'], laptop, 'demo-secret-2');
    const capture = await startCaptureServer();
    try {
      const run = await cli(['orders', 'list', '--base-url', capture.url], laptop);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        // Another marketplace than the saved one: added beside it (login would replace it).
        `No client secret is stored for client demo-client-2 at ${capture.url}: Seller Tray sends a secret only to the marketplace it was entered for. Set SELLER_CLIENT_SECRET to the current client secret, or store it with seller-tray accounts add LABEL --base-url ${capture.url} --client-id demo-client-2.`,
      );
      expect(capture.requests).toEqual([]);
    } finally {
      await capture.close();
    }
    expect((await cli(['orders', 'list', '--base-url', `${sim.url}/`], laptop)).code).toBe(0);
  });

  it("watch prints a hostile buyer's order on one line, its id first, no control reaching the terminal", async () => {
    const laptop = await laptopEnv();
    await cli(['login', '--base-url', sim.url, '--client-id', 'demo-client'], laptop, 'demo-secret');
    expect((await cli(['watch', '--once'], laptop)).stdout).toBe('');
    const orderId = (await admin(sim.url, 'POST', 'purchases', { order: hostileOrder })).json.orderId;
    const seen = (await cli(['watch', '--once'], laptop)).stdout;
    expect(seen.split('\n')).toHaveLength(2);
    expect(seen.split('\t')[0]).toBe(orderId);
    expect(seen.replace(/[\t\n]/g, '')).not.toMatch(CONTROL_OR_BIDI);
  }, 60_000);

  it('--verbose writes what the app would log to stderr; without it, stderr stays empty', async () => {
    const script = { script: [{ operation: 'listOrders', action: 'status', status: 503 }] };
    await admin(sim.url, 'PATCH', 'faults', script);
    const quiet = await cli(['orders', 'list']);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');

    await admin(sim.url, 'PATCH', 'faults', script);
    const verbose = await cli(['orders', 'list', '--verbose']);
    expect(verbose.code).toBe(0);
    expect(verbose.stdout).toBe(quiet.stdout);
    expect(verbose.stderr).toMatch(
      /^seller-tray: warn call failed operation=listOrders status=503 requestId=[0-9a-f-]{36} .*attempt=1 next=retry/m,
    );

    const laptop = await laptopEnv();
    await cli(['login', '--base-url', sim.url, '--client-id', 'demo-client'], laptop, 'demo-secret');
    // Without --verbose no log line: only the first run's one sentence for the user.
    expect((await cli(['watch', '--once'], laptop)).stderr).toMatch(
      /^seller-tray: first run on this computer: [^\n]*\n$/,
    );
    const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId;
    const watched = await cli(['watch', '--once', '--verbose'], laptop);
    expect(watched.stderr).toMatch(/^seller-tray: info poll ok events=\d+ newEvents=\d+ newOrders=1 /m);
    expect(watched.stderr).toContain(`seller-tray: info announcement kind=new-order orderId=${orderId}`);
    for (const run of [verbose, watched]) {
      expect(run.stderr).not.toMatch(/demo-secret|Authorization|Bearer |Basic /);
    }
  }, 60_000);

  it('prints each new order once on every laptop, and not the backlog', async () => {
    const a = await laptopEnv();
    const b = await laptopEnv();
    for (const laptop of [a, b]) {
      await cli(['login', '--base-url', sim.url, '--client-id', 'demo-client'], laptop, 'demo-secret');
      const first = await cli(['watch', '--once'], laptop);
      expect(first.code).toBe(0);
      expect(first.stdout).toBe('');
      expect(first.stderr).toBe(
        'seller-tray: first run on this computer: recorded 30 existing orders without printing them; new orders are printed from now on.\n',
      );
    }
    const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId;
    const seenByA = await cli(['watch', '--once', '--json'], a);
    const seenByB = await cli(['watch', '--once'], b);
    expect(seenByA.stderr).toBe(''); // not a first run any more
    expect(JSON.parse(seenByA.stdout)).toMatchObject({ orderId, buyer: expect.any(String) });
    expect(seenByB.stdout.split('\t')[0]).toBe(orderId);
    expect((await cli(['watch', '--once'], a)).stdout).toBe('');
  }, 60_000);

  it("prints none of another seller's purchases that leak into the listing, and says it kept them aside", async () => {
    const laptop = await laptopEnv();
    await cli(['login', '--base-url', sim.url, '--client-id', 'demo-client'], laptop, 'demo-secret');
    await cli(['watch', '--once'], laptop);
    await admin(sim.url, 'PATCH', 'faults', { quirks: ['foreign-seller-events'] });
    // One leaks with its sellerId, one without (its order answers 404 here); then one of ours.
    const foreign = [
      (await admin(sim.url, 'POST', 'purchases', { sellerId: 2002 })).json.orderId,
      (await admin(sim.url, 'POST', 'purchases', { sellerId: 2002 })).json.orderId,
    ];
    const own = (await admin(sim.url, 'POST', 'purchases')).json.orderId;
    const seen = await cli(['watch', '--once'], laptop);
    expect(seen.code).toBe(0);
    expect(printedIds(seen.stdout)).toEqual([own]);
    // Each told once, as found: by its sellerId while polling, by its order's 404 when fetched
    // (both may come in one message: what "new" hands over is fetched before "all" is read).
    const told = (line: string) => seen.stderr.split(line).length - 1;
    expect(seen.stderr).toMatch(/of another seller account came with this account's and (is|are) kept aside/);
    expect(told('sellerId: of another seller account: seller 2002, while this account is seller 1001')).toBe(
      1,
    );
    expect(
      told(`orderId: of another seller account: its order ${foreign[1]} is not found for this account`),
    ).toBe(1);
    expect((await cli(['watch', '--once'], laptop)).stdout).toBe('');
  }, 60_000);
});
