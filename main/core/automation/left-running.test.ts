// The records of commands running, against real processes: on disk before a command gets its
// order, gone whichever way it ends; and what a sweep does with those a dead runner left: its
// command group is stopped (its leader gone, what it left in the group too); a process that only
// has a recorded pid, and a live runner's command, are left alone.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alive } from '../../../test/support/alive.cjs';
import { commandGroup, deadRunner, killGroups, writeRecord } from '../../../test/support/left-running';
import { recordingLog } from '../../../test/support/recording-log';
import { runCommand } from './command';
import { commandName, LeftRunning, processStart } from './left-running';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'left-running-'));
});
afterEach(() => {
  killGroups();
  rmSync(dir, { recursive: true, force: true });
});

it("stops a dead runner's command group, what its leader left in it too, and says so once", async () => {
  // The leader ends at once; its child stays in its group, as a script's background job does.
  const leader = commandGroup('sleep 60 & echo $!');
  const exited = once(leader, 'exit');
  const [line] = (await once(leader.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  const grandchild = Number(String(line).trim());
  const start = processStart(leader.pid, true);
  writeRecord(dir, 'd1', await deadRunner(), { pid: leader.pid, start });
  await exited;
  expect(alive(grandchild)).toBe(true);

  const { log, entries } = recordingLog();
  const left = new LeftRunning(dir, log, () => undefined);
  expect(left.holds('d1')).toBe(true);
  await left.sweep();
  expect(alive(grandchild)).toBe(false);
  expect(readdirSync(dir)).toEqual([]);
  expect(left.holds('d1')).toBe(false);
  const note =
    'provision.sh was still running from before Seller Tray stopped; it was stopped and runs again.';
  expect(left.takeNote('d1')).toBe(note);
  expect(left.takeNote('d1')).toBeUndefined();
  expect(entries.map((e) => e.message)).toEqual([note]);
});

it('holds a run spared while its runner lived once that runner is gone, and stops the command it left', async () => {
  const command = commandGroup('sleep 60');
  // Another runner on the same data folder (the app beside seller-tray run), alive at the first sweep.
  const runner = commandGroup('sleep 60');
  writeRecord(
    dir,
    'd5',
    { pid: runner.pid, start: processStart(runner.pid) },
    { pid: command.pid, start: processStart(command.pid) },
  );
  const left = new LeftRunning(dir, recordingLog().log, () => undefined);
  await left.sweep();
  expect(left.holds('d5')).toBe(false);
  expect(alive(command.pid)).toBe(true);

  // Killed with kill -9: its command runs on, and its run must wait for the sweep that stops it.
  const gone = once(runner, 'exit');
  process.kill(runner.pid, 'SIGKILL');
  await gone;
  expect(left.holds('d5')).toBe(true);
  await left.sweep();
  expect(alive(command.pid)).toBe(false);
  expect(left.holds('d5')).toBe(false);
}, 20_000);

it('leaves alone a process that has the pid of a recorded command but not its start (a pid reused)', async () => {
  const other = commandGroup('sleep 60');
  const pid = other.pid;
  const start = processStart(pid) as number;
  writeRecord(dir, 'd2', await deadRunner(), { pid, start: start - 1 });
  const left = new LeftRunning(dir, recordingLog().log, () => undefined);
  await left.sweep();
  expect(alive(pid)).toBe(true);
  expect(readdirSync(dir)).toEqual([]);
  expect(left.takeNote('d2')).toBeUndefined();
});

it('leaves alone a process whose pid and start a record from before a restart of the computer names', async () => {
  // Start times count from the boot: after a restart, the same pid may start at the same tick.
  const other = commandGroup('sleep 60');
  const pid = other.pid;
  writeRecord(dir, 'd6', await deadRunner(), { pid, start: processStart(pid) }, 'an-earlier-boot');
  const left = new LeftRunning(dir, recordingLog().log, () => undefined);
  await left.sweep();
  expect(alive(pid)).toBe(true);
  expect(readdirSync(dir)).toEqual([]);
});

it("leaves a live runner's commands running (two runners on one data folder), their records kept", async () => {
  const command = commandGroup('sleep 60');
  const pid = command.pid;
  // This test's process is the live runner.
  writeRecord(
    dir,
    'd3',
    { pid: process.pid, start: processStart(process.pid) },
    { pid, start: processStart(pid) },
  );
  let swept = 0;
  const left = new LeftRunning(dir, recordingLog().log, () => {
    swept += 1;
  });
  expect(left.holds('d3')).toBe(true);
  await left.sweep();
  expect(swept).toBe(1);
  expect(alive(pid)).toBe(true);
  expect(readdirSync(dir)).toEqual(['d3.json']);
  // Its run is not held for it again.
  expect(left.holds('d3')).toBe(false);
});

it('a record of a command that ended, or one unreadable, is only removed', async () => {
  const ended = await deadRunner();
  writeRecord(dir, 'd4', await deadRunner(), ended);
  writeFileSync(join(dir, 'd5.json'), '{"cut sho');
  const { log, entries } = recordingLog();
  const left = new LeftRunning(dir, log, () => undefined);
  await left.sweep();
  expect(readdirSync(dir)).toEqual([]);
  expect(left.takeNote('d4')).toBeUndefined();
  expect(entries.map((e) => e.message)).toEqual([
    'a running command record could not be looked into: removed',
  ]);
});

describe("a command's record", () => {
  /** Runs `command` recorded in `dir`; answers its result and whether its record was on disk before it got its input. */
  async function recorded(command: string[], options: { timeoutMs?: number; signal?: AbortSignal } = {}) {
    const left = new LeftRunning(dir, recordingLog().log, () => undefined);
    let onDisk: string[] = [];
    const result = await runCommand(command, {
      input: Buffer.from('{}'),
      env: { PATH: process.env.PATH },
      cwd: dir,
      timeoutMs: options.timeoutMs ?? 20_000,
      ...(options.signal ? { signal: options.signal } : {}),
      spawned: (pid) => {
        const remove = left.record(pid, { deliveryId: 'run-1', automation: 'provision' }, command);
        onDisk = readdirSync(dir);
        return remove;
      },
    });
    return { result, onDisk };
  }

  it('is on disk before the command gets its order, and gone once it exits, hits its time limit or is stopped', async () => {
    const exited = await recorded(['sh', '-c', 'cat >/dev/null; exit 3']);
    expect(exited).toMatchObject({ onDisk: ['run-1.json'], result: { exitCode: 3 } });
    expect(readdirSync(dir)).toEqual([]);

    const limited = await recorded(['sh', '-c', 'sleep 60'], { timeoutMs: 200 });
    expect(limited).toMatchObject({ onDisk: ['run-1.json'], result: { timedOut: true } });
    expect(readdirSync(dir)).toEqual([]);

    const stop = new AbortController();
    setTimeout(() => stop.abort(), 200);
    const stopped = await recorded(['sh', '-c', 'sleep 60'], { signal: stop.signal });
    expect(stopped).toMatchObject({ onDisk: ['run-1.json'], result: { signal: 'SIGTERM' } });
    expect(readdirSync(dir)).toEqual([]);

    // Never started: nothing to record.
    const missing = await recorded([join(dir, 'no-such-program')]);
    expect(missing.result.startError).toMatch(/ENOENT/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('that cannot be written kills the command before it gets its order, saying why', async () => {
    const touched = join(tmpdir(), `left-running-touched-${process.pid}`);
    const left = new LeftRunning(join(dir, 'a-file', 'records'), recordingLog().log, () => undefined);
    writeFileSync(join(dir, 'a-file'), '');
    const result = await runCommand(['sh', '-c', `read line && touch ${touched}`], {
      input: Buffer.from('{}\n'),
      env: { PATH: process.env.PATH },
      cwd: dir,
      timeoutMs: 20_000,
      spawned: (pid) => left.record(pid, { deliveryId: 'run-1', automation: 'provision' }, ['sh']),
    });
    expect(result.startError).toMatch(/^its start could not be recorded: /);
    expect(result.exitCode).toBeNull();
    expect(existsSync(touched)).toBe(false);
  });
});

it('names a command as people know it: its program, and the script an interpreter runs', () => {
  expect(commandName(['/opt/acme/provision.sh', '--region', 'eu'])).toBe('provision.sh');
  expect(commandName(['/opt/acme/provision.sh', 'eu'])).toBe('provision.sh');
  expect(commandName(['/bin/sh', '/opt/acme/provision.sh'])).toBe('sh provision.sh');
  expect(commandName(['python3', 'provision.py', '--order'])).toBe('python3 provision.py');
  expect(commandName(['node', '-e', 'x'])).toBe('node');
  expect(commandName(['C:\\acme\\provision.exe'])).toBe('provision.exe');
});

it.runIf(process.getuid?.() === 0)(
  'trusts no record in a folder another user owns, and records nothing there (needs root)',
  async () => {
    // Planted by user id 4242, whose folder it is: a record naming someone's command group as a
    // dead runner's would have it stopped.
    const command = commandGroup('sleep 60');
    writeRecord(dir, 'd9', await deadRunner(), { pid: command.pid, start: processStart(command.pid) });
    chmodSync(dir, 0o777);
    chownSync(dir, 4242, 4242);
    const { log, entries } = recordingLog();
    const left = new LeftRunning(dir, log, () => undefined);
    expect(left.holds('d9')).toBe(false);
    await left.sweep();
    expect(alive(command.pid)).toBe(true);
    expect(readdirSync(dir)).toEqual(['d9.json']);
    const words = `Seller Tray's folder '${dir}' belongs to another user (user id 4242)`;
    expect(entries.map((e) => e.message)).toEqual([expect.stringContaining(words)]);
    expect(() => left.record(process.pid, { deliveryId: 'd10', automation: 'provision' }, ['true'])).toThrow(
      words,
    );
    expect(readdirSync(dir)).toEqual(['d9.json']);
  },
);

it.runIf(process.getuid?.() === 0)(
  'removes nothing from a folder another user owns, not even a temporary of a process gone (needs root)',
  async () => {
    // What user id 4242 keeps there, named as a write cut short would leave it: not ours to remove.
    const { pid: gone } = spawnSync(process.execPath, ['-e', '0']);
    const temporary = `d9.json.${gone}.tmp`;
    writeFileSync(join(dir, temporary), '{"deliveryId":');
    chmodSync(dir, 0o777);
    chownSync(dir, 4242, 4242);

    await new LeftRunning(dir, recordingLog().log, () => undefined).sweep();

    expect(readdirSync(dir)).toEqual([temporary]);
  },
);

it('reads, removes and writes nothing through a .running folder that is a link, even to a folder of the user', async () => {
  // The user's own folder, with what a sweep would take for a record or a write cut short.
  const { pid: gone } = spawnSync(process.execPath, ['-e', '0']);
  const own = join(dir, 'Documents');
  mkdirSync(own, { mode: 0o755 });
  const kept = ['notes.json', `notes.json.${gone}.tmp`];
  for (const name of kept) writeFileSync(join(own, name), '{"deliveryId":');
  const running = join(dir, '.running');
  symlinkSync(own, running);
  const { log, entries } = recordingLog();
  const left = new LeftRunning(running, log, () => undefined);

  await left.sweep();
  expect(left.holds('notes')).toBe(false);
  expect(() => left.record(process.pid, { deliveryId: 'd10', automation: 'provision' }, ['true'])).toThrow(
    `Seller Tray's folder '${running}' is a link to '${own}'`,
  );

  expect(readdirSync(own).sort()).toEqual(kept);
  expect(statSync(own).mode & 0o777).toBe(0o755);
  expect(entries.map((e) => e.message)).toEqual([
    expect.stringContaining(`Seller Tray's folder '${running}' is a link to '${own}'`),
  ]);
});
