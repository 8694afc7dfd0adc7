// Commands a runner killed with kill -9 left running: each command's process group is recorded in
// a small file in the account's work folder, on disk (fsync) the instant it is spawned, before it
// is given its order, and removed when it ends. A run taken again after the crash waits until the
// command its dead runner left for it is stopped (SIGTERM to its group, SIGKILL after the grace a
// time limit gives), so one order is never provisioned by two commands at once. Identity against
// a reused pid: the start time the OS gives each process (Linux /proc and its boot id; macOS ps,
// untested here), of the command and of its runner: a live runner's commands (another process on
// the same data folder) and a process that merely has an old pid are left alone. Windows has no
// such identity here: a record left there is only cleaned, with a warning (untested: no Windows runner).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { plainText } from '../../../preload/marketplace-text';
import { removeLeftoverTemporaries, writeFileDurably } from '../durable-file';
import { failureFields, type Log } from '../log';
import { ensurePrivateDir, FolderOfAnotherUserError, ownFolder } from '../paths';
import { bootId, isProcessAlive } from '../process-alive';
import { KILL_GRACE_MS } from './command';

/** A process as its OS knows it: its pid and when it started (undefined where that is not known). */
interface ProcessIdentity {
  pid: number;
  start: number | undefined;
}

/** What a running command's file says. */
interface CommandRecord {
  /** The computer's boot it ran in (Linux: start times count from the boot); a restart ended it. */
  boot: string | undefined;
  /** The runner that spawned it. */
  runner: ProcessIdentity;
  /** The command, leader of its own process group (pgid = pid). */
  command: ProcessIdentity;
  deliveryId: string;
  automation: string;
  /** Its program as people name it: "provision.sh", "sh provision.sh". */
  name: string;
}

/**
 * How often a group being stopped is looked at (each look reads the process table, synchronously:
 * not often, on the app's main thread); how long SIGKILL has to end it.
 */
const POLL_MS = 200;
const KILL_WAIT_MS = 2_000;

/**
 * When `pid` started, in the OS's own unit (Linux: clock ticks since boot; macOS: ms since 1970,
 * to the second), or undefined when it is gone or a zombie (or on Windows). `zombie`: one ended
 * but not yet waited for counts (a child of this process just spawned may have ended already).
 */
export function processStart(pid: number, zombie = false): number | undefined {
  return processTable(pid, zombie).find((p) => p.pid === pid)?.start;
}

/**
 * A command's program as people name it: its file, and its script's when an interpreter runs one
 * (a second word naming a file: "sh provision.sh"; not "provision.sh eu" nor "node -e").
 */
export function commandName(command: readonly string[]): string {
  const [program = '', script] = command;
  const interpreted = script !== undefined && !script.startsWith('-') && /[./\\]/.test(script);
  return plainText(
    (interpreted ? [program, script] : [program])
      // Either slash: a Windows path read anywhere.
      .map((w) => w.split(/[/\\]/).at(-1))
      .join(' '),
  );
}

interface ProcessRow {
  pid: number;
  pgid: number;
  /** Linux: its session; a command is its session's leader (setsid), so its group's members share it. */
  sid: number | undefined;
  start: number;
}

/** Live processes (and zombies when asked): `pid` only, or all. */
function processTable(pid?: number, zombie = false): ProcessRow[] {
  if (process.platform === 'win32') return [];
  if (process.platform === 'linux') {
    const pids = pid === undefined ? readdirSync('/proc').filter((n) => /^\d+$/.test(n)) : [String(pid)];
    const rows: ProcessRow[] = [];
    for (const p of pids) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      } catch {
        continue; // gone meanwhile
      }
      // After "pid (comm) ": state, ppid, pgrp, session… starttime is field 22.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (!zombie && (fields[0] === 'Z' || fields[0] === 'X')) continue;
      rows.push({
        pid: Number(p),
        pgid: Number(fields[2]),
        sid: Number(fields[3]),
        start: Number(fields[19]),
      });
    }
    return rows;
  }
  const ps = spawnSync(
    'ps',
    [...(pid === undefined ? ['-A'] : ['-p', String(pid)]), '-o', 'pid=,pgid=,stat=,lstart='],
    {
      encoding: 'utf8',
    },
  );
  return (ps.stdout ?? '').split('\n').flatMap((line) => {
    const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.+?)\s*$/.exec(line);
    if (!match || (!zombie && match[3]?.startsWith('Z'))) return [];
    return [
      { pid: Number(match[1]), pgid: Number(match[2]), sid: undefined, start: Date.parse(match[4] ?? '') },
    ];
  });
}

