// The simulated marketplace's state and the operations the Seller API performs on it.
// Plain data in memory, ordered as the listings return it, with indexes for lookups.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { License, MarketplaceEvent, type NewMarketplaceEvent, Order, orderIdOf } from '../main/core/api/wire';
import {
  formatEventTime,
  generateSellerData,
  makePurchase,
  type Purchase,
  parseEventMicros,
  purchaseEvent,
  type SellerIdentity,
  type StoredEvent,
  sellerIdentity,
  specInteger,
} from './data';
import { type Random, seededRandom } from './random';

export interface ClientCredential {
  clientId: string;
  clientSecret: string;
}

export interface SellerSetup {
  sellerId: number;
  clients: ClientCredential[];
  orders: number;
}

export type NewEventsMode = 'consume' | 'sticky';
/** As the spec has it: the "new" listing's events leave it once retrieved. */
export const SPECIFIED_NEW_EVENTS: NewEventsMode = 'consume';
/** Where the stream of posted events' ids starts, apart from the seed's own (postedId). */
const POSTED_STREAM = 0x5057;

type StoredOrder = Purchase['order'];
type StoredEventBody = StoredEvent['event'];

interface Replay {
  bodyKey: string;
  event: StoredEventBody;
}

interface SellerState {
  identity: SellerIdentity;
  clients: ClientCredential[];
  orders: StoredOrder[];
  licenses: License[];
  events: StoredEvent[];
  /** Marketplace events the "new" listing still offers, in listing order. */
  newEvents: StoredEvent[];
  /** Successful posts by X-Request-ID, so a retried post replays instead of duplicating. */
  replays: Map<string, Replay>;
}

export interface Page<T> {
  hasMore: boolean;
  items: T[];
}

export type PostResult =
  | { kind: 'created' | 'replayed'; event: StoredEventBody }
  | { kind: 'conflict' }
  | { kind: 'invalid'; field: string; problem: string };

/** What `POST /_simulator/purchases` may give: any order fields, laid over a generated order. */
export const PurchaseRequest = z.strictObject({
  sellerId: z.int().optional(),
  order: z.record(z.string(), z.unknown()).optional(),
  licenseEmails: z.array(z.string()).max(100).optional(),
  /** The purchase event's type: ServicePurchased unless a trial, an upgrade, or one not known yet. */
  eventTypeCode: z.string().min(1).max(100).optional(),
  /**
   * The purchase event arrives late: it lands this many places before the newest event of the
   * "all" listing, stamped just before the one it lands before (the "new" listing offers it as usual).
   */
  lateBy: z.int().min(1).optional(),
  /** The purchase event reuses the id of the seller's newest purchase event (another order's). */
  reuseEventId: z.boolean().optional(),
});
export type PurchaseRequest = z.infer<typeof PurchaseRequest>;

const Snapshot = z.object({
  version: z.literal(1),
  seed: z.int(),
  signingKey: z.string(),
  lastEventMicros: z.number(),
  sellers: z.array(
    z.object({
      identity: z.object({ sellerId: z.int(), name: z.string(), place: z.any() }),
      clients: z.array(z.object({ clientId: z.string(), clientSecret: z.string() })),
      orders: z.array(Order.required({ orderId: true, issueTime: true })),
      licenses: z.array(License),
      events: z.array(
        z.object({
          event: MarketplaceEvent.required({ eventId: true, eventTime: true }),
          fromMarketplace: z.boolean(),
        }),
      ),
      newEventIds: z.array(z.string()),
      replays: z.array(z.tuple([z.string(), z.string(), z.string()])),
    }),
  ),
});
export type Snapshot = z.infer<typeof Snapshot>;

