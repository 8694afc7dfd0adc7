// Ways a real marketplace may differ from our reading of the spec (issue 11's numbered cases),
// so that the app's tolerance is proven over real HTTP, not only in unit tests. Each quirk is
// something a server could plausibly do where the spec is silent or loose. Turned on with
// `--quirks a,b` or `PATCH /_simulator/faults {"quirks": [...]}`; none are on by default.
import { randomUUID } from 'node:crypto';
import { type Operation, PAGE } from '../main/core/api/routes';
import { formatEventTime, parseEventMicros } from './data';
import { AS_SPECIFIED, type Dialect, JSON_TYPE } from './dialect';
import { type Answer, badRequest, HttpError, notFound } from './http';
import type { Page } from './store';

export const QUIRKS = {
  'loose-values':
    'null for absent fields, numbers as strings, times without offset or as +0200, codes in another case, hasMore as text or left out, dates written as datetimes, currencies in lower case',
  'unreadable-events': 'events whose id starts with 0 carry a status that is a number',
  'no-event-ids': 'events whose id starts with 0 come without an eventId (the spec does not require one)',
  'unreadable-orders': 'orders whose id starts with 0 carry a currency that is a number',
  'unlinked-events': 'events whose id starts with 1 name no order',
  'loose-token': 'the token is answered 200 with tokenType "bearer"',
  'no-new-listing': 'the "new" listing answers 404',
  'new-listing-204': 'the "new" listing answers 204 with no body when it has nothing',
  'max-page-50': 'a limit above 50 is refused with 400 naming the maximum',
  'short-pages': 'pages hold at most half the items asked for, and say there is more',
  'empty-page':
    'the stable listings have 50 places after the 50th that hold nothing (an empty page that says there is more)',
  'order-link-variants': 'events name their order as OrderId, orderID or a top-level orderId',
  'post-no-body': 'status posts are answered 200, 202 or 204 without a body',
  'problem-errors': 'errors are answered as application/problem+json',
  'html-errors': 'errors are answered as an HTML gateway page',
  'ignore-offset': 'listings ignore the offset',
  // Issue 20: an order's truth whatever the clocks, ids and numbers do.
  'clock-skew': 'purchases are stamped by a clock an hour ahead of the one that stamps status posts',
  'server-clocks':
    'status posts are stamped by the server that handles their status: the one for In progress runs three hours ahead of the others (its answers and every listing show it so)',
  'in-place-updates':
    "a status post rewrites its order's purchase event under the purchase's eventId (status, words, time) and answers with it; the listing holds one event per order, where it last changed",
  'id-case': 'order ids come in upper case: in orders, licenses and every other event',
  'per-order-event-ids':
    'event ids are numbered within their order, as JSON numbers: its purchase 1, each status after it 2, 3 … (so every order has an event 1)',
  'big-numbers':
    'sellerId and lineId are integers beyond 2^53, and amounts have more digits than a double holds, written as JSON numbers',
  'odd-unused-fields':
    'events carry sellerId as an object and seenTime as a number, every third one an eventTime that is no time; orders a note that is an object',
  'long-currency': 'orders are in a currency whose code is not three letters ("USDT")',
  'broken-links':
    'purchase events whose id ends in 1, 5, 9 or d name their order with a NUL after its id, those ending in 3, 7, b or f with a lone surrogate',
  'deep-fields':
    'events and orders whose id starts with 2 carry a field the app does not use, nested 10,000 levels deep',
  // Issue 20: gateways, retries, posts and other sellers.
  'gateway-403':
    'a gateway in front lets tokens lapse 1 s after they are issued (whatever exp says) and answers 403 {"message": …}',
  'gateway-error-shapes':
    'errors are answered in the shapes gateways and frameworks write, in turn: {"message"}, OAuth {"error", "error_description"}, problem+json with invalid-params, ASP.NET validation errors by field',
  'wild-retry-after':
    'Retry-After of 429 and 503 answers is, in turn, 0, negative, huge, a date long past, a date far ahead, or garbage',
  'non-idempotent-posts': 'a status post repeated under its X-Request-ID is stored again, not replayed',
  'partial-post-body': 'status posts are answered 201 with only {"eventId": …}',
  // Issue 26: what a laptop posted and the marketplace never shows.
  'lost-posts':
    'status posts are answered 201 with the event they store, which is then lost: never listed (a repeat under the same X-Request-ID replays it)',
  'foreign-seller-events':
    "another seller's purchases show in every seller's listings (every other one without its sellerId; its order answers 404)",
  // Issue 20: listings that change while they are read.
  'result-window':
    'the events and orders listings refuse a page whose offset + limit passes the window (faults resultWindow, 10,000 by default) with a 400 in the words of Elasticsearch, naming the window',
  'result-window-unnamed': 'as result-window, but the 400 does not name the window',
  retention:
    'each call of the "new" listing expires the oldest events of the "all" listing (faults retention, 1 by default), shifting every offset',
  'late-inserts':
    'a purchase\'s event lands before the newest events of the "all" listing (faults lateBy places, 2 by default), stamped before them',
  'reused-event-ids':
    "a purchase's event carries the id of the seller's purchase event before it (another order's), as a marketplace that reuses ids would",
  'flipping-order':
    'events come in groups of three with one eventTime (ties), listed in another order at each call of the "all" listing',
  'empty-2xx': 'a listing page with no items is answered without a body, 200 and 204 in turn',
  'offset-past-end':
    'the events and orders listings refuse an offset past their end with 400 "offset is out of range"',
  // Issue h4 (session 39): answers too large to read.
  'huge-items':
    "wherever ~huge~ is written (a purchase made with it in its order's note or its buyer's name), it is written as faults hugeBytes of text (1 GiB by default), streamed without a Content-Length",
  'endless-more':
    'the listings say there is more on every page, their last one included, and answer empty pages past their end',
} as const;
export type Quirk = keyof typeof QUIRKS;
export const QUIRK_NAMES = Object.keys(QUIRKS) as [Quirk, ...Quirk[]];

