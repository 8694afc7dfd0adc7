// Commands left running, for tests of what a sweep does with them: real process groups as a
// command is started, a runner that was (a process that ended), and the record a runner writes.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processStart } from '../../main/core/automation/left-running';
import { bootId } from '../../main/core/process-alive';

const started: ChildProcess[] = [];

/** A shell running `script` in a group of its own, as a command is started; ended by killGroups. */
export function commandGroup(script: string): ChildProcess & { pid: number } {
  const child = spawn('sh', ['-c', script], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  started.push(child);
  return child as ChildProcess & { pid: number };
}

/** Ends every group commandGroup started (a test's afterEach). */
export function killGroups(): void {
  for (const child of started.splice(0)) {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/** A runner that was: a process that ended, as a record names it. */
export async function deadRunner(): Promise<{ pid: number; start: number }> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  const start = processStart(child.pid as number, true) as number;
  await once(child, 'exit');
  return { pid: child.pid as number, start };
}

/** A record in `dir` as a runner writes one for a command it spawned (this boot's unless told). */
export function writeRecord(
  dir: string,
  deliveryId: string,
  runner: { pid: number; start: number | undefined },
  command: { pid: number; start: number | undefined },
  boot = bootId(),
): void {
  const record = { boot, runner, command, deliveryId, automation: 'provision', name: 'provision.sh' };
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${deliveryId}.json`), JSON.stringify(record));
}
