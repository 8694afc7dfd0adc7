// Automations' cost (issue 24): 1,000 new orders arrive at once and one poll learns them, on a
// laptop without automations and on one with a webhook automation to a loopback receiver (which
// answers 204 and checks nothing). Each laptop runs in a process of its own; the receiver in the
// bench's own (BENCH_RECEIVER=laptop: in the laptop's, its CPU counted as the laptop's, as before
// session 31). Figures: the poll's CPU (the one that records the orders and queues their runs,
// with the fetches and announcements it starts; their runs start when it ended), how fast the deliveries go, the deliveries'
// own CPU (the runner alone, without a poll), and RSS before the orders and after their
// deliveries. And the floor under a delivery: its POST alone, the same body, nothing else.
// The network is the CLI's, as `seller-tray run` (the headless runner a team's automations are
// meant for) reaches the marketplace and sends deliveries: undici's fetch and request over its
// proxy-aware agents. BENCH_NETWORK=core: the bare core's defaults instead (Node's global fetch,
// node:http for deliveries), as the bench measured before session 35.

import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adviceFor } from '../../main/core/advice';
import { SellerApiClient } from '../../main/core/api/client';
import { nodeNetwork } from '../../main/core/api/node-transport';
import type { Transport } from '../../main/core/api/transport';
import type { MarketplaceEvent, Order } from '../../main/core/api/wire';
import { ANSWER_KEPT, httpPost, type Post } from '../../main/core/automation/delivery';
import { SellerCore } from '../../main/core/seller-core';
import { AccountStore } from '../../main/core/store/account-store';
import { runnerAlone as runnerOf, webhookAutomation } from '../support/automation-runs';
import { ManualTimers } from '../support/core';
import { runTs, spawnSimulator } from '../support/processes';
import { admin } from '../support/raw-api';
import { appDefaults } from './app-defaults';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 1000);

/** The network the laptops use: the CLI's, or with BENCH_NETWORK=core the bare core's defaults. */
const network: { transport?: Transport; post: Post } =
  process.env.BENCH_NETWORK === 'core' ? { post: httpPost } : nodeNetwork();

interface Figures {
  pollCpuMs: number;
  pollMs: number;
  deliveries: number;
  deliveriesPerSecond: number | null;
  rssBeforeMiB: number;
  rssAfterMiB: number;
}

