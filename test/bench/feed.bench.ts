// The feed under a marketplace that changes and fails (issue 20), two figures in one run:
//
// 1. Idle polls (nothing new) of one laptop over about 1,000 events, with a still history and with
//    one whose oldest events expire at every poll (the simulator's retention quirk): requests per
//    poll, and their ratio (at most 1.5).
// 2. Twenty laptops of one seller (20 cores in this process, one simulator) polling every 60 s,
//    all started in the same second, through a 5-minute outage (every call answered 500 or 503:
//    the simulator's errorRate 1). Time runs 60 times faster than real (the cores' timers and the
//    client's retry waits are divided by 60, so a simulated minute takes a real second; the poll
//    interval and the outage are as in real time): the first minute's requests after the outage,
//    as a histogram of 5-s buckets, their spread (at least 30 s), and the longest any laptop waited
//    for its first successful poll (at most 2 poll intervals).
// Every laptop runs the app's default settings (reminders, undo, stale flags on), checked at each
// read (app-defaults.ts): the bench stops when they drift.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { adviceFor } from '../../main/core/advice';
import { SellerApiClient } from '../../main/core/api/client';
import type { Timers } from '../../main/core/poller';
import { SellerCore } from '../../main/core/seller-core';
import { type Simulator, startSimulator } from '../../simulator/server';
import { ManualTimers } from '../support/core';
import { appDefaults } from './app-defaults';

const settings = appDefaults('feed.bench').read;

const requests = (sim: Simulator) => Object.values(sim.requestCounts).reduce((a, b) => a + b, 0);

async function openCore(
  url: string,
  dataDir: string,
  options: { timers?: Timers; sleep?: (ms: number) => Promise<void>; onRequest?: () => void } = {},
): Promise<SellerCore> {
  const client = new SellerApiClient({
    baseUrl: url,
    credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
    ...(options.sleep ? { sleep: options.sleep } : {}),
    transport: (input, init) => {
      options.onRequest?.();
      return fetch(input, init);
    },
  });
  return SellerCore.open({
    advice: adviceFor('app'),
    client,
    dataDir,
    settings,
    timers: options.timers ?? new ManualTimers(),
  });
}

/** Requests per idle poll of a started laptop, `polls` polls, the simulator's faults as given. */
async function idleCost(sim: Simulator, core: SellerCore, polls: number): Promise<number> {
  const before = requests(sim);
  for (let i = 0; i < polls; i++) await core.checkNow();
  return (requests(sim) - before) / polls;
}

