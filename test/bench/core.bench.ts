// The headless core over its store, with a short history (about 1,000 events) and a long one
// (about 100,000). Each step runs in a process of its own: a laptop's first start (the events,
// then the backlog's orders page by page), then the same laptop started again: open the store,
// 100 polls that find nothing new, inbox pages with and without a search, opening a stored order,
// the Needs attention view (issue 26: read from the store; its counts are taken after each poll).
// A poll must cost about the same with both histories (it reads from a cursor), and memory must
// not grow with the history (the store holds it, not the heap).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SellerApiClient } from '../../main/core/api/client';
import { SellerCore } from '../../main/core/seller-core';
import { DEFAULT_SETTINGS } from '../../main/core/settings';
import { ManualTimers } from '../support/core';
import { runTs, spawnSimulator } from '../support/processes';
import { admin } from '../support/raw-api';

const POLLS = 100;
const QUERIES = 50;

interface FirstStart {
  firstSyncMs: number;
  backlogMs: number;
  peakFetchesInFlight: number;
  firstRssMiB: number;
}

interface Restart {
  events: number;
  orders: number;
  restartMs: number;
  requestsPerPoll: number;
  cpuMsPerPoll: number;
  rssMiB: number;
  heapMiB: number;
  inboxPageMs: number;
  inboxSearchMs: number;
  openStoredOrderMs: number;
  attentionViewMs: number;
}

type Figures = FirstStart & Restart;

async function requestsServed(url: string): Promise<number> {
  const state = await admin(url, 'GET', 'state');
  return Object.values(state.json.requests as Record<string, number>).reduce((a, b) => a + b, 0);
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
const rss = () => process.memoryUsage().rss / 2 ** 20;

async function timed(times: number, work: () => unknown): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    await work();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

function openCore(url: string, dataDir: string): Promise<SellerCore> {
  const client = new SellerApiClient({
    baseUrl: url,
    credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
  });
  // Timers that never fire: the bench polls by hand with checkNow. The app's own defaults
  // (reminders, undo, stale flags on), not the tests': what users run is what is measured.
  return SellerCore.open({ client, dataDir, settings: () => DEFAULT_SETTINGS, timers: new ManualTimers() });
}

async function firstStart(url: string, dataDir: string): Promise<FirstStart> {
  const core = await openCore(url, dataDir);
  const started = performance.now();
  await core.start();
  const firstSyncMs = performance.now() - started;
  await core.backlogRead();
  const backlogMs = performance.now() - started;
  await core.close();
  global.gc?.();
  return { firstSyncMs, backlogMs, peakFetchesInFlight: core.peakFetchesInFlight, firstRssMiB: rss() };
}

async function restart(url: string, dataDir: string): Promise<Restart> {
  const started = performance.now();
  const core = await openCore(url, dataDir);
  core.status(); // ready to poll: the store is open and answers
  const restartMs = performance.now() - started;
  await core.start();
  await core.checkNow(); // drains the "new" listing the first sync leaves alone
  const events = (await admin(url, 'GET', 'state')).json.sellers[0].events as number;

  const requestsBefore = await requestsServed(url);
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < POLLS; i++) await core.checkNow();
  const cpu = process.cpuUsage(cpuBefore);
  const requests = (await requestsServed(url)) - requestsBefore - 1; // less the state call itself
  global.gc?.();
  const rssMiB = rss();
  const heapMiB = process.memoryUsage().heapUsed / 2 ** 20;

  const all = { filter: 'all', search: '', offset: 0, limit: 100 };
  const orders = core.orders(all).total;
  // As the window asks (main/core/service.ts): with its groups by time, the backlog shown.
  const windowQuery = {
    ...all,
    backlog: 'shown' as const,
    now: new Date().toISOString(),
    stalledAfterDays: 7,
  };
  const inboxPageMs = await timed(QUERIES, () => core.orders({ ...windowQuery, offset: orders >> 1 }));
  const buyer = core.orders(all).rows[0]?.buyer?.split(' ')[0] ?? 'a';
  const inboxSearchMs = await timed(QUERIES, () => core.orders({ ...all, search: buyer }));
  const orderId = core.orders(all).rows[0]?.orderId ?? '';
  await core.order(orderId); // its licenses: fetched on the first opening
  const openStoredOrderMs = await timed(QUERIES, () => core.order(orderId));
  const attentionViewMs = await timed(QUERIES, () => core.attention());
  await core.close();
  return {
    events,
    orders,
    restartMs,
    requestsPerPoll: requests / POLLS,
    cpuMsPerPoll: (cpu.user + cpu.system) / 1000 / POLLS,
    rssMiB,
    heapMiB,
    inboxPageMs,
    inboxSearchMs,
    openStoredOrderMs,
    attentionViewMs,
  };
}