const MAX_PAGE = 50;
/** How far ahead the clock that stamps purchases runs, with 'clock-skew'. */
export const SKEW_MS = 3_600_000;
/** How far ahead the server that stamps In progress posts runs, with 'server-clocks'. */
export const SERVER_AHEAD_MS = 3 * 3_600_000;
/** The quirks that rewrite an order document. */
const ORDER_QUIRKS: readonly Quirk[] = [
  'loose-values',
  'unreadable-orders',
  'id-case',
  'odd-unused-fields',
  'long-currency',
  'deep-fields',
];
/** The currency code of every order, with 'long-currency'. */
export const LONG_CURRENCY = 'USDT';
/** Where 'deep-fields' writes its deep value: no JSON.stringify can write one so deep. */
const DEEP_FIELD = '~deep-field~';
const DEEP_VALUE = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
/** How long the gateway of 'gateway-403' honours a token. */
const GATEWAY_TOKEN_MS = 1000;
/** Tokens the gateway remembers the issue of; older ones are refused as lapsed anyway. */
const GATEWAY_TOKENS_KEPT = 10_000;
/** The Retry-After values of 'wild-retry-after', in turn. */
const WILD_RETRY_AFTER = [
  () => '0',
  () => '-5',
  () => '99999999999',
  () => 'Thu, 01 Jan 1970 00:00:00 GMT',
  () => new Date(Date.now() + 100 * 365 * 86_400_000).toUTCString(),
  () => 'soon',
];

/** A refusal by a gateway in front of the API: its own words in its own shape, whatever the API's dialect. */
class GatewayRefusal extends HttpError {}
const GAP_AT = 50;
const GAP = 50;
/** Events of one eventTime, as flipping-order lists them. */
const TIE = 3;

type Json = Record<string, unknown>;

/** The fields 'big-numbers' writes as numbers too big for a double. */
const BIG_NUMBER_FIELDS = /"(sellerId|lineId|amount)":"?(\d+(?:\.\d+)?)"?/g;

/** A number the simulator writes (1001, 3, 249.9) as 'big-numbers' writes it: its digits after 2^63's first 16. */
export function bigNumber(n: number | string): string {
  return `9223372036854775${n}`;
}

/** The fault settings the quirks read (faults.ts). */
export interface QuirkSettings {
  quirks: readonly Quirk[];
  resultWindow: number;
  retention: number;
  lateBy: number;
  hugeBytes: number;
}

