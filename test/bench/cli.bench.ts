// `npm run bench:cli` (part of `npm run bench`): `seller-tray orders list` (its default page of
// the newest 50, with statuses) against a seller of 10,000 orders and one of 100, each simulator
// in a process of its own. The command runs in this process (as the CLI runs it: a new client,
// a new token) for medians of interleaved runs, then once per size as users run it, a process
// of its own through tsx. Reported as a ratio against the 100-order seller, measured in the same
// run: a listing that reads only what it prints costs about the same for both.
import type { ChildProcess } from 'node:child_process';
import { runCommand } from '../../main/cli/commands';
import { SellerApiClient } from '../../main/core/api/client';
import { PAGE } from '../../main/core/api/routes';
import { runTs, spawnSimulator } from '../support/processes';
import { admin } from '../support/raw-api';

const SMALL = 100;
const LARGE = 10_000;
const RUNS = 5;
const PROCESS_RUNS = 3;
const OPTIONS = {
  all: false,
  offset: PAGE.defaultOffset,
  limit: PAGE.defaultLimit,
  actor: () => {
    throw new Error('orders list marks nothing');
  },
};

interface Seller {
  orders: number;
  url: string;
  child: ChildProcess;
}

async function requestsServed(url: string): Promise<number> {
  const state = await admin(url, 'GET', 'state');
  return Object.values(state.json.requests as Record<string, number>).reduce((a, b) => a + b, 0);
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

/** One `orders list` as the CLI runs it; how long it took and how many orders it printed. */
async function ordersList(url: string): Promise<{ ms: number; printed: number }> {
  const started = performance.now();
  const client = new SellerApiClient({
    baseUrl: url,
    credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
  });
  const { result } = await runCommand(client, ['orders', 'list'], OPTIONS);
  const ms = performance.now() - started;
  if (result.kind !== 'orders' || !result.statuses) throw new Error('orders list printed no statuses');
  return { ms, printed: result.value.length };
}

async function processMs(url: string): Promise<number> {
  const started = performance.now();
  const run = await runTs('main/cli/seller-tray.ts', ['orders', 'list'], {
    SELLER_API_BASE_URL: url,
    SELLER_CLIENT_ID: 'demo-client',
    SELLER_CLIENT_SECRET: 'demo-secret',
  });
  if (run.code !== 0) throw new Error(`seller-tray orders list failed: ${run.stderr}`);
  return performance.now() - started;
}

const sellers: Seller[] = [];
try {
  for (const orders of [SMALL, LARGE]) {
    sellers.push({ orders, ...(await spawnSimulator(['--orders', String(orders), '--seed', '4'])) });
  }
  const times = new Map<Seller, number[]>(sellers.map((s) => [s, []]));
  const requests = new Map<Seller, number>();
  for (const seller of sellers) {
    const before = await requestsServed(seller.url);
    const { printed } = await ordersList(seller.url); // also the warm-up
    requests.set(seller, (await requestsServed(seller.url)) - before); // the state calls are not counted
    if (printed !== Math.min(seller.orders, OPTIONS.limit)) throw new Error(`printed ${printed} orders`);
  }
  for (let run = 0; run < RUNS; run++) {
    for (const seller of sellers) times.get(seller)?.push((await ordersList(seller.url)).ms);
  }
  const processes = new Map<Seller, number[]>(sellers.map((s) => [s, []]));
  for (let run = 0; run < PROCESS_RUNS; run++) {
    for (const seller of sellers) processes.get(seller)?.push(await processMs(seller.url));
  }
  const figure = (seller: Seller) => ({
    'ms (in process)': Math.round(median(times.get(seller) ?? [])),
    requests: requests.get(seller),
    'ms (a process of its own)': Math.round(median(processes.get(seller) ?? [])),
  });
  console.log(
    `seller-tray orders list (the newest ${OPTIONS.limit}, with statuses): medians of ${RUNS} runs in process, ${PROCESS_RUNS} as processes`,
  );
  console.table(Object.fromEntries(sellers.map((s) => [`${s.orders} orders`, figure(s)])));
  const [small, large] = sellers.map((s) => median(times.get(s) ?? []));
  const [smallProcess, largeProcess] = sellers.map((s) => median(processes.get(s) ?? []));
  console.log(
    `${LARGE}/${SMALL} orders: ${((large ?? 0) / (small ?? 1)).toFixed(2)} in process, ` +
      `${((largeProcess ?? 0) / (smallProcess ?? 1)).toFixed(2)} as processes`,
  );
} finally {
  for (const seller of sellers) seller.child.kill('SIGTERM');
}
