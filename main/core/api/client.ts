// The typed Seller API client: every call of Seller Tray to the marketplace goes through it.
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { decodeJwt } from 'jose';
import type { z } from 'zod';
import { waitLeftMs } from '../../../preload/hold';
import { credentialsIn, failureFields, type Log, silentLog, withoutCredentials } from '../log';
import { AccessTokens, type TokenLifetime } from './access-token';
import { type ApiErrorDetails, httpError, SellerApiError } from './errors';
import {
  type FetchPage,
  listingLength,
  MAX_PAGES,
  type PageOf,
  PaginationError,
  type WalkedPage,
  walkConsuming,
  walkStable,
} from './pagination';
import { deepestAnswering, mayBeWindowRefusal, windowNamedIn } from './result-window';
import {
  DEFAULT_RETRY,
  parseRetryAfter,
  RETRY_AFTER_MAX_SECONDS,
  type RetryPolicy,
  retryDelayMs,
} from './retry';
import {
  type Operation,
  PAGE,
  REQUEST_ID_HEADER,
  type Route,
  type RouteOverrides,
  routePath,
  routes,
  routeTable,
} from './routes';
import {
  checkBaseUrl,
  isTlsFailure,
  OriginError,
  originBound,
  type Transport,
  tlsProtocolFailure,
} from './transport';
import {
  firstIssue,
  type ItemKind,
  itemKey,
  type License,
  type Listed,
  type MarketplaceEvent,
  type NewMarketplaceEvent,
  type Order,
  type PingResponse,
  type PostAnswer,
  parseJson,
  readItems,
} from './wire';

export interface ClientCredentials {
  clientId: string;
  /** Read when a token is needed, so the secret stays in the keychain in between. */
  clientSecret: () => Promise<string>;
}

export interface SellerApiClientOptions {
  baseUrl: string;
  credentials: ClientCredentials;
  transport?: Transport;
  /** Per attempt, from sending the request to the end of the answer's body. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  clock?: () => number;
  /** The wait before a retry; it may end early when `signal` aborts (the call then ends). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Told of every failed attempt (operation, HTTP status, request id, what comes next), so support can trace a call. */
  log?: Log;
  /** The page size walks ask for first (a size learned earlier); `PAGE.maxLimit` by default. */
  pageSize?: number;
  /** Where this deployment's paths and methods differ from the built-in routes. */
  routes?: RouteOverrides;
  /** The most of one answer read; `MAX_ANSWER_BYTES` by default. */
  maxAnswerBytes?: number;
}

export interface PageQuery {
  offset?: number;
  limit?: number;
}

/**
 * A reader's hold on its calls: once `signal` aborts, a call in flight is aborted, none is sent
 * or retried, and the call rejects with the signal's reason. A walk or a search for a listing's
 * end that the reader no longer waits for then ends with it.
 */
export interface Abortable {
  signal?: AbortSignal | undefined;
}

interface CallInput extends Abortable {
  params?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** The caller's id of this logical call; a fresh one by default. */
  requestId?: string;
  /** The most of the answer read, below the client's cap: a look at its start. */
  maxBytes?: number;
}

type ResponseOf<O extends Operation> = z.infer<(typeof routes)[O]['response']>;

type PagedOperation = 'listEvents' | 'listNewEvents' | 'listOrders';
type ListedItem<O extends PagedOperation> = O extends 'listOrders' ? Order : MarketplaceEvent;
type ListingPage<O extends PagedOperation> = PageOf<ListedItem<O>>;

/** Two pages of a listing one after the other, as one. */
function joined<T>(first: PageOf<T>, second: PageOf<T>): PageOf<T> {
  return {
    items: [...first.items, ...second.items],
    unreadable: [...first.unreadable, ...second.unreadable],
    keys: [...first.keys, ...second.keys],
    hasMore: second.hasMore,
  };
}

/** A wait the marketplace asked for (Retry-After), as kept beyond one process: until when, and its answer. */
export interface ServerWait {
  untilMs: number;
  status: number | undefined;
  summary: string;
}

/** The result window each listing was found to have: offset + limit past it is refused. */
export type ResultWindows = Partial<Record<PagedOperation, number>>;

const DEFAULT_TIMEOUT_MS = 15_000;

/**
 * The most of one answer the client reads: 32 MiB, checked as the body streams in. A full page
 * of the spec's items is some hundreds of KiB (an event about 1 KiB, an order a few), so this
 * leaves each of a page's 100 items over 300 KiB; read, it costs the process about 5 times its
 * size in memory (the bytes, the text, the parsed values), far below V8's longest string (512 MiB
 * of UTF-16). Past it an answer is not read: docs/api-client.md, Answers.
 */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** The try a retry waits for: its number, of the most a call makes (RetryPolicy.maxAttempts). */
export interface NextTry {
  attempt: number;
  of: number;
}

/** Told of a failed attempt to be tried again after `delayMs`; `next` when it is one call's retry. */
export type RetryListener = (error: SellerApiError, delayMs: number, next?: NextTry) => void;

