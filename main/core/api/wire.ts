// The Seller API's wire model: one zod schema per resource of the specification
// (main/core/api/seller-api.md §2), the TypeScript types inferred from them.
//
// Reading is tolerant (design notes §2, the tolerant reader): unknown fields pass through
// (loose objects); null counts as absent for optional fields, and so does an optional field that
// cannot be read (the app only shows it, or can do without it); numbers may come as numeric
// strings; ids are text whatever their size (`parseJson` keeps every digit); times in the ISO 8601
// variants servers write; a datetime where a date is expected; codes the spec lists as enums
// matched in any case and kept as they are when unknown, so a new event type or status is shown,
// not crashed on; order ids in one case (`canonicalOrderId`). Writing (what the simulator accepts
// from a seller) is strict. Every leniency lives here, in the one schema module.
import { z } from 'zod';
import {
  EVENT_TYPE_CODES,
  ORDER_ID_PROPERTY,
  ORDER_TYPE_CODES,
  type AdditionalProperty as SharedAdditionalProperty,
  type BuyerCustomerParty as SharedBuyerCustomerParty,
  type Contact as SharedContact,
  type DocumentLine as SharedDocumentLine,
  type License as SharedLicense,
  type LineItem as SharedLineItem,
  type MarketplaceEvent as SharedMarketplaceEvent,
  type MonetaryAmount as SharedMonetaryAmount,
  type Order as SharedOrder,
  type Party as SharedParty,
  type PartyIdentification as SharedPartyIdentification,
  type PostalAddress as SharedPostalAddress,
  type Quantity as SharedQuantity,
  type SellerSupplierParty as SharedSellerSupplierParty,
  type TimePeriod as SharedTimePeriod,
  STATUS_CODES,
} from '../../../preload/marketplace';
import { canonicalOrderId, isOrderId } from '../../../preload/order-link';
import type { Same } from '../same-type';

export type { EventTypeCode, StatusCode } from '../../../preload/marketplace';
export { EVENT_TYPE_CODES, ORDER_ID_PROPERTY, ORDER_TYPE_CODES, STATUS_CODES };

// The resources' types are declared once, for every process, in preload/marketplace.ts.
export type AdditionalProperty = SharedAdditionalProperty;
export type MarketplaceEvent = SharedMarketplaceEvent;
export type MonetaryAmount = SharedMonetaryAmount;
export type Quantity = SharedQuantity;
export type TimePeriod = SharedTimePeriod;
export type PostalAddress = SharedPostalAddress;
export type PartyIdentification = SharedPartyIdentification;
export type Party = SharedParty;
export type Contact = SharedContact;
export type BuyerCustomerParty = SharedBuyerCustomerParty;
export type SellerSupplierParty = SharedSellerSupplierParty;
export type LineItem = SharedLineItem;
export type DocumentLine = SharedDocumentLine;
export type Order = SharedOrder;
export type License = SharedLicense;

/**
 * Null means absent: servers write either for an optional field. So does a value that cannot be
 * read: an optional field is one the app can do without, and one odd field never costs its item.
 */
function optional<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === null ? undefined : value), schema.optional()).catch(undefined);
}

/**
 * A number, or a string that holds one as a decimal ("1234.50", "1.2e3"): not as Number() also
 * reads text ("0x10" is 16, "0b101" 5), which no marketplace means as an amount.
 */
function numeric<T extends z.ZodType>(schema: T) {
  return z.preprocess(
    (value) =>
      typeof value === 'string' && decimalDigits(value) !== undefined && Number.isFinite(Number(value))
        ? Number(value)
        : value,
    schema,
  );
}

/** Text, or a number written where text belongs. */
const Text = z.preprocess((value) => (typeof value === 'number' ? String(value) : value), z.string());

/**
 * A list of entries the app reads one by one (additional properties, party identifications): an
 * entry that cannot be read is left out, and the others count (the order link among them).
 */
