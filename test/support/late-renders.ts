// Opt-in, for finding renderer tests that only pass when React is quick (SELLER_TRAY_LATE_RENDERS_MS=15):
// React's scheduler posts renders and passive effects with setImmediate in Node. Delayed so, each
// comes after testing-library's setTimeout(0) drain, as it may on a loaded CI machine, so a test
// that asserts right after an await what a later render or effect sets fails every run, not once
// in a CI run. First of the setup files: the scheduler keeps the setImmediate it finds when loaded.
import { afterAll } from 'vitest';

const lateMs = Number(process.env.SELLER_TRAY_LATE_RENDERS_MS ?? 0);
if (lateMs > 0 && typeof document !== 'undefined') {
  const pending = new Set<ReturnType<typeof setTimeout>>();
  globalThis.setImmediate = ((callback: (...args: unknown[]) => void, ...args: unknown[]) => {
    const late = setTimeout(() => {
      pending.delete(late);
      callback(...args);
    }, lateMs);
    pending.add(late);
    return late;
  }) as unknown as typeof setImmediate;
  // What is still to come when the file ends would run after its DOM is gone.
  afterAll(() => {
    for (const late of pending) clearTimeout(late);
  });
}
