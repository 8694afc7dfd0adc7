// Files that must survive a crash: written to a temporary file, flushed to disk, then
// renamed over the old one, so a reader finds the old content or the new, never half. A process
// killed mid-write leaves its temporary behind; the folder's owner removes those at its start.
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { uptime } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Log } from './log';
import { isProcessAlive } from './process-alive';

/** Synchronous on purpose: a status the user marked is on disk before anything else runs. */
export function writeFileDurably(file: string, content: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = temporaryOf(file, process.pid);
  const fd = openSync(temporary, 'w', 0o600);
  try {
    try {
      // Every byte: on a disk that fills part way write(2) returns a short count, not an error,
      // which writeSync hands back as it is; writeFileSync writes on until it fails (ENOSPC).
      writeFileSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    rmSync(temporary, { force: true }); // its part would hold what room is left
    throw error;
  }
  renameSync(temporary, file);
  syncDirectory(dirname(file));
}

/** The temporary a process writes `file` through: its pid in the name says whose it is. */
const temporaryOf = (file: string, pid: number): string => `${file}.${pid}.tmp`;
const TEMPORARY = /^(.+)\.(\d+)\.tmp$/;

/**
 * Removes the temporaries in `dir` that writes cut short left (a kill -9, a power cut): those of a
 * process that is gone, or written before this boot of the computer (their pid may be another
 * process's since). A live process's is never touched: it may be writing it. `of` (a file's name)
 * keeps to that file's, in a folder shared with other programs. Called by the folder's owner at its
 * start; what cannot be removed is left for the next. Each removal goes to `log`; the names removed
 * are answered too (a store tells them with its other warnings).
 */
export function removeLeftoverTemporaries(
  dir: string,
  options: { of?: string; log?: Log | undefined } = {},
): string[] {
  const { of, log } = options;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return []; // no folder yet, or not readable: nothing of ours to remove
  }
  // A minute's grace for the clocks' rounding, toward keeping: a live writer's temporary removed
  // fails its write, while one kept from before the boot is only left for the next start.
  const bootedAt = Date.now() - uptime() * 1000 - 60_000;
  return names.filter((name) => {
    const [, written, pid] = TEMPORARY.exec(name) ?? [];
    if (written === undefined || (of !== undefined && written !== basename(of))) return false;
    const file = join(dir, name);
    try {
      if (isProcessAlive(Number(pid)) && statSync(file).mtimeMs > bootedAt) return false;
      rmSync(file, { force: true });
      log?.info('removed a temporary left by a write cut short', { file });
      return true;
    } catch {
      return false;
    }
  });
}

/** A rename is durable only once its directory is flushed (not possible on Windows). */
function syncDirectory(dir: string): void {
  if (process.platform === 'win32') return;
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The file's text, or undefined when there is none. */
export async function readTextIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
