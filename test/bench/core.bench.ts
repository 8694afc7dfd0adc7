// The headless core over its store, with a short history (about 1,000 events) and a long one
// (about 100,000), under the app's own default settings (reminders, undo and stale flags on: the
// bench refuses to run otherwise). Each step runs in a process of its own: the fetch-and-parse
// floor of the first start's pages (floor.ts); a laptop's first start (the events, then the
// backlog's orders page by page and the search index), with the peak RSS of the whole process
// and the share of it that is V8's heap (sampled);
// then the same laptop started again (the median of 5 opens): open the store, 100 polls that find nothing new (alone, and
// with the window's inbox page read after each, as the window does on every state change), inbox
// pages with and without a search, opening a stored order, the Needs attention view (issue 26:
// read from the store; its counts are taken after each poll). A poll must cost about the same with
// both histories (it reads from a cursor and indexes), the first start about its floor, and
// memory must not grow with the history (the store holds it, not the heap).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { adviceFor } from '../../main/core/advice';
import { SellerApiClient } from '../../main/core/api/client';
import { PAGE } from '../../main/core/api/routes';
import { SellerCore } from '../../main/core/seller-core';
import { ManualTimers } from '../support/core';
import { runTs, spawnSimulator } from '../support/processes';
import { admin } from '../support/raw-api';
import { appDefaults as appDefaultsOf } from './app-defaults';
import { floorWalker } from './floor';

const POLLS = 100;
const QUERIES = 50;
const RESTARTS = 5;
/** The floor walks pages of the size the client asks for (it stops if the client asked less). */
const PAGE_SIZE = PAGE.maxLimit;

/** The settings every core of the bench runs with: the app's defaults, checked at each read (app-defaults.ts). */
const appDefaults = appDefaultsOf('core.bench').read;

interface Floor {
  eventsFloorMs: number;
  /** This process's CPU over the events floor: what a shared machine's load does not inflate. */
  eventsFloorCpuMs: number;
  ordersFloorMs: number;
}

interface FirstStart {
  firstSyncMs: number;
  firstSyncCpuMs: number;
  backlogMs: number;
  peakFetchesInFlight: number;
  firstPeakRssMiB: number;
  /** V8's heap (reserved) when the RSS sampled was highest. */
  heapAtPeakMiB: number;
}

interface Restart {
  events: number;
  orders: number;
  restartMs: number;
  requestsPerPoll: number;
  cpuMsPerPoll: number;
  cpuMsPerPollWindowOpen: number;
  rssMiB: number;
  heapMiB: number;
  inboxPageMs: number;
  inboxSearchMs: number;
  openStoredOrderMs: number;
  attentionViewMs: number;
}

type Figures = Floor & FirstStart & Restart;

