// Ways a real marketplace may differ from our reading of the spec (issue 11's numbered cases),
// so that the app's tolerance is proven over real HTTP, not only in unit tests. Each quirk is
// something a server could plausibly do where the spec is silent or loose. Turned on with
// `--quirks a,b` or `PATCH /_simulator/faults {"quirks": [...]}`; none are on by default.
import { type Operation, PAGE } from '../main/core/api/routes';
import { AS_SPECIFIED, type Dialect, JSON_TYPE } from './dialect';
import { type Answer, badRequest, type HttpError, notFound } from './http';
import type { Page } from './store';

export const QUIRKS = {
  'loose-values':
    'null for absent fields, numbers as strings, times without offset or as +0200, codes in another case, hasMore as text or left out, dates written as datetimes, currencies in lower case',
  'unreadable-events': 'events whose id starts with 0 carry a status that is a number',
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
  'result-window':
    'the events and orders listings refuse a page whose offset + limit passes the window (faults resultWindow, 10,000 by default) with a 400 in the words of Elasticsearch, naming the window',
  'result-window-unnamed': 'as result-window, but the 400 does not name the window',
  retention:
    'each call of the "new" listing expires the oldest events of the "all" listing (faults retention, 1 by default), shifting every offset',
  'late-inserts':
    'a purchase\'s event lands before the newest events of the "all" listing (faults lateBy places, 2 by default), stamped before them',
  'flipping-order':
    'events come in groups of three with one eventTime (ties), listed in another order at each call of the "all" listing',
  'empty-2xx': 'a listing page with no items is answered without a body, 200 and 204 in turn',
  'offset-past-end':
    'the events and orders listings refuse an offset past their end with 400 "offset is out of range"',
  'endless-more':
    'the listings say there is more on every page, their last one included, and answer empty pages past their end',
} as const;
export type Quirk = keyof typeof QUIRKS;
export const QUIRK_NAMES = Object.keys(QUIRKS) as [Quirk, ...Quirk[]];

const MAX_PAGE = 50;
const GAP_AT = 50;
const GAP = 50;
/** Events of one eventTime, as flipping-order lists them. */
const TIE = 3;

type Json = Record<string, unknown>;

/** The fault settings the quirks read (faults.ts). */
export interface QuirkSettings {
  quirks: readonly Quirk[];
  resultWindow: number;
  retention: number;
}

export class Quirks implements Dialect {
  private posts = 0;
  /** Events the retention quirk has expired (of every seller alike). */
  private expired = 0;
  private listings = 0;
  private emptyAnswers = 0;

  constructor(private readonly settings: () => QuirkSettings) {}

  has(quirk: Quirk): boolean {
    return this.settings().quirks.includes(quirk);
  }

  /** Before a call is handled: refuse it as the quirky server would. */
  refuse(operation: Operation, query: URLSearchParams): void {
    if (operation === 'listNewEvents' && this.has('no-new-listing')) {
      throw notFound('no operation at this path');
    }
    const limit = Number(query.get('limit'));
    if (this.has('max-page-50') && limit > MAX_PAGE) {
      throw badRequest(`query parameter limit must be an integer from 1 to ${MAX_PAGE}, got "${limit}"`);
    }
    const end =
      Number(query.get('offset') ?? PAGE.defaultOffset) + Number(query.get('limit') ?? PAGE.defaultLimit);
    const window = this.settings().resultWindow;
    if ((operation === 'listEvents' || operation === 'listOrders') && end > window) {
      if (this.has('result-window')) {
        throw badRequest(
          `Result window is too large, from + size must be less than or equal to: [${window}] but was [${end}]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.`,
        );
      }
      if (this.has('result-window-unnamed')) throw badRequest('the query cannot be answered');
    }
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
    const from = this.has('ignore-offset') ? 0 : offset;
    const size = this.has('short-pages') ? Math.ceil(limit / 2) : limit;
    const stable = operation === 'listEvents' || operation === 'listOrders';
    let cut: (offset: number, limit: number) => Page<T> = list;
    if (operation === 'listEvents' && this.has('retention')) {
      const expired = this.expired;
      cut = (offset, limit) => list(offset + expired, limit);
    }
    if (operation === 'listEvents' && this.has('flipping-order')) cut = flipped(cut, this.listings++);
    if (stable && this.has('offset-past-end') && from > 0 && cut(from - 1, 1).items.length === 0) {
      throw badRequest('offset is out of range');
    }
    const page = stable && this.has('empty-page') ? withGap(from, size, cut) : cut(from, size);
    return stable && this.has('endless-more') ? { ...page, hasMore: true } : page;
  }