/** How the quirky marketplace files a purchase (store.addPurchase's request fields and leak). */
export interface Filing {
  lateBy?: number;
  reuseEventId?: true;
  leakInto: number[];
}

/** What 'huge-items' writes as `hugeBytes` of text. */
export const HUGE_MARKER = '~huge~';

export class Quirks implements Dialect {
  private posts = 0;
  private errors = 0;
  private retryAfters = 0;
  /** When the gateway of 'gateway-403' saw each token issued. */
  private readonly issued = new Map<string, number>();
  /** Events the retention quirk has expired (of every seller alike). */
  private expired = 0;
  private listings = 0;
  private emptyAnswers = 0;
  /**
   * Per quirk, the answers (or stored changes) it altered: its "bites", counted where it decides
   * to act (an answer's once it is sent), so that a test can tell a quirk that bit from one its
   * run never met.
   */
  readonly bites = Object.fromEntries(QUIRK_NAMES.map((quirk) => [quirk, 0])) as Record<Quirk, number>;
  /** Where acts counts: the bites, or those of the answer being written (answer). */
  private tally: Partial<Record<Quirk, number>> = this.bites;

  /** `history` gives a seller's events in listing order, as the marketplace keeps them. */
  constructor(
    private readonly settings: () => QuirkSettings,
    private readonly history: (sellerId: number) => readonly Json[] = () => [],
    private readonly clock: () => number = Date.now,
  ) {}

  has(quirk: Quirk): boolean {
    return this.settings().quirks.includes(quirk);
  }

  /** Whether `quirk` is on and alters what is at hand (`when`, asked only then), counted as a bite. */
  private acts(quirk: Quirk, when: () => boolean = () => true): boolean {
    if (!this.has(quirk) || !when()) return false;
    this.tally[quirk] = (this.tally[quirk] ?? 0) + 1;
    return true;
  }

  /**
   * A purchase of `sellerId` as the quirky marketplace files it: before the newest events
   * (late-inserts), under the id of the purchase event before it (reused-event-ids), and in the
   * listings of every seller of `sellerIds` too (foreign-seller-events).
   */
  filing(sellerId: number, sellerIds: readonly number[]): Filing {
    if (!sellerIds.includes(sellerId)) return { leakInto: [] }; // refused by the store, saying so
    const history = () => this.history(sellerId);
    const purchased = () => history().some((event) => event.statusCode === 'ProvisioningStarted');
    return {
      ...(this.acts('late-inserts', () => history().length > 0) ? { lateBy: this.settings().lateBy } : {}),
      ...(this.acts('reused-event-ids', purchased) ? { reuseEventId: true } : {}),
      leakInto: this.acts('foreign-seller-events', () => sellerIds.some((id) => id !== sellerId))
        ? [...sellerIds]
        : [],
    };
  }

  /** Before a call is handled: refuse it as the quirky server would. */
  refuse(operation: Operation, query: URLSearchParams, token: string): void {
    if (this.acts('gateway-403', () => this.clock() - (this.issued.get(token) ?? 0) > GATEWAY_TOKEN_MS)) {
      throw new GatewayRefusal('Forbidden', 'User is not authorized to access this resource', '');
    }
    if (this.acts('no-new-listing', () => operation === 'listNewEvents')) {
      throw notFound('no operation at this path');
    }
    const limit = Number(query.get('limit'));
    if (this.acts('max-page-50', () => limit > MAX_PAGE)) {
      throw badRequest(`query parameter limit must be an integer from 1 to ${MAX_PAGE}, got "${limit}"`);
    }
    const end =
      Number(query.get('offset') ?? PAGE.defaultOffset) + Number(query.get('limit') ?? PAGE.defaultLimit);
    const window = this.settings().resultWindow;
    if ((operation === 'listEvents' || operation === 'listOrders') && end > window) {
      if (this.acts('result-window')) {
        throw badRequest(
          `Result window is too large, from + size must be less than or equal to: [${window}] but was [${end}]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.`,
        );
      }
      if (this.acts('result-window-unnamed')) throw badRequest('the query cannot be answered');
    }
  }