async function changingHistory(): Promise<Record<string, number>> {
  const sim = await startSimulator({ port: 0, seed: 3, orders: 420 });
  const dataDir = await mkdtemp(join(tmpdir(), 'feed-bench-'));
  try {
    const core = await openCore(sim.url, dataDir);
    await core.start();
    await core.backlogRead();
    await core.checkNow(); // drains the "new" listing the first sync leaves alone
    const events = sim.store.summary()[0]?.events ?? 0;
    const still = await idleCost(sim, core, 50);
    sim.faults.update({ quirks: ['retention'], retention: 5 });
    const retention = await idleCost(sim, core, 50);
    // More expire at each poll than the cursor looks back over: it looks further back for its place.
    sim.faults.update({ retention: 60 });
    const deepRetention = await idleCost(sim, core, 8);
    await core.close();
    return { events, still, retention, deepRetention };
  } finally {
    await sim.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const SCALE = 60;
const LAPTOPS = 20;
const INTERVAL_S = settings().pollIntervalSeconds;
const OUTAGE_START_S = 120;
const OUTAGE_S = 300;
const AFTER_S = 180;

/** Timers of simulated time: a wait of `ms` takes ms / SCALE of real time. */
const fastTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms / SCALE),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

async function outage(): Promise<{
  histogram: number[];
  spreadS: number;
  longestWaitS: number;
  firstMinute: number;
}> {
  const sim = await startSimulator({ port: 0, seed: 4, orders: 100 });
  const dirs: string[] = [];
  let started = performance.now();
  const simulated = () => ((performance.now() - started) * SCALE) / 1000;
  /** Per laptop, the simulated times of its requests and of its successful polls. */
  const sent: number[][] = [];
  const recovered: (number | undefined)[] = [];
  const cores: SellerCore[] = [];
  try {
    for (let i = 0; i < LAPTOPS; i++) {
      const dataDir = await mkdtemp(join(tmpdir(), 'feed-bench-'));
      dirs.push(dataDir);
      sent.push([]);
      const core = await openCore(sim.url, dataDir, {
        timers: fastTimers,
        sleep: (ms) => delay(ms / SCALE),
        onRequest: () => sent[i]?.push(simulated()),
      });
      core.on((event) => {
        const at = simulated();
        if (
          event.type === 'state-changed' &&
          event.status.connection === 'ok' &&
          at > OUTAGE_START_S + OUTAGE_S
        ) {
          recovered[i] ??= at;
        }
      });
      cores.push(core);
    }
    // All started in the same second; time 0 is when every one has read its first start's backlog.
    await Promise.all(
      cores.map(async (core) => {
        await core.start();
        await core.backlogRead();
      }),
    );
    started = performance.now();
    await delay((OUTAGE_START_S * 1000) / SCALE - (performance.now() - started));
    sim.faults.update({ errorRate: 1 });
    await delay(((OUTAGE_START_S + OUTAGE_S) * 1000) / SCALE - (performance.now() - started));
    sim.faults.update({ errorRate: 0 });
    const end = simulated();
    await delay((AFTER_S * 1000) / SCALE);
    const after = sent
      .flat()
      .filter((at) => at >= end && at < end + 60)
      .map((at) => at - end);
    const histogram = Array.from(
      { length: 12 },
      (_, b) => after.filter((s) => s >= b * 5 && s < b * 5 + 5).length,
    );
    const waits = recovered.map((at) => (at === undefined ? Number.POSITIVE_INFINITY : at - end));
    return {
      histogram,
      firstMinute: after.length,
      spreadS: after.length > 0 ? Math.max(...after) - Math.min(...after) : 0,
      longestWaitS: Math.max(...waits),
    };
  } finally {
    await Promise.all(cores.map((core) => core.close()));
    await sim.close();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
}

const history = await changingHistory();
console.log(
  `Idle polls of one laptop over ${history.events} events, the app's default settings (requests per poll)`,
);
console.table({
  'still history': history.still,
  'retention, 5 events expire each poll': history.retention,
  'retention, 60 expire each poll (past the look-back)': history.deepRetention,
});
const ratio = (history.retention ?? 0) / (history.still ?? 1);
console.log(`changing / still: ${ratio.toFixed(2)} (at most 1.5)`);

const back = await outage();
console.log(
  `\n${LAPTOPS} laptops polling every ${INTERVAL_S} s through a ${OUTAGE_S / 60}-minute outage (simulated time, ${SCALE}× real):`,
);
console.log('requests in the first minute after the outage, per 5 s:');
for (const [b, count] of back.histogram.entries()) {
  console.log(
    `  ${String(b * 5).padStart(2)}–${String(b * 5 + 5).padEnd(2)} s ${'#'.repeat(count)} ${count}`,
  );
}
console.log(
  `first minute: ${back.firstMinute} requests spread over ${back.spreadS.toFixed(1)} s (at least 30 s); ` +
    `longest wait for a successful poll: ${back.longestWaitS.toFixed(1)} s = ${(back.longestWaitS / INTERVAL_S).toFixed(2)} poll intervals (at most 2)`,
);
const ok = ratio <= 1.5 && back.spreadS >= 30 && back.longestWaitS <= 2 * INTERVAL_S;
console.log(ok ? 'All within the bounds.' : 'OUT OF BOUNDS');
process.exit(ok ? 0 : 1);