const rss = () => process.memoryUsage().rss / 2 ** 20;
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** A receiver answering 204 to every POST, and how many it had to a GET. */
async function startReceiver(): Promise<{ url: string; close: () => void }> {
  let delivered = 0;
  const receiver = createServer((request, response) => {
    request.resume().on('end', () => {
      if (request.method !== 'POST') return response.end(String(delivered));
      delivered += 1;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
    close: () => receiver.close(),
  };
}

/**
 * How long deliveries may go without one finishing before the bench fails: a stall (a delivery
 * failed, its retry waiting on timers nothing fires), not a slow run, however long it takes.
 */
const STALL_MS = 30_000;

/** Resolves once `finished()` reaches `count`; fails loudly, never hangs, when it stops growing for STALL_MS. */
async function finishedUpTo(count: number, finished: () => Promise<number> | number, pauseMs: number) {
  let last = -1;
  let since = performance.now();
  for (let now = await finished(); now < count; now = await finished()) {
    if (now > last) {
      last = now;
      since = performance.now();
    } else if (performance.now() - since > STALL_MS) {
      throw new Error(
        `deliveries stalled at ${now} of ${count}: none finished for ${STALL_MS / 1000} s; one failed, see the receiver`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

/** One laptop: a first start, ORDERS purchases, one poll; with `hook`, until every run delivered. */
async function laptop(url: string, hook: boolean, receiverUrl?: string): Promise<Figures> {
  const own = receiverUrl === undefined ? await startReceiver() : undefined;
  const receiver = receiverUrl ?? own?.url ?? '';
  const delivered = async () => Number(await (await fetch(receiver)).text());
  // A failed delivery's retry waits on this core's timers, which nothing fires here.
  const deliveredUpTo = (count: number) => finishedUpTo(count, delivered, 5);
  const dir = await mkdtemp(join(tmpdir(), 'bench-automations-'));
  const { read: settings } = appDefaults('automations.bench', {
    automationsEnabled: hook,
    automations: [webhookAutomation(receiver)],
  });
  const core = await SellerCore.open({
    advice: adviceFor('app'),
    client: new SellerApiClient({
      baseUrl: url,
      credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
      ...(network.transport ? { transport: network.transport } : {}),
    }),
    dataDir: dir,
    settings,
    timers: new ManualTimers(),
    automations: {
      secret: async () => 'whsec_bench',
      account: { id: 'bench', label: 'demo-client at 127.0.0.1', baseUrl: url },
      laptop: 'bench',
      workDir: join(dir, 'work'),
      post: network.post,
    },
  });
  await core.start();
  await core.backlogRead();
  // Memory over more deliveries: BENCH_ROUNDS thousands first, RSS after each (stderr).
  for (let round = 1; round < Number(process.env.BENCH_ROUNDS ?? 1); round++) {
    for (let i = 0; i < ORDERS; i++) await admin(url, 'POST', 'purchases');
    await core.checkNow();
    if (hook) await deliveredUpTo(ORDERS * round);
    globalThis.gc?.();
    process.stderr.write(
      `round ${round}: RSS ${rss().toFixed(1)} MiB, heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(1)} MiB\n`,
    );
  }
  const before = hook ? await delivered() : 0;
  for (let i = 0; i < ORDERS; i++) await admin(url, 'POST', 'purchases');
  globalThis.gc?.();
  const rssBeforeMiB = rss();
  const cpu = cpuMs();
  const started = performance.now();
  const learned = await core.checkNow();
  const pollCpuMs = cpuMs() - cpu;
  const pollMs = performance.now() - started;
  if (learned !== ORDERS) throw new Error(`the poll learned ${learned} orders, not ${ORDERS}`);
  let deliveriesPerSecond: number | null = null;
  if (hook) {
    // From the poll's start: the deliveries start when the poll ended (holdForPoll).
    // Asked after the poll's window: these requests are not in its CPU.
    await deliveredUpTo(before + ORDERS);
    deliveriesPerSecond = ORDERS / ((performance.now() - started) / 1000);
  }
  await core.close();
  globalThis.gc?.();
  const rssAfterMiB = rss();
  const deliveries = hook ? (await delivered()) - before : 0;
  own?.close();
  await rm(dir, { recursive: true, force: true });
  return { pollCpuMs, pollMs, deliveries, deliveriesPerSecond, rssBeforeMiB, rssAfterMiB };
}

/** ORDERS purchases as the marketplace's events, each of a new order. */
function purchases(): MarketplaceEvent[] {
  return Array.from({ length: ORDERS }, (_, i) => ({
    eventId: randomUUID(),
    eventTypeCode: 'ServicePurchased',
    statusCode: 'ProvisioningStarted',
    description: 'A purchase',
    eventTime: new Date(Date.UTC(2026, 10, 26, 0, 0, i)).toISOString(),
    additionalProperties: [{ name: 'orderId', value: randomUUID() }],
  }));
}

/**
 * The deliveries' own work, without the poll: ORDERS runs queued, their orders read, delivered
 * by the runner alone to `receiverUrl` (another process); CPU ms a delivery, and deliveries a second.
 */
async function runnerAlone(receiverUrl: string): Promise<{ cpuMs: number; perSecond: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-runner-'));
  const { store } = AccountStore.open(dir);
  const now = new Date().toISOString();
  const events = purchases();
  store.recordPoll({ events, cursor: undefined, backlog: false, paused: false, now, automations: ['hook'] });
  const orderIds = events.map((e) => e.additionalProperties?.[0]?.value ?? '');
  for (const orderId of orderIds) {
    const order = { orderId, buyerCustomerParty: {}, sellerSupplierParty: {}, documentLines: [] };
    store.saveOrder(orderId, order as unknown as Order, [], now);
  }
  const ports = { secret: async () => 'whsec_alone', workDir: join(dir, 'work'), post: network.post };
  const runner = runnerOf(store, [webhookAutomation(receiverUrl)], ports, {
    now: () => Date.now(),
    timers: {
      setTimeout: (run, ms) => setTimeout(run, ms),
      clearTimeout: (t) => clearTimeout(t as NodeJS.Timeout),
    },
  });
  const cpu = cpuMs();
  const started = performance.now();
  // As a poll starts them: each order's runs once it has been read.
  for (const orderId of orderIds) runner.kickOrder(orderId);
  // Counted once the runner is idle (looking costs CPU): a retry waiting leaves it short.
  const succeeded = async () => {
    await runner.idle();
    return orderIds.filter((id) => store.runsFor(id).every((r) => r.state === 'succeeded')).length;
  };
  await finishedUpTo(ORDERS, succeeded, 50);
  const figures = {
    cpuMs: (cpuMs() - cpu) / ORDERS,
    perSecond: ORDERS / ((performance.now() - started) / 1000),
  };
  runner.stop();
  store.close();
  await rm(dir, { recursive: true, force: true });
  return figures;
}

/**
 * What the POST itself costs a delivery: ORDERS POSTs of a body and headers the size of the
 * runner's through the laptops' `network.post`, one after another to `receiverUrl` (another
 * process), in a fresh process doing nothing else; CPU ms a POST.
 */
async function postFloor(receiverUrl: string): Promise<number> {
  const orderId = randomUUID();
  const body = Buffer.from(
    JSON.stringify({
      version: 1,
      event: 'order.created',
      deliveryId: randomUUID(),
      automation: 'hook',
      createdAt: new Date().toISOString(),
      account: { id: 'alone', label: 'the runner alone', baseUrl: 'http://127.0.0.1:1' },
      orderId,
      link: `seller-tray://order/${orderId}`,
      status: 'ProvisioningStarted',
      order: { orderId, buyerCustomerParty: {}, sellerSupplierParty: {}, documentLines: [] },
      licenses: [],
    }),
  );
  const headers = {
    'Content-Type': 'application/json',
    'Seller-Tray-Signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`,
    'Seller-Tray-Delivery': orderId,
    'Idempotency-Key': orderId,
    'User-Agent': 'Seller-Tray-Automations/1',
  };
  const signal = new AbortController().signal;
  const cpu = cpuMs();
  for (let i = 0; i < ORDERS; i++) {
    // Its answer read to its end, as a delivery reads it, and its connection kept for the next.
    const answered = await network.post(receiverUrl, body, headers, signal);
    for await (const chunk of answered.body) if (chunk.length > ANSWER_KEPT) break;
  }
  return (cpuMs() - cpu) / ORDERS;
}

/**
 * The poll's own share: its transaction recording ORDERS purchases (events, announcements and,
 * with automations, their runs) in a fresh store; CPU ms, the median of five.
 */
async function recording(automations: string[]): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < 5; round++) {
    const dir = await mkdtemp(join(tmpdir(), 'bench-record-'));
    const { store } = AccountStore.open(dir);
    const events = purchases();
    const cpu = cpuMs();
    store.recordPoll({
      events,
      cursor: undefined,
      backlog: false,
      paused: false,
      now: new Date().toISOString(),
      automations,
    });
    times.push(cpuMs() - cpu);
    store.close();
    await rm(dir, { recursive: true, force: true });
  }
  return [...times].sort((a, b) => a - b)[2] ?? 0;
}

const [role, url, receiverUrl] = process.argv.slice(2);
if (role === 'laptop' || role === 'laptop-hook') {
  process.stdout.write(JSON.stringify(await laptop(url ?? '', role === 'laptop-hook', receiverUrl)));
} else if (role === 'runner') {
  process.stdout.write(JSON.stringify(await runnerAlone(url ?? '')));
} else if (role === 'floor') {
  process.stdout.write(JSON.stringify(await postFloor(url ?? '')));
} else {
  const sim = await spawnSimulator(['--orders', '1']);
  const receiver = process.env.BENCH_RECEIVER === 'laptop' ? undefined : await startReceiver();
  const one = async (which: string): Promise<Figures> => {
    await admin(sim.url, 'POST', 'reset');
    const run = await runTs(
      'test/bench/automations.bench.ts',
      [which, sim.url, ...(receiver ? [receiver.url] : [])],
      {
        NODE_OPTIONS: '--expose-gc',
      },
    );
    if (run.code !== 0) throw new Error(run.stderr);
    return JSON.parse(run.stdout) as Figures;
  };
  const recordWithout = await recording([]);
  const recordWith = await recording(['hook']);
  // The two laptops in turn, ROUNDS times; each figure the median of its rounds (single runs on
  // this shared machine moved the window's ratio between 1.19 and 1.47).
  const rounds: { without: Figures; withHook: Figures; ratio: number }[] = [];
  for (let round = 0; round < Number(process.env.ROUNDS ?? 3); round++) {
    const without = await one('laptop');
    const withHook = await one('laptop-hook');
    rounds.push({ without, withHook, ratio: withHook.pollCpuMs / without.pollCpuMs });
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const mid = (pick: (r: (typeof rounds)[number]) => Figures, key: keyof Figures) =>
    median(rounds.map((r) => Number(pick(r)[key] ?? 0)));
  const figures = (pick: (r: (typeof rounds)[number]) => Figures): Figures => ({
    pollCpuMs: mid(pick, 'pollCpuMs'),
    pollMs: mid(pick, 'pollMs'),
    deliveries: mid(pick, 'deliveries'),
    deliveriesPerSecond: mid(pick, 'deliveriesPerSecond'),
    rssBeforeMiB: mid(pick, 'rssBeforeMiB'),
    rssAfterMiB: mid(pick, 'rssAfterMiB'),
  });
  const without = figures((r) => r.without);
  const withHook = figures((r) => r.withHook);
  const alone = receiver && (await runTs('test/bench/automations.bench.ts', ['runner', receiver.url]));
  if (alone && alone.code !== 0) throw new Error(alone.stderr);
  const deliveries = alone ? (JSON.parse(alone.stdout) as { cpuMs: number; perSecond: number }) : undefined;
  const bare = receiver && (await runTs('test/bench/automations.bench.ts', ['floor', receiver.url]));
  if (bare && bare.code !== 0) throw new Error(bare.stderr);
  const floorMs = bare ? (JSON.parse(bare.stdout) as number) : undefined;
  sim.child.kill();
  receiver?.close();
  const f = (n: number) => n.toFixed(1);
  console.log(
    `${ORDERS} new orders in one poll, each laptop in its own process (medians of the rounds), the receiver in ${receiver ? "the bench's" : "the laptop's"}, the network ${network.transport ? "the CLI's (undici)" : "the bare core's (fetch, node:http)"}:`,
  );
  console.log('| figure | without automations | with a webhook automation | ratio |');
  // The poll's CPU is measured over its whole window; the deliveries start at its end (at most
  // POLL_HOLD_MAX_MS after it learned the orders), their own CPU is the runner alone's line.
  console.log('|---|---|---|---|');
  console.log(
    `| poll CPU (median of ${rounds.length} rounds; each round's ratio: ${rounds.map((r) => r.ratio.toFixed(2)).join(', ')}) | ${f(without.pollCpuMs)} ms | ${f(withHook.pollCpuMs)} ms | ${median(rounds.map((r) => r.ratio)).toFixed(2)} |`,
  );
  console.log(
    `| the poll's transaction (recording them; median of 5) | ${f(recordWithout)} ms | ${f(recordWith)} ms | ${(recordWith / recordWithout).toFixed(2)} |`,
  );
  console.log(
    `| poll wall time | ${f(without.pollMs)} ms | ${f(withHook.pollMs)} ms | ${(withHook.pollMs / without.pollMs).toFixed(2)} |`,
  );
  console.log(
    `| deliveries per second (from the poll's start) | - | ${f(withHook.deliveriesPerSecond ?? 0)} | |`,
  );
  if (deliveries)
    console.log(
      `| the runner alone: CPU a delivery, deliveries a second (no poll; orders read, runs queued) | - | ${deliveries.cpuMs.toFixed(3)} ms, ${f(deliveries.perSecond)}/s | |`,
    );
  if (deliveries && floorMs)
    console.log(
      `| the POST alone: CPU a POST of the same body, one after another (the floor; the runner alone over it) | - | ${floorMs.toFixed(3)} ms | ${(deliveries.cpuMs / floorMs).toFixed(2)} |`,
    );
  console.log(
    `| RSS before the orders → after (MiB) | ${f(without.rssBeforeMiB)} → ${f(without.rssAfterMiB)} | ${f(withHook.rssBeforeMiB)} → ${f(withHook.rssAfterMiB)} | |`,
  );
}
