// What recording a command costs at its start (issue 24, commands left running): each command's
// record (its start time read, the file written and flushed, its folder flushed) is written
// synchronously right after its spawn, before it is given its order. Measured against the spawn
// itself, in one run: ROUNDS commands (`true`) spawned in groups of their own and recorded, the
// median and 95th percentile of each; and what the sweep at each runner's start costs when no
// command was left running.
//   flock /tmp/bench.lock npx tsx test/bench/command-record.bench.ts
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LeftRunning } from '../../main/core/automation/left-running';
import { silentLog } from '../../main/core/log';

const ROUNDS = 200;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'command-record-bench-'));
  try {
    const left = new LeftRunning(join(dir, '.running'), silentLog, () => undefined);
    const spawns: number[] = [];
    const records: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      let t = performance.now();
      const child = spawn('true', [], { detached: true, stdio: 'ignore' });
      spawns.push(performance.now() - t);
      t = performance.now();
      const remove = left.record(child.pid as number, { deliveryId: `d${i}`, automation: 'a' }, ['true']);
      records.push(performance.now() - t);
      remove();
      await once(child, 'exit');
    }
    const t = performance.now();
    await left.sweep();
    const sweep = performance.now() - t;
    const at = (values: number[], q: number) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length * q)] ?? 0;
    console.log(
      `spawn: median ${at(spawns, 0.5).toFixed(2)} ms, p95 ${at(spawns, 0.95).toFixed(2)} ms; ` +
        `record: median ${at(records, 0.5).toFixed(2)} ms, p95 ${at(records, 0.95).toFixed(2)} ms; ` +
        `record/spawn (medians) ${(at(records, 0.5) / at(spawns, 0.5)).toFixed(2)}; ` +
        `sweep with nothing left: ${sweep.toFixed(2)} ms`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