  /** A post is stored under no request id of the caller's: a repeat, if any came, would be stored again. */
  deduplicatesPosts(): boolean {
    return !this.acts('non-idempotent-posts');
  }

  keepsPosts(): boolean {
    return !this.acts('lost-posts');
  }

  /** A page of a listing as the quirky server cuts it from `list` (the listing as it is). */
  page<T>(
    operation: Operation,
    offset: number,
    limit: number,
    list: (offset: number, limit: number) => Page<T>,
  ): Page<T> {
    if (!this.has('retention')) this.expired = 0;
    else if (operation === 'listNewEvents') this.expired += this.settings().retention;
    const from = this.acts('ignore-offset', () => offset > 0) ? 0 : offset;
    const half = Math.ceil(limit / 2);
    const size = this.acts('short-pages', () => half < limit && list(from + half, 1).items.length > 0)
      ? half
      : limit;
    if (operation === 'listEvents' && this.has('in-place-updates')) {
      const listed = list(0, Number.MAX_SAFE_INTEGER).items as Json[];
      const all = rewrittenInPlace(listed) as T[];
      this.acts('in-place-updates', () => all.length < listed.length); // a post rewrote its purchase
      return { items: all.slice(from, from + size), hasMore: from + size < all.length };
    }
    const stable = operation === 'listEvents' || operation === 'listOrders';
    let cut: (offset: number, limit: number) => Page<T> = list;
    if (this.acts('retention', () => operation === 'listEvents' && this.expired > 0)) {
      const expired = this.expired;
      cut = (offset, limit) => list(offset + expired, limit);
    }
    // Two events or more are listed as ties, one of them at least with another's time.
    if (
      this.acts(
        'flipping-order',
        () => operation === 'listEvents' && size > 1 && cut(from, 2).items.length > 1,
      )
    )
      cut = flipped(cut, this.listings++);
    if (stable && this.acts('offset-past-end', () => from > 0 && cut(from - 1, 1).items.length === 0)) {
      throw badRequest('offset is out of range');
    }
    const gapped = () => from + size > GAP_AT && cut(GAP_AT, 1).items.length > 0;
    const page = stable && this.acts('empty-page', gapped) ? withGap(from, size, cut) : cut(from, size);
    return stable && this.acts('endless-more', () => !page.hasMore) ? { ...page, hasMore: true } : page;
  }

  /**
   * A successful answer as the quirky server writes it, with the bites it took: they count once it
   * is sent (sent), as an answer a fault drops altered nothing its caller saw.
   */
  answer(operation: Operation, status: number, json: string): Answer {
    const bitten: Partial<Record<Quirk, number>> = {};
    this.tally = bitten;
    try {
      return { ...this.written(operation, status, json), bitten };
    } finally {
      this.tally = this.bites;
    }
  }

  /** An answer on its way to its caller: the bites it took count. */
  sent(answer: Answer): void {
    for (const [quirk, n] of Object.entries(answer.bitten ?? {})) this.bites[quirk as Quirk] += n;
  }

  private written(operation: Operation, status: number, json: string): Answer {
    let answer = this.rewrite(operation, status, json);
    const body = answer.body ?? '';
    if (this.acts('huge-items', () => body.includes(HUGE_MARKER))) {
      answer = { ...answer, expand: { marker: HUGE_MARKER, bytes: this.settings().hugeBytes } };
    }
    // Counted here, where the value is written, not where events and orders get the field.
    if (this.acts('deep-fields', () => body.includes(`"${DEEP_FIELD}"`))) {
      answer = { ...answer, body: body.replaceAll(`"${DEEP_FIELD}"`, DEEP_VALUE) };
    }
    const written = answer.body ?? '';
    return this.acts('big-numbers', () => written.search(BIG_NUMBER_FIELDS) >= 0)
      ? { ...answer, body: written.replace(BIG_NUMBER_FIELDS, (_, f, n) => `"${f}":${bigNumber(n)}`) }
      : answer;
  }

