// Files that must survive a crash: written to a temporary file, flushed to disk, then
// renamed over the old one, so a reader finds the old content or the new, never half.
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Synchronous on purpose: a status the user marked is on disk before anything else runs. */
export function writeFileDurably(file: string, content: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
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
