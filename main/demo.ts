// Demo mode: the built-in simulated marketplace, so a newcomer without credentials sees Seller
// Tray work within a minute. Its marketplace is kept in the user data directory between runs, and
// a new purchase arrives now and then. It is served as the spec has it (simulator/marketplace-server.ts):
// no fault injection, quirks or admin endpoints, so the app ships none of them and no other local
// program or web page can add purchases to it.
import { join } from 'node:path';
import { DEFAULT_CLIENT, type Marketplace, serveMarketplace } from '../simulator/marketplace-server';
import type { DemoMarketplace } from './core/service';

/** Often enough to see a notification soon after starting the demo. */
const PURCHASE_EVERY_MS = 45_000;

export function builtInDemo(dataRoot: string): DemoMarketplace & { stop(): Promise<void> } {
  let running: Promise<Marketplace> | undefined;
  let timer: NodeJS.Timeout | undefined;
  return {
    async start() {
      running ??= serveMarketplace({ port: 0, dataFile: join(dataRoot, 'demo-marketplace.json') }).then(
        (marketplace) => {
          timer = setInterval(() => marketplace.addPurchase({}), PURCHASE_EVERY_MS);
          timer.unref();
          return marketplace;
        },
      );
      const marketplace = await running;
      return {
        baseUrl: marketplace.url,
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
