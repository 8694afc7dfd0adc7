// The headless core's steady state: a poll that finds nothing new, with a short history
// (about 1,000 events) and a long one (about 100,000). The two must cost about the same:
// a poll reads from a cursor, not the history. Reports HTTP requests and CPU per poll,
// and the resident memory of the core after 100 polls.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SellerApiClient } from '../../main/core/api/client';
import { SellerCore } from '../../main/core/seller-core';
import { TEST_SETTINGS } from '../support/core';
import { runTs, spawnSimulator } from '../support/processes';
import { admin } from '../support/raw-api';

const POLLS = 100;

interface Figures {
  events: number;
  firstSyncMs: number;
  requestsPerPoll: number;
  cpuMsPerPoll: number;
  wallMsPerPoll: number;
  rssMiB: number;
  heapMiB: number;
}

async function requestsServed(url: string): Promise<number> {
  const state = await admin(url, 'GET', 'state');
  return Object.values(state.json.requests as Record<string, number>).reduce((a, b) => a + b, 0);
}

async function measure(orders: number): Promise<Figures> {
  const { url, child } = await spawnSimulator(['--orders', String(orders), '--seed', '3']);
  const dataDir = await mkdtemp(join(tmpdir(), 'core-bench-'));
  try {
    const client = new SellerApiClient({
      baseUrl: url,
      credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
    });
    const core = await SellerCore.open({ client, dataDir, settings: () => TEST_SETTINGS });
    const firstStarted = performance.now();
    await core.start();
    const firstSyncMs = performance.now() - firstStarted;
    core.stop(); // the bench polls by hand
    await pollOnce(core); // drains the "new" listing the first sync leaves alone
    const events = (await admin(url, 'GET', 'state')).json.sellers[0].events as number;

    const requestsBefore = await requestsServed(url);
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    for (let i = 0; i < POLLS; i++) await pollOnce(core);
    const wall = performance.now() - wallBefore;
    const cpu = process.cpuUsage(cpuBefore);
    const requests = (await requestsServed(url)) - requestsBefore - 1; // less the state call itself
    global.gc?.();
    return {
      events,
      firstSyncMs,
      requestsPerPoll: requests / POLLS,
      cpuMsPerPoll: (cpu.user + cpu.system) / 1000 / POLLS,
      wallMsPerPoll: wall / POLLS,
      rssMiB: process.memoryUsage().rss / 2 ** 20,
      heapMiB: process.memoryUsage().heapUsed / 2 ** 20,
    };
  } finally {
    child.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** A stopped core polls once when started and is stopped again: exactly one poll. */
async function pollOnce(core: SellerCore): Promise<void> {
  await core.start();
  core.stop();
}

/** Each history is measured in a process of its own, so one's memory does not count for the other. */
async function measureApart(orders: number): Promise<Figures> {
  const { stdout } = await runTs('test/bench/core.bench.ts', [String(orders)], {
    NODE_OPTIONS: '--expose-gc',
  });
  const line = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(line) as Figures;
}

const ordersArg = process.argv[2];
if (ordersArg !== undefined) {
  console.log(JSON.stringify(await measure(Number(ordersArg))));
  process.exit(0);
}
const small = await measureApart(420);
const large = await measureApart(42_000);
const row = (f: Figures) => ({
  'events in history': f.events,
  'first sync ms': Math.round(f.firstSyncMs),
  'requests / poll': +f.requestsPerPoll.toFixed(2),
  'CPU ms / poll': +f.cpuMsPerPoll.toFixed(2),
  'wall ms / poll': +f.wallMsPerPoll.toFixed(2),
  'RSS MiB after polls': Math.round(f.rssMiB),
  'JS heap MiB': Math.round(f.heapMiB),
});
console.log(`Core steady state: ${POLLS} polls that find nothing new`);
console.table({ 'short history': row(small), 'long history': row(large) });
console.log(
  `long/short: requests per poll ${(large.requestsPerPoll / small.requestsPerPoll).toFixed(2)}, ` +
    `CPU per poll ${(large.cpuMsPerPoll / small.cpuMsPerPoll).toFixed(2)}`,
);
