// What runs killed at random instants (kill -9) announced between them: each expected order, and
// none twice but where a kill explains it.
import { expect } from 'vitest';

export interface KilledRun {
  /** What the run announced (order ids, or whatever names an announcement), in order. */
  announced: string[];
  killed: boolean;
}

/**
 * Every one of `expected` was announced by one of `runs` (in the order they ran), and a second time
 * only after a run killed once it had announced it (between raising and marking raised): a run that
 * ended by itself never leaves one to repeat.
 */
export function expectAnnouncedOnce(runs: KilledRun[], expected: string[]): void {
  expect(new Set(runs.flatMap((run) => run.announced))).toEqual(new Set(expected));
  const seen = new Map<string, KilledRun>();
  for (const run of runs) {
    for (const announced of run.announced) {
      const first = seen.get(announced);
      if (first) expect(first.killed, `${announced} announced twice`).toBe(true);
      else seen.set(announced, run);
    }
  }
}
