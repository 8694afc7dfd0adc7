// The Seller API simulator: a real HTTP server over the simulated marketplace, with
// fault injection and the loopback-only admin endpoints under /_simulator/.
import { timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ZodError } from 'zod';
import { OPERATIONS, type Operation } from '../main/core/api/routes';
import { FaultInjector, type FaultSettings, FaultSettingsPatch } from './faults';
import {
  badRequest,
  HttpError,
  isLoopback,
  MAX_ADMIN_BODY_BYTES,
  notFound,
  readJsonBody,
  sendError,
  sendJson,
} from './http';
import { readState, StateWriter } from './persistence';
import { type Answer, Quirks } from './quirks';
import { matchOperation, SellerApi } from './seller-api';
import {
  type ClientCredential,
  MarketplaceStore,
  PurchaseError,
  PurchaseRequest,
  type SellerSetup,
} from './store';
import { TokenAuthority } from './tokens';

export const DEFAULT_CLIENT: ClientCredential = { clientId: 'demo-client', clientSecret: 'demo-secret' };
export const DEFAULT_SELLER_ID = 1001;
/** A second seller, so that isolation between sellers can be seen and tested. */
export const OTHER_SELLER: SellerSetup = {
  sellerId: 2002,
  clients: [{ clientId: 'other-client', clientSecret: 'other-secret' }],
  orders: 5,
};

export interface SimulatorOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  seed?: number;
  /** Orders of the first seller. */
  orders?: number;
  client?: ClientCredential;
  /** Replaces the default sellers (the first seller with `client`, and OTHER_SELLER). */
  sellers?: SellerSetup[];
  faults?: Partial<FaultSettings>;
  /** State file: loaded when present, otherwise created; written after every change. */
  dataFile?: string;
  /**
   * When set, the admin endpoints answer only calls with `Authorization: Bearer <adminToken>`:
   * loopback alone lets any local program, and any web page through a no-cors request, add
   * purchases and faults. Without it (tests, `npm run simulator`) loopback callers are enough.
   */
  adminToken?: string;
  clock?: () => number;
}

export interface Simulator {
  readonly url: string;
  readonly store: MarketplaceStore;
  readonly faults: FaultInjector;
  /** Calls answered per operation since start. */
  readonly requestCounts: Readonly<Record<Operation, number>>;
  close(): Promise<void>;
}