function entries<T extends z.ZodType>(schema: T) {
  return z
    .array(z.unknown())
    .transform((items) => items.flatMap((item) => schema.safeParse(item).data ?? []));
}

/** An id the app only compares or shows (sellerId, lineId): text, whatever its size. */
const Id = z.preprocess((value) => (typeof value === 'string' ? value.trim() : value), Text);

/**
 * Whether text can be an id the store keeps: no control character (SQLite reads text back only up
 * to a NUL) and no lone surrogate (stored as U+FFFD), either of which reads back as another id,
 * never found where it was stored: an order announced at every poll.
 */
const isIdText = (text: string): boolean => !/[\p{Cc}\p{Cs}]/u.test(text);
const NOT_ID_TEXT = 'an id holds no control character or lone surrogate';

/** A resource's own id (eventId, orderId, licenseId): text, and a UUID in its one case. */
const ResourceId = Id.pipe(z.string().min(1).refine(isIdText, NOT_ID_TEXT).transform(canonicalOrderId));

/**
 * The significant digits and the exponent of a decimal text ("1234.50" and "1.2345e3" alike give
 * "12345e-1"), or undefined when it is not a decimal.
 */
function decimalDigits(text: string): string | undefined {
  const match = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/.exec(text);
  if (!match || `${match[2]}${match[3] ?? ''}` === '') return undefined;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const digits = `${whole}${fraction}`.replace(/^0+/, '');
  const significant = digits.replace(/0+$/, '');
  if (significant === '') return '0';
  const scale = Number(exponent) - fraction.length + (digits.length - significant.length);
  return `${sign === '-' ? '-' : ''}${significant}e${scale}`;
}

/** Whether a number written as `text` loses digits as a JavaScript number. */
export function losesDigits(text: string): boolean {
  const value = Number(text);
  const digits = decimalDigits(text);
  return digits !== undefined && Number.isFinite(value) && digits !== decimalDigits(String(value));
}

/**
 * An answer's JSON, with every number that would lose digits as a JavaScript number kept as the
 * text the server wrote (a 64-bit id, an amount of twenty digits): the schemas then read ids as
 * that text and amounts with their exact text beside the value. The one place answers are parsed.
 */
export function parseJson(text: string): unknown {
  // A double holds every number of 15 digits or fewer: without a longer run of digits the body
  // is parsed plainly (a reviver costs several times the parse).
  if (!LONG_DIGIT_RUN.test(text)) return withinNesting(JSON.parse(text));
  return withinNesting(
    JSON.parse(text, ((_key: string, value: unknown, context?: { source?: string }) =>
      typeof value === 'number' && context?.source !== undefined && losesDigits(context.source)
        ? context.source
        : value) as (key: string, value: unknown) => unknown),
  );
}

/**
 * How deep an answer's objects and arrays may nest. Nothing of the spec is nested a tenth as
 * deep; JSON.parse reads any depth, but JSON.stringify, structured cloning and printing recurse
 * and overflow the stack at some thousands of levels: in the store, the bridge or the CLI.
 */
export const MAX_NESTING = 64;

/**
 * `value` with whatever is nested deeper than MAX_NESTING read as null (absent): a field the app
 * does not use then costs nothing, and one it uses is told as any odd value is (the item kept
 * aside naming it, or an optional field left out).
 */
function withinNesting(value: unknown): unknown {
  if (typeof value === 'object' && value !== null) cutBelow(value as Record<string, unknown>, 1);
  return value;
}

/** Recursive, as the fastest walk, but never deeper than MAX_NESTING. */
function cutBelow(node: Record<string, unknown>, depth: number): void {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const child: unknown = node[i];
      if (typeof child !== 'object' || child === null) continue;
      if (depth < MAX_NESTING) cutBelow(child as Record<string, unknown>, depth + 1);
      else node[i] = null;
    }
    return;
  }
  for (const key in node) {
    const child = node[key];
    if (typeof child !== 'object' || child === null) continue;
    if (depth < MAX_NESTING) cutBelow(child as Record<string, unknown>, depth + 1);
    else node[key] = null;
  }
}

