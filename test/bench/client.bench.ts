// `npm run bench`: the Seller API client walking 10,000 orders and 10,000 events of a
// simulator (in its own process), against two references measured in the same run:
//   floor: the same HTTP requests on keep-alive connections, bodies read but not parsed;
//   parsing floor: the floor plus JSON.parse, the envelope checked and every item read with the
//     wire schema (floor.ts), which any client that checks what it reads must pay;
//   naive: a new connection and a new token for every page, then parse and validate.
// Reported as ratios of medians over several interleaved runs, since machines are noisy.

import { SellerApiClient } from '../../main/core/api/client';
import { routes } from '../../main/core/api/routes';
import { spawnSimulator } from '../support/processes';
import { type FloorListing, floorWalker } from './floor';

const ORDERS = 10_000;
const EVENTS = 10_000;
const PAGE_SIZE = 100;
const RUNS = 5;

const { url, child } = await spawnSimulator(['--orders', String(ORDERS), '--seed', '1']);
const credentials = { clientId: 'demo-client', clientSecret: async () => 'demo-secret' };

/** The pages every contender requests: all order pages, then the first EVENTS events. */
const pages = (listing: FloorListing, count: number) =>
  Array.from({ length: count / PAGE_SIZE }, (_, i) => ({
    listing,
    path: `${routes[listing].path}?offset=${i * PAGE_SIZE}&limit=${PAGE_SIZE}`,
  }));
const paths = [...pages('listOrders', ORDERS), ...pages('listEvents', EVENTS)];

async function walkWithClient(): Promise<number> {
  const client = new SellerApiClient({ baseUrl: url, credentials, pageSize: PAGE_SIZE });
  let items = 0;
  for await (const page of client.allOrders()) items += page.items.length;
  for await (const page of client.allEvents()) {
    items += page.items.length;
    if (items >= ORDERS + EVENTS) break;
  }
  return items;
}

/** The floor (bodies read, not parsed) or the parsing floor (every item checked), on a connection of its own. */
async function walkFloor(parse: boolean): Promise<number> {
  const floor = await floorWalker(url);
  try {
    return await floor.paths(paths, parse);
  } finally {
    floor.close();
  }
}

async function walkNaive(): Promise<number> {
  const floor = await floorWalker(url);
  try {
    return await floor.naive(paths);
  } finally {
    floor.close();
  }
}

async function timed(walk: () => Promise<number>): Promise<number> {
  const started = performance.now();
  await walk();
  return performance.now() - started;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

try {
  // Checked once outside the timings: every contender sees the same data.
  const counts = [await walkWithClient(), await walkFloor(true), await walkNaive()];
  if (counts.some((n) => n !== ORDERS + EVENTS)) {
    throw new Error(
      `walked ${counts.join(', ')} items (client, parsing floor, naive), expected ${ORDERS + EVENTS}`,
    );
  }
  await walkFloor(false); // warm-up

  const times = {
    client: [] as number[],
    floor: [] as number[],
    parsing: [] as number[],
    naive: [] as number[],
  };
  for (let run = 0; run < RUNS; run++) {
    times.floor.push(await timed(() => walkFloor(false)));
    times.parsing.push(await timed(() => walkFloor(true)));
    times.client.push(await timed(walkWithClient));
    times.naive.push(await timed(walkNaive));
  }
  const a = median(times.client);
  const b = median(times.floor);
  const c = median(times.naive);
  const d = median(times.parsing);
  const requests = paths.length;
  console.log(
    `Client walk: ${ORDERS} orders + ${EVENTS} events, ${requests} pages of ${PAGE_SIZE}, median of ${RUNS} runs`,
  );
  console.table({
    'client (a)': { 'ms per walk': Math.round(a), 'ms per page': +(a / requests).toFixed(2) },
    'floor (b)': { 'ms per walk': Math.round(b), 'ms per page': +(b / requests).toFixed(2) },
    'parsing floor (d)': { 'ms per walk': Math.round(d), 'ms per page': +(d / requests).toFixed(2) },
    'naive (c)': { 'ms per walk': Math.round(c), 'ms per page': +(c / requests).toFixed(2) },
  });
  console.log(
    `a/d = ${(a / d).toFixed(2)} (the client against the parsing floor: every item read and checked, as the client does)`,
  );
  console.log(`a/b = ${(a / b).toFixed(2)} (against bare HTTP: bodies read, not parsed)`);
  console.log(`d/b = ${(d / b).toFixed(2)} (what parsing and checking every item costs by itself)`);
  console.log(`c/a = ${(c / a).toFixed(2)} (how much slower the naive client is)`);
} finally {
  child.kill('SIGTERM');
}
