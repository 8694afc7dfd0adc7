// The nine Seller API operations over the store, as design notes §2 fixes them.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type Operation, PAGE, REQUEST_ID_HEADER, type Route, routes } from '../main/core/api/routes';
import { NewMarketplaceEvent, Uuid } from '../main/core/api/wire';
import type { Dialect } from './dialect';
import { badRequest, HttpError, notFound, readJsonBody } from './http';
import type { MarketplaceStore, NewEventsMode } from './store';
import type { TokenAuthority } from './tokens';

export interface ApiCall {
  operation: Operation;
  params: Record<string, string>;
  query: URLSearchParams;
  req: IncomingMessage;
}

export interface ApiAnswer {
  status: number;
  json: string;
  /** The call changed the store (persisted state must be written). */
  mutated: boolean;
}

interface MatchedRoute {
  operation: Operation;
  route: Route;
  pattern: RegExp;
  paramNames: string[];
}

const MATCHERS: MatchedRoute[] = (Object.entries(routes) as [Operation, Route][]).map(
  ([operation, route]) => {
    const paramNames: string[] = [];
    const source = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      paramNames.push(name);
      return '([^/]+)';
    });
    return { operation, route, pattern: new RegExp(`^${source}$`), paramNames };
  },
);

/** The operation a method and path name; 404 or 405 as HTTP has it when there is none. */
export function matchOperation(
  method: string,
  pathname: string,
): { operation: Operation; params: Record<string, string> } {
  const allowed: string[] = [];
  for (const m of MATCHERS) {
    const found = m.pattern.exec(pathname);
    if (!found) continue;
    allowed.push(m.route.method);
    if (m.route.method !== method) continue;
    const params: Record<string, string> = {};
    m.paramNames.forEach((name, i) => {
      params[name] = decodeURIComponent(found[i + 1] ?? '');
    });
    return { operation: m.operation, params };
  }
  if (allowed.length > 0) {
    throw new HttpError(
      'MethodNotAllowed',
      'Method not allowed',
      `${method} is not supported on ${pathname}`,
      { Allow: allowed.join(', ') },
    );
  }
  throw notFound(`no operation at ${pathname}`);
}

const unauthorized = (detail: string, scheme: 'Basic' | 'Bearer'): HttpError =>
  new HttpError('Unauthorized', 'Authentication failed', detail, {
    'WWW-Authenticate': `${scheme} realm="seller-api"`,
  });

/** The largest offset a listing takes: more than any listing holds, and exact as a number. */
const MAX_OFFSET = 999_999_999;