  private rewrite(operation: Operation, status: number, json: string): Answer {
    const plain = AS_SPECIFIED.answer(operation, status, json);
    switch (operation) {
      case 'createToken':
        if (this.has('gateway-403')) this.remember(JSON.parse(json).accessToken);
        if (!this.acts('loose-token')) return plain;
        return { ...plain, status: 200, body: JSON.stringify({ ...JSON.parse(json), tokenType: 'bearer' }) };
      case 'sendEvent': {
        if (this.has('per-order-event-ids')) {
          return { ...plain, body: JSON.stringify(this.numberedInOrder(JSON.parse(json))) };
        }
        if (this.has('server-clocks')) {
          const stored = JSON.parse(json) as Json;
          this.restamp(stored);
          return { ...plain, body: JSON.stringify(stored) };
        }
        if (this.has('in-place-updates')) return { ...plain, body: JSON.stringify(this.rewrittenPost(json)) };
        if (this.acts('partial-post-body')) {
          return { ...plain, status: 201, body: JSON.stringify({ eventId: JSON.parse(json).eventId }) };
        }
        if (!this.acts('post-no-body')) return plain;
        const noBody = [200, 202, 204][this.posts++ % 3] ?? 204;
        return { status: noBody, contentType: JSON_TYPE, body: undefined };
      }
      case 'listNewEvents':
      case 'listEvents': {
        const page = JSON.parse(json) as { hasMore: boolean; marketplaceEvents: Json[] };
        const empty = () => page.marketplaceEvents.length === 0;
        if (this.acts('empty-2xx', empty)) return this.noBody();
        if (this.acts('new-listing-204', () => operation === 'listNewEvents' && empty())) {
          return { status: 204, contentType: JSON_TYPE, body: undefined };
        }
        page.marketplaceEvents = page.marketplaceEvents.map((event, i) => this.event(event, i));
        return { ...plain, body: JSON.stringify(this.envelope(page, 'text')) };
      }
      case 'listOrders': {
        const page = JSON.parse(json) as { hasMore: boolean; orders: Json[] };
        if (this.acts('empty-2xx', () => page.orders.length === 0)) return this.noBody();
        page.orders = page.orders.map((order) => this.order(order));
        return { ...plain, body: JSON.stringify(this.envelope(page, 'absent')) };
      }
      case 'getOrder':
        return ORDER_QUIRKS.some((quirk) => this.has(quirk))
          ? { ...plain, body: JSON.stringify(this.order(JSON.parse(json))) }
          : plain;
      case 'listLicenses': {
        if (!this.acts('id-case', () => json !== '[]')) return plain;
        const licenses = JSON.parse(json) as Json[];
        return { ...plain, body: JSON.stringify(licenses.map((license) => upperCaseLink(license))) };
      }
      default:
        return plain;
    }
  }

  /** An error as the quirky server writes it: as the spec has it, problem details, or a gateway's page. */
  error(error: HttpError): Answer {
    const answer = this.errorBody(error);
    const retryAfter = error.headers['Retry-After'];
    if (retryAfter === undefined || !this.acts('wild-retry-after')) return answer;
    const wild = WILD_RETRY_AFTER[this.retryAfters++ % WILD_RETRY_AFTER.length]?.() ?? retryAfter;
    return { ...answer, headers: { 'Retry-After': wild } };
  }

  private errorBody(error: HttpError): Answer {
    if (error instanceof GatewayRefusal) {
      return {
        status: error.status,
        contentType: JSON_TYPE,
        body: JSON.stringify({ message: error.description }),
      };
    }
    if (this.acts('gateway-error-shapes')) return gatewayShaped(error, this.errors++);
    if (this.acts('html-errors')) {
      return {
        status: error.status,
        contentType: 'text/html; charset=utf-8',
        body: `<!DOCTYPE html><html><head><title>${error.status} ${error.description}</title></head><body><h1>${error.description}</h1><p>${error.detailedDescription}</p><hr><address>gateway</address></body></html>`,
      };
    }
    if (this.acts('problem-errors')) {
      return {
        status: error.status,
        contentType: 'application/problem+json',
        body: JSON.stringify({
          type: 'about:blank',
          title: error.description,
          status: error.status,
          detail: error.detailedDescription,
        }),
      };
    }
    return AS_SPECIFIED.error(error);
  }

  /** A token the gateway honours for a while from now. */
  private remember(token: string): void {
    if (this.issued.size >= GATEWAY_TOKENS_KEPT) this.issued.clear();
    this.issued.set(token, this.clock());
  }

