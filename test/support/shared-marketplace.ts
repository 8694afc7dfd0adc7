// One simulator for a test file, and the laptops its tests open on it: after each test they are
// removed and the marketplace is reset (faults, quirks and purchases), so tests do not meet.
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../simulator/server';
import { type Laptop, removeDataDir } from './core';
import { admin } from './raw-api';

export interface SharedMarketplace {
  /** The simulator, once the file's tests start. */
  readonly sim: Simulator;
  /** Laptops opened by the running test: removed after it. */
  readonly laptops: Laptop[];
}

export function sharedMarketplace(options: SimulatorOptions): SharedMarketplace {
  let sim: Simulator | undefined;
  const laptops: Laptop[] = [];
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, ...options });
  });
  afterEach(async () => {
    for (const laptop of laptops.splice(0)) await removeDataDir(laptop);
    if (sim) await admin(sim.url, 'POST', 'reset');
  });
  afterAll(() => sim?.close());
  return {
    get sim() {
      if (!sim) throw new Error('the simulator starts with the tests');
      return sim;
    },
    laptops,
  };
}
