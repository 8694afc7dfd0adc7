// Whether a process on this computer still runs: another core on the same data folder (the app
// and `seller-tray watch`), or one that was killed. Signal 0 asks the OS without touching it.
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