  /** A 2xx without a body: 200 with nothing in it, then 204, in turn. */
  private noBody(): Answer {
    return { status: this.emptyAnswers++ % 2 === 0 ? 200 : 204, contentType: JSON_TYPE, body: undefined };
  }

  private envelope<P extends { hasMore: boolean }>(page: P, looseHasMore: 'text' | 'absent'): Json {
    if (!this.acts('loose-values')) return page;
    const { hasMore, ...rest } = page;
    return looseHasMore === 'text' ? { ...rest, hasMore: String(hasMore) } : rest;
  }

  /** The event's time as the server that stamped it wrote it ('clock-skew', 'server-clocks'). */
  private restamp(out: Json): void {
    if (typeof out.eventTime !== 'string') return;
    const ahead = this.acts('clock-skew', () => out.statusCode === 'ProvisioningStarted')
      ? SKEW_MS
      : this.acts('server-clocks', () => out.statusCode === 'ProvisioningInProgress')
        ? SERVER_AHEAD_MS
        : 0;
    if (ahead > 0) out.eventTime = formatEventTime(parseEventMicros(out.eventTime) + ahead * 1000);
  }

  /** The event with its id as 'per-order-event-ids' numbers it: its place among its order's events. */
  private numberedInOrder(event: Json): Json {
    const orderId = linkOf(event);
    const ofOrder = this.history(Number(event.sellerId)).filter((e) => linkOf(e) === orderId);
    const place = ofOrder.findIndex((e) => e.eventId === event.eventId);
    return this.acts('per-order-event-ids', () => place >= 0) ? { ...event, eventId: place + 1 } : event;
  }

  private event(event: Json, index: number): Json {
    const out: Json = { ...event };
    this.restamp(out);
    if (this.has('per-order-event-ids')) Object.assign(out, this.numberedInOrder(out));
    if (this.acts('id-case', () => parseInt(String(out.eventId).slice(-1), 16) % 2 === 1)) {
      Object.assign(out, upperCaseLink(out));
    }
    if (this.acts('odd-unused-fields')) {
      out.sellerId = { id: out.sellerId };
      out.seenTime = 1_763_632_800;
      if (parseInt(String(out.eventId).slice(-1), 16) % 3 === 0) out.eventTime = 'not recorded';
    }
    if (this.acts('unreadable-events', () => String(out.eventId).startsWith('0'))) out.statusCode = 17;
    if (this.has('deep-fields') && String(out.eventId).startsWith('2')) out.extensions = DEEP_FIELD;
    const last = parseInt(String(out.eventId).slice(-1), 16);
    if (this.acts('broken-links', () => out.statusCode === 'ProvisioningStarted' && last % 2 === 1)) {
      Object.assign(
        out,
        withLink(out, (link) => `${link}${last % 4 === 1 ? '\u0000' : '\ud800'}`),
      );
    }
    if (this.acts('loose-values')) {
      out.detailedDescription ??= null;
      out.sellerId = String(out.sellerId);
      out.eventTypeCode = String(out.eventTypeCode).toLowerCase();
      out.statusCode = typeof out.statusCode === 'string' ? out.statusCode.toUpperCase() : out.statusCode;
      for (const field of ['eventTime', 'seenTime']) {
        if (typeof out[field] === 'string') out[field] = looseTime(out[field] as string, index);
      }
    }
    if (this.acts('order-link-variants', () => linkOf(out) !== undefined)) linkVariant(out, index);
    if (this.acts('unlinked-events', () => String(out.eventId).startsWith('1'))) return unlinked(out);
    if (this.acts('no-event-ids', () => String(out.eventId).startsWith('0'))) delete out.eventId;
    return out;
  }

  private order(order: Json): Json {
    const unreadable = this.acts('unreadable-orders', () => String(order.orderId).startsWith('0'));
    let out = this.acts('loose-values') ? this.looseOrder(order) : order;
    if (this.acts('id-case')) out = { ...out, orderId: String(out.orderId).toUpperCase() };
    if (this.acts('odd-unused-fields')) out = { ...out, note: { text: out.note } };
    if (this.acts('long-currency')) out = inCurrency(out, LONG_CURRENCY);
    if (this.has('deep-fields') && String(out.orderId).startsWith('2'))
      out = { ...out, extensions: DEEP_FIELD };
    return unreadable ? { ...out, documentCurrencyCode: 978 } : out;
  }

