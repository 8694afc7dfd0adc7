// `npm run bench`: the Seller API client walking 10,000 orders and 10,000 events of a
// simulator (in its own process), against two references measured in the same run:
//   floor: the same HTTP requests on keep-alive connections, bodies read but not parsed;
//   parsing floor: the floor plus JSON.parse and schema validation of every page, which
//     any client that checks what it reads must pay;
//   naive: a new connection and a new token for every page, then parse and validate.
// Reported as ratios of medians over several interleaved runs, since machines are noisy.

import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { SellerApiClient } from '../../main/core/api/client';
import { routes } from '../../main/core/api/routes';
import { spawnSimulator } from '../support/processes';

const ORDERS = 10_000;
const EVENTS = 10_000;
const PAGE_SIZE = 100;
const RUNS = 5;

const { url, child } = await spawnSimulator(['--orders', String(ORDERS), '--seed', '1']);
const base = new URL(url);
const credentials = { clientId: 'demo-client', clientSecret: async () => 'demo-secret' };
const basic = `Basic ${Buffer.from('demo-client:demo-secret').toString('base64')}`;

function httpCall(
  agent: Agent | false,
  method: string,
  path: string,
  authorization: string,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        agent,
        headers: { Authorization: authorization, 'X-Request-ID': randomUUID() },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          res.statusCode && res.statusCode < 300
            ? resolve(Buffer.concat(chunks))
            : reject(new Error(`${method} ${path}: ${res.statusCode}`)),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The paths every contender requests: all order pages, then the first EVENTS events. */
const paths = [
  ...Array.from(
    { length: ORDERS / PAGE_SIZE },
    (_, i) => `${routes.listOrders.path}?offset=${i * PAGE_SIZE}&limit=${PAGE_SIZE}`,
  ),
  ...Array.from(
    { length: EVENTS / PAGE_SIZE },
    (_, i) => `${routes.listEvents.path}?offset=${i * PAGE_SIZE}&limit=${PAGE_SIZE}`,
  ),
];

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

/** Parses and validates a page as every checking client must; returns its item count. */
function parsePage(path: string, body: Buffer): number {
  const json = JSON.parse(body.toString());
  if (path.startsWith(routes.listOrders.path)) return routes.listOrders.response.parse(json).orders.length;
  return routes.listEvents.response.parse(json).marketplaceEvents.length;
}

async function walkFloor(parse: boolean): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const token = JSON.parse(
    (await httpCall(agent, 'POST', routes.createToken.path, basic)).toString(),
  ).accessToken;
  let count = 0;
  for (const path of paths) {
    const body = await httpCall(agent, 'GET', path, `Bearer ${token}`);
    count += parse ? parsePage(path, body) : body.length;
  }
  agent.destroy();
  return count;
}

async function walkNaive(): Promise<number> {
  let items = 0;
  for (const path of paths) {
    const token = JSON.parse(
      (await httpCall(false, 'POST', routes.createToken.path, basic)).toString(),
    ).accessToken;
    items += parsePage(path, await httpCall(false, 'GET', path, `Bearer ${token}`));
  }
  return items;
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
  console.log(`a/b = ${(a / b).toFixed(2)} (target ≤ 1.25: ${a / b <= 1.25 ? 'met' : 'MISSED'})`);
  console.log(`c/a = ${(c / a).toFixed(2)} (how much slower the naive client is)`);
  console.log(`d/b = ${(d / b).toFixed(2)} (what parsing and validating the answers costs by itself)`);
  console.log(`a/d = ${(a / d).toFixed(2)} (the client against a bare loop that parses the same answers)`);
} finally {
  child.kill('SIGTERM');
}