  /** A successful answer as the quirky server writes it. */
  answer(operation: Operation, status: number, json: string): Answer {
    const plain = AS_SPECIFIED.answer(operation, status, json);
    switch (operation) {
      case 'createToken':
        if (!this.has('loose-token')) return plain;
        return { ...plain, status: 200, body: JSON.stringify({ ...JSON.parse(json), tokenType: 'bearer' }) };
      case 'sendEvent': {
        if (!this.has('post-no-body')) return plain;
        const noBody = [200, 202, 204][this.posts++ % 3] ?? 204;
        return { status: noBody, contentType: JSON_TYPE, body: undefined };
      }
      case 'listNewEvents':
      case 'listEvents': {
        const page = JSON.parse(json) as { hasMore: boolean; marketplaceEvents: Json[] };
        if (page.marketplaceEvents.length === 0 && this.has('empty-2xx')) return this.noBody();
        if (
          operation === 'listNewEvents' &&
          page.marketplaceEvents.length === 0 &&
          this.has('new-listing-204')
        ) {
          return { status: 204, contentType: JSON_TYPE, body: undefined };
        }
        page.marketplaceEvents = page.marketplaceEvents.map((event, i) => this.event(event, i));
        return { ...plain, body: JSON.stringify(this.envelope(page, 'text')) };
      }
      case 'listOrders': {
        const page = JSON.parse(json) as { hasMore: boolean; orders: Json[] };
        if (page.orders.length === 0 && this.has('empty-2xx')) return this.noBody();
        page.orders = page.orders.map((order) => this.order(order));
        return { ...plain, body: JSON.stringify(this.envelope(page, 'absent')) };
      }
      case 'getOrder':
        return this.has('loose-values') || this.has('unreadable-orders')
          ? { ...plain, body: JSON.stringify(this.order(JSON.parse(json))) }
          : plain;
      default:
        return plain;
    }
  }

  /** An error as the quirky server writes it: as the spec has it, problem details, or a gateway's page. */
  error(error: HttpError): Answer {
    if (this.has('html-errors')) {
      return {
        status: error.status,
        contentType: 'text/html; charset=utf-8',
        body: `<!DOCTYPE html><html><head><title>${error.status} ${error.description}</title></head><body><h1>${error.description}</h1><p>${error.detailedDescription}</p><hr><address>gateway</address></body></html>`,
      };
    }
    if (this.has('problem-errors')) {
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

  /** A 2xx without a body: 200 with nothing in it, then 204, in turn. */
  private noBody(): Answer {
    return { status: this.emptyAnswers++ % 2 === 0 ? 200 : 204, contentType: JSON_TYPE, body: undefined };
  }

  private envelope<P extends { hasMore: boolean }>(page: P, looseHasMore: 'text' | 'absent'): Json {
    if (!this.has('loose-values')) return page;
    const { hasMore, ...rest } = page;
    return looseHasMore === 'text' ? { ...rest, hasMore: String(hasMore) } : rest;
  }

  private event(event: Json, index: number): Json {
    const out: Json = { ...event };
    if (this.has('unreadable-events') && String(out.eventId).startsWith('0')) out.statusCode = 17;
    if (this.has('loose-values')) {
      out.detailedDescription ??= null;
      out.sellerId = String(out.sellerId);
      out.eventTypeCode = String(out.eventTypeCode).toLowerCase();
      out.statusCode = typeof out.statusCode === 'string' ? out.statusCode.toUpperCase() : out.statusCode;
      for (const field of ['eventTime', 'seenTime']) {
        if (typeof out[field] === 'string') out[field] = looseTime(out[field] as string, index);
      }
    }
    if (this.has('order-link-variants')) linkVariant(out, index);
    if (this.has('unlinked-events') && String(out.eventId).startsWith('1')) return unlinked(out);
    return out;
  }

  private order(order: Json): Json {
    const unreadable = this.has('unreadable-orders') && String(order.orderId).startsWith('0');
    const out = this.has('loose-values') ? this.looseOrder(order) : order;
    return unreadable ? { ...out, documentCurrencyCode: 978 } : out;
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
