// The one route table of the Seller API (design notes §2). Client and simulator both read
// it, so matching a different real deployment means changing this file only.
import type { z } from 'zod';
import {
  EventListEnvelope,
  License,
  LicenseListEnvelope,
  NewMarketplaceEvent,
  Order,
  OrderListEnvelope,
  PingResponse,
  PostAnswer,
  TokenResponse,
} from './wire';

export type Auth = 'none' | 'basic' | 'bearer';

export interface Route {
  readonly method: 'GET' | 'POST';
  /** Path template; `{name}` marks a path parameter. */
  readonly path: string;
  readonly auth: Auth;
  readonly success: number;
  readonly response: z.ZodType;
  readonly body?: z.ZodType;
  /** Present on offset/limit paged lists: the key of the item array in the response. */
  readonly pageItems?: 'marketplaceEvents' | 'orders';
  /** Query parameters other than offset/limit. */
  readonly query?: readonly string[];
  /**
   * False when carrying the call out twice does harm: a server need not deduplicate request ids,
   * so a post whose answer was lost is not repeated blindly (its caller reads back first).
   */
  readonly repeatable?: false;
  /** The answer carries the HTTP status it came with (`httpStatus`): a post's, kept as its proof of delivery. */
  readonly answerWithStatus?: true;
}

export const routes = {
  ping: { method: 'GET', path: '/base/v1/ping', auth: 'none', success: 200, response: PingResponse },
  createToken: {
    method: 'POST',
    path: '/auth/v1/tokens',
    auth: 'basic',
    success: 201,
    response: TokenResponse,
  },
  listNewEvents: {
    method: 'GET',
    path: '/seller/v1/marketplaceEvents/new',
    auth: 'bearer',
    success: 200,
    response: EventListEnvelope,
    pageItems: 'marketplaceEvents',
  },
  sendEvent: {
    method: 'POST',
    path: '/seller/v1/marketplaceEvents',
    auth: 'bearer',
    success: 201,
    // Any 2xx is delivered, whatever its body: the stored event, part of it, or none.
    response: PostAnswer,
    body: NewMarketplaceEvent,
    repeatable: false,
    answerWithStatus: true,
  },
  listEvents: {
    method: 'GET',
    path: '/seller/v1/marketplaceEvents',
    auth: 'bearer',
    success: 200,
    response: EventListEnvelope,
    pageItems: 'marketplaceEvents',
  },
  listLicenses: {
    method: 'GET',
    path: '/seller/v1/licenses',
    auth: 'bearer',
    success: 200,
    response: LicenseListEnvelope,
    query: ['orderId'],
  },
  listOrders: {
    method: 'GET',
    path: '/seller/v1/orders',
    auth: 'bearer',
    success: 200,
    response: OrderListEnvelope,
    pageItems: 'orders',
  },
  getOrder: {
    method: 'GET',
    path: '/seller/v1/orders/{orderId}',
    auth: 'bearer',
    success: 200,
    response: Order,
  },
  getLicense: {
    method: 'GET',
    path: '/seller/v1/licenses/{licenseId}',
    auth: 'bearer',
    success: 200,
    response: License,
  },
} as const satisfies Record<string, Route>;

export type Operation = keyof typeof routes;
export const OPERATIONS = Object.keys(routes) as Operation[];

/** A deployment's own method and path for an operation (the settings file's `api.routes`). */
export interface RouteOverride {
  method?: Route['method'] | undefined;
  path?: string | undefined;
}
export type RouteOverrides = Partial<Record<Operation, RouteOverride>>;

/** The route table with a deployment's overrides applied over the built-in routes. */
export function routeTable(overrides: RouteOverrides = {}): Record<Operation, Route> {
  return Object.fromEntries(
    OPERATIONS.map((operation) => {
      const { method, path } = overrides[operation] ?? {};
      const route: Route = routes[operation];
      return [operation, { ...route, ...(method ? { method } : {}), ...(path ? { path } : {}) }];
    }),
  ) as Record<Operation, Route>;
}

/**
 * Why a path cannot stand for an operation's route, or undefined when it can: it must be an
 * absolute path without query or fragment and name the same `{parameters}` as the built-in one.
 * It stays under the base URL's path: no "." or ".." segment in any spelling a URL parser or a
 * server may decode (`%2e%2e`, `.%2E`, twice-encoded `%252e`, a backslash or `%2f` as a separator).
 */
export function routePathProblem(operation: Operation, path: string): string | undefined {
  if (!/^\/[^\s?#]*$/.test(path))
    return 'must be a path starting with "/", without spaces, query or fragment';
  const decoded = fullyDecoded(path);
  if (decoded === undefined) return 'must not hold percent escapes that cannot be decoded';
  if (decoded.split(/[/\\]/).some((segment) => segment === '..' || segment === '.'))
    return 'must not contain "." or ".." segments, in any encoding';
  const names = (p: string) =>
    [...p.matchAll(/\{(\w+)\}/g)]
      .map((m) => m[1])
      .sort()
      .join(', ');
  const expected = names(routes[operation].path);
  if (names(path) !== expected) {
    return expected === ''
      ? 'must have no {parameter}'
      : `must have the parameter(s) {${expected}} and no others`;
  }
  return undefined;
}

/** The text with percent escapes decoded until none is left; undefined when one cannot be. */
function fullyDecoded(text: string): string | undefined {
  let decoded = text;
  for (let round = 0; /%[0-9a-f]{2}/i.test(decoded); round++) {
    if (round === 4) return undefined;
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      return undefined;
    }
  }
  return decoded;
}

/** Page size defaults and bounds (spec §4 and §8; the maximum is design notes §2). */
export const PAGE = { defaultOffset: 0, defaultLimit: 50, maxLimit: 100 } as const;

/** Header carrying the caller's id of one logical call (spec §4). */
export const REQUEST_ID_HEADER = 'X-Request-ID';

/** Fills a route's path template; parameters are URI-encoded. */
export function routePath(route: Route, params: Readonly<Record<string, string>> = {}): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter ${name} for ${route.path}`);
    return encodeURIComponent(value);
  });
}