/** Where a number of more digits than a double holds may be: 16 digits (and dots) in a row. */
const LONG_DIGIT_RUN = /[\d.]{16}/;

/**
 * A decimal the app computes with (an amount, a quantity), as a number; when the number would
 * lose digits of what the server wrote, its exact text is kept beside it under `exactField`.
 */
function withExactText(field: string, exactField: string) {
  return (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    const written = (value as Record<string, unknown>)[field];
    return typeof written === 'string' && losesDigits(written)
      ? { ...value, [exactField]: written.trim() }
      : value;
  };
}

/** A code matched in any case: a known one in the spec's spelling, an unknown one as it is. */
function code(known: readonly string[]) {
  const spelling = new Map(known.map((k) => [k.toLowerCase(), k]));
  return z.preprocess(
    (value) =>
      typeof value === 'string' ? (spelling.get(value.trim().toLowerCase()) ?? value.trim()) : value,
    z.string().min(1),
  );
}

const TIMESTAMP_VARIANT =
  /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2})(:\d{2}(?:[.,]\d{1,9})?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * ISO 8601 as servers write it, in one form: `T` or a space, seconds and 0–9 fraction digits
 * or none, `Z`, `+02:00`, `+0200` or `+02`, and no offset read as UTC.
 */
export function normaliseTimestamp(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const match = TIMESTAMP_VARIANT.exec(value.trim());
  if (!match) return value;
  const [, date, minutes, seconds = ':00', offset = 'Z'] = match;
  const zone =
    offset.toUpperCase() === 'Z'
      ? 'Z'
      : offset.length === 3
        ? `${offset}:00`
        : `${offset.slice(0, 3)}:${offset.slice(-2)}`;
  return `${date}T${minutes}${seconds.replace(',', '.')}${zone}`;
}

/** A UUID in any case (what the simulator checks of ids it is given). */
export const Uuid = z.guid();
/** A time with an offset, in any of the variants `normaliseTimestamp` reads. */
export const Timestamp = z.preprocess(normaliseTimestamp, z.iso.datetime({ offset: true }));
/** A calendar date; a datetime written where a date belongs gives its date. */
const CalendarDate = z.preprocess(
  (value) =>
    typeof value === 'string' && /^\d{4}-\d{2}-\d{2}[Tt ]/.test(value) ? value.slice(0, 10) : value,
  z.iso.date(),
);
/** A page's hasMore: a boolean, or "true"/"false"; absent is decided by the page's length. */
const HasMore = optional(
  z.preprocess((value) => (value === 'true' ? true : value === 'false' ? false : value), z.boolean()),
);

// 2.2
export const AdditionalProperty = z.looseObject({
  name: z.string(),
  value: optional(Text),
  description: optional(Text),
});

// 2.1
export const MarketplaceEvent = z.looseObject({
  eventId: optional(ResourceId),
  sellerId: optional(Id),
  eventTypeCode: code(EVENT_TYPE_CODES),
  statusCode: code(STATUS_CODES),
  eventTime: optional(Timestamp),
  /** Required by the spec; an event without one still counts (its status is what matters). */
  description: z.preprocess((value) => value ?? '', Text).catch(''),
  detailedDescription: optional(Text),
  seenTime: optional(Timestamp),
  additionalProperties: optional(entries(AdditionalProperty)),
});

/** What a seller may post (4.4): the known codes only, and the server assigns ids and times. */
export const NewMarketplaceEvent = z.object({
  eventTypeCode: z.enum(EVENT_TYPE_CODES),
  statusCode: z.enum(STATUS_CODES),
  description: z.string().trim().min(1),
  detailedDescription: z.string().optional(),
  additionalProperties: z
    .array(z.object({ name: z.string().min(1), value: z.string(), description: z.string().optional() }))
    .optional(),
});
export type NewMarketplaceEvent = z.infer<typeof NewMarketplaceEvent>;

/**
 * What a status post answers (4.4): any 2xx means delivered, whatever its body. The stored
 * event when the body is one; else the event id it names (a partial body such as
 * `{"eventId": …}`), if any.
 */
export const PostAnswer = z.unknown().transform((value): PostAnswer => {
  const event = MarketplaceEvent.safeParse(value);
  if (event.success) return { eventId: event.data.eventId, event: event.data };
  const eventId = (value as { eventId?: unknown } | null | undefined)?.eventId;
  return { eventId: typeof eventId === 'string' && eventId.trim() !== '' ? eventId.trim() : undefined };
});
export interface PostAnswer {
  eventId: string | undefined;
  event?: MarketplaceEvent | undefined;
  /** The HTTP status the answer came with (any 2xx is delivered), set by the client. */
  httpStatus?: number | undefined;
}

// 2.3
export const MarketplaceEventList = z.looseObject({
  hasMore: HasMore,
  marketplaceEvents: z.array(MarketplaceEvent),
});
export type MarketplaceEventList = z.infer<typeof MarketplaceEventList>;

/**
 * An event as a listing must give it to count: its order link readable (by `orderIdOf`), since an
 * event that names no order can neither be announced nor shown.
 */
export const ListedEvent = MarketplaceEvent.superRefine((event, context) => {
  if (orderIdOf(event) !== undefined) return;
  context.addIssue({
    code: 'custom',
    path: ['additionalProperties'],
    message:
      linkOf(event) === undefined
        ? 'the event names no order (no orderId additional property)'
        : `the order link is no id: ${NOT_ID_TEXT}`,
  });
});

// 2.8
/**
 * An ISO 4217 code in upper case, whatever its case; a code that is not three letters ("EURO",
 * "USDT") as it came, shown as given. A currency must be text: a number is no code.
 */
const Currency = z.preprocess(
  (value) =>
    typeof value === 'string' && /^\s*[a-z]{3}\s*$/i.test(value) ? value.trim().toUpperCase() : value,
  z.string().trim().min(1, 'a currency code'),
);

export const MonetaryAmount = z.preprocess(
  withExactText('amount', 'exactAmount'),
  z.looseObject({
    amount: optional(numeric(z.number())),
    exactAmount: optional(z.string()),
    currencyCode: optional(Currency),
  }),
);

export const Quantity = z.preprocess(
  withExactText('value', 'exactValue'),
  z.looseObject({
    value: optional(numeric(z.number())),
    exactValue: optional(z.string()),
    unitCode: optional(Text),
  }),
);

// 2.5
export const TimePeriod = z.looseObject({
  startDate: optional(CalendarDate),
  endDate: optional(CalendarDate),
  description: optional(Text),
});

// 2.10
export const PostalAddress = z.looseObject({
  addressLine: optional(Text),
  addressLine1: optional(Text),
  addressLine2: optional(Text),
  addressLine3: optional(Text),
  cityName: optional(Text),
  postalZone: optional(Text),
  countrySubentityCode: optional(Text),
  countryCode: optional(Text),
});

export const PartyIdentification = z.looseObject({ id: Text, schemeId: optional(Text) });

export const Party = z.looseObject({
  partyName: optional(Text),
  partyIdentifications: optional(entries(PartyIdentification)),
  postalAddress: optional(PostalAddress),
});

// 2.11
export const Contact = z.looseObject({
  name: optional(Text),
  telephone: optional(Text),
  electronicMail: optional(Text),
  note: optional(Text),
});

// 2.6, 2.7
export const BuyerCustomerParty = z.looseObject({
  supplierAssignedAccountId: optional(Text),
  party: optional(Party),
  buyerContact: optional(Contact),
});

export const SellerSupplierParty = z.looseObject({ party: optional(Party) });

// 2.9
export const LineItem = z.looseObject({
  name: optional(Text),
  sellersItemId: optional(Text),
  quantity: optional(Quantity),
  price: optional(z.looseObject({ priceAmount: optional(MonetaryAmount), baseQuantity: optional(Quantity) })),
  delivery: optional(z.looseObject({ contact: optional(Contact) })),
});

export const DocumentLine = z.looseObject({
  lineId: optional(Id),
  note: optional(Text),
  lineItem: optional(LineItem),
});

// 2.4
export const Order = z.looseObject({
  orderId: optional(ResourceId),
  issueTime: optional(Timestamp),
  orderTypeCode: code(ORDER_TYPE_CODES),
  note: optional(Text),
  documentCurrencyCode: Currency,
  validityPeriod: optional(TimePeriod),
  buyerCustomerParty: BuyerCustomerParty,
  sellerSupplierParty: z.preprocess((value) => value ?? {}, SellerSupplierParty),
  anticipatedMonetaryTotal: optional(MonetaryAmount),
  documentLines: z.preprocess((value) => value ?? [], z.array(DocumentLine)),
});

export const OrderList = z.looseObject({ hasMore: HasMore, orders: z.array(Order) });
export type OrderList = z.infer<typeof OrderList>;

// 2.12
export const License = z.looseObject({
  licenseId: optional(ResourceId),
  electronicMail: optional(Text),
  additionalProperties: optional(entries(AdditionalProperty)),
});

/** 4.6 answers a bare array of licenses (the wrapped list of 2.12 is not used by any operation). */
export const LicenseArray = z.array(License);

// --- Lists, as the client reads them: the envelope first, then each item on its own ----------

// A listing's answer; no body at all (204) is an empty page. Items are read by `readItems`.
export const EventListEnvelope = z.preprocess(
  (value) => value ?? { marketplaceEvents: [] },
  z.looseObject({ hasMore: HasMore, marketplaceEvents: z.array(z.unknown()) }),
);
export const OrderListEnvelope = z.preprocess(
  (value) => value ?? { orders: [] },
  z.looseObject({ hasMore: HasMore, orders: z.array(z.unknown()) }),
);
export const LicenseListEnvelope = z.preprocess((value) => value ?? [], z.array(z.unknown()));

/** What a list holds, by the name the store and the messages use. */
const ITEM_READERS = {
  event: { schema: ListedEvent, idField: 'eventId' },
  order: { schema: Order, idField: 'orderId' },
  license: { schema: License, idField: 'licenseId' },
} as const;
export type ItemKind = keyof typeof ITEM_READERS;
type ItemOf<K extends ItemKind> = z.infer<(typeof ITEM_READERS)[K]['schema']>;

/** An item the reader could not use: kept as it came, with where and why, never dropped. */
export interface UnreadableItem {
  kind: ItemKind;
  key: string;
  fieldPath: string;
  reason: string;
  raw: unknown;
}

/** The items of one list, each read on its own: one odd item never costs the others. */
export interface Listed<T> {
  items: T[];
  unreadable: UnreadableItem[];
  /** Every item's key in the list's order, readable or not: what offsets and cursors count. */
  keys: string[];
}

/**
 * What tells items apart: the id (a UUID in its one case), or for an item without one (the spec
 * allows it) its content. An event's id that is not a UUID may be unique only within its order (a
 * marketplace numbering each order's events 1, 2, …): it tells the event apart within its order.
 */
export function itemKey(kind: ItemKind, item: unknown): string {
  const id = (item as Record<string, unknown> | null)?.[ITEM_READERS[kind].idField];
  // Trimmed first, as the reader reads it (ResourceId): white space around an id is no part of it.
  const text = typeof id === 'string' ? id.trim() : '';
  if (text === '' || !isIdText(text)) return JSON.stringify(item);
  const key = canonicalOrderId(text);
  const order = kind === 'event' && !isOrderId(key) ? linkedOrderId(item) : undefined;
  return order === undefined ? key : `${key} in ${order}`;
}

export function readItems<K extends ItemKind>(kind: K, raw: readonly unknown[]): Listed<ItemOf<K>> {
  const listed: Listed<ItemOf<K>> = { items: [], unreadable: [], keys: [] };
  for (const value of raw) {
    const parsed = ITEM_READERS[kind].schema.safeParse(value);
    if (parsed.success) {
      listed.items.push(parsed.data as ItemOf<K>);
      listed.keys.push(itemKey(kind, parsed.data));
    } else {
      const key = itemKey(kind, value);
      listed.unreadable.push({ kind, key, raw: value, ...firstIssue(parsed.error) });
      listed.keys.push(key);
    }
  }
  return listed;
}

/** Where and why a value failed its schema, in words; `whole` names the value itself. */
export function firstIssue(
  error: z.ZodError,
  whole = '(the whole item)',
): { fieldPath: string; reason: string } {
  const issue = error.issues[0];
  return {
    fieldPath: issue?.path.length ? issue.path.map(String).join('.') : whole,
    reason: issue?.message ?? 'invalid',
  };
}

// 2.13
export const PingResponse = z.looseObject({
  access: z.string().optional(),
  date: z.string().optional(),
  stage: z.string().optional(),
  version: z.string().optional(),
});
export type PingResponse = z.infer<typeof PingResponse>;

// 2.14
export const TokenResponse = z.looseObject({
  accessToken: z.string().min(1),
  /** `Bearer` in any case (RFC 6749 §5.1), and Bearer when absent. */
  tokenType: z.preprocess(
    (value) =>
      value === undefined || value === null || (typeof value === 'string' && value.toLowerCase() === 'bearer')
        ? 'Bearer'
        : value,
    z.literal('Bearer'),
  ),
});
export type TokenResponse = z.infer<typeof TokenResponse>;

// 2.15
/** The error body of 2.15, as the simulator writes it. */
export const ErrorBody = z.looseObject({
  errorCode: z.string(),
  description: z.string(),
  detailedDescription: z.string(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** The error codes this project assumes (design notes §2), with their HTTP statuses. */
export const ERROR_STATUS = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  Conflict: 409,
  PayloadTooLarge: 413,
  TooManyRequests: 429,
  InternalServerError: 500,
  ServiceUnavailable: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

const ORDER_ID_NAME = ORDER_ID_PROPERTY.toLowerCase();

/**
 * The order an event or license links to: its `orderId` additional property, named in any case
 * (`OrderId`, `orderID`), or else a top-level `orderId` field.
 */
export function orderIdOf(item: LinkingItem): string | undefined {
  const link = linkOf(item);
  return link !== undefined && isIdText(link) ? canonicalOrderId(link) : undefined;
}

interface LinkingItem {
  additionalProperties?: AdditionalProperty[] | undefined;
  [field: string]: unknown;
}

/** The order link as written, id or not: what `orderIdOf` reads. */
function linkOf(item: LinkingItem): string | undefined {
  const linked = item.additionalProperties?.find((p) => p.name.toLowerCase() === ORDER_ID_NAME)?.value;
  if (linked?.trim()) return linked;
  return typeof item.orderId === 'string' && item.orderId.trim() !== '' ? item.orderId : undefined;
}

/**
 * The order an item that could not be read names, when that much of it can be read (an event
 * whose status is odd still names its order); undefined when it names none that can be read.
 */
export function linkedOrderId(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const item = raw as Record<string, unknown>;
  const properties = entries(AdditionalProperty).safeParse(item.additionalProperties).data;
  return orderIdOf({ ...item, additionalProperties: properties });
}

/**
 * Whether an event kept aside (`aside`, as it came) and one read now are one event whose key
 * changed between the reads: an event without an id is keyed by its content, which the mending
 * changes, and an id may appear where there was none. Nothing both show may differ (id, order,
 * type, status, time), and they must share what tells an event apart: the same UUID or time (an
 * id numbered within its order, or the order, may be another of its events). One that shares
 * neither stays aside: never taken for another event and dropped.
 */
export function sameEvent(aside: unknown, event: MarketplaceEvent): boolean {
  const [a, b] = [traitsOf(aside), traitsOf(event)];
  const fields = ['id', 'order', 'type', 'status', 'ms'] as const;
  if (fields.some((f) => a[f] !== undefined && b[f] !== undefined && a[f] !== b[f])) return false;
  const both = (f: (typeof fields)[number]) => a[f] !== undefined && b[f] !== undefined;
  return (both('id') && isOrderId(a.id ?? '')) || both('ms');
}

/**
 * What an event kept aside is found again by (store: indexed columns): the UUID and time `sameEvent`
 * needs one of, and the order it names; each undefined where it cannot be read.
 */
export function asideLookup(raw: unknown): { uuid?: string; ms?: number; order?: string } {
  const { id, ms, order } = traitsOf(raw);
  return { uuid: id !== undefined && isOrderId(id) ? id : undefined, ms, order };
}

/** What of an event, readable or not, tells it apart from others: each field as the reader reads it. */
function traitsOf(
  raw: unknown,
): Partial<Record<'id' | 'order' | 'type' | 'status', string> & { ms: number }> {
  if (typeof raw !== 'object' || raw === null) return {};
  const item = raw as Record<string, unknown>;
  const time = Timestamp.safeParse(item.eventTime).data;
  return {
    id: ResourceId.safeParse(item.eventId).data,
    order: linkedOrderId(raw),
    type: MarketplaceEvent.shape.eventTypeCode.safeParse(item.eventTypeCode).data,
    status: MarketplaceEvent.shape.statusCode.safeParse(item.statusCode).data,
    ms: time === undefined ? undefined : Date.parse(time),
  };
}

export function eventKey(event: MarketplaceEvent): string {
  return itemKey('event', event);
}

// Fails to compile when a schema reads a shape other than the one preload/marketplace.ts declares.
void ({
  AdditionalProperty: true,
  MarketplaceEvent: true,
  MonetaryAmount: true,
  Quantity: true,
  TimePeriod: true,
  PostalAddress: true,
  PartyIdentification: true,
  Party: true,
  Contact: true,
  BuyerCustomerParty: true,
  SellerSupplierParty: true,
  LineItem: true,
  DocumentLine: true,
  Order: true,
  License: true,
} satisfies {
  AdditionalProperty: Same<z.output<typeof AdditionalProperty>, SharedAdditionalProperty>;
  MarketplaceEvent: Same<z.output<typeof MarketplaceEvent>, SharedMarketplaceEvent>;
  MonetaryAmount: Same<z.output<typeof MonetaryAmount>, SharedMonetaryAmount>;
  Quantity: Same<z.output<typeof Quantity>, SharedQuantity>;
  TimePeriod: Same<z.output<typeof TimePeriod>, SharedTimePeriod>;
  PostalAddress: Same<z.output<typeof PostalAddress>, SharedPostalAddress>;
  PartyIdentification: Same<z.output<typeof PartyIdentification>, SharedPartyIdentification>;
  Party: Same<z.output<typeof Party>, SharedParty>;
  Contact: Same<z.output<typeof Contact>, SharedContact>;
  BuyerCustomerParty: Same<z.output<typeof BuyerCustomerParty>, SharedBuyerCustomerParty>;
  SellerSupplierParty: Same<z.output<typeof SellerSupplierParty>, SharedSellerSupplierParty>;
  LineItem: Same<z.output<typeof LineItem>, SharedLineItem>;
  DocumentLine: Same<z.output<typeof DocumentLine>, SharedDocumentLine>;
  Order: Same<z.output<typeof Order>, SharedOrder>;
  License: Same<z.output<typeof License>, SharedLicense>;
});
