// Whether a process on this computer still runs: another core on the same data folder (the app
// and `seller-tray watch`), or one that was killed. Signal 0 asks the OS without touching it.
import { readFileSync } from 'node:fs';

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * This boot of the computer (Linux; undefined elsewhere): a pid noted in an earlier boot names no
 * process of ours any more, though a process of this boot may have it.
 */
export function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined;
  }
}
