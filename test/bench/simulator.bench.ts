// `npm run bench:simulator`: requests/s of the Seller API simulator for its two hot reads (one
// order; a 50-order page), against a bare node:http server answering a body of the same size.
// Absolute numbers depend on the machine; the ratio to the bare server is what survives a noisy
// one. Both servers run as child processes so that autocannon, here, does not take their CPU.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import { spawnTs, waitForLine } from '../support/processes';
import { type RawAnswer, rawCall, tokenFor } from '../support/raw-api';

const ORDERS = 10_000;
const PAGE_SIZE = 50;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = 2;
const ROUNDS = 3;
/** Page offsets spread over the whole order list, cycled through by autocannon. */
const PAGE_OFFSETS = 20;

interface Case {
  name: string;
  target: number;
  simRequests: autocannon.Request[];
  /** Mean body size of the simulator's answers, served by the bare server. */
  bodyBytes: number;
}

const children: ChildProcess[] = [];
// 'exit' runs on normal ends, thrown errors and process.exit alike; kill() is synchronous.
process.on('exit', () => {
  for (const child of children) child.kill();
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

async function measure(url: string, requests: autocannon.Request[], seconds: number): Promise<number> {
  const result = await autocannon({ url, connections: 10, pipelining: 1, duration: seconds, requests });
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0 || result['2xx'] === 0) {
    throw new Error(
      `${url}${requests[0]?.path}: ${result['2xx']} 2xx, ${result.non2xx} non-2xx, ` +
        `${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  return result.requests.average;
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function main(): Promise<void> {
  // Registered before waiting for them, so a child that never says it listens is killed too.
  const simChild = spawnTs('simulator/cli.ts', ['--port', '0', '--orders', String(ORDERS)]);
  const bareChild = spawnTs('test/bench/bare-server.ts', []);
  children.push(simChild, bareChild);
  const listening = async (child: ChildProcess, name: string) =>
    (await waitForLine(child, new RegExp(`^${name} listening on (http://\\S+)$`)))[1] ?? '';
  const simUrl = await listening(simChild, 'Seller API simulator');
  const bareUrl = await listening(bareChild, 'bare server');

  const token = await tokenFor(simUrl, 'demo-client', 'demo-secret');
  // A fixed request id per request template: GETs are not deduplicated by id, and building
  // each request anew (setupRequest) would cost the load generator CPU it shares with the servers.
  const headers = (): Record<string, string> => ({
    Authorization: `Bearer ${token}`,
    'X-Request-ID': randomUUID(),
  });
  const ok = async (call: Promise<RawAnswer>): Promise<RawAnswer> => {
    const answer = await call;
    if (answer.status !== 200) throw new Error(`setup call: ${answer.status} ${answer.text}`);
    return answer;
  };
  const listOrders = (offset: number) =>
    ok(rawCall(simUrl, 'listOrders', { token, query: { offset, limit: PAGE_SIZE } }));

  const orderId: string = (await listOrders(0)).json.orders[0].orderId;
  const order = await ok(rawCall(simUrl, 'getOrder', { token, params: { orderId } }));

  const offsets = Array.from({ length: PAGE_OFFSETS }, (_, i) =>
    Math.round((i * (ORDERS - PAGE_SIZE)) / (PAGE_OFFSETS - 1)),
  );
  let pageBytes = 0;
  for (const offset of offsets) {
    const page = await listOrders(offset);
    if (page.json.orders.length !== PAGE_SIZE) throw new Error(`page at ${offset} is not full`);
    pageBytes += Buffer.byteLength(page.text);
  }

  const cases: Case[] = [
    {
      name: 'GET /seller/v1/orders/{orderId}',
      target: 4000,
      simRequests: [{ method: 'GET', path: `/seller/v1/orders/${orderId}`, headers: headers() }],
      bodyBytes: Buffer.byteLength(order.text),
    },
    {
      name: `GET /seller/v1/orders?offset=*&limit=${PAGE_SIZE}`,
      target: 500,
      simRequests: offsets.map((offset) => ({
        method: 'GET',
        path: `/seller/v1/orders?offset=${offset}&limit=${PAGE_SIZE}`,
        headers: headers(),
      })),
      bodyBytes: Math.round(pageBytes / offsets.length),
    },
  ];
  // Same request headers for the bare server, so both read requests of the same size.
  const bareRequests = (c: Case): autocannon.Request[] => [
    { method: 'GET', path: `/?bytes=${c.bodyBytes}`, headers: headers() },
  ];

  console.log(
    `${cpus().length} CPUs, Node ${process.version}; 10 connections, pipelining 1; ` +
      `${ROUNDS} rounds of ${SECONDS} s per case and server, after ${WARMUP_SECONDS} s warm-up`,
  );
  for (const c of cases) {
    await measure(simUrl, c.simRequests, WARMUP_SECONDS);
    await measure(bareUrl, bareRequests(c), WARMUP_SECONDS);
  }

  // Rounds interleave simulator and bare runs, so slow drifts of the machine hit both alike.
  const sim = cases.map((): number[] => []);
  const bare = cases.map((): number[] => []);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [i, c] of cases.entries()) {
      const s = await measure(simUrl, c.simRequests, SECONDS);
      const b = await measure(bareUrl, bareRequests(c), SECONDS);
      sim[i]?.push(s);
      bare[i]?.push(b);
      console.log(`round ${round}  ${c.name.padEnd(44)} simulator ${fmt(s)}/s  bare ${fmt(b)}/s`);
    }
  }

  const rows = cases.map((c, i) => {
    const s = median(sim[i] ?? []);
    const b = median(bare[i] ?? []);
    // The ratio pairs each simulator run with the bare run right after it, so a slow spell of
    // the machine lowers both sides of one ratio instead of one side of the medians.
    const ratio = median((sim[i] ?? []).map((v, round) => v / (bare[i]?.[round] ?? Number.NaN)));
    return {
      case: c.name,
      'body bytes': c.bodyBytes,
      'simulator req/s (median)': fmt(s),
      'bare req/s (median)': fmt(b),
      ratio: `${(100 * ratio).toFixed(0)}%`,
      target: `>= ${c.target}/s`,
      result: s >= c.target ? 'PASS' : 'MISS',
    };
  });
  console.log();
  console.table(rows);
  for (const row of rows) {
    console.log(`${row.case}: the simulator reaches ${row.ratio} of a bare node:http server on this machine`);
  }
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(`bench failed: ${error.stack ?? error.message}`);
    process.exit(1);
  },
);