function sameSecret(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

/** Key order does not change what a body means, so replays compare bodies canonically. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export class MarketplaceStore {
  readonly signingKey: Uint8Array;
  private readonly sellers = new Map<number, SellerState>();
  private readonly orderIndex = new Map<string, { sellerId: number; order: StoredOrder; json: string }>();
  private readonly licenseIndex = new Map<string, { sellerId: number; license: License }>();
  private readonly licensesByOrder = new Map<string, License[]>();
  private lastEventMicros = 0;
  /** Issue times only grow, so that a new order always appends to the orders listing. */
  private lastIssueMs = 0;
  /** Purchases filed under other sellers too (the quirk foreign-seller-events). */
  private leaks = 0;
  private random: Random;
  /**
   * Ids of posted events: seed-derived too, from a stream of their own (purchases stay as the seed
   * has them, whatever is posted between), so a run that posts the same is repeated exactly. A
   * restored store draws them at random: its seed's would be ids it already holds.
   */
  private postedId: () => string;

  private constructor(
    readonly seed: number,
    signingKey: Uint8Array,
    private readonly clock: () => number,
  ) {
    this.signingKey = signingKey;
    this.random = seededRandom(seed);
    const posted = seededRandom(seed ^ POSTED_STREAM);
    this.postedId = () => posted.uuid();
  }

  /** A fresh marketplace: deterministic for a seed and a start time. */
  static generate(
    seed: number,
    setups: SellerSetup[],
    clock: () => number = Date.now,
    signingKey: Uint8Array = randomBytes(32),
  ): MarketplaceStore {
    const store = new MarketplaceStore(seed, signingKey, clock);
    const now = clock();
    for (const setup of setups) {
      const identity = sellerIdentity(store.random, setup.sellerId);
      const data = generateSellerData(store.random, identity, setup.orders, now);
      const unseen = new Set(data.unseenEventIds);
      store.addSeller(identity, setup.clients, data.orders, data.licenses, data.events, unseen, []);
    }
    return store;
  }

  static fromSnapshot(raw: unknown, clock: () => number = Date.now): MarketplaceStore {
    const snapshot = Snapshot.parse(raw);
    const store = new MarketplaceStore(snapshot.seed, Buffer.from(snapshot.signingKey, 'base64'), clock);
    for (const seller of snapshot.sellers) {
      const { orders, events } = seller;
      const byId = new Map(events.map((e) => [e.event.eventId, e.event]));
      const replays = seller.replays.flatMap(([requestId, bodyKey, eventId]): [string, Replay][] => {
        const event = byId.get(eventId);
        return event ? [[requestId, { bodyKey, event }]] : [];
      });
      store.addSeller(
        seller.identity,
        seller.clients,
        orders,
        seller.licenses,
        events,
        new Set(seller.newEventIds),
        replays,
      );
    }
    store.lastEventMicros = Math.max(store.lastEventMicros, snapshot.lastEventMicros);
    // Continue with fresh but still seed-derived randomness for purchases made after the restart.
    store.random = seededRandom(snapshot.seed ^ store.orderIndex.size);
    store.postedId = randomUUID;
    return store;
  }

  snapshot(): Snapshot {
    return {
      version: 1,
      seed: this.seed,
      signingKey: Buffer.from(this.signingKey).toString('base64'),
      lastEventMicros: this.lastEventMicros,
      sellers: [...this.sellers.values()].map((s) => ({
        identity: s.identity,
        clients: s.clients,
        orders: s.orders,
        licenses: s.licenses,
        events: s.events,
        newEventIds: s.newEvents.map((e) => e.event.eventId),
        replays: [...s.replays].map(([requestId, r]): [string, string, string] => [
          requestId,
          r.bodyKey,
          r.event.eventId,
        ]),
      })),
    };
  }

  private addSeller(
    identity: SellerIdentity,
    clients: ClientCredential[],
    orders: StoredOrder[],
    licenses: License[],
    events: StoredEvent[],
    newEventIds: Set<string>,
    replays: [string, Replay][],
  ): void {
    const { sellerId } = identity;
    const state: SellerState = {
      identity,
      clients,
      orders: [],
      licenses: [],
      events,
      newEvents: events.filter((e) => newEventIds.has(e.event.eventId)),
      replays: new Map(replays),
    };
    this.sellers.set(sellerId, state);
    for (const order of orders) this.indexOrder(state, order);
    for (const license of licenses) this.indexLicense(state, license);
    for (const { event } of events) {
      this.lastEventMicros = Math.max(this.lastEventMicros, parseEventMicros(event.eventTime));
    }
  }

  private indexOrder(state: SellerState, order: StoredOrder): void {
    state.orders.push(order);
    this.lastIssueMs = Math.max(this.lastIssueMs, Date.parse(order.issueTime));
    this.orderIndex.set(order.orderId, {
      sellerId: state.identity.sellerId,
      order,
      json: JSON.stringify(order),
    });
  }

  private indexLicense(state: SellerState, license: License): void {
    state.licenses.push(license);
    if (license.licenseId)
      this.licenseIndex.set(license.licenseId, { sellerId: state.identity.sellerId, license });
    const orderId = orderIdOf(license);
    if (orderId) {
      const list = this.licensesByOrder.get(orderId) ?? [];
      list.push(license);
      this.licensesByOrder.set(orderId, list);
    }
  }

  /** Strictly increasing event times, so that new events always append to the listings. */
  private nextEventTime(): string {
    this.lastEventMicros = Math.max(this.clock() * 1000, this.lastEventMicros + 1);
    return formatEventTime(this.lastEventMicros);
  }

  sellerIds(): number[] {
    return [...this.sellers.keys()];
  }

  /** The seller whose client these credentials are, if any. */
  authenticateClient(clientId: string, clientSecret: string): number | undefined {
    for (const [sellerId, seller] of this.sellers) {
      const client = seller.clients.find((c) => c.clientId === clientId);
      if (client) return sameSecret(client.clientSecret, clientSecret) ? sellerId : undefined;
    }
    return undefined;
  }

  hasSeller(sellerId: number): boolean {
    return this.sellers.has(sellerId);
  }

  private seller(sellerId: number): SellerState {
    const seller = this.sellers.get(sellerId);
    if (!seller) throw new Error(`unknown seller ${sellerId}`);
    return seller;
  }

  /** A page of orders as JSON texts: orders do not change once issued, so their text is kept. */
  listOrderJson(sellerId: number, offset: number, limit: number): Page<string> {
    const orders = this.seller(sellerId).orders;
    const items = orders.slice(offset, offset + limit).map((o) => this.orderIndex.get(o.orderId)?.json ?? '');
    return { hasMore: offset + items.length < orders.length, items };
  }

  /** One order's JSON text; undefined for an unknown id and for another seller's order alike. */
  orderJson(sellerId: number, orderId: string): string | undefined {
    const entry = this.orderIndex.get(orderId);
    return entry?.sellerId === sellerId ? entry.json : undefined;
  }

  listLicenses(sellerId: number, orderId?: string): License[] {
    if (orderId === undefined) return this.seller(sellerId).licenses;
    return this.orderIndex.get(orderId)?.sellerId === sellerId
      ? (this.licensesByOrder.get(orderId) ?? [])
      : [];
  }

  license(sellerId: number, licenseId: string): License | undefined {
    const entry = this.licenseIndex.get(licenseId);
    return entry?.sellerId === sellerId ? entry.license : undefined;
  }

  listEvents(sellerId: number, offset: number, limit: number): Page<StoredEventBody> {
    const events = this.seller(sellerId).events;
    const items = events.slice(offset, offset + limit).map((e) => e.event);
    return { hasMore: offset + items.length < events.length, items };
  }

  /**
   * The "new" listing. Every returned event gets its `seenTime`; in `consume` mode it also
   * leaves the listing (design notes §2), in `sticky` mode it stays.
   */
  listNewEvents(sellerId: number, offset: number, limit: number, mode: NewEventsMode): Page<StoredEventBody> {
    const seller = this.seller(sellerId);
    const page = seller.newEvents.slice(offset, offset + limit);
    const hasMore = offset + page.length < seller.newEvents.length;
    if (page.length === 0) return { hasMore, items: [] };
    const seenTime = this.nextEventTime();
    for (const { event } of page) event.seenTime ??= seenTime;
    if (mode === 'consume') seller.newEvents.splice(offset, page.length);
    return { hasMore, items: page.map((e) => e.event) };
  }

  /** Records a seller's status event, or replays the one posted before under the same request id. */
  postEvent(sellerId: number, requestId: string, body: NewMarketplaceEvent): PostResult {
    const seller = this.seller(sellerId);
    const bodyKey = canonicalJson(body);
    const previous = seller.replays.get(requestId);
    if (previous)
      return previous.bodyKey === bodyKey
        ? { kind: 'replayed', event: previous.event }
        : { kind: 'conflict' };

    const orderIds = (body.additionalProperties ?? []).filter((p) => p.name === 'orderId');
    if (orderIds.length !== 1) {
      return {
        kind: 'invalid',
        field: 'additionalProperties',
        problem: 'must hold exactly one entry named orderId',
      };
    }
    const orderId = orderIds[0]?.value ?? '';
    if (this.orderIndex.get(orderId)?.sellerId !== sellerId) {
      return {
        kind: 'invalid',
        field: 'additionalProperties[orderId].value',
        problem: `no order ${orderId} of this seller`,
      };
    }
    const event: StoredEventBody = {
      ...body,
      eventId: this.postedId(),
      sellerId: specInteger(sellerId),
      eventTime: this.nextEventTime(),
    };
    seller.events.push({ event, fromMarketplace: false });
    seller.replays.set(requestId, { bodyKey, event });
    return { kind: 'created', event };
  }

  /** A posted event lost after it was answered: never listed ('lost-posts'); its replay stays. */
  losePosted(sellerId: number, eventId: string | undefined): void {
    const events = this.seller(sellerId).events;
    const at = events.findIndex(({ event }) => event.eventId === eventId);
    if (at >= 0) events.splice(at, 1);
  }

  /**
   * A new purchase, as a buyer would make it: order, licenses, and the purchase event that
   * the "new" listing offers. Fields of `request.order` replace the generated ones.
   */
  addPurchase(request: PurchaseRequest, leakInto: readonly number[] = []): StoredOrder {
    const sellerId = request.sellerId ?? this.sellerIds()[0];
    const seller = sellerId === undefined ? undefined : this.sellers.get(sellerId);
    if (!seller) throw new PurchaseError('sellerId', `no seller ${sellerId}`);
    const generated = makePurchase(
      this.random,
      seller.identity,
      Math.max(this.clock(), this.lastIssueMs + 1),
    );
    const merged = {
      ...generated.order,
      ...request.order,
      orderId: generated.order.orderId,
      issueTime: generated.order.issueTime,
    };
    const parsed = Order.safeParse(merged);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new PurchaseError(`order.${issue?.path.join('.') ?? ''}`, issue?.message ?? 'invalid');
    }
    const order = parsed.data as StoredOrder;
    const licenses = request.licenseEmails
      ? request.licenseEmails.map((electronicMail) => ({
          licenseId: this.random.uuid(),
          electronicMail,
          additionalProperties: [{ name: 'orderId', value: order.orderId }],
        }))
      : generated.licenses;

    this.indexOrder(seller, order);
    for (const license of licenses) this.indexLicense(seller, license);
    const at = Math.max(0, seller.events.length - (request.lateBy ?? 0));
    const before = seller.events[at]?.event.eventTime;
    const reused = request.reuseEventId
      ? seller.events.findLast(({ event }) => event.statusCode === 'ProvisioningStarted')?.event.eventId
      : undefined;
    const stored: StoredEvent = {
      event: purchaseEvent(
        reused ?? this.random.uuid(),
        seller.identity.sellerId,
        order,
        before === undefined ? this.nextEventTime() : formatEventTime(parseEventMicros(before) - 1),
        request.eventTypeCode,
      ),
      fromMarketplace: true,
    };
    seller.events.splice(at, 0, stored);
    seller.newEvents.push(stored);
    // A marketplace that files a purchase under other sellers too (the quirk foreign-seller-events):
    // every other leaked copy without its sellerId, so only its order's 404 tells it apart.
    for (const sellerId of leakInto) {
      const other = this.sellers.get(sellerId);
      if (!other || other === seller) continue;
      this.leaks += 1;
      const { sellerId: _, ...anonymous } = stored.event;
      const leaked: StoredEvent = {
        ...stored,
        event: this.leaks % 2 === 0 ? anonymous : { ...stored.event },
      };
      other.events.push(leaked);
      other.newEvents.push(leaked);
    }
    return order;
  }

  summary(): {
    sellerId: number;
    name: string;
    clientIds: string[];
    orders: number;
    licenses: number;
    events: number;
    newEvents: number;
  }[] {
    return [...this.sellers.values()].map((s) => ({
      sellerId: s.identity.sellerId,
      name: s.identity.name,
      clientIds: s.clients.map((c) => c.clientId),
      orders: s.orders.length,
      licenses: s.licenses.length,
      events: s.events.length,
      newEvents: s.newEvents.length,
    }));
  }
}

export class PurchaseError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`${field}: ${problem}`);
  }
}