/** Whether the process is the one identified (its pid not taken by another since). */
function isSame(identity: ProcessIdentity): boolean {
  return identity.start === undefined
    ? isProcessAlive(identity.pid)
    : processStart(identity.pid) === identity.start;
}

/** Processes still in the command's group that it may have started (none where it is not known). */
function groupMembers(command: ProcessIdentity): ProcessRow[] {
  const { pid, start } = command;
  if (start === undefined) return [];
  return processTable().filter(
    (p) => p.pgid === pid && (p.sid === undefined || p.sid === pid) && p.start >= start,
  );
}

/**
 * Whether the recorded command's group runs on as ours: its leader alive with the recorded start,
 * or, the leader gone, processes left in its group (a group's id is not given to another while
 * any of its processes lives). A leader's pid that now names another process: not ours.
 */
function stillOurs(command: ProcessIdentity): boolean {
  const leader = processStart(command.pid);
  if (leader !== undefined) return leader === command.start;
  return groupMembers(command).length > 0;
}

/** Whether the command's group emptied within `withinMs`. */
async function groupEnds(command: ProcessIdentity, withinMs: number): Promise<boolean> {
  const end = Date.now() + withinMs;
  for (;;) {
    if (groupMembers(command).length === 0) return true;
    if (Date.now() >= end) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Gone meanwhile.
  }
}

/** Stops a command's group as a time limit does: SIGTERM, then SIGKILL to what is left after the grace. */
async function stopGroup(command: ProcessIdentity): Promise<void> {
  signalGroup(command.pid, 'SIGTERM');
  if (await groupEnds(command, KILL_GRACE_MS)) return;
  // Members remain: the group's id is still theirs, never another's.
  signalGroup(command.pid, 'SIGKILL');
  await groupEnds(command, KILL_WAIT_MS);
}

/** This process, as its commands' records name their runner. */
let self: ProcessIdentity | undefined;
function thisRunner(): ProcessIdentity {
  self ??= { pid: process.pid, start: processStart(process.pid) };
  return self;
}

/** Why `dir` is not used when it is a symbolic link (to one of the user's folders, or anywhere); undefined when it is not. */
function linkIn(dir: string): Error | undefined {
  let target: string;
  try {
    target = readlinkSync(dir);
  } catch {
    return undefined; // a folder (EINVAL), or absent: made as a folder when a record is written
  }
  return new Error(
    `Seller Tray's folder '${dir}' is a link to '${target}', not a folder it made, so Seller Tray neither reads, removes nor records anything there: remove the link, and Seller Tray makes the folder again.`,
  );
}

/** The records of one account's running commands, in its work folder, and what dead runners left. */
export class LeftRunning {
  /** The sweep under way: records of dead runners stopped and removed. */
  private sweeping: Promise<void> | undefined;
  /**
   * Runs whose record a sweep left, not waited for: by the runner that lived then (once it is gone,
   * the run is held again and its command swept), or 'kept' when the record could not be removed.
   */
  private readonly spared = new Map<string, ProcessIdentity | 'kept'>();
  /** What a sweep stopped, by delivery id: said with the run's next output. */
  private readonly notes = new Map<string, string>();
  private untrustedTold = false;

  constructor(
    private readonly dir: string,
    private readonly log: Log,
    /** A sweep ended: runs it held may be taken now. */
    private readonly swept: () => void,
  ) {}

  /**
   * Records a command just spawned (pid = its group), on disk before it returns; answers how to
   * remove the record once the command and its group ended. Throws when it cannot be written.
   */
  record(
    pid: number,
    run: { deliveryId: string; automation: string },
    command: readonly string[],
  ): () => void {
    const file = this.file(run.deliveryId);
    const record: CommandRecord = {
      boot: bootId(),
      runner: thisRunner(),
      command: { pid, start: processStart(pid, true) },
      deliveryId: run.deliveryId,
      automation: run.automation,
      name: commandName(command),
    };
    const link = linkIn(this.dir);
    if (link) throw link;
    ensurePrivateDir(this.dir);
    writeFileDurably(file, JSON.stringify(record));
    // Not flushed: a removal lost to a crash leaves a record of a process gone, only cleaned.
    return () => rmSync(file, { force: true });
  }

