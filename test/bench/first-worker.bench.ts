// Probe of issue 27 (session 34): the first start in a worker thread with its own heap limits,
// against the same first start on the main thread. Both histories (420 and 42,000 orders, seed 3),
// each variant a fresh process running core.bench.ts's `first` step on a fresh folder, the variants
// alternating within each round, so a shared machine's load falls on all of them alike. Prints the
// whole process's peak RSS, the first sync's wall and CPU, and long/short per variant and round.
// Variants: `--variants main,8/64,16/96` (young/old MiB for the worker, 0 for V8's default);
// `--rounds N`; `--bundled`: the step runs from one ES module built by esbuild, with plain node, as
// the app's main process runs from its bundle (tsx compiles every module again in a worker, a cost
// the app does not pay).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { build } from 'esbuild';
import { REPO_ROOT, runTs, spawnSimulator } from '../support/processes';

const { values } = parseArgs({
  options: {
    variants: { type: 'string', default: 'main,4/48,8/64,16/96' },
    rounds: { type: 'string', default: '2' },
    bundled: { type: 'boolean', default: false },
  },
});
const VARIANTS = values.variants.split(',');
const ROUNDS = Number(values.rounds);
const HISTORIES = { short: 420, long: 42_000 } as const;

const STEP = 'test/bench/core.bench.ts';
const bundleDir = values.bundled ? await mkdtemp(join(tmpdir(), 'first-worker-bundle-')) : undefined;
const bundle = bundleDir && join(bundleDir, 'core.bench.mjs');
if (bundle) {
  await build({
    entryPoints: [join(REPO_ROOT, STEP)],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    external: ['keytar'],
    // CommonJS dependencies inside an ES module still call require.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    logLevel: 'error',
  });
}

/** core.bench.ts's step in a fresh process: from the bundle with plain node, or with tsx. */
async function runStep(args: string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  if (!bundle) return runTs(STEP, args, env);
  return promisify(execFile)(process.execPath, [bundle, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
  }).catch((error: { stdout: string; stderr: string }) => error);
}

interface First {
  firstSyncMs: number;
  firstSyncCpuMs: number;
  backlogMs: number;
  firstPeakRssMiB: number;
  heapAtPeakMiB: number;
}

/** One first start of `variant` in a process of its own, on a fresh folder. */
async function first(url: string, variant: string): Promise<First | string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'first-worker-'));
  try {
    const env = { NODE_OPTIONS: '--expose-gc', CORE_BENCH_FIRST_WORKER: variant === 'main' ? '' : variant };
    const { stdout, stderr } = await runStep(['first', url, dataDir], env);
    const line = stdout.trim().split('\n').at(-1) ?? '';
    // A worker that hit its limit is a figure too (the variant does not fit), not the end of the probe.
    if (!line.startsWith('{'))
      return (/ERR_WORKER_OUT_OF_MEMORY|exited \(\d+\)/.exec(stderr) ?? ['failed'])[0];
    return JSON.parse(line) as First;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

const sims = await Promise.all(
  Object.values(HISTORIES).map((orders) => spawnSimulator(['--orders', String(orders), '--seed', '3'])),
);
const [shortSim, longSim] = sims;
if (!shortSim || !longSim) throw new Error('first-worker.bench: no simulator');
const rows: Record<string, Record<string, number | string>> = {};
try {
  for (let round = 1; round <= ROUNDS; round++) {
    // The short history on the main thread, this round's: a worker's own cost (its isolate, and
    // here tsx's loader compiling the modules again) raises its short peak, so its long/short
    // is also given against the app's short first start as it runs today.
    let mainShort: First | string = 'main not measured';
    for (const variant of VARIANTS) {
      const short = await first(shortSim.url, variant);
      if (variant === 'main') mainShort = short;
      const long = await first(longSim.url, variant);
      const fig = (f: First | string, pick: (f: First) => number) =>
        typeof f === 'string' ? f : Math.round(pick(f));
      rows[`${variant} r${round}`] = {
        'peak MiB short': fig(short, (f) => f.firstPeakRssMiB),
        'peak MiB long': fig(long, (f) => f.firstPeakRssMiB),
        'long/short':
          typeof short === 'string' || typeof long === 'string'
            ? '-'
            : +(long.firstPeakRssMiB / short.firstPeakRssMiB).toFixed(2),
        'long / main short':
          typeof mainShort === 'string' || typeof long === 'string'
            ? '-'
            : +(long.firstPeakRssMiB / mainShort.firstPeakRssMiB).toFixed(2),
        'heap at peak long': fig(long, (f) => f.heapAtPeakMiB),
        'sync ms long': fig(long, (f) => f.firstSyncMs),
        'sync CPU ms long': fig(long, (f) => f.firstSyncCpuMs),
        'first start ms long': fig(long, (f) => f.backlogMs),
      };
      console.error(variant, round, JSON.stringify(rows[`${variant} r${round}`]));
    }
  }
} finally {
  for (const sim of sims) sim.child.kill('SIGTERM');
  if (bundleDir) await rm(bundleDir, { recursive: true, force: true });
}
console.table(rows);
