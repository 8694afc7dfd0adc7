// The Seller API simulator as tests, benchmarks and `npm run simulator` run it: the marketplace
// server (marketplace-server.ts) with fault injection (faults.ts), quirks (quirks.ts) and the
// loopback-only admin endpoints under /_simulator/.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FaultInjector, type FaultSettings, FaultSettingsPatch, faultyCalls } from './faults';
import { badRequest, isLoopback, MAX_ADMIN_BODY_BYTES, notFound, readJsonBody, sendJson } from './http';
import {
  DROP_CONNECTION,
  type Marketplace,
  type MarketplaceOptions,
  serveMarketplace,
} from './marketplace-server';
import { type Quirk, Quirks } from './quirks';
import { PurchaseError, PurchaseRequest } from './store';

export interface SimulatorOptions extends MarketplaceOptions {
  faults?: Partial<FaultSettings>;
}

export interface Simulator extends Marketplace {
  readonly faults: FaultInjector;
  /** Per quirk, the answers (or stored changes) it altered since start (Quirks.bites). */
  readonly bites: Readonly<Record<Quirk, number>>;
}

export const ADMIN_PREFIX = '/_simulator/';

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const faults = new FaultInjector(options.faults, options.clock);
  const startFaults = structuredClone(faults.current);
  const faulty = faultyCalls(faults);
  const quirks = new Quirks(
    () => faults.current,
    (sellerId) => marketplace.store.listEvents(sellerId, 0, Number.MAX_SAFE_INTEGER).items,
    options.clock,
  );
  const marketplace: Marketplace = await serveMarketplace(options, {
    dialect: quirks,
    wrapCall: async (operation, handle) => {
      const answer = await faulty(operation, handle);
      if (answer !== DROP_CONNECTION) quirks.sent(answer);
      return answer;
    },
    tokenTtlSeconds: () => faults.current.tokenTtlSeconds,
    newEvents: () => faults.current.newEvents,
    admin: {
      prefix: ADMIN_PREFIX,
      handle: (req, res, path, served) => handleAdmin(req, res, path, served, faults, quirks, startFaults),
    },
  });
  return Object.assign(marketplace, { faults, bites: quirks.bites });
}

/** The admin endpoints (simulator/README.md, "Admin endpoints"): answered to loopback callers only. */
async function handleAdmin(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  marketplace: Marketplace,
  faults: FaultInjector,
  quirks: Quirks,
  startFaults: FaultSettings,
): Promise<void> {
  if (!isLoopback(req.socket.remoteAddress)) throw notFound(`no operation at ${path}`);
  const state = () => ({
    sellers: marketplace.store.summary(),
    faults: faults.current,
    requests: marketplace.requestCounts,
    bites: quirks.bites,
  });
  const route = `${req.method} ${path.slice(ADMIN_PREFIX.length)}`;
  switch (route) {
    case 'POST purchases': {
      const request = PurchaseRequest.safeParse((await readJsonBody(req, MAX_ADMIN_BODY_BYTES)) ?? {});
      if (!request.success) throw badRequest(`purchase: ${request.error.issues[0]?.message ?? 'invalid'}`);
      try {
        const { store } = marketplace;
        const sellerIds = store.sellerIds();
        const { leakInto, ...filing } = quirks.filing(request.data.sellerId ?? sellerIds[0] ?? 0, sellerIds);
        return sendJson(
          res,
          201,
          JSON.stringify(marketplace.addPurchase({ ...filing, ...request.data }, leakInto)),
        );
      } catch (error) {
        if (error instanceof PurchaseError) throw badRequest(error.message);
        throw error;
      }
    }
    case 'POST reset':
      marketplace.reset();
      faults.update(structuredClone(startFaults));
      return sendJson(res, 200, JSON.stringify(state()));
    case 'GET state':
      return sendJson(res, 200, JSON.stringify(state()));
    case 'GET faults':
      return sendJson(res, 200, JSON.stringify(faults.current));
    case 'PATCH faults': {
      const patch = FaultSettingsPatch.safeParse((await readJsonBody(req)) ?? {});
      if (!patch.success) {
        const issue = patch.error.issues[0];
        throw badRequest(`faults.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
      }
      faults.update(patch.data);
      return sendJson(res, 200, JSON.stringify(faults.current));
    }
  }
  throw notFound(`no admin operation ${route}`);
}