  /**
   * Whether a run must wait before it is taken again: a command a dead runner started for it may
   * still run (its record is there). Starts the sweep that stops it; `swept` says when it is done.
   */
  holds(deliveryId: string): boolean {
    const spared = this.spared.get(deliveryId);
    if (spared === 'kept' || (spared !== undefined && isSame(spared))) return false;
    this.spared.delete(deliveryId);
    if (!existsSync(this.file(deliveryId)) || !this.trusted()) return false;
    void this.sweep();
    return true;
  }

  /** The words for the run's next output about the command stopped for it, once. */
  takeNote(deliveryId: string): string | undefined {
    const note = this.notes.get(deliveryId);
    this.notes.delete(deliveryId);
    return note;
  }

  /** Stops every command a dead runner left (all at once) and removes their records; one at a time. */
  sweep(): Promise<void> {
    this.sweeping ??= (async () => {
      // Another user's folder: nothing in it is read or removed.
      if (!this.trusted()) return;
      removeLeftoverTemporaries(this.dir, { log: this.log });
      let names: string[];
      try {
        names = readdirSync(this.dir).filter((n) => n.endsWith('.json'));
      } catch {
        names = []; // no command ever ran here
      }
      await Promise.all(names.map((name) => this.settle(join(this.dir, name))));
    })().finally(() => {
      this.sweeping = undefined;
      this.swept();
    });
    return this.sweeping;
  }

  /**
   * One record: its command stopped when a dead runner left it running, then removed. One that
   * cannot be read or looked into is removed all the same: it never holds its run for good.
   */
  private async settle(file: string): Promise<void> {
    let deliveryId: string | undefined;
    try {
      const record = JSON.parse(readFileSync(file, 'utf8')) as CommandRecord;
      deliveryId = record.deliveryId;
      if (!(await this.stopIfLeft(record))) {
        this.spared.set(deliveryId, record.runner);
        return;
      }
    } catch (error) {
      this.log.warn('a running command record could not be looked into: removed', failureFields(error));
    }
    this.remove(file, deliveryId);
  }

  /** Stops the recorded command when a dead runner left it running; false when its runner lives. */
  private async stopIfLeft(record: CommandRecord): Promise<boolean> {
    const { deliveryId, automation, name, command } = record;
    // A restart of the computer ended it and its runner: their numbers may be others' by now. A
    // record without a boot (an earlier version's on a Mac) cannot tell: its numbers are checked.
    if (record.boot !== undefined && record.boot !== bootId()) return true;
    // Its runner lives (this process, or another on the same data folder): the command is its own.
    if (isSame(record.runner)) return false;
    const fields = { automation, deliveryId, pid: command.pid };
    if (command.start === undefined) {
      this.log.warn(
        `${name} may still be running from before Seller Tray stopped (process ${command.pid}); Seller Tray cannot tell it from another program here, so it was left running: end it if it is`,
        fields,
      );
    } else if (stillOurs(command)) {
      await stopGroup(command);
      const note = `${name} was still running from before Seller Tray stopped; it was stopped and runs again.`;
      this.notes.set(deliveryId, note);
      this.log.info(note, fields);
    }
    // Ended, or its pid now another program's: left alone.
    return true;
  }

  /**
   * Whether the records can be believed: not in a folder another user owns (paths.ts), who could
   * plant one naming any process group to have it stopped, nor through a link to another folder,
   * whose files a sweep would remove. Such a folder is told once and never read; the runs it would
   * hold are not held (their commands are not recorded there either).
   */
  private trusted(): boolean {
    let untrusted = linkIn(this.dir);
    try {
      if (!untrusted) ownFolder(this.dir);
    } catch (error) {
      if (!(error instanceof FolderOfAnotherUserError)) return true; // absent or unreadable: nothing read
      untrusted = error;
    }
    if (!untrusted) return true;
    if (!this.untrustedTold) this.log.warn(untrusted.message);
    this.untrustedTold = true;
    return false;
  }

  private remove(file: string, deliveryId: string | undefined): void {
    try {
      rmSync(file, { force: true });
    } catch (error) {
      // Kept: the run is not held for it again (a record that stays must not hold it for good).
      if (deliveryId) this.spared.set(deliveryId, 'kept');
      this.log.warn('a running command record could not be removed', failureFields(error));
    }
  }

  private file(deliveryId: string): string {
    return join(this.dir, `${encodeURIComponent(deliveryId)}.json`);
  }
}