async function requestsServed(url: string): Promise<number> {
  const state = await admin(url, 'GET', 'state');
  return Object.values(state.json.requests as Record<string, number>).reduce((a, b) => a + b, 0);
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
const rss = () => process.memoryUsage().rss / 2 ** 20;
const cpuMs = (used: NodeJS.CpuUsage) => (used.user + used.system) / 1000;

async function timed(times: number, work: () => unknown): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    await work();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

async function openCore(url: string, dataDir: string): Promise<SellerCore> {
  const client = new SellerApiClient({
    baseUrl: url,
    credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
  });
  if (client.pageSize !== PAGE_SIZE) {
    throw new Error(`core.bench: the client reads pages of ${client.pageSize}, the floor of ${PAGE_SIZE}`);
  }
  // Timers that never fire: the bench polls by hand with checkNow.
  return SellerCore.open({
    advice: adviceFor('app'),
    client,
    dataDir,
    settings: appDefaults,
    timers: new ManualTimers(),
  });
}

/** The same pages the first start reads (every event, then every order), fetched and checked, nothing stored. */
async function floor(url: string): Promise<Floor> {
  const walker = await floorWalker(url);
  let started = performance.now();
  const cpu = process.cpuUsage();
  await walker.walk('listEvents', PAGE_SIZE);
  const eventsFloorMs = performance.now() - started;
  const eventsFloorCpuMs = cpuMs(process.cpuUsage(cpu));
  started = performance.now();
  await walker.walk('listOrders', PAGE_SIZE);
  const ordersFloorMs = performance.now() - started;
  walker.close();
  return { eventsFloorMs, eventsFloorCpuMs, ordersFloorMs };
}

/**
 * Samples this process's memory through `work`: the V8 heap reserved (`heapTotal`, its garbage
 * and the pages it keeps for reuse included) at the moment of the highest RSS sampled, so the
 * peak's share that is V8's heap is told apart from the rest (SQLite, buffers, the allocator).
 */
async function heapAtPeak<T>(work: () => Promise<T>): Promise<{ result: T; heapAtPeakMiB: number }> {
  let peak = { rss: 0, heapTotal: 0 };
  const sample = () => {
    const { rss, heapTotal } = process.memoryUsage();
    if (rss > peak.rss) peak = { rss, heapTotal };
  };
  const timer = setInterval(sample, 20);
  try {
    const result = await work();
    sample();
    return { result, heapAtPeakMiB: peak.heapTotal / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

async function firstStart(url: string, dataDir: string): Promise<FirstStart> {
  const { result, heapAtPeakMiB } = await heapAtPeak(() => timedFirstStart(url, dataDir));
  return { ...result, heapAtPeakMiB };
}

async function timedFirstStart(url: string, dataDir: string): Promise<Omit<FirstStart, 'heapAtPeakMiB'>> {
  const core = await openCore(url, dataDir);
  const started = performance.now();
  const cpu = process.cpuUsage();
  await core.start();
  const firstSyncMs = performance.now() - started;
  const firstSyncCpuMs = cpuMs(process.cpuUsage(cpu));
  await core.backlogRead();
  const backlogMs = performance.now() - started;
  await core.close();
  // The whole process's peak, the first start's every moment included (not only after it).
  const firstPeakRssMiB = process.resourceUsage().maxRSS / 1024;
  return {
    firstSyncMs,
    firstSyncCpuMs,
    backlogMs,
    peakFetchesInFlight: core.peakFetchesInFlight,
    firstPeakRssMiB,
  };
}

/**
 * Probe of issue 27 (session 34), not the app's path: with CORE_BENCH_FIRST_WORKER=young/old (MiB,
 * 0 for V8's default) the `first` step runs its first start in a worker thread given those heap
 * limits, to see whether a bounded heap keeps the first start's peak near the short history's.
 * The peak RSS and the CPU are still the whole process's; the V8 heap sampled is the worker's.
 */
async function firstStartInWorker(url: string, dataDir: string, limits: string): Promise<FirstStart> {
  const [young = 0, old = 0] = limits.split('/').map(Number);
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { url, dataDir },
    resourceLimits: {
      ...(young > 0 && { maxYoungGenerationSizeMb: young }),
      ...(old > 0 && { maxOldGenerationSizeMb: old }),
    },
  });
  const result = await new Promise<FirstStart>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject); // ERR_WORKER_OUT_OF_MEMORY when it hits its limit
    worker.once('exit', (code) => reject(new Error(`core.bench: the first start's worker exited (${code})`)));
  });
  await worker.terminate();
  // The worker's teardown included: the process's peak, not the thread's.
  return { ...result, firstPeakRssMiB: process.resourceUsage().maxRSS / 1024 };
}

async function restart(url: string, dataDir: string): Promise<Restart> {
  // Ready to poll: the store open and answering. A few milliseconds, so the median of several
  // (each closed but the last) rather than one, which this shared machine's noise can triple.
  const opens: number[] = [];
  let core: SellerCore | undefined;
  for (let i = 0; i < RESTARTS; i++) {
    if (core) await core.close();
    const started = performance.now();
    core = await openCore(url, dataDir);
    core.status();
    opens.push(performance.now() - started);
  }
  if (!core) throw new Error('core.bench: no restart measured');
  const restartMs = median(opens);
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
  // As the window asks (main/core/service.ts): with its groups by time, the backlog by size.
  const windowQuery = (offset: number, backlog: 'shown' | 'by-size' = 'shown') => ({
    ...all,
    offset,
    sort: appDefaults().inboxSort,
    backlog,
    now: new Date().toISOString(),
    stalledAfterDays: appDefaults().staleInProgressDays,
  });
  // The window open on the inbox reads its first page again after each poll (the state changed).
  const windowCpuBefore = process.cpuUsage();
  for (let i = 0; i < POLLS; i++) {
    await core.checkNow();
    core.orders(windowQuery(0, 'by-size'));
  }
  const windowCpu = process.cpuUsage(windowCpuBefore);
  const inboxPageMs = await timed(QUERIES, () => core.orders(windowQuery(orders >> 1)));
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
    cpuMsPerPoll: cpuMs(cpu) / POLLS,
    cpuMsPerPollWindowOpen: cpuMs(windowCpu) / POLLS,
    rssMiB,
    heapMiB,
    inboxPageMs,
    inboxSearchMs,
    openStoredOrderMs,
    attentionViewMs,
  };
}

