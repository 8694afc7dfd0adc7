// Demo mode: the built-in simulated marketplace, so a newcomer without credentials sees Seller
// Tray work within a minute. Its marketplace is kept in the user data directory between runs, and
// a new purchase arrives now and then. It is served as the spec has it (simulator/marketplace-server.ts):
// no fault injection, quirks or admin endpoints, so the app ships none of them and no other local
// program or web page can add purchases to it.
import { join } from 'node:path';
import { DEFAULT_CLIENT, type Marketplace, serveMarketplace } from '../simulator/marketplace-server';
import { StateFileError } from '../simulator/persistence';
import type { DemoMarketplace } from './core/service';
import { asideStamp, keepAside } from './core/store/database';

/** Often enough to see a notification soon after starting the demo. */
const PURCHASE_EVERY_MS = 45_000;

export function builtInDemo(dataRoot: string): DemoMarketplace & { stop(): Promise<void> } {
  let running: Promise<Marketplace> | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** What the start found and has not told yet (told once). */
  let untold: string | undefined;
  return {
    async start() {
      running ??= serveDemo(join(dataRoot, 'demo-marketplace.json')).then(({ marketplace, problem }) => {
        untold = problem;
        timer = setInterval(() => marketplace.addPurchase({}), PURCHASE_EVERY_MS);
        timer.unref();
        return marketplace;
      });
      const marketplace = await running;
      const problem = untold;
      untold = undefined;
      return {
        baseUrl: marketplace.url,
        clientId: DEFAULT_CLIENT.clientId,
        clientSecret: DEFAULT_CLIENT.clientSecret,
        ...(problem ? { problem } : {}),
      };
    },
    async stop() {
      clearInterval(timer);
      await (await running)?.close();
      running = undefined;
    },
  };
}

/**
 * The demo's marketplace as it was left; a new one when its file cannot be used (damaged), that
 * file kept aside as `<file>.damaged-<time>` and said: a damaged file never keeps the app from starting.
 */
async function serveDemo(dataFile: string): Promise<{ marketplace: Marketplace; problem?: string }> {
  try {
    return { marketplace: await serveMarketplace({ port: 0, dataFile }) };
  } catch (error) {
    if (!(error instanceof StateFileError)) throw error;
    const aside = keepAside(dataFile, asideStamp(Date.now()));
    return {
      marketplace: await serveMarketplace({ port: 0, dataFile }),
      problem: `The demo marketplace's file could not be read (${error.reason}); it was kept as ${aside} and a new demo marketplace started, with the demo's first orders again.`,
    };
  }
}
