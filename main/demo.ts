// Demo mode: the built-in simulator as the marketplace, so a newcomer without credentials
// sees Seller Tray work within a minute. Its marketplace is kept in the user data
// directory between runs, and a new purchase arrives now and then.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { DEFAULT_CLIENT, type Simulator, startSimulator } from '../simulator/server';
import type { DemoMarketplace } from './core/service';

/** Often enough to see a notification soon after starting the demo. */
const PURCHASE_EVERY_MS = 45_000;

export function builtInDemo(dataRoot: string): DemoMarketplace & { stop(): Promise<void> } {
  let running: Promise<Simulator> | undefined;
  let timer: NodeJS.Timeout | undefined;
  return {
    async start() {
      running ??= startSimulator({
        port: 0,
        dataFile: join(dataRoot, 'demo-marketplace.json'),
        // Purchases come from this process; no other local program or web page may add any
        // (or faults): the admin endpoints want a token of this run that nothing else knows.
        adminToken: randomBytes(32).toString('base64url'),
      }).then((sim) => {
        timer = setInterval(() => sim.store.addPurchase({}), PURCHASE_EVERY_MS);
        timer.unref();
        return sim;
      });
      const sim = await running;
      return {
        baseUrl: sim.url,
        clientId: DEFAULT_CLIENT.clientId,
        clientSecret: DEFAULT_CLIENT.clientSecret,
      };
    },
    async stop() {
      clearInterval(timer);
      await (await running)?.close();
      running = undefined;
    },
  };
}