/** One step in a process of its own, so one's memory does not count for the other. */
async function step<T>(name: 'floor' | 'first' | 'restart', url: string, dataDir: string): Promise<T> {
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
    const floorFigures = await step<Floor>('floor', url, dataDir);
    const first = await step<FirstStart>('first', url, dataDir);
    return { ...floorFigures, ...first, ...(await step<Restart>('restart', url, dataDir)) };
  } finally {
    child.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Both histories measured, each step in a process of its own, and the figures printed. */
async function report(): Promise<void> {
  appDefaults();
  const small = await measure(420);
  const large = await measure(42_000);
  const ms = (value: number) => +value.toFixed(2);
  const row = (f: Figures) => ({
    events: f.events,
    orders: f.orders,
    'events floor ms (fetch + parse)': Math.round(f.eventsFloorMs),
    'first sync ms': Math.round(f.firstSyncMs),
    'first sync / floor': +(f.firstSyncMs / f.eventsFloorMs).toFixed(2),
    'events floor CPU ms (this side)': Math.round(f.eventsFloorCpuMs),
    'first sync CPU ms': Math.round(f.firstSyncCpuMs),
    'events + orders floor ms': Math.round(f.eventsFloorMs + f.ordersFloorMs),
    'first start ms (backlog read, search built)': Math.round(f.backlogMs),
    'first start / floor': +(f.backlogMs / (f.eventsFloorMs + f.ordersFloorMs)).toFixed(2),
    'fetches in flight (peak)': f.peakFetchesInFlight,
    'peak RSS MiB, first start': Math.round(f.firstPeakRssMiB),
    'of which V8 heap MiB (sampled)': Math.round(f.heapAtPeakMiB),
    'restart ms': ms(f.restartMs),
    'requests / poll': +f.requestsPerPoll.toFixed(2),
    'CPU ms / poll': ms(f.cpuMsPerPoll),
    'CPU ms / poll, window open': ms(f.cpuMsPerPollWindowOpen),
    'RSS MiB after polls': Math.round(f.rssMiB),
    'JS heap MiB': Math.round(f.heapMiB),
    'inbox page ms': ms(f.inboxPageMs),
    'inbox search ms': ms(f.inboxSearchMs),
    'open stored order ms': ms(f.openStoredOrderMs),
    'needs attention view ms': ms(f.attentionViewMs),
  });
  console.log(
    `Core over its store, the app's default settings: ${POLLS} polls that find nothing new; medians of ${QUERIES} queries`,
  );
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
    `long/short: CPU per poll ${ratio('cpuMsPerPoll')} (target ≤ 1.2; window open ${ratio('cpuMsPerPollWindowOpen')}), ` +
      `requests per poll ${ratio('requestsPerPoll')} (target 1.0), first-start peak RSS ${ratio('firstPeakRssMiB')} (target ≤ 1.3), ` +
      `restart ${ratio('restartMs')} (target ≤ 3), RSS after polls ${ratio('rssMiB')}, JS heap ${ratio('heapMiB')}`,
  );
  console.log(
    `long first sync / its fetch-and-parse floor: ${(large.firstSyncMs / large.eventsFloorMs).toFixed(2)} (target ≤ 1.5); ` +
      `whole first start / floor of events and orders: ${(large.backlogMs / (large.eventsFloorMs + large.ordersFloorMs)).toFixed(2)}; ` +
      `the laptop's CPU over the long first sync / over its floor: ${(large.firstSyncCpuMs / large.eventsFloorCpuMs).toFixed(2)}`,
  );
}

const STEPS = {
  floor,
  first: (url: string, dataDir: string) => {
    const limits = process.env.CORE_BENCH_FIRST_WORKER;
    return limits ? firstStartInWorker(url, dataDir, limits) : firstStart(url, dataDir);
  },
  restart,
};
const [stepName, stepUrl = '', stepDir = ''] = process.argv.slice(2);
if (!isMainThread) {
  const { url, dataDir } = workerData as { url: string; dataDir: string };
  parentPort?.postMessage(await firstStart(url, dataDir));
} else if (stepName !== undefined) {
  console.log(JSON.stringify(await STEPS[stepName as keyof typeof STEPS](stepUrl, stepDir)));
  process.exit(0);
} else {
  await report();
}