  /** What a post answers with 'in-place-updates': its order's purchase event, rewritten by it. */
  private rewrittenPost(json: string): Json {
    const posted = JSON.parse(json) as Json;
    const orderId = linkOf(posted);
    const listing = rewrittenInPlace([...this.history(Number(posted.sellerId))]);
    const rewritten = listing.find((event) => linkOf(event) === orderId);
    this.acts('in-place-updates', () => rewritten !== undefined);
    return rewritten ?? posted;
  }

  private looseOrder(order: Json): Json {
    const out = structuredClone(order);
    if (typeof out.issueTime === 'string') out.issueTime = (out.issueTime as string).replace(/Z$/, '');
    if (typeof out.documentCurrencyCode === 'string') {
      out.documentCurrencyCode = (out.documentCurrencyCode as string).toLowerCase();
    }
    out.note ??= null;
    const total = out.anticipatedMonetaryTotal as Json | undefined;
    if (total && typeof total.amount === 'number') total.amount = String(total.amount);
    const period = out.validityPeriod as Json | undefined;
    for (const field of ['startDate', 'endDate']) {
      if (period && typeof period[field] === 'string') period[field] = `${period[field]}T00:00:00Z`;
    }
    return out;
  }
}

/** The field a simulator error names ("field statusCode: …", "query parameter limit must …"), and why. */
function namedField(detail: string): { field: string; reason: string } | undefined {
  const match = /^(?:field|query parameter|(?:mandatory )?header) ([^\s:]+):? (.+)$/.exec(detail);
  return match?.[1] && match[2] ? { field: match[1], reason: match[2] } : undefined;
}

/** An error in the `n`th of the shapes gateways and web frameworks write (the quirk gateway-error-shapes). */
function gatewayShaped(error: HttpError, n: number): Answer {
  const named = namedField(error.detailedDescription);
  const problem = 'application/problem+json';
  switch (n % 4) {
    case 0:
      return {
        status: error.status,
        contentType: JSON_TYPE,
        body: JSON.stringify({ message: `${error.description}: ${error.detailedDescription}` }),
      };
    case 1:
      return {
        status: error.status,
        contentType: JSON_TYPE,
        body: JSON.stringify({ error: error.errorCode, error_description: error.detailedDescription }),
      };
    case 2:
      return {
        status: error.status,
        contentType: problem,
        body: JSON.stringify({
          type: 'about:blank',
          title: error.description,
          status: error.status,
          ...(named
            ? { 'invalid-params': [{ name: named.field, reason: named.reason }] }
            : { detail: error.detailedDescription }),
        }),
      };
    default:
      return {
        status: error.status,
        contentType: problem,
        body: JSON.stringify({
          type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
          title: 'One or more validation errors occurred.',
          status: error.status,
          errors: { [named?.field ?? '$']: [named?.reason ?? error.detailedDescription] },
          traceId: `00-${randomUUID().replaceAll('-', '')}-01`,
        }),
      };
  }
}

/**
 * A listing with a gap: places GAP_AT to GAP_AT + GAP hold nothing, the items after them sit
 * GAP places later. A page within the gap is empty and says there is more.
 */
function withGap<T>(
  offset: number,
  limit: number,
  list: (offset: number, limit: number) => Page<T>,
): Page<T> {
  const end = offset + limit;
  const before = offset < GAP_AT ? list(offset, Math.min(end, GAP_AT) - offset).items : [];
  const afterFrom = Math.max(offset, GAP_AT + GAP) - GAP;
  const afterTo = end - GAP;
  const after = afterTo > afterFrom ? list(afterFrom, afterTo - afterFrom) : { items: [], hasMore: false };
  const firstBeyond = end <= GAP_AT ? end : Math.max(afterTo, GAP_AT);
  const beyond = list(firstBeyond, 1).items.length > 0;
  return { items: [...before, ...after.items], hasMore: beyond };
}

