// An outside check of issue 27 over shapes of history no issue listed: for each shape alone, a
// laptop's store is given a short history of that shape (SHORT things) and another a long one
// (100× more), then the core polls a marketplace with nothing new, under the app's default
// settings (reminders, undo, stale flags on; a webhook automation to a loopback receiver). Per
// idle poll: CPU and requests; and with the window open (the tray's counts and the inbox's first
// page read after each poll, as the window does). A shape whose long/short ratio passes 1.2 has
// a per-poll query that costs what is stored; IDLE_SHAPES_TRACE=1 lists each statement an idle
// poll runs whose plan scans a table, to find it.
//
// The shapes are built through the store's own API (AccountStore), in a process of its own: the
// laptop is measured in another, which its building's garbage does not burden; the marketplace
// (the simulator) keeps a small history of its own, so only the shape grows. `npx tsx test/bench/idle-shapes.bench.ts [shape ...]` (all when none named).
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adviceFor } from '../../main/core/advice';
import { SellerApiClient } from '../../main/core/api/client';
import type { MarketplaceEvent, Order } from '../../main/core/api/wire';
import { Claimant } from '../../main/core/claimant';
import type { OutboxItem } from '../../main/core/outbox';
import { SellerCore } from '../../main/core/seller-core';
import { AccountStore } from '../../main/core/store/account-store';
import { webhookAutomation } from '../support/automation-runs';
import { ManualTimers } from '../support/core';
import { runTs, spawnSimulator } from '../support/processes';
import { admin } from '../support/raw-api';
import { appDefaults } from './app-defaults';

const SHORT = Number(process.env.IDLE_SHAPES_SHORT ?? 400);
const LONG = SHORT * 100;
const POLLS = 60;
const WARMUP = 5;
/** An idle poll's requests: the "new" listing and the "all" listing's page at the cursor. */
const LISTINGS_PER_POLL = 2;
/** At most this many polls before measuring, for a shape whose polls never settle. */
const SETTLE_POLLS = 2_000;
const DAY = 86_400_000;

const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

/** A purchase `daysAgo` days ago and the statuses after it, an hour apart: one order's history. */
function orderHistory(daysAgo: number, statuses: MarketplaceEvent['statusCode'][]): MarketplaceEvent[] {
  const orderId = randomUUID();
  const start = Date.now() - daysAgo * DAY;
  return ['ProvisioningStarted', ...statuses].map((statusCode, i) => ({
    eventId: randomUUID(),
    eventTypeCode: 'ServicePurchased',
    statusCode: statusCode as MarketplaceEvent['statusCode'],
    description: i === 0 ? 'A purchase' : `Moved to ${statusCode} on another laptop`,
    eventTime: new Date(start + i * 3_600_000).toISOString(),
    additionalProperties: [{ name: 'orderId', value: orderId }],
  }));
}

/**
 * `n` orders of that history, their documents stored as fetched: recorded as history (a first
 * start's backlog), or as news this laptop announced and the user opened.
 */
function addOrders(
  store: AccountStore,
  n: number,
  statuses: MarketplaceEvent['statusCode'][],
  daysAgo = 30,
  announced = false,
) {
  const histories = Array.from({ length: n }, () => orderHistory(daysAgo, statuses));
  const now = new Date().toISOString();
  store.recordPoll({ events: histories.flat(), cursor: undefined, backlog: !announced, paused: false, now });
  const orderIds = histories.map((h) => h[0]?.additionalProperties?.[0]?.value ?? '');
  if (announced) store.markRaised(orderIds, now);
  store.atomically(() => {
    for (const orderId of orderIds) {
      if (announced) store.markOpened(orderId, now);
      const order = { orderId, buyerCustomerParty: {}, sellerSupplierParty: {}, documentLines: [] };
      store.saveOrder(orderId, order as unknown as Order, [], now);
    }
  });
  return orderIds;
}

/** `n` marks of the laptop in `state` (each on an order of its own, Completed in the history). */
function addMarks(store: AccountStore, n: number, item: Partial<OutboxItem>) {
  const orderIds = addOrders(store, n, ['ProvisioningInProgress'], 2);
  store.atomically(() => {
    for (const orderId of orderIds) {
      store.putOutboxItem({
        requestId: randomUUID(),
        orderId,
        statusCode: 'ProvisioningCompleted',
        description: 'Provisioning completed',
        createdAt: ago(DAY),
        state: 'pending',
        attempts: 1,
        ...item,
      });
    }
  });
}