function nonNegativeInt(query: URLSearchParams, name: string, fallback: number, max = MAX_OFFSET): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  const min = name === 'limit' ? 1 : 0;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw badRequest(`query parameter ${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function uuidParam(value: string | null, name: string): string {
  if (value === null || !Uuid.safeParse(value).success)
    throw badRequest(`${name} must be a UUID, got "${value ?? ''}"`);
  return value;
}

const pageJson = (key: string, hasMore: boolean, itemsJson: string[]): string =>
  `{"hasMore":${hasMore},"${key}":[${itemsJson.join(',')}]}`;

export class SellerApi {
  constructor(
    private readonly store: () => MarketplaceStore,
    private readonly tokens: TokenAuthority,
    private readonly newEvents: () => NewEventsMode,
    private readonly dialect: Dialect,
    private readonly clock: () => number,
  ) {}

  /** Authenticates and validates a call, then performs it. */
  async handle(call: ApiCall): Promise<ApiAnswer> {
    const route: Route = routes[call.operation];
    const store = this.store();
    if (route.auth === 'basic') {
      const { clientId, sellerId } = this.basicAuth(call.req);
      requestId(call.req);
      const accessToken = await this.tokens.issue(clientId, sellerId);
      return {
        status: route.success,
        json: JSON.stringify({ accessToken, tokenType: 'Bearer' }),
        mutated: false,
      };
    }
    if (route.auth === 'none') {
      return { status: route.success, json: JSON.stringify(pingBody(this.clock())), mutated: false };
    }

    const { sellerId, token } = await this.bearerAuth(call.req);
    const id = requestId(call.req);
    const { query, params } = call;
    this.dialect.refuse(call.operation, query, token);
    /** The page asked for, cut from `list` as the server's dialect cuts pages. */
    const page = <T>(list: (offset: number, limit: number) => { hasMore: boolean; items: T[] }) =>
      this.dialect.page(
        call.operation,
        nonNegativeInt(query, 'offset', PAGE.defaultOffset),
        nonNegativeInt(query, 'limit', PAGE.defaultLimit, PAGE.maxLimit),
        list,
      );
    const ok = (json: string, mutated = false): ApiAnswer => ({ status: route.success, json, mutated });

    switch (call.operation) {
      case 'listOrders': {
        const { hasMore, items } = page((offset, limit) => store.listOrderJson(sellerId, offset, limit));
        return ok(pageJson('orders', hasMore, items));
      }
      case 'getOrder': {
        const json = store.orderJson(sellerId, uuidParam(params.orderId ?? null, 'orderId'));
        if (json === undefined) throw notFound(`no order ${params.orderId}`);
        return ok(json);
      }
      case 'listLicenses': {
        const orderId = query.has('orderId') ? uuidParam(query.get('orderId'), 'orderId') : undefined;
        return ok(JSON.stringify(store.listLicenses(sellerId, orderId)));
      }
      case 'getLicense': {
        const license = store.license(sellerId, uuidParam(params.licenseId ?? null, 'licenseId'));
        if (license === undefined) throw notFound(`no license ${params.licenseId}`);
        return ok(JSON.stringify(license));
      }
      case 'listEvents': {
        const { hasMore, items } = page((offset, limit) => store.listEvents(sellerId, offset, limit));
        return ok(
          pageJson(
            'marketplaceEvents',
            hasMore,
            items.map((e) => JSON.stringify(e)),
          ),
        );
      }
      case 'listNewEvents': {
        const { hasMore, items } = page((offset, limit) =>
          store.listNewEvents(sellerId, offset, limit, this.newEvents()),
        );
        return ok(
          pageJson(
            'marketplaceEvents',
            hasMore,
            items.map((e) => JSON.stringify(e)),
          ),
          items.length > 0,
        );
      }
      case 'sendEvent': {
        const event = await this.sendEvent(store, sellerId, id, call.req);
        return ok(JSON.stringify(event.event), event.kind === 'created');
      }
    }
    throw new Error(`no handler for ${call.operation}`);
  }

  private async sendEvent(store: MarketplaceStore, sellerId: number, id: string, req: IncomingMessage) {
    const body = NewMarketplaceEvent.safeParse(await readJsonBody(req));
    if (!body.success) {
      const issue = body.error.issues[0];
      const field = issue?.path.length ? issue.path.join('.') : 'body';
      throw badRequest(`field ${field}: ${issue?.message ?? 'invalid'}`);
    }
    // A server that does not deduplicate stores each post as new, whatever its request id.
    const result = store.postEvent(sellerId, this.dialect.deduplicatesPosts() ? id : randomUUID(), body.data);
    if (result.kind === 'conflict') {
      throw new HttpError(
        'Conflict',
        'Request id already used',
        `${REQUEST_ID_HEADER} ${id} was used before with a different body`,
      );
    }
    if (result.kind === 'invalid') throw badRequest(`field ${result.field}: ${result.problem}`);
    // Asked of a post just stored only: the one a lost-posts marketplace loses.
    if (result.kind === 'created' && !this.dialect.keepsPosts())
      store.losePosted(sellerId, result.event.eventId);
    return result;
  }

  private basicAuth(req: IncomingMessage): { clientId: string; sellerId: number } {
    const header = req.headers.authorization;
    if (!header) throw unauthorized('the Authorization header is missing', 'Basic');
    const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header.trim());
    const decoded = match?.[1] ? Buffer.from(match[1], 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    if (colon <= 0) throw unauthorized('the Authorization header is not Basic credentials', 'Basic');
    const clientId = decoded.slice(0, colon);
    const sellerId = this.store().authenticateClient(clientId, decoded.slice(colon + 1));
    if (sellerId === undefined) throw unauthorized('the client id or client secret is wrong', 'Basic');
    return { clientId, sellerId };
  }

  private async bearerAuth(req: IncomingMessage): Promise<{ sellerId: number; token: string }> {
    const header = req.headers.authorization;
    if (!header) throw unauthorized('the Authorization header is missing', 'Bearer');
    const match = /^Bearer (\S+)$/i.exec(header.trim());
    if (!match?.[1]) throw unauthorized('the Authorization header is not a Bearer token', 'Bearer');
    const check = await this.tokens.check(match[1]);
    if (!check.ok) throw unauthorized(check.reason, 'Bearer');
    if (!this.store().hasSeller(check.claims.sellerId))
      throw unauthorized('the token names no known seller', 'Bearer');
    return { sellerId: check.claims.sellerId, token: match[1] };
  }
}

function requestId(req: IncomingMessage): string {
  const value = req.headers['x-request-id'];
  if (value === undefined) throw badRequest(`mandatory header ${REQUEST_ID_HEADER} is missing`);
  if (Array.isArray(value) || !Uuid.safeParse(value).success) {
    throw badRequest(`header ${REQUEST_ID_HEADER} must be one UUID`);
  }
  return value;
}

/** Ping's date has the form YYYY-MM-DD-HH:MM:SS (spec §2.13). */
function pingBody(nowMs: number): Record<string, string> {
  const iso = new Date(nowMs).toISOString();
  return { access: 'public', date: `${iso.slice(0, 10)}-${iso.slice(11, 19)}`, stage: 'prod', version: 'v1' };
}