const ADMIN_PREFIX = '/_simulator/';

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const clock = options.clock ?? Date.now;
  const seed = options.seed ?? 1;
  const setups = options.sellers ?? [
    {
      sellerId: DEFAULT_SELLER_ID,
      clients: [
        options.client ?? DEFAULT_CLIENT,
        { clientId: 'demo-client-2', clientSecret: 'demo-secret-2' },
      ],
      orders: options.orders ?? 25,
    },
    OTHER_SELLER,
  ];
  const saved = options.dataFile ? await readState(options.dataFile) : undefined;
  let store =
    saved === undefined
      ? MarketplaceStore.generate(seed, setups, clock)
      : restore(saved, options.dataFile, clock);

  const faults = new FaultInjector(options.faults, clock);
  const startFaults = structuredClone(faults.current);
  const tokens = new TokenAuthority(store.signingKey, () => faults.current.tokenTtlSeconds, clock);
  const quirks = new Quirks(() => faults.current.quirks);
  const api = new SellerApi(() => store, tokens, faults, quirks, clock);
  const requestCounts = Object.fromEntries(OPERATIONS.map((op) => [op, 0])) as Record<Operation, number>;
  const writer = options.dataFile
    ? new StateWriter(
        options.dataFile,
        () => store.snapshot(),
        (e) => console.error(`simulator: ${e.message}`),
      )
    : undefined;
  if (writer && saved === undefined) writer.changed();

  async function handleAdmin(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (!isLoopback(req.socket.remoteAddress) || !adminAllowed(req, options.adminToken)) {
      throw notFound(`no operation at ${path}`);
    }
    const route = `${req.method} ${path.slice(ADMIN_PREFIX.length)}`;
    switch (route) {
      case 'POST purchases': {
        const request = PurchaseRequest.safeParse((await readJsonBody(req, MAX_ADMIN_BODY_BYTES)) ?? {});
        if (!request.success) throw badRequest(`purchase: ${request.error.issues[0]?.message ?? 'invalid'}`);
        try {
          const order = store.addPurchase(request.data);
          writer?.changed();
          return sendJson(res, 201, JSON.stringify(order));
        } catch (error) {
          if (error instanceof PurchaseError) throw badRequest(error.message);
          throw error;
        }
      }
      case 'POST reset':
        // The signing key survives a reset, so tokens issued before it stay valid.
        store = MarketplaceStore.generate(seed, setups, clock, store.signingKey);
        faults.update(structuredClone(startFaults));
        writer?.changed();
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

  function state() {
    return { sellers: store.summary(), faults: faults.current, requests: requestCounts };
  }

  async function handleApi(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    search: string,
  ): Promise<void> {
    const { operation, params } = matchOperation(req.method ?? 'GET', path);
    requestCounts[operation] += 1;
    const plan = faults.plan(operation);
    if (plan.delayMs > 0) await sleep(plan.delayMs);
    const fault = plan.fault;
    if (fault?.action === 'drop') return void req.socket.destroy();
    if (fault?.action === 'status') {
      const retryAfter = fault.retryAfterSeconds ?? (fault.status === 429 ? 1 : undefined);
      const headers: Record<string, string> =
        retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) };
      throw fault.status === 429
        ? new HttpError(
            'TooManyRequests',
            'Too many requests',
            'the rate limit is exceeded; retry later',
            headers,
          )
        : fault.status === 503
          ? new HttpError(
              'ServiceUnavailable',
              'Service unavailable',
              'the service is temporarily unavailable',
              headers,
            )
          : new HttpError(
              'InternalServerError',
              'Internal server error',
              'an unexpected error occurred',
              headers,
            );
    }

    const answer = await api.handle({ operation, params, query: new URLSearchParams(search), req });
    if (answer.mutated) writer?.changed();
    if (fault?.action === 'dropAfterHandling') return void req.socket.destroy();
    const written = quirks.answer(operation, answer.status, answer.json);
    if (fault?.action === 'malformed' && written.body !== undefined) {
      written.body = written.body.slice(0, Math.floor(written.body.length / 2));
    }
    send(res, written, echoRequestId(req));
  }

  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    const search = queryAt < 0 ? '' : url.slice(queryAt + 1);
    const work = path.startsWith(ADMIN_PREFIX)
      ? handleAdmin(req, res, path)
      : handleApi(req, res, path, search);
    work.catch((error: unknown) => {
      if (res.headersSent || req.socket.destroyed) return;
      const httpError =
        error instanceof HttpError
          ? error
          : new HttpError(
              'InternalServerError',
              'Internal server error',
              (error as Error).message ?? 'unexpected',
            );
      // A request whose body was not read to the end cannot keep its connection.
      if (httpError.errorCode === 'PayloadTooLarge') res.shouldKeepAlive = false;
      const headers = { ...echoRequestId(req), ...httpError.headers };
      if (path.startsWith(ADMIN_PREFIX)) sendError(res, httpError, headers);
      else send(res, quirks.error(httpError), headers);
    });
  });
  server.keepAliveTimeout = 10_000;
  server.listen(options.port ?? 4010, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;

  return {
    url: `http://${host}:${port}`,
    get store() {
      return store;
    },
    faults,
    requestCounts,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
      await writer?.flush();
    },
  };
}

function restore(saved: unknown, file: string | undefined, clock: () => number): MarketplaceStore {
  try {
    return MarketplaceStore.fromSnapshot(saved, clock);
  } catch (error) {
    const detail =
      error instanceof ZodError ? (error.issues[0]?.path.join('.') ?? '') : (error as Error).message;
    throw new Error(`simulator state ${file} is not a valid state file (at ${detail})`);
  }
}

function send(res: ServerResponse, answer: Answer, headers: Readonly<Record<string, string>>): void {
  if (answer.body === undefined) {
    res.writeHead(answer.status, headers);
    res.end();
    return;
  }
  res.writeHead(answer.status, {
    'Content-Type': answer.contentType,
    'Content-Length': Buffer.byteLength(answer.body),
    ...headers,
  });
  res.end(answer.body);
}

/** A header a no-cors request cannot carry, with the run's token; anything goes without one. */
function adminAllowed(req: IncomingMessage, token: string | undefined): boolean {
  if (token === undefined) return true;
  const presented = Buffer.from(req.headers.authorization ?? '');
  const expected = Buffer.from(`Bearer ${token}`);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

function echoRequestId(req: IncomingMessage): Record<string, string> {
  const id = req.headers['x-request-id'];
  return typeof id === 'string' ? { 'X-Request-ID': id } : {};
}