/**
 * A listing whose purchase events are rewritten in place by the posts that answer them: one event
 * per order, under its purchase's eventId, with the latest post's status, words and time, at the
 * place of that post. Events that name no known purchase stay as they are.
 */
function rewrittenInPlace(events: readonly Json[]): Json[] {
  const latest = new Map<string, Json>();
  for (const event of events) {
    const orderId = linkOf(event);
    const purchase = orderId === undefined ? undefined : latest.get(orderId);
    const key = orderId ?? String(event.eventId);
    if (purchase === undefined || event.statusCode === 'ProvisioningStarted') {
      if (!latest.has(key)) latest.set(key, event);
      continue;
    }
    const { detailedDescription: _, ...kept } = purchase;
    latest.delete(key);
    latest.set(key, {
      ...kept,
      statusCode: event.statusCode,
      description: event.description,
      eventTime: event.eventTime,
      ...(event.detailedDescription === undefined ? {} : { detailedDescription: event.detailedDescription }),
    });
  }
  return [...latest.values()];
}

/** The order an event or license names in its orderId property. */
function linkOf(item: Json): string | undefined {
  const properties = (item.additionalProperties as { name: string; value: unknown }[] | undefined) ?? [];
  const value = properties.find((p) => p.name === 'orderId')?.value;
  return typeof value === 'string' ? value : undefined;
}

/** The item with its order link rewritten by `rewrite`. */
function withLink(item: Json, rewrite: (link: string) => string): Json {
  const properties = (item.additionalProperties as { name: string; value: unknown }[] | undefined) ?? [];
  return {
    ...item,
    additionalProperties: properties.map((p) =>
      p.name === 'orderId' && typeof p.value === 'string' ? { ...p, value: rewrite(p.value) } : p,
    ),
  };
}

/** The item with its order link in upper case. */
const upperCaseLink = (item: Json): Json => withLink(item, (link) => link.toUpperCase());

/** The order with every amount in `currency`. */
function inCurrency(order: Json, currency: string): Json {
  const text = JSON.stringify(order).replace(/"currencyCode":"[^"]*"/g, `"currencyCode":"${currency}"`);
  return { ...(JSON.parse(text) as Json), documentCurrencyCode: currency };
}

/**
 * The listing as flipping-order lists it at its `call`th call: events in groups of `TIE` places
 * share the group's first eventTime (ties), and each group is rotated by the call's number.
 */
function flipped<T>(list: (offset: number, limit: number) => Page<T>, call: number) {
  return (offset: number, limit: number): Page<T> => {
    const first = Math.floor(offset / TIE) * TIE;
    const around = list(first, Math.ceil((offset + limit - first) / TIE) * TIE).items as Json[];
    const ties: Json[] = around.map((_, i) => {
      const group = i - (i % TIE);
      const size = Math.min(TIE, around.length - group);
      const item = around[group + ((i - group + call) % size)] as Json;
      return { ...item, eventTime: around[group]?.eventTime };
    });
    const page = list(offset, limit);
    return {
      hasMore: page.hasMore,
      items: ties.slice(offset - first, offset - first + page.items.length) as T[],
    };
  };
}

/** The same instant, written without an offset and a space (read as UTC), or with +0200. */
function looseTime(iso: string, index: number): string {
  const ms = Date.parse(iso);
  if (index % 2 === 0) return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
  return `${new Date(ms + 2 * 3600_000).toISOString().slice(0, 23)}+0200`;
}

/** The event without its order link, wherever it was. */
function unlinked({ orderId: _, ...event }: Json): Json {
  const properties = (event.additionalProperties as { name: string }[] | undefined) ?? [];
  return { ...event, additionalProperties: properties.filter((p) => p.name.toLowerCase() !== 'orderid') };
}

function linkVariant(event: Json, index: number): void {
  const properties = (event.additionalProperties as { name: string; value: unknown }[] | undefined) ?? [];
  const link = properties.find((p) => p.name === 'orderId');
  if (!link) return;
  const variant = index % 3;
  if (variant === 2) {
    event.additionalProperties = properties.filter((p) => p !== link);
    event.orderId = link.value;
  } else {
    link.name = variant === 0 ? 'OrderId' : 'orderID';
  }
}