/** One step in a process of its own, so one's memory does not count for the other. */
async function step<T>(name: 'first' | 'restart', url: string, dataDir: string): Promise<T> {
  const { stdout, stderr } = await runTs('test/bench/core.bench.ts', [name, url, dataDir], {
    NODE_OPTIONS: '--expose-gc',
  });
  const line = stdout.trim().split('\n').at(-1) ?? '';
  if (!line.startsWith('{')) throw new Error(`the measuring process failed: ${stderr}`);
  return JSON.parse(line) as T;
}

async function measure(orders: number): Promise<Figures> {
  const { url, child } = await spawnSimulator(['--orders', String(orders), '--seed', '3']);
  const dataDir = await mkdtemp(join(tmpdir(), 'core-bench-'));
  try {
    const first = await step<FirstStart>('first', url, dataDir);
    return { ...first, ...(await step<Restart>('restart', url, dataDir)) };
  } finally {
    child.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  }
}

const [stepName, stepUrl = '', stepDir = ''] = process.argv.slice(2);
if (stepName !== undefined) {
  console.log(JSON.stringify(await (stepName === 'first' ? firstStart : restart)(stepUrl, stepDir)));
  process.exit(0);
}
const small = await measure(420);
const large = await measure(42_000);
const ms = (value: number) => +value.toFixed(2);
const row = (f: Figures) => ({
  events: f.events,
  orders: f.orders,
  'first sync ms': Math.round(f.firstSyncMs),
  'backlog read ms': Math.round(f.backlogMs),
  'fetches in flight (peak)': f.peakFetchesInFlight,
  'RSS MiB, first start': Math.round(f.firstRssMiB),
  'restart ms': ms(f.restartMs),
  'requests / poll': +f.requestsPerPoll.toFixed(2),
  'CPU ms / poll': ms(f.cpuMsPerPoll),
  'RSS MiB after polls': Math.round(f.rssMiB),
  'JS heap MiB': Math.round(f.heapMiB),
  'inbox page ms': ms(f.inboxPageMs),
  'inbox search ms': ms(f.inboxSearchMs),
  'open stored order ms': ms(f.openStoredOrderMs),
  'needs attention view ms': ms(f.attentionViewMs),
});
console.log(`Core over its store: ${POLLS} polls that find nothing new; medians of ${QUERIES} queries`);
console.table(
  Object.fromEntries(
    Object.keys(row(small)).map((k) => [
      k,
      {
        short: row(small)[k as keyof ReturnType<typeof row>],
        long: row(large)[k as keyof ReturnType<typeof row>],
      },
    ]),
  ),
);
const ratio = (key: keyof Figures) => (large[key] / small[key]).toFixed(2);
console.log(
  `long/short: RSS after polls ${ratio('rssMiB')} (first start ${ratio('firstRssMiB')}), JS heap ${ratio('heapMiB')}, ` +
    `requests per poll ${ratio('requestsPerPoll')}, CPU per poll ${ratio('cpuMsPerPoll')}, restart ${ratio('restartMs')}`,
);