/** `n` runs of the automation "hook", each on an order of its own, ended as `outcome` says. */
function addRuns(store: AccountStore, n: number, outcome: Parameters<AccountStore['finishRun']>[1]) {
  const orderIds = addOrders(store, n, ['ProvisioningCompleted'], 10);
  const now = new Date().toISOString();
  store.atomically(() => {
    for (const orderId of orderIds) {
      const deliveryId = store.queueRun(orderId, 'hook', 'new-order', now);
      if (deliveryId) store.finishRun(deliveryId, outcome, now);
    }
  });
}

/** Each shape: what it adds to a laptop's store, and what the marketplace does meanwhile. */
const SHAPES: Record<
  string,
  {
    build?: (store: AccountStore, n: number) => void;
    faults?: object;
    /** The marketplace's own history of `n` orders instead (the shape is then a share of it). */
    simulator?: (n: number) => string[];
    /** Run only when named: its polls wait out the client's retries (seconds each). */
    namedOnly?: boolean;
  }
> = {
  'in-progress-stale': { build: (s, n) => addOrders(s, n, ['ProvisioningInProgress'], 60) },
  // In progress for 2 days: not stalled yet under the default limit (the tray's stalled count).
  'in-progress-recent': { build: (s, n) => addOrders(s, n, ['ProvisioningInProgress'], 2) },
  completed: { build: (s, n) => addOrders(s, n, ['ProvisioningInProgress', 'ProvisioningCompleted']) },
  // New orders this laptop announced, opened and saw completed: a laptop's everyday life.
  'announced-completed': {
    build: (s, n) => addOrders(s, n, ['ProvisioningInProgress', 'ProvisioningCompleted'], 30, true),
  },
  failed: { build: (s, n) => addOrders(s, n, ['ProvisioningInProgress', 'ProvisioningFailed']) },
  // Another laptop moved each order back and forth: five status rows after its purchase.
  'status-history': {
    build: (s, n) =>
      addOrders(s, n / 5, [
        'ProvisioningInProgress',
        'ProvisioningFailed',
        'ProvisioningInProgress',
        'ProvisioningFailed',
        'ProvisioningCompleted',
      ]),
  },
  // Pending marks while the marketplace refuses posts for a while (503): listings still answer.
  'marks-pending-503': {
    namedOnly: true,
    build: (s, n) => addMarks(s, n, {}),
    faults: { script: [{ operation: 'sendEvent', action: 'status', status: 503, times: 10_000 }] },
  },
  'marks-refused': {
    build: (s, n) =>
      addMarks(s, n, {
        state: 'failed',
        httpStatus: 400,
        problem: { message: 'The marketplace did not take this status.', details: [] },
      }),
  },
  // Sent, never shown back by the history (the marketplace lost them).
  'marks-unconfirmed': {
    build: (s, n) =>
      addMarks(s, n, { state: 'sent', sentAt: ago(DAY), sentAtPoll: 0, eventId: randomUUID() }),
  },
  // Delivered and confirmed: they left the outbox, their records stay (proof of delivery).
  'marks-delivered': {
    build: (s, n) => {
      addMarks(s, n, { state: 'sent', sentAt: ago(DAY), sentAtPoll: 0, readBackAt: ago(DAY) });
      s.forgetConfirmed();
    },
  },
  'runs-succeeded': {
    build: (s, n) => addRuns(s, n, { state: 'succeeded', httpStatus: 204, detail: 'Delivered' }),
  },
  'runs-failed': { build: (s, n) => addRuns(s, n, { state: 'failed', httpStatus: 410, detail: 'Gone' }) },
  'runs-waiting': {
    build: (s, n) =>
      addRuns(s, n, { state: 'queued', dueAt: ago(-30 * DAY), httpStatus: 503, detail: 'Retry' }),
  },
  // Items the tolerant reader set aside, told but not looked at.
  'kept-aside': {
    build: (s, n) => {
      const now = new Date().toISOString();
      const items = Array.from({ length: n }, (_, i) => ({
        kind: 'event' as const,
        key: randomUUID(),
        fieldPath: 'statusCode',
        reason: 'Invalid input: expected string, received number',
        raw: { statusCode: i },
      }));
      s.setAside(items, now);
      s.markTold(s.untoldAside());
    },
  },
  // Orders the marketplace answers with a document the reader cannot use (one in 16): never read.
  'orders-unreadable': { simulator: (n) => ['--orders', String(n), '--quirks', 'unreadable-orders'] },
  // Orders the history names whose documents were never read: the marketplace fails them (a
  // document the reader cannot use, kept failing), recorded as fetches that failed.
  'orders-never-read': {
    build: (s, n) => {
      const histories = Array.from({ length: n }, () => orderHistory(30, ['ProvisioningCompleted']));
      const now = new Date().toISOString();
      s.recordPoll({ events: histories.flat(), cursor: undefined, backlog: true, paused: false, now });
      s.atomically(() => {
        for (const h of histories)
          s.markFetchFailed(
            h[0]?.additionalProperties?.[0]?.value ?? '',
            { message: 'the order could not be read', details: [] },
            true,
          );
      });
    },
  },
};

