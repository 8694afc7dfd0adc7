// What the nesting bound costs the parse of an answer (parseJson in main/core/api/wire.ts: values
// nested deeper than MAX_NESTING read as null): a page of 100 orders from the simulator, parsed
// as parseJson did before the bound (its look for a 16-digit run, then JSON.parse: the page has
// none) and by parseJson, interleaved, medians of 11 rounds of 200 parses.
import { parseJson } from '../../main/core/api/wire';
import { startSimulator } from '../../simulator/server';

const sim = await startSimulator({ port: 0, seed: 1, orders: 100 });
const orders = sim.store.listOrderJson(1001, 0, 100).items.map((json: string) => JSON.parse(json));
const text = JSON.stringify({ hasMore: true, orders });
await sim.close();

const PARSES = 200;
const ROUNDS = 11;
const msPerParse = (parse: (text: string) => unknown): number => {
  const start = process.hrtime.bigint();
  for (let i = 0; i < PARSES; i++) parse(text);
  return Number(process.hrtime.bigint() - start) / 1e6 / PARSES;
};
/** parseJson before the bound, for a text without a 16-digit run. */
const unbounded = (json: string): unknown => (/[\d.]{16}/.test(json) ? undefined : JSON.parse(json));
const plain: number[] = [];
const bounded: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  plain.push(msPerParse(unbounded));
  bounded.push(msPerParse(parseJson));
}
const median = (values: number[]): number => values.toSorted((a, b) => a - b)[values.length >> 1] ?? 0;
console.log(
  `a page of 100 orders (${Math.round(text.length / 1024)} KiB): before the bound ${median(plain).toFixed(3)} ms, with it ${median(bounded).toFixed(3)} ms, ratio ${(median(bounded) / median(plain)).toFixed(2)}`,
);