export class SellerApiClient {
  readonly baseUrl: string;
  private readonly transport: Transport;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly clock: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly tokens: AccessTokens;
  private readonly routes: Record<Operation, Route>;
  /** The base URL's path, without a final slash: every call's path starts with it. */
  private readonly basePath: string;
  private readonly log: Log;
  #pageSize: number;
  readonly #windows: ResultWindows = {};
  /** How deep each listing answered (offset + limit): a refusal past it may be a window. */
  readonly #answeredTo: ResultWindows = {};
  /** Short pages that said there is more, by where the next page starts: their size. */
  readonly #shortPages = new Map<string, number>();
  /**
   * Places whose item alone was over the answer cap, by listing and place: its key (overCapKey),
   * the keys of the items before and after it as last read (undefined: not known; an `after` of
   * null: the listing ended there).
   */
  readonly #overCap = new Map<
    string,
    { key: string; before: string | undefined; after: string | null | undefined }
  >();
  private readonly maxAnswerBytes: number;
  /** Aborted by `hurry()`: ends the retries' backoff waits under way. */
  #hurried = new AbortController();
  readonly #retryListeners = new Set<RetryListener>();
  /** The retries waiting now; `hurried`: the signal that ends the wait early (none for a Retry-After). */
  readonly #waits = new Set<{
    error: SellerApiError;
    untilMs: number;
    hurried: AbortSignal | undefined;
    next: NextTry | undefined;
  }>();
  /** A digest of the secret the marketplace last refused (the secret itself stays where it is kept). */
  #refusedSecret: string | undefined;
  /** That refusal, given again to a call that would send the same secret (until Check now). */
  #refusal: SellerApiError | undefined;
  /** Until when the marketplace asked that no call come (its latest Retry-After), and that answer. */
  #serverWait: { untilMs: number; error: SellerApiError } | undefined;
  /** The latest end of a wait noted or adopted: one lifted (Check now) or passed is not adopted again. */
  #serverWaitSeenMs = 0;
  /** Check now asked to try anyway: the next wait offered for adoption is taken as lifted too. */
  #lifted = false;

  constructor(private readonly options: SellerApiClientOptions) {
    const base = checkBaseUrl(options.baseUrl);
    if (!base.ok) throw new SellerApiError({ kind: 'config', operation: 'configure' }, base.problem);
    this.baseUrl = base.url;
    this.basePath = new URL(base.url).pathname.replace(/\/$/, '');
    // Credentials go to this origin only: another is refused unsent, and no redirect is followed.
    this.transport = originBound(this.baseUrl, options.transport);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxAnswerBytes = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.clock = options.clock ?? Date.now;
    // An aborted wait ends at once; the call then ends with the signal's reason.
    this.sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }).catch(() => undefined));
    this.random = options.random ?? Math.random;
    this.tokens = new AccessTokens(() => this.createToken(), this.clock);
    this.#pageSize = options.pageSize ?? PAGE.maxLimit;
    this.routes = routeTable(options.routes);
    this.log = options.log ?? silentLog;
  }

  /**
   * The page size walks ask for: `PAGE.maxLimit` until the server shows a smaller maximum, by a
   * 400 that names it or by pages shorter than asked that say there is more.
   */
  get pageSize(): number {
    return this.#pageSize;
  }

  /** Starts from a page size learned before (remembered per account); never grows it. */
  adoptPageSize(size: number): void {
    if (Number.isInteger(size) && size > 0) this.#pageSize = Math.min(this.#pageSize, size);
  }

  /** The windows found (or adopted): each listing is read only within its own. */
  get resultWindows(): Readonly<ResultWindows> {
    return { ...this.#windows };
  }

  /** Starts from windows learned before (remembered per account); a window never grows. */
  adoptResultWindows(windows: ResultWindows): void {
    for (const [operation, size] of Object.entries(windows) as [PagedOperation, number][]) {
      if (Number.isInteger(size) && size > 0) {
        this.#windows[operation] = Math.min(this.#windows[operation] ?? size, size);
      }
    }
  }

  ping(): Promise<PingResponse> {
    return this.call('ping');
  }

  /** Checks that the credentials are accepted; tells which seller they belong to, if the token says. */
  async authenticate(): Promise<{ sellerId: number | null }> {
    const token = await this.tokens.get();
    try {
      const { sellerId } = decodeJwt(token);
      return { sellerId: typeof sellerId === 'number' ? sellerId : null };
    } catch {
      return { sellerId: null };
    }
  }

  listOrders(page: PageQuery = {}, { signal }: Abortable = {}): Promise<PageOf<Order>> {
    return this.listing('listOrders', page, signal);
  }

  getOrder(orderId: string): Promise<Order> {
    return this.call('getOrder', { params: { orderId } });
  }

  listEvents(page: PageQuery = {}, { signal }: Abortable = {}): Promise<PageOf<MarketplaceEvent>> {
    return this.listing('listEvents', page, signal);
  }

  listNewEvents(page: PageQuery = {}, { signal }: Abortable = {}): Promise<PageOf<MarketplaceEvent>> {
    return this.listing('listNewEvents', page, signal);
  }

  /** An order's licenses (or all of them), each read on its own. */
  async listLicenses(orderId?: string): Promise<Listed<License>> {
    return readItems('license', await this.call('listLicenses', { query: { orderId } }));
  }

  getLicense(licenseId: string): Promise<License> {
    return this.call('getLicense', { params: { licenseId } });
  }

  /**
   * Posts a status event. Any 2xx answer means delivered; the stored event, or its id, comes
   * back when the server sends it. An attempt whose answer was lost is not repeated: a server
   * need not deduplicate `requestId` (see status-post.ts, which reads back first).
   */
  sendEvent(event: NewMarketplaceEvent, requestId: string = randomUUID()): Promise<PostAnswer> {
    return this.call('sendEvent', { body: event, requestId });
  }

  /** Every order from `startOffset` on, oldest first, page by page (its pages read ahead included). */
  allOrders(startOffset = 0, abortable: Abortable = {}): AsyncGenerator<WalkedPage<Order>> {
    return this.walk(
      'listOrders',
      'order',
      walkStable,
      (offset) => this.listOrders({ offset: startOffset + offset, limit: this.#pageSize }, abortable),
      (order) => order.issueTime,
    );
  }

  /** Every event of the "all" listing from `startOffset` on, in listing order, page by page. */
  allEvents(startOffset = 0, abortable: Abortable = {}): AsyncGenerator<WalkedPage<MarketplaceEvent>> {
    return this.walk(
      'listEvents',
      'event',
      walkStable,
      (offset) => this.listEvents({ offset: startOffset + offset, limit: this.#pageSize }, abortable),
      eventTie,
    );
  }

  /** Every event of the "new" listing exactly once, whether the server consumes it on read or not. */
  newEvents(abortable: Abortable = {}): AsyncGenerator<WalkedPage<MarketplaceEvent>> {
    return this.walk('listNewEvents', 'event', walkConsuming, (offset) =>
      this.listNewEvents({ offset, limit: this.#pageSize }, abortable),
    );
  }

  /**
   * How many places the orders listing has (see `listingLength`), `atLeast` of them known to
   * hold something: where its newest end is.
   */
  orderPlaces(atLeast = 0, abortable: Abortable = {}): Promise<number> {
    return this.length('listOrders', (offset) => this.listOrders({ offset, limit: 1 }, abortable), atLeast);
  }

  /** How many places the "all" events listing has, as `orderPlaces` for the orders. */
  eventPlaces(atLeast = 0, abortable: Abortable = {}): Promise<number> {
    return this.length('listEvents', (offset) => this.listEvents({ offset, limit: 1 }, abortable), atLeast);
  }

  private async length<T>(
    operation: PagedOperation,
    fetchOne: FetchPage<T>,
    atLeast: number,
  ): Promise<number> {
    try {
      return await listingLength(fetchOne, MAX_PAGES * PAGE.maxLimit, atLeast);
    } catch (error) {
      throw namingListing(operation, error);
    }
  }

  /** A walk of a listing at the current page size; when it gives up, it says which listing. */
  private async *walk<T>(
    operation: PagedOperation,
    kind: ItemKind,
    walker: typeof walkStable,
    fetchPage: FetchPage<T>,
    tieOf?: (item: T) => string | undefined,
  ): AsyncGenerator<WalkedPage<T>> {
    try {
      yield* walker(
        fetchPage,
        (item) => itemKey(kind, item),
        () => this.#pageSize,
        MAX_PAGES,
        tieOf,
      );
    } catch (error) {
      throw namingListing(operation, error);
    }
  }

  /**
   * A page of a listing as asked from outside (`listPage`); each item over the cap in it is
   * remembered with its neighbours as read, the one after it asked when the page ends with it,
   * so that the next walk can tell the place has not moved without asking the item itself.
   */
  private async listing<O extends PagedOperation>(
    operation: O,
    page: PageQuery,
    signal: AbortSignal | undefined,
  ): Promise<ListingPage<O>> {
    const read = await this.listPage(operation, page, signal);
    const offset = page.offset ?? 0;
    for (const [index, key] of read.keys.entries()) {
      const place = offset + index;
      const remembered = this.#overCap.get(`${operation} ${place}`);
      if (remembered === undefined || key !== remembered.key) continue;
      if (index > 0) remembered.before = read.keys[index - 1];
      if (index + 1 < read.keys.length) remembered.after = read.keys[index + 1];
      else if (remembered.after === undefined && readsKeep(operation)) {
        const next = await this.listPage(operation, { offset: place + 1, limit: 1 }, signal, key);
        remembered.after = next.keys[0] ?? null;
      }
    }
    return read;
  }

  /**
   * One page of a listing: the envelope checked, each item read on its own. A 400 that names a
   * smaller maximum page size is learned and the page asked again with it. Within a result window
   * the page is cut at the window; past it the listing reads as ended there (no request).
   */
  private async listPage<O extends PagedOperation>(
    operation: O,
    page: PageQuery,
    signal: AbortSignal | undefined,
    before?: string,
  ): Promise<ListingPage<O>> {
    const offset = page.offset ?? 0;
    const window = this.#windows[operation] ?? Number.POSITIVE_INFINITY;
    if (offset >= window) return { items: [], unreadable: [], keys: [], hasMore: false };
    const asked = page.limit ?? PAGE.defaultLimit;
    const limit = Math.min(asked, window - offset);
    const overCap = this.overCapWithin(operation, offset, limit);
    if (overCap !== undefined) return this.listAround(operation, offset, limit, overCap, signal, before);
    let answer: ResponseOf<PagedOperation>;
    try {
      answer = await this.call(operation, {
        query: { ...page, ...(limit < asked ? { limit } : {}) },
        signal,
      });
    } catch (error) {
      if (error instanceof SellerApiError && error.kind === 'too-large') {
        return this.listHalves(operation, offset, limit, signal, before, error.answerStart);
      }
      // A page size named is learned before a window is looked for: asked for a page of one
      // item, a server refusing the page size would answer, and seem to have a window.
      const allowed = page.limit === undefined ? undefined : maximumNamedIn(error, page.limit);
      if (allowed !== undefined && windowNamedIn(error, offset + limit) === undefined) {
        this.#pageSize = Math.min(this.#pageSize, allowed);
        return this.listPage(operation, { ...page, limit: allowed }, signal, before);
      }
      const learned = await this.learnWindow(operation, offset, limit, error, signal);
      if (learned === undefined) throw error;
      if ('end' in learned) {
        // Read up to the end found; past it there is nothing.
        if (learned.end <= offset) return { items: [], unreadable: [], keys: [], hasMore: false };
        return this.listPage(operation, { ...page, limit: learned.end - offset }, signal, before);
      }
      this.#windows[operation] = learned.window;
      this.log.warn('result window', { operation, window: learned.window });
      return this.listPage(operation, page, signal, before);
    }
    this.#answeredTo[operation] = Math.max(this.#answeredTo[operation] ?? 0, offset + limit);
    // Which key holds the items is the API's shape, not a deployment's path: the built-in table says.
    const itemsKey = routes[operation].pageItems;
    const raw = (answer as Record<typeof itemsKey, unknown[]>)[itemsKey];
    const kind: ItemKind = itemsKey === 'orders' ? 'order' : 'event';
    // A page shorter than asked that says there is more shows the server's own maximum, once the
    // page after it brings items: a listing that says "more" forever ends with a short page too.
    const shortBefore = this.#shortPages.get(`${operation} ${offset}`);
    if (shortBefore !== undefined && raw.length > 0) this.#pageSize = Math.min(this.#pageSize, shortBefore);
    if (answer.hasMore === true && raw.length >= MIN_LEARNED_PAGE_SIZE && raw.length < limit) {
      if (this.#shortPages.size >= MAX_SHORT_PAGES) this.#shortPages.clear();
      this.#shortPages.set(`${operation} ${offset + raw.length}`, raw.length);
    }
    const listed = readItems(kind, raw) as Listed<ListedItem<O>>;
    // Without a hasMore, there is more only when the page came back full.
    return { ...listed, hasMore: answer.hasMore ?? raw.length >= limit };
  }

  /**
   * A page whose answer was over the cap, asked again as two halves, each halved again while it
   * is over, down to the item that is over the cap alone: that one is kept aside (and its place
   * remembered), the others are read. About 2·log2(limit) requests, half of them over the cap.
   * `answerStart`: the start of the page's answer over the cap.
   */
  private async listHalves<O extends PagedOperation>(
    operation: O,
    offset: number,
    limit: number,
    signal: AbortSignal | undefined,
    before: string | undefined,
    answerStart: string | undefined,
  ): Promise<ListingPage<O>> {
    if (limit <= 1) {
      // An answer refused by its Content-Length gave none of its start: a look at it does.
      const key =
        (answerStart ? undefined : await this.startKey(operation, offset, signal)) ??
        overCapKey(operation, offset, answerStart);
      if (this.#overCap.size >= MAX_OVER_CAP_PLACES) this.#overCap.clear();
      this.#overCap.set(`${operation} ${offset}`, { key, before, after: undefined });
      this.log.warn('item over the answer cap', { operation, offset });
      return this.overCapItem(operation, offset, key);
    }
    const half = Math.ceil(limit / 2);
    const first = await this.listPage(operation, { offset, limit: half }, signal, before);
    // A short half (the listing's end, a server's own page size) ends the page: the walk goes on after it.
    if (!first.hasMore || first.keys.length < half) return first;
    const second = await this.listPage(
      operation,
      { offset: offset + half, limit: limit - half },
      signal,
      first.keys.at(-1),
    );
    return joined(first, second);
  }

  /**
   * A page holding a place whose item was over the cap alone: the pages before and after it are
   * asked, and the item is kept aside again without a request when the items on both sides of it
   * are the ones read around it last time (at a page's start, the one after it alone); else the
   * listing moved and the place is asked alone again. A walk that reads it again (the feed's
   * read-back, a retaining "new" listing) so pays for it once. The listing's last item is told by
   * the one before it and by nothing after it (docs/api-client.md, Answers, says what that misses).
   */
  private async listAround<O extends PagedOperation>(
    operation: O,
    offset: number,
    limit: number,
    place: number,
    signal: AbortSignal | undefined,
    before: string | undefined,
  ): Promise<ListingPage<O>> {
    let page: ListingPage<O> = { items: [], unreadable: [], keys: [], hasMore: true };
    if (place > offset) {
      page = await this.listPage(operation, { offset, limit: place - offset }, signal, before);
      if (!page.hasMore || page.keys.length < place - offset) return page;
    }
    const beforePlace = place > offset ? page.keys.at(-1) : before;
    const end = offset + limit;
    // What follows the place; asked past the page (one item) when the place ends it, to check it.
    const readRest = (after: string | undefined) =>
      this.listPage(operation, { offset: place + 1, limit: Math.max(end - place - 1, 1) }, signal, after);
    const known = `${operation} ${place}`;
    const remembered = this.#overCap.get(known);
    let item: ListingPage<O> | undefined;
    let rest: ListingPage<O> | undefined;
    if (
      remembered?.after !== undefined &&
      (beforePlace === undefined || beforePlace === remembered.before) &&
      (place + 1 < end || readsKeep(operation))
    ) {
      rest = await readRest(remembered.key);
      // The listing's last item is told by nothing after it: one removed with exactly one event
      // added in its place looks the same from around it until the listing grows. Asking its start
      // would cost a request a poll (the marketplace builds the whole answer) for that rare case.
      if ((rest.keys[0] ?? null) === remembered.after)
        item = this.overCapItem(operation, place, remembered.key);
    }
    if (item === undefined) {
      this.#overCap.delete(known);
      item = await this.listPage(operation, { offset: place, limit: 1 }, signal, beforePlace);
    }
    page = joined(page, item);
    if (!item.hasMore || item.keys.length === 0 || place + 1 >= end) return page;
    return joined(page, rest ?? (await readRest(item.keys.at(-1))));
  }

  /**
   * The key of the item at `place` when it is over the cap, from the start of its answer (read no
   * further than OVER_CAP_KEPT, one small request); undefined when it is not that large.
   */
  private async startKey(
    operation: PagedOperation,
    place: number,
    signal: AbortSignal | undefined,
  ): Promise<string | undefined> {
    try {
      await this.call(operation, {
        query: { offset: place, limit: 1 },
        signal,
        maxBytes: Math.min(OVER_CAP_KEPT, this.maxAnswerBytes),
      });
      return undefined;
    } catch (error) {
      if (error instanceof SellerApiError && error.kind === 'too-large')
        return overCapKey(operation, place, error.answerStart);
      throw error;
    }
  }

  /** The first place of `[offset, offset + limit)` known to hold an item over the cap. */
  private overCapWithin(operation: PagedOperation, offset: number, limit: number): number | undefined {
    let first: number | undefined;
    for (const known of this.#overCap.keys()) {
      const [listing, at] = known.split(' ');
      const place = Number(at);
      if (listing === operation && place >= offset && place < offset + limit) {
        first = Math.min(first ?? place, place);
      }
    }
    return first;
  }

  /** The item at `place` whose answer alone is over the cap: kept aside, told in words, and the walk goes on past it. */
  private overCapItem<O extends PagedOperation>(operation: O, place: number, key: string): ListingPage<O> {
    return {
      items: [],
      unreadable: [
        {
          kind: routes[operation].pageItems === 'orders' ? 'order' : 'event',
          key,
          fieldPath: '(the whole item)',
          reason: `larger than ${mebibytes(this.maxAnswerBytes)}, more than Seller Tray reads, so it was not read (place ${place} of the listing)`,
          raw: null,
        },
      ],
      keys: [key],
      hasMore: true,
    };
  }

  /**
   * What a listing's refusal reveals: a window smaller than any known, named in its words or the
   * deepest place that still answers a page of one item, when the listing says it goes on past
   * it; or, when it does not, its end (a server that refuses offsets past its end): nothing is
   * remembered then. Undefined when the refusal is neither.
   */
  private async learnWindow(
    operation: PagedOperation,
    offset: number,
    limit: number,
    error: unknown,
    signal: AbortSignal | undefined,
  ): Promise<{ window: number } | { end: number } | undefined> {
    if (offset === 0 || !mayBeWindowRefusal(error)) return undefined;
    const known = this.#windows[operation] ?? Number.POSITIVE_INFINITY;
    const named = windowNamedIn(error, offset + limit);
    if (named !== undefined && named < known) return { window: named };
    const saidMore = new Map<number, boolean>();
    const answers = (end: number) =>
      this.call(operation, { query: { offset: end - 1, limit: 1 }, signal }).then(
        (answer) => {
          const items = (answer as Record<string, unknown>)[routes[operation].pageItems];
          saidMore.set(end, answer.hasMore ?? (Array.isArray(items) && items.length > 0));
          return true;
        },
        (refusal: unknown) => {
          if (mayBeWindowRefusal(refusal)) return false;
          // An item over the answer cap is there: the place answers. Whether the listing goes on
          // past it is unknown, so it is no window to remember (read as an end this time).
          if (refusal instanceof SellerApiError && refusal.kind === 'too-large') {
            saidMore.set(end, false);
            return true;
          }
          throw refusal;
        },
      );
    const found = await deepestAnswering(answers, this.#answeredTo[operation] ?? 0, offset + limit);
    if (found === undefined || found >= known) return undefined;
    if (!saidMore.has(found)) await answers(found);
    return saidMore.get(found) ? { window: found } : { end: found };
  }

  /**
   * Whether the secret read now is another than the one the marketplace last refused (replaced,
   * perhaps by another process; a call since may have used it already). Reads the secret's source
   * only, never the marketplace; one that cannot be read is no change.
   */
  async secretChanged(): Promise<boolean> {
    const secret = await this.options.credentials.clientSecret().catch(() => undefined);
    return secret !== undefined && digest(secret) !== this.#refusedSecret;
  }

  private async createToken(): Promise<string> {
    const { clientId, clientSecret } = this.options.credentials;
    const secret = await clientSecret();
    // The marketplace refused this very secret: asked again, it would refuse it again.
    if (this.#refusal !== undefined && digest(secret) === this.#refusedSecret) throw this.#refusal;
    const basic = Buffer.from(`${clientId}:${secret}`).toString('base64');
    try {
      const answer = await this.call('createToken', { authorization: `Basic ${basic}` });
      return answer.accessToken;
    } catch (error) {
      if (error instanceof SellerApiError && error.credentialsRejected) {
        this.#refusedSecret = digest(secret);
        this.#refusal = error;
      }
      throw error;
    }
  }

  /** One logical call: the same request id on every attempt, retried while that can help. */
  private async call<O extends Operation>(
    operation: O,
    input: CallInput & { authorization?: string } = {},
  ): Promise<ResponseOf<O>> {
    const route = this.routes[operation];
    const requestId = input.requestId ?? randomUUID();
    /** Set once the token was renewed for this call: the age of the one refused, when it was held. */
    let renewed: { refusedAtAge: number | undefined } | undefined;
    for (let attempt = 1; ; attempt++) {
      input.signal?.throwIfAborted();
      await this.serverWaitOver(operation, requestId, input.signal);
      const authorization =
        input.authorization ?? (route.auth === 'bearer' ? `Bearer ${await this.tokens.get()}` : undefined);
      try {
        const answer = (await this.attempt(
          operation,
          route,
          input,
          requestId,
          authorization,
        )) as ResponseOf<O>;
        if (renewed?.refusedAtAge !== undefined) this.tokens.lapsed(renewed.refusedAtAge);
        return answer;
      } catch (error) {
        if (!(error instanceof SellerApiError)) throw error;
        this.noteServerWait(error);
        const next = this.afterFailure(error, route, attempt, renewed !== undefined);
        // The one place failed calls are logged: each attempt, with what happens next. A look at
        // an answer's start (maxBytes) that finds it longer got what it asked, no failure.
        if (input.maxBytes === undefined || error.kind !== 'too-large')
          this.log[next.step === 'give-up' ? 'error' : 'warn']('call failed', {
            ...failureFields(error),
            attempt,
            next: next.step,
            delayMs: next.step === 'retry' ? next.delayMs : undefined,
          });
        if (next.step === 'renew-token') {
          renewed = { refusedAtAge: this.tokens.invalidate((authorization ?? '').slice('Bearer '.length)) };
          attempt -= 1;
          continue;
        }
        if (next.step === 'give-up') throw error;
        // A wait the server asked for (Retry-After) is kept; our own backoff gives way to hurry().
        await this.waitOut(error, next.delayMs, error.retryAfterSeconds === undefined, input.signal, {
          attempt: attempt + 1,
          of: this.retry.maxAttempts,
        });
        // Waited out (a retry waits at least what the server asked): the next attempt may go.
        if (this.#serverWait?.error === error && !input.signal?.aborted) this.#serverWait = undefined;
      }
    }
  }

  /**
   * Waits before a call is tried (again), telling those who listen; `hurriable`: hurry() ends it;
   * `next`: the try that follows, of a call's retries (none for a wait the server asked of every call).
   */
  private async waitOut(
    error: SellerApiError,
    delayMs: number,
    hurriable: boolean,
    signal: AbortSignal | undefined,
    next?: NextTry,
  ): Promise<void> {
    for (const listener of this.#retryListeners) listener(error, delayMs, next);
    const hurried = hurriable ? this.#hurried.signal : undefined;
    const signals = [signal, hurried].filter((s): s is AbortSignal => s !== undefined);
    const wait = { error, untilMs: this.clock() + delayMs, hurried, next };
    this.#waits.add(wait);
    try {
      await this.sleep(delayMs, signals.length > 0 ? AbortSignal.any(signals) : undefined);
    } finally {
      this.#waits.delete(wait);
    }
  }

  /**
   * A Retry-After holds for this client's every call from now, not only the one it answered: an
   * order opened, a mark, its post wait for it as the poller does; only Check now asks anyway, once.
   */
  private noteServerWait(error: SellerApiError): void {
    const untilMs = this.clock() + (error.retryAfterSeconds ?? 0) * 1000;
    // Compared by what is left of each: one kept from before the clock went back counts as over.
    const kept = this.#serverWait;
    if (untilMs - this.clock() > (kept === undefined ? 0 : this.keptWaitLeftMs(kept)))
      this.#serverWait = { untilMs, error };
    this.#serverWaitSeenMs = Math.max(this.serverWaitSeenUntil(), untilMs);
  }

  /** The end of the longest wait this client has seen, while it is still to come by waitLeftMs (else now). */
  private serverWaitSeenUntil(): number {
    return this.waitLeftMs(this.#serverWaitSeenMs) > 0 ? this.#serverWaitSeenMs : this.clock();
  }

  /** The wait the marketplace asked for, still to come, to keep for another process and a restart. */
  get serverWait(): ServerWait | undefined {
    const wait = this.#serverWait;
    if (wait === undefined || this.keptWaitLeftMs(wait) <= 0) return undefined;
    return { untilMs: wait.untilMs, status: wait.error.status, summary: wait.error.summary };
  }

  /**
   * What is left of a wait until `untilMs` that lasts `lastsMs` (preload/hold.ts waitLeftMs). A wait
   * whose length is not known (kept by another process) lasts at most the longest the marketplace may ask.
   */
  private waitLeftMs(untilMs: number, lastsMs = RETRY_AFTER_MAX_SECONDS * 1000): number {
    return waitLeftMs(untilMs, lastsMs, this.clock());
  }

  /** What is left of the marketplace's wait this client keeps, by how long it asked for. */
  private keptWaitLeftMs(wait: { untilMs: number; error: SellerApiError }): number {
    const asked = wait.error.retryAfterSeconds;
    return this.waitLeftMs(wait.untilMs, asked === undefined ? undefined : asked * 1000);
  }

  /** Starts from a wait kept by another process or before a restart, unless this client knew it already. */
  adoptServerWait(wait: ServerWait | undefined): void {
    const lifted = this.#lifted;
    this.#lifted = false;
    if (
      wait === undefined ||
      wait.untilMs <= this.serverWaitSeenUntil() ||
      this.waitLeftMs(wait.untilMs) <= 0
    )
      return;
    this.#serverWaitSeenMs = wait.untilMs;
    if (lifted) return;
    const error = new SellerApiError(
      { kind: 'http', operation: 'adopted', status: wait.status },
      wait.summary,
    );
    this.#serverWait = { untilMs: wait.untilMs, error };
  }

  /**
   * No request leaves before the marketplace said it takes calls again, whoever asks (a poll, a
   * fetch, an order opened, a post, a token), unless the person asked to try now (tryAnyway):
   * a wait a retry would wait out is waited; a longer one ends the call at once with the
   * marketplace's answer and the time still to wait, for its caller's backoff (the poller's next
   * poll comes after it).
   */
  private async serverWaitOver(operation: Operation, requestId: string, signal?: AbortSignal): Promise<void> {
    const asked = this.#serverWait;
    const leftMs = asked === undefined ? 0 : this.keptWaitLeftMs(asked);
    if (asked === undefined || leftMs <= 0) return;
    const { kind, status, errorCode, description, detailedDescription } = asked.error;
    const error = new SellerApiError(
      {
        kind,
        operation,
        requestId,
        status,
        errorCode,
        description,
        detailedDescription,
        retryAfterSeconds: Math.ceil(leftMs / 1000),
      },
      asked.error.summary,
    );
    if (leftMs > this.retry.maxRetryAfterMs) throw error;
    await this.waitOut(error, leftMs, false, signal);
    signal?.throwIfAborted();
    if (this.#serverWait === asked) this.#serverWait = undefined;
  }

  /**
   * Told of each failed attempt to be tried again after `delayMs` (not of a token renewed on the
   * way), those waiting now first: Check now need not wait out the retries. Returns the unsubscribe.
   */
  onRetry(listener: RetryListener): () => void {
    for (const wait of this.#waits) listener(wait.error, Math.max(0, wait.untilMs - this.clock()), wait.next);
    this.#retryListeners.add(listener);
    return () => this.#retryListeners.delete(listener);
  }

  /**
   * The person asked to try now (Check now): the next call goes even though the marketplace asked
   * to wait or refused the secret (once: its answer may say so again). A retry already waiting out
   * a Retry-After still waits it.
   */
  tryAnyway(): void {
    this.#serverWait = undefined;
    this.#lifted = true;
    this.#refusal = undefined;
  }

  /**
   * The refused secret may be sent once more, unchanged (the poller's seldom retry: a client the
   * marketplace enabled again, a gateway that refused it by mistake); a Retry-After still holds.
   */
  retryRefusedSecret(): void {
    this.#refusal = undefined;
  }

  /** The retries waiting out their backoff are tried at once (Check now); a server's Retry-After is still waited. */
  hurry(): void {
    for (const wait of this.#waits) if (wait.hurried === this.#hurried.signal) this.#waits.delete(wait);
    this.#hurried.abort();
    this.#hurried = new AbortController();
  }

  /** What is known of the tokens' lifetime: what they state, and the age at which one was refused. */
  tokenLifetime(): TokenLifetime {
    return this.tokens.lifetime();
  }

  /**
   * What a failed attempt leads to. A refused token (401, or 403 as gateways answer a token they
   * let lapse early) is renewed once and the call repeated; a 403 that persists with the fresh
   * token is a refused permission, told as such. A failure that may pass is tried again, unless
   * the wait is too long or the call may have been carried out already (a post the server may
   * not deduplicate: its caller reads back whether it arrived before sending it again).
   */
  private afterFailure(
    error: SellerApiError,
    route: Route,
    attempt: number,
    tokenRenewed: boolean,
  ): { step: 'renew-token' } | { step: 'retry'; delayMs: number } | { step: 'give-up' } {
    if ((error.status === 401 || error.status === 403) && route.auth === 'bearer' && !tokenRenewed) {
      return { step: 'renew-token' };
    }
    if (!error.transient || attempt >= this.retry.maxAttempts) return { step: 'give-up' };
    if (error.connectionRefused && !this.retry.retryRefused) return { step: 'give-up' };
    if (route.repeatable === false && error.mayHaveBeenCarriedOut) return { step: 'give-up' };
    const delayMs = retryDelayMs(this.retry, attempt, this.random, error.retryAfterSeconds);
    return delayMs > this.retry.maxRetryAfterMs ? { step: 'give-up' } : { step: 'retry', delayMs };
  }

  private async attempt(
    operation: Operation,
    route: Route,
    input: CallInput,
    requestId: string,
    authorization: string | undefined,
  ): Promise<unknown> {
    const url = new URL(this.baseUrl + routePath(route, input.params));
    for (const [name, value] of Object.entries(input.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (operation !== 'ping') headers[REQUEST_ID_HEADER] = requestId;
    if (authorization) headers.Authorization = authorization;
    if (input.body !== undefined) headers['Content-Type'] = 'application/json';
    const at: Pick<ApiErrorDetails, 'operation' | 'requestId'> = { operation, requestId };
    // The settings file's routes are checked when read; this holds for any route or parameter:
    // a dot segment in any spelling the URL parser resolves never leaves the base URL's path.
    if (!url.pathname.startsWith(`${this.basePath}/`)) {
      throw new SellerApiError(
        { ...at, kind: 'config' },
        `the path ${route.path} leads out of the marketplace's base path ${this.basePath || '/'}`,
      );
    }

    let status: number;
    let text: string;
    let over: boolean;
    let retryAfter: string | null;
    const timeout = AbortSignal.timeout(this.timeoutMs);
    try {
      const response = await this.transport(url.href, {
        method: route.method,
        headers,
        body: input.body === undefined ? null : JSON.stringify(input.body),
        signal: input.signal ? AbortSignal.any([timeout, input.signal]) : timeout,
      });
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      // A look reads its start whatever the Content-Length says: the start is what it asks.
      ({ text, over } = await readCapped(
        response,
        input.maxBytes ?? this.maxAnswerBytes,
        input.maxBytes !== undefined,
      ));
      // A server or gateway may quote the request in its error words: never the credentials it carried.
      if (status < 200 || status > 299) text = withoutCredentials(text, credentialsIn(authorization));
    } catch (error) {
      // Abandoned by its caller: not a failure of the marketplace, nothing to retry.
      input.signal?.throwIfAborted();
      throw transportError(at, error, this.timeoutMs);
    }

    const retryAfterSeconds = parseRetryAfter(retryAfter, this.clock());
    if (over && status >= 200 && status <= 299) {
      // Asking again would bring the same answer; a call that must not be carried out twice was.
      if (route.repeatable !== false) {
        throw new SellerApiError(
          { ...at, kind: 'too-large', status, answerStart: text },
          `the answer is larger than ${mebibytes(this.maxAnswerBytes)}, more than Seller Tray reads: it was not read`,
        );
      }
      text = '';
    }
    let json: unknown;
    try {
      json = text === '' ? undefined : parseJson(text);
    } catch (cause) {
      // A cut-off or garbled answer is a transport failure, and the call is repeated; but a
      // call that must not be carried out twice was (it is a 2xx), whatever its body.
      if (status >= 200 && status <= 299 && route.repeatable !== false) {
        throw new SellerApiError({ ...at, kind: 'network', status, cause }, 'the answer is not valid JSON');
      }
    }
    // Any 2xx is success: a server may answer 200 where we expect 201 (a token, a post).
    if (status < 200 || status > 299) throw httpError(at, status, json ?? text, retryAfterSeconds);

    const parsed = route.response.safeParse(json);
    if (!parsed.success) {
      const { fieldPath, reason } = firstIssue(parsed.error, '(the whole answer)');
      throw new SellerApiError(
        { ...at, kind: 'schema', status, fieldPath, cause: parsed.error },
        `unexpected answer at ${fieldPath}: ${reason}`,
      );
    }
    return route.answerWithStatus ? { ...(parsed.data as object), httpStatus: status } : parsed.data;
  }
}

/** Events listed in one place of the order: those of one time (the listing orders by time). */
export const eventTie = (event: MarketplaceEvent): string | undefined => event.eventTime;

/** A listing that could not be read names which one; any other error stays as it is. */
/** A secret's digest, to tell a new one from the one sent: never logged, never stored. */
const digest = (secret: string): string => createHash('sha256').update(secret).digest('base64');

function namingListing(operation: PagedOperation, error: unknown): unknown {
  return error instanceof PaginationError ? new PaginationError(`${operation}: ${error.message}`) : error;
}

/** Pages shorter than this do not teach a page size: a server may just have filtered a few items out. */
const MIN_LEARNED_PAGE_SIZE = 10;
/** Short pages remembered until the page after them is read (a walk reads at most two ahead). */
const MAX_SHORT_PAGES = 16;
/** Places over the answer cap remembered; past it they are forgotten (and found again, at a cost). */
const MAX_OVER_CAP_PLACES = 64;

/**
 * Whether a listing keeps what it answers: the "new" listing may drop what it answered, so
 * nothing is read from it past the page asked (the walk would never be given those items).
 */
const readsKeep = (operation: PagedOperation): boolean => operation !== 'listNewEvents';

/**
 * The key an item over the cap is kept aside under, the same wherever it moves in the listing
 * (older events expire, others are inserted before it) and whichever listing brings it (an event
 * in "new" and "all"; the store keeps events and orders apart), so that it is told once: a digest of its
 * first characters (ITEM_START_DIGESTED), as the start of its answer over the cap gives them; else
 * (no items array in that start) its place, all that is known.
 */
function overCapKey(operation: PagedOperation, place: number, answerStart: string | undefined): string {
  const items = answerStart?.match(new RegExp(`"${routes[operation].pageItems}"\\s*:\\s*\\[\\s*`));
  if (answerStart === undefined || items?.index === undefined) return `${operation} place ${place}`;
  const from = items.index + items[0].length;
  const start = answerStart.slice(from, from + ITEM_START_DIGESTED);
  return `item ${createHash('sha256').update(start).digest('hex').slice(0, 24)}`;
}

/** Whether an item was kept aside for being over the cap, by its key (overCapKey's). */
export const overCapKeyed = (key: string): boolean => /^(?:item [0-9a-f]{24}|list\w+ place \d+)$/.test(key);

/**
 * The characters of an item over the cap that tell it from another: a few KiB, within the start
 * of an answer over the cap (OVER_CAP_KEPT), its id among them where the server writes it near
 * its start (two items alike that far are one key: told as one).
 */
const ITEM_START_DIGESTED = 4096;

/**
 * The maximum page size a 400 names ("limit must be between 1 and 50", "maximum page size is
 * 50"): the largest number in its words below the size asked, when they speak of a limit.
 */
function maximumNamedIn(error: unknown, asked: number): number | undefined {
  if (!(error instanceof SellerApiError) || error.status !== 400) return undefined;
  const words = [error.errorCode, error.description, error.detailedDescription].filter(Boolean).join(' ');
  if (!/limit|page size|maximum|at most/i.test(words)) return undefined;
  const below = (words.match(/\d+/g) ?? []).map(Number).filter((n) => n >= 1 && n < asked);
  return below.length > 0 ? Math.max(...below) : undefined;
}

function transportError(
  at: Pick<ApiErrorDetails, 'operation' | 'requestId'>,
  error: unknown,
  timeoutMs: number,
) {
  // Refused before sending (another origin, a redirect): asking again cannot help.
  if (error instanceof OriginError)
    return new SellerApiError({ ...at, kind: 'config', cause: error }, error.message);
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return new SellerApiError({ ...at, kind: 'timeout', cause: error }, `no answer within ${timeoutMs} ms`);
  }
  // Not a certificate: the address (its scheme or port) or the way to it is wrong, and asking
  // again cannot help.
  const protocol = tlsProtocolFailure(error);
  if (protocol)
    return new SellerApiError(
      { ...at, kind: 'config', cause: error },
      protocol === 'plain'
        ? 'the server did not answer in TLS as asked: the base URL is probably http:// rather than https://, or names another port (or a proxy between answers without TLS)'
        : 'the secure connection failed (a TLS protocol error, ERR_SSL_PROTOCOL_ERROR): the base URL may be http:// rather than https:// or name another port; otherwise a proxy or firewall between, or the server asking for a client certificate, is the cause: your IT team can tell',
    );
  if (isTlsFailure(error)) {
    return new SellerApiError(
      { ...at, kind: 'tls', cause: error },
      `the server's certificate was refused (${rootMessage(error)}${tlsCode(error)})`,
    );
  }
  return new SellerApiError(
    { ...at, kind: 'network', cause: error },
    `the server could not be reached (${rootMessage(error)})`,
  );
}

/** The TLS library's own name for the certificate problem (UNABLE_TO_GET_ISSUER_CERT_LOCALLY…), for support to look up. */
function tlsCode(error: unknown): string {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code && /CERT|SELF_SIGNED|UNABLE_TO|HOSTNAME|ERR_TLS/.test(code)) return `: ${code}`;
  }
  return '';
}

function rootMessage(error: unknown): string {
  let e = error;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

/**
 * An answer's body as text, read no further than `maxBytes`: past them (or declared longer,
 * unless `startAnyway`) the rest is not read and its connection goes (`over`); the text is then
 * what came before, for an error's words or an item's key. Read from the body's stream, so it
 * holds for every transport (net.fetch, undici).
 */
async function readCapped(
  response: Response,
  maxBytes: number,
  startAnyway = false,
): Promise<{ text: string; over: boolean }> {
  const body = response.body;
  if (body === null) return { text: '', over: false };
  if (!startAnyway && declaredOver(response, maxBytes)) {
    await body.cancel().catch(() => {});
    return { text: '', over: true };
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (bytes + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - bytes));
      await reader.cancel().catch(() => {});
      return { text: utf8(chunks, OVER_CAP_KEPT), over: true };
    }
    bytes += value.byteLength;
    chunks.push(value);
  }
  return { text: utf8(chunks), over: false };
}

/** Whether an answer says, before it is read, that it is longer than `maxBytes` (its Content-Length). */
export function declaredOver(response: Response, maxBytes: number): boolean {
  return Number(response.headers.get('content-length')) > maxBytes;
}

/**
 * How much of an answer over the cap is kept (bytes, or characters once decoded): its start, for
 * an error's words (an excerpt of 200 characters) and a listing item's key (overCapKey); a
 * success's body over the cap is not read further.
 */
export const OVER_CAP_KEPT = 64 * 1024;

/** As `Response.text()` decodes, the first `most` bytes: UTF-8, a byte-order mark dropped, bad bytes replaced. */
function utf8(chunks: Uint8Array[], most = Number.POSITIVE_INFINITY): string {
  const length = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  return new TextDecoder().decode(Buffer.concat(chunks, Math.min(length, most)));
}

/** A size as a person reads it: in MiB, or in bytes under one. */
export const mebibytes = (bytes: number): string =>
  bytes < 2 ** 20 ? `${bytes} bytes` : `${Math.round((bytes / 2 ** 20) * 10) / 10} MiB`;