interface Figures {
  requestsPerPoll: number;
  cpuMsPerPoll: number;
  cpuMsPerPollWindowOpen: number;
  trace?: string[];
}

async function requestsServed(url: string): Promise<number> {
  const state = await admin(url, 'GET', 'state');
  return Object.values(state.json.requests as Record<string, number>).reduce((a, b) => a + b, 0);
}

const cpuMs = (used: NodeJS.CpuUsage) => (used.user + used.system) / 1000;

/** A receiver answering 204 to every delivery (none are due while idle). */
async function receiver(): Promise<{ url: string; close: () => void }> {
  const server = createServer((request, response) =>
    request.resume().on('end', () => response.writeHead(204).end()),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() };
}

/** Statements an idle poll runs whose plan scans a table (IDLE_SHAPES_TRACE=1). */
function traceScans(core: SellerCore): { stop: () => string[] } {
  const store = (core as unknown as { store: AccountStore }).store;
  const seen = new Set<string>();
  const proto = AccountStore.prototype as unknown as { sql: (text: string) => unknown };
  const original = proto.sql;
  proto.sql = function (this: AccountStore, text: string) {
    seen.add(text);
    return original.call(this, text);
  };
  return {
    stop: () => {
      proto.sql = original;
      const db = (store as unknown as { db: { prepare: (t: string) => { all: () => unknown[] } } }).db;
      return [...seen].flatMap((text) => {
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${text}`).all() as { detail: string }[]).map(
          (p) => p.detail,
        );
        const scans = plan.filter((d) => /^SCAN (?!CONSTANT)/.test(d) && !/USING (COVERING )?INDEX/.test(d));
        return scans.length > 0 ? [`${text.replace(/\s+/g, ' ').slice(0, 160)} -> ${scans.join('; ')}`] : [];
      });
    },
  };
}

/** A laptop's core on `dataDir`, with the app's defaults and a webhook automation to a receiver of its own. */
async function openLaptop(
  url: string,
  dataDir: string,
): Promise<{ core: SellerCore; close: () => Promise<void> }> {
  const hook = await receiver();
  const { read } = appDefaults('idle-shapes.bench', {
    automationsEnabled: true,
    automations: [webhookAutomation(hook.url)],
  });
  const core = await SellerCore.open({
    advice: adviceFor('app'),
    client: new SellerApiClient({
      baseUrl: url,
      credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
    }),
    dataDir,
    settings: read,
    timers: new ManualTimers(),
    automations: {
      secret: async () => 'whsec_bench',
      account: { id: 'bench', label: 'demo-client at 127.0.0.1', baseUrl: url },
      laptop: 'bench',
      workDir: join(dataDir, 'work'),
    },
  });
  return {
    core,
    close: async () => {
      await core.close();
      hook.close();
    },
  };
}

/** A laptop's first start, then the shape added to its store through the store's own API. */
async function prepare(shape: string, n: number, url: string, dataDir: string): Promise<void> {
  const laptop = await openLaptop(url, dataDir);
  await laptop.core.start();
  await laptop.core.backlogRead();
  await laptop.core.checkNow();
  await laptop.close();
  const { store } = AccountStore.open(dataDir);
  SHAPES[shape]?.build?.(store, n);
  // A shape is history: what it queued to announce (orders newer than the marketplace's own,
  // news by the first start's rule) was raised and opened before, not by the polls measured.
  const { pending, held } = store.claimAnnouncements(new Claimant(() => false), false);
  const now = new Date().toISOString();
  store.markRaised([...pending, ...held], now);
  store.atomically(() => {
    for (const orderId of [...pending, ...held]) store.markOpened(orderId, now);
  });
  store.optimize();
  store.close();
  const { faults } = SHAPES[shape] ?? {};
  if (faults) await admin(url, 'PATCH', 'faults', faults);
}

/** The laptop started again in a process of its own (the shape's building left no garbage here), its idle polls measured. */
async function measure(url: string, dataDir: string): Promise<Figures> {
  const { core, close } = await openLaptop(url, dataDir);
  await core.start();
  await core.checkNow();
  // A backlog's orders are indexed for search once, after it: a start's work, not an idle poll's.
  await core.backlogRead();
  // So are the first fetches of orders never tried (those the reader cannot use fail once,
  // then wait): polled until polls ask no more than the listings, WARMUP times in a row.
  for (let quiet = 0, polls = 0; quiet < WARMUP && polls < SETTLE_POLLS; polls++) {
    const before = await requestsServed(url);
    await core.checkNow();
    quiet = (await requestsServed(url)) - before - 1 <= LISTINGS_PER_POLL ? quiet + 1 : 0;
  }
  const trace = process.env.IDLE_SHAPES_TRACE ? traceScans(core) : undefined;
  const requestsBefore = await requestsServed(url);
  let cpu = process.cpuUsage();
  for (let i = 0; i < POLLS; i++) await core.checkNow();
  const pollCpu = process.cpuUsage(cpu);
  const requests = (await requestsServed(url)) - requestsBefore - 1; // less the state call itself
  const defaults = appDefaults('idle-shapes.bench').read();
  const windowQuery = {
    filter: 'all',
    search: '',
    offset: 0,
    limit: 100,
    sort: defaults.inboxSort,
    backlog: 'by-size' as const,
    stalledAfterDays: defaults.staleInProgressDays,
  };
  cpu = process.cpuUsage();
  for (let i = 0; i < POLLS; i++) {
    await core.checkNow();
    core.status();
    core.orders({ ...windowQuery, now: new Date().toISOString() });
  }
  const windowCpu = process.cpuUsage(cpu);
  const traced = trace?.stop();
  await close();
  return {
    requestsPerPoll: requests / POLLS,
    cpuMsPerPoll: cpuMs(pollCpu) / POLLS,
    cpuMsPerPollWindowOpen: cpuMs(windowCpu) / POLLS,
    ...(traced ? { trace: traced } : {}),
  };
}

/** A step in a process of its own: its last line of output. */
async function step(args: string[]): Promise<string> {
  const { stdout, stderr } = await runTs('test/bench/idle-shapes.bench.ts', args);
  const line = stdout.trim().split('\n').at(-1) ?? '';
  if (!line.startsWith('{')) throw new Error(`idle-shapes: ${args.join(' ')} failed: ${stderr}`);
  return line;
}

/** One laptop on a marketplace of its own: prepared, then measured. */
async function laptop(shape: string, n: number): Promise<Figures> {
  const chosen = SHAPES[shape];
  if (!chosen) throw new Error(`idle-shapes: no shape ${shape}`);
  const { url, child } = await spawnSimulator([
    ...(chosen.simulator?.(n) ?? ['--orders', '20']),
    '--seed',
    '3',
  ]);
  const dataDir = await mkdtemp(join(tmpdir(), 'idle-shapes-'));
  try {
    await step(['--prepare', shape, String(n), url, dataDir]);
    return JSON.parse(await step(['--measure', url, dataDir])) as Figures;
  } finally {
    child.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function report(shapes: string[]): Promise<void> {
  appDefaults('idle-shapes.bench').read();
  console.log(
    `Idle polls (${POLLS}) over shapes of history, the app's defaults: short ${SHORT} vs long ${LONG} of each`,
  );
  const rows: Record<string, Record<string, string | number>> = {};
  for (const shape of shapes) {
    const short = await laptop(shape, SHORT);
    const long = await laptop(shape, LONG);
    const ratio = (key: 'cpuMsPerPoll' | 'cpuMsPerPollWindowOpen' | 'requestsPerPoll') =>
      +(long[key] / short[key]).toFixed(2);
    rows[shape] = {
      'CPU ms/poll short': +short.cpuMsPerPoll.toFixed(2),
      'CPU ms/poll long': +long.cpuMsPerPoll.toFixed(2),
      'CPU long/short': ratio('cpuMsPerPoll'),
      'window open long/short': ratio('cpuMsPerPollWindowOpen'),
      'requests/poll short': +short.requestsPerPoll.toFixed(2),
      'requests/poll long': +long.requestsPerPoll.toFixed(2),
    };
    for (const line of long.trace ?? []) console.log(`${shape} scans: ${line}`);
  }
  console.table(rows);
}

const argv = process.argv.slice(2);
if (argv[0] === '--prepare') {
  await prepare(argv[1] ?? '', Number(argv[2]), argv[3] ?? '', argv[4] ?? '');
  console.log('{}');
  process.exit(0);
} else if (argv[0] === '--measure') {
  console.log(JSON.stringify(await measure(argv[1] ?? '', argv[2] ?? '')));
  process.exit(0);
} else {
  await report(argv.length > 0 ? argv : Object.keys(SHAPES).filter((shape) => !SHAPES[shape]?.namedOnly));
}
