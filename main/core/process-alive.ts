// Whether a process on this computer still runs: another core on the same data folder (the app
// and `seller-tray watch`), or one that was killed. Signal 0 asks the OS without touching it.
import { execFileSync } from 'node:child_process';
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
 * This boot of the computer (Linux's boot id, macOS's boot session uuid; undefined elsewhere, as
 * on Windows): a pid noted in an earlier boot names no process of ours any more, though a process
 * of this boot may have it. Read once: it does not change while this process lives.
 */
export function bootId(): string | undefined {
  thisBoot ??= { id: bootIdOn(process.platform) };
  return thisBoot.id;
}
let thisBoot: { id: string | undefined } | undefined;

export function bootIdOn(platform: NodeJS.Platform): string | undefined {
  try {
    const id =
      platform === 'darwin'
        ? execFileSync('sysctl', ['-n', 'kern.bootsessionuuid'], { encoding: 'utf8', stdio: 'pipe' })
        : readFileSync('/proc/sys/kernel/random/boot_id', 'utf8');
    return id.trim() || undefined;
  } catch {
    return undefined;
  }
}
