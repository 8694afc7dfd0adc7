// The simulated marketplace over real HTTP: the nine Seller API operations on a seeded store, kept
// in a state file when asked. The app's demo (main/demo.ts) serves it as the spec has it; the full
// simulator (server.ts) adds fault injection, quirks and admin endpoints through `Variations`, so
// none of those are imported here and none ship in the app's bundle.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { ZodError } from 'zod';
import { OPERATIONS, type Operation } from '../main/core/api/routes';
import { AS_SPECIFIED, type Dialect } from './dialect';
import { type Answer, HttpError, send, sendError } from './http';
import { readState, StateFileError, StateWriter } from './persistence';
import { matchOperation, SellerApi } from './seller-api';
import {
  type ClientCredential,
  MarketplaceStore,
  type NewEventsMode,
  type PurchaseRequest,
  type SellerSetup,
  SPECIFIED_NEW_EVENTS,
} from './store';
import { TOKEN_TTL_SECONDS, TokenAuthority } from './tokens';

export const DEFAULT_CLIENT: ClientCredential = { clientId: 'demo-client', clientSecret: 'demo-secret' };
export const DEFAULT_SELLER_ID = 1001;
/** A second seller, so that isolation between sellers can be seen and tested. */
export const OTHER_SELLER: SellerSetup = {
  sellerId: 2002,
  clients: [{ clientId: 'other-client', clientSecret: 'other-secret' }],
  orders: 5,
};

export interface MarketplaceOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  seed?: number;
  /** Orders of the first seller. */
  orders?: number;
  client?: ClientCredential;
  /** Replaces the default sellers (the first seller with `client`, and OTHER_SELLER). */
  sellers?: SellerSetup[];
  /** State file: loaded when present, otherwise created; written after every change. */
  dataFile?: string;
  clock?: () => number;
}

/** No answer at all: the connection is closed. */
export const DROP_CONNECTION = 'drop-connection';

/** Serves one API call; `handle` performs it and writes the answer, which the wrapper may replace. */
export type CallWrapper = (
  operation: Operation,
  handle: () => Promise<Answer>,
) => Promise<Answer | typeof DROP_CONNECTION>;

/** Endpoints outside the Seller API, under their own path prefix. */
export interface AdminEndpoints {
  prefix: string;
  handle(req: IncomingMessage, res: ServerResponse, path: string, marketplace: Marketplace): Promise<void>;
}

/** What the full simulator changes in serving; the marketplace as specified has `PLAIN`. */
export interface Variations {
  dialect: Dialect;
  wrapCall: CallWrapper;
  tokenTtlSeconds(): number;
  newEvents(): NewEventsMode;
  admin?: AdminEndpoints;
}

export const PLAIN: Variations = {
  dialect: AS_SPECIFIED,
  wrapCall: (_operation, handle) => handle(),
  tokenTtlSeconds: () => TOKEN_TTL_SECONDS,
  newEvents: () => SPECIFIED_NEW_EVENTS,
};

export interface Marketplace {
  readonly url: string;
  readonly store: MarketplaceStore;
  /** Calls answered per operation since start. */
  readonly requestCounts: Readonly<Record<Operation, number>>;
  /** Calls per client id their credentials name (callerOf), so a test sees whose reached this marketplace. */
  readonly requestsByClient: Readonly<Record<string, number>>;
  /** A new purchase (order, licenses, its "new" purchase event), saved to the state file. */
  /** A purchase; `leakInto` names sellers whose listings show it too (a marketplace's leak). */
  addPurchase(
    request: PurchaseRequest,
    leakInto?: readonly number[],
  ): ReturnType<MarketplaceStore['addPurchase']>;
  /** Back to the seeded marketplace; the signing key survives, so tokens issued before stay valid. */
  reset(): void;
  close(): Promise<void>;
}

export async function serveMarketplace(
  options: MarketplaceOptions = {},
  variations: Variations = PLAIN,
): Promise<Marketplace> {
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

  const { dialect, wrapCall, admin } = variations;
  const tokens = new TokenAuthority(store.signingKey, () => variations.tokenTtlSeconds(), clock);
  const api = new SellerApi(
    () => store,
    tokens,
    () => variations.newEvents(),
    dialect,
    clock,
  );
  const requestCounts = Object.fromEntries(OPERATIONS.map((op) => [op, 0])) as Record<Operation, number>;
  const requestsByClient: Record<string, number> = {};
  const writer = options.dataFile
    ? new StateWriter(
        options.dataFile,
        () => store.snapshot(),
        (e) => console.error(`simulator: ${e.message}`),
      )
    : undefined;
  if (writer && saved === undefined) writer.changed();

  async function handleApi(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    search: string,
  ): Promise<void> {
    const { operation, params } = matchOperation(req.method ?? 'GET', path);
    requestCounts[operation] += 1;
    const caller = callerOf(req.headers.authorization);
    if (caller !== undefined) requestsByClient[caller] = (requestsByClient[caller] ?? 0) + 1;
    const answer = await wrapCall(operation, async () => {
      const done = await api.handle({ operation, params, query: new URLSearchParams(search), req });
      if (done.mutated) writer?.changed();
      return dialect.answer(operation, done.status, done.json);
    });
    if (answer === DROP_CONNECTION) return void req.socket.destroy();
    send(res, answer, echoRequestId(req));
  }

  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    const search = queryAt < 0 ? '' : url.slice(queryAt + 1);
    const forAdmin = admin !== undefined && path.startsWith(admin.prefix);
    const work = forAdmin ? admin.handle(req, res, path, marketplace) : handleApi(req, res, path, search);
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
      if (forAdmin) sendError(res, httpError, headers);
      else send(res, dialect.error(httpError), headers);
    });
  });
  server.keepAliveTimeout = 10_000;
  server.listen(options.port ?? 4010, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;

  const marketplace: Marketplace = {
    url: `http://${host}:${port}`,
    get store() {
      return store;
    },
    requestCounts,
    requestsByClient,
    addPurchase(request, leakInto) {
      const order = store.addPurchase(request, leakInto);
      writer?.changed();
      return order;
    },
    reset() {
      store = MarketplaceStore.generate(seed, setups, clock, store.signingKey);
      writer?.changed();
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
      await writer?.flush();
    },
  };
  return marketplace;
}

function restore(saved: unknown, file: string | undefined, clock: () => number): MarketplaceStore {
  try {
    return MarketplaceStore.fromSnapshot(saved, clock);
  } catch (error) {
    const detail =
      error instanceof ZodError ? (error.issues[0]?.path.join('.') ?? '') : (error as Error).message;
    throw new StateFileError(
      `simulator state ${file} is not a valid state file (at ${detail})`,
      `not a marketplace's state (at ${detail})`,
    );
  }
}

/**
 * The client id credentials name, checked or not: a Basic's user, a bearer token's subject (a token
 * another marketplace signed, or a lapsed one, names its client all the same).
 */
function callerOf(authorization: string | undefined): string | undefined {
  const [scheme, value = ''] = authorization?.trim().split(/\s+/) ?? [];
  if (scheme?.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    return decoded.includes(':') ? decoded.slice(0, decoded.indexOf(':')) : undefined;
  }
  if (scheme?.toLowerCase() !== 'bearer') return undefined;
  try {
    return decodeJwt(value).sub;
  } catch {
    return undefined;
  }
}

function echoRequestId(req: IncomingMessage): Record<string, string> {
  const id = req.headers['x-request-id'];
  return typeof id === 'string' ? { 'X-Request-ID': id } : {};
}
