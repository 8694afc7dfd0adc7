// The Seller API simulator as tests, benchmarks and `npm run simulator` run it: the marketplace
// server (marketplace-server.ts) with fault injection (faults.ts), quirks (quirks.ts) and the
// loopback-only admin endpoints under /_simulator/.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FaultInjector, type FaultSettings, FaultSettingsPatch, faultyCalls } from './faults';
import { badRequest, isLoopback, MAX_ADMIN_BODY_BYTES, notFound, readJsonBody, sendJson } from './http';
import { type Marketplace, type MarketplaceOptions, serveMarketplace } from './marketplace-server';
import { Quirks } from './quirks';
import { PurchaseError, PurchaseRequest } from './store';

export interface SimulatorOptions extends MarketplaceOptions {
  faults?: Partial<FaultSettings>;
}

export interface Simulator extends Marketplace {
  readonly faults: FaultInjector;
}

export const ADMIN_PREFIX = '/_simulator/';

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const faults = new FaultInjector(options.faults, options.clock);
  const startFaults = structuredClone(faults.current);
  const quirks = new Quirks(
    () => faults.current,
    (sellerId) => marketplace.store.listEvents(sellerId, 0, Number.MAX_SAFE_INTEGER).items,
    options.clock,
  );
  const marketplace: Marketplace = await serveMarketplace(options, {
    dialect: quirks,
    wrapCall: faultyCalls(faults),
    tokenTtlSeconds: () => faults.current.tokenTtlSeconds,
    newEvents: () => faults.current.newEvents,
    admin: {
      prefix: ADMIN_PREFIX,
      handle: (req, res, path, served) => handleAdmin(req, res, path, served, faults, startFaults),
    },
  });
  return Object.assign(marketplace, { faults });
}

/** The admin endpoints (simulator/README.md, "Admin endpoints"): answered to loopback callers only. */
async function handleAdmin(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  marketplace: Marketplace,
  faults: FaultInjector,
  startFaults: FaultSettings,
): Promise<void> {
  if (!isLoopback(req.socket.remoteAddress)) throw notFound(`no operation at ${path}`);
  const state = () => ({
    sellers: marketplace.store.summary(),
    faults: faults.current,
    requests: marketplace.requestCounts,
  });
  const route = `${req.method} ${path.slice(ADMIN_PREFIX.length)}`;
  switch (route) {
    case 'POST purchases': {
      const request = PurchaseRequest.safeParse((await readJsonBody(req, MAX_ADMIN_BODY_BYTES)) ?? {});
      if (!request.success) throw badRequest(`purchase: ${request.error.issues[0]?.message ?? 'invalid'}`);
      try {
        // With foreign-seller-events, another seller's purchase shows in every seller's listings;
        // with late-inserts, a purchase lands before the newest events; with reused-event-ids, its
        // event carries the id of the purchase event before it.
        const leakInto = faults.current.quirks.includes('foreign-seller-events')
          ? marketplace.store.summary().map((seller) => seller.sellerId)
          : [];
        const late = faults.current.quirks.includes('late-inserts') ? { lateBy: faults.current.lateBy } : {};
        const reused = faults.current.quirks.includes('reused-event-ids') ? { reuseEventId: true } : {};
        return sendJson(
          res,
          201,
          JSON.stringify(marketplace.addPurchase({ ...late, ...reused, ...request.data }, leakInto)),
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
