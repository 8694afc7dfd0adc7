// The heart of Seller Tray: what runs all day in the main process, window or not. It polls
// the marketplace, keeps the event history and the order statuses, decides what to
// notify, and delivers the statuses the user marks. Everything platform-specific comes in
// through its ports, so it runs the same in Electron, the CLI and the tests.
import { join } from 'node:path';
import type { SellerApiClient } from './api/client';
import { SellerApiError } from './api/errors';
import { type License, type MarketplaceEvent, type Order, orderIdOf } from './api/wire';
import { type CoreState, loadState, saveState } from './core-state';
import { syncFeed } from './event-feed';
import { EventLog } from './event-log';
import {
  briefOf,
  dueReminders,
  type NotificationRequest,
  type OrderBrief,
  purchaseNotifications,
  reminderNotifications,
  resumeSummary,
} from './notification-policy';
import { isNewPurchase, isUsualTransition, isWaitingForAction, type MarkableStatus } from './order-status';
import { Outbox, type OutboxItem } from './outbox';
import { Poller, type PollerState, type Timers } from './poller';

/** What the core needs to know of the settings, read at each use so changes apply at once. */
export interface CoreSettings {
  pollIntervalSeconds: number;
  notificationsEnabled: boolean;
  pausedUntil: string | null;
  reminderAfterMinutes: number;
}

export interface CorePorts {
  client: SellerApiClient;
  /** Where this laptop keeps its state and event history. */
  dataDir: string;
  settings: () => CoreSettings;
  timers?: Timers;
  now?: () => number;
}

export type Connection = 'starting' | 'ok' | 'offline' | 'credentials-rejected' | 'paused';

export interface CoreStatus {
  connection: Connection;
  lastSuccessfulPoll: string | null;
  lastError: string | null;
  waitingCount: number;
  pendingOutbox: number;
  notificationsPausedUntil: string | null;
}

export type CoreEvent =
  | { type: 'state-changed'; status: CoreStatus }
  | { type: 'notification'; request: NotificationRequest }
  /** New orders, whether notified or not (paused, notifications off): for the CLI's watch. */
  | { type: 'orders-arrived'; orderIds: string[] }
  | { type: 'problem'; message: string };

export interface OrderSummary {
  orderId: string;
  status: string | undefined;
  /** When the purchase event says the order came in. */
  since: string | undefined;
  waiting: boolean;
  delivery: OutboxItem['state'] | null;
}

export interface OrderDetail {
  order: Order;
  licenses: License[];
  history: MarketplaceEvent[];
  outbox: OutboxItem[];
  status: string | undefined;
}

export interface MarkRequest {
  orderId: string;
  statusCode: MarkableStatus;
  description: string;
  detailedDescription?: string | undefined;
  /** The user confirmed an unusual transition. */
  override?: boolean | undefined;
}

export class TransitionError extends Error {}

/** Fetched orders kept for a view that opens at once; older ones are fetched again. */
const ORDER_CACHE_SIZE = 500;
const STATE_FILE = 'state.json';
const EVENT_LOG_FILE = 'events.jsonl';

export class SellerCore {
  private readonly listeners = new Set<(event: CoreEvent) => void>();
  private readonly orderCache = new Map<string, Order>();
  private readonly orderBriefs = new Map<string, OrderBrief>();
  private briefsLoading: Promise<void> | undefined;
  private readonly notified: Set<string>;
  private readonly poller: Poller;
  private readonly now: () => number;
  private connection: Connection = 'starting';
  private lastSuccessfulPoll: string | null = null;
  private lastError: string | null = null;

  private constructor(
    private readonly ports: CorePorts,
    private readonly state: CoreState,
    private readonly log: EventLog,
    private readonly outbox: Outbox,
    private readonly startupProblems: string[],
  ) {
    this.now = ports.now ?? Date.now;
    this.notified = new Set(state.notified);
    this.poller = new Poller({
      poll: () => this.poll(),
      intervalMs: () => ports.settings().pollIntervalSeconds * 1000,
      timers: ports.timers ?? { setTimeout, clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) },
      onState: (state, error) => this.onPollerState(state, error),
    });
  }

  static async open(ports: CorePorts): Promise<SellerCore> {
    const stateFile = join(ports.dataDir, STATE_FILE);
    const problems: string[] = [];
    const { state, problem } = await loadState(stateFile, ports.now);
    if (problem) problems.push(problem);
    const { log, skippedLines } = await EventLog.open(join(ports.dataDir, EVENT_LOG_FILE));
    if (skippedLines > 0) {
      problems.push(
        `${skippedLines} unreadable line(s) of the event history were skipped; they are read again from the marketplace.`,
      );
    }
    const outbox = new Outbox(state.outbox, {
      save: (items) => {
        state.outbox = [...items];
        saveState(stateFile, state);
      },
      post: (body, requestId) => ports.client.sendEvent(body, requestId),
      now: ports.now ?? Date.now,
    });
    return new SellerCore(ports, state, log, outbox, problems);
  }

  on(listener: (event: CoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts polling; problems found while loading are told now, to whoever listens. */
  start(): Promise<void> {
    for (const message of this.startupProblems.splice(0)) this.emit({ type: 'problem', message });
    return this.poller.start();
  }

  /** Stops polling for good: a poll still running ends without telling anyone anything. */
  stop(): void {
    this.poller.stop();
    this.listeners.clear();
  }

  /** Check now, resume from sleep, network back, or new credentials. */
  checkNow(): Promise<void> {
    return this.poller.pollNow();
  }

  status(): CoreStatus {
    const pausedUntil = this.pausedUntil();
    return {
      connection: this.connection,
      lastSuccessfulPoll: this.lastSuccessfulPoll,
      lastError: this.lastError,
      waitingCount: this.waitingCount(),
      pendingOutbox: this.outbox.pendingCount,
      notificationsPausedUntil: pausedUntil === null ? null : new Date(pausedUntil).toISOString(),
    };
  }

  /** Every order this laptop knows of, waiting ones first, then newest first. */
  orders(): OrderSummary[] {
    const summaries: OrderSummary[] = [];
    for (const orderId of this.log.orderIds()) {
      const status = this.effectiveStatus(orderId);
      const last = this.outbox.forOrder(orderId).at(-1);
      summaries.push({
        orderId,
        status,
        since: this.log.purchaseTime(orderId),
        waiting: isWaitingForAction(status),
        delivery: last?.state ?? null,
      });
    }
    return summaries.sort(
      (a, b) => Number(b.waiting) - Number(a.waiting) || (b.since ?? '').localeCompare(a.since ?? ''),
    );
  }

  /** What the inbox shows of an order (buyer, product, total), once known; never a network call. */
  brief(orderId: string): OrderBrief | undefined {
    return this.orderBriefs.get(orderId);
  }

  /**
   * Reads every order once, for what the inbox shows of each (one walk of the orders
   * listing, in the background of the first view); later orders are added as they arrive.
   */
  loadOrderBriefs(): Promise<void> {
    this.briefsLoading ??= (async () => {
      for await (const order of this.ports.client.allOrders()) {
        if (order.orderId) this.orderBriefs.set(order.orderId, briefOf(order.orderId, order));
      }
      this.emitStatus();
    })().catch((error: unknown) => {
      this.briefsLoading = undefined; // tried again on the next view
      this.emit({ type: 'problem', message: `Orders could not be read: ${(error as Error).message}` });
    });
    return this.briefsLoading;
  }

  async order(orderId: string): Promise<OrderDetail> {
    const [order, licenses] = await Promise.all([
      this.fetchOrder(orderId),
      this.ports.client.listLicenses(orderId),
    ]);
    return {
      order,
      licenses,
      history: this.log.history(orderId),
      outbox: this.outbox.forOrder(orderId),
      status: this.effectiveStatus(orderId),
    };
  }

  /**
   * Marks an order's status: on disk in the outbox before this returns, then posted. An
   * unusual transition needs `override`.
   */
  markStatus(request: MarkRequest): OutboxItem {
    const from = this.effectiveStatus(request.orderId);
    if (!request.override && !isUsualTransition(from, request.statusCode)) {
      throw new TransitionError(
        `Marking ${request.statusCode.replace('Provisioning', '')} after ${from?.replace('Provisioning', '') ?? 'no status'} is unusual; confirm to do it anyway.`,
      );
    }
    const item = this.outbox.enqueue({
      orderId: request.orderId,
      statusCode: request.statusCode,
      description: request.description,
      detailedDescription: request.detailedDescription,
    });
    this.emitStatus();
    void this.deliverOutbox();
    return item;
  }

  /** The outbox after a delivery attempt, for callers that wait for it (CLI, tests). */
  async deliverOutbox(): Promise<readonly OutboxItem[]> {
    const report = await this.outbox.deliver();
    if (report.sent.length + report.failed.length > 0) this.emitStatus();
    return this.outbox.all();
  }

  retryDelivery(requestId: string): OutboxItem | undefined {
    const item = this.outbox.retry(requestId);
    if (item) void this.deliverOutbox();
    return item;
  }

  /** One poll: learn, notify, deliver. Thrown errors go to the poller's backoff. */
  private async poll(): Promise<void> {
    const sync = await syncFeed(this.ports.client, this.log, this.state.cursor);
    let changed = sync.cursor.offset !== this.state.cursor?.offset;
    this.state.cursor = sync.cursor;
    // The backlog of a first start is history: shown in the inbox, never notified.
    const purchases = sync.backlog
      ? []
      : [...new Set(sync.fresh.filter(isNewPurchase).map(orderIdOf))].filter(
          (id): id is string => id !== undefined && !this.notified.has(id),
        );
    const paused = this.pausedUntil() !== null;
    const settings = this.ports.settings();
    if (paused) this.state.held.push(...purchases);
    const heldToSummarise = !paused && this.state.held.length > 0 ? this.state.held.splice(0) : [];
    const reminders = paused ? [] : this.remindersDue();
    for (const id of purchases) this.notified.add(id);
    this.state.notified.push(...purchases);
    this.state.reminded.push(...reminders.map((r) => r.orderId));
    changed ||= purchases.length + heldToSummarise.length + reminders.length > 0;
    // Recorded before anything is raised: a crash then may lose a pop-up (the order still
    // shows in the inbox) but never raises one twice.
    if (changed) saveState(join(this.ports.dataDir, STATE_FILE), this.state);

    if (settings.notificationsEnabled) {
      const requests: NotificationRequest[] = [];
      if (!paused) requests.push(...purchaseNotifications(await this.briefs(purchases)));
      requests.push(...resumeSummary(await this.briefs(heldToSummarise)));
      requests.push(
        ...reminderNotifications(await this.briefs(reminders.map((r) => r.orderId)), waitedFor(settings)),
      );
      for (const request of requests) this.emit({ type: 'notification', request });
    }
    if (purchases.length > 0) this.emit({ type: 'orders-arrived', orderIds: purchases });

    if (this.outbox.pendingCount > 0) await this.outbox.deliver();
    this.outbox.forgetConfirmed((eventId) => this.log.has(eventId));
    this.lastSuccessfulPoll = new Date(this.now()).toISOString();
    this.lastError = null;
  }

  private remindersDue() {
    const afterMs = this.ports.settings().reminderAfterMinutes * 60_000;
    if (afterMs <= 0) return [];
    const reminded = new Set(this.state.reminded);
    const waiting = [...this.waitingOrders()].map(([orderId, since]) => ({
      orderId,
      since: Date.parse(since ?? ''),
    }));
    return dueReminders(
      waiting.filter((o) => Number.isFinite(o.since)),
      reminded,
      this.now(),
      afterMs,
    );
  }

  /** The log's waiting orders less those the user has marked since: counted without a scan. */
  private waitingCount(): number {
    const waiting = this.log.waitingOrders();
    const markedAway = new Set(
      this.outbox
        .all()
        .map((item) => item.orderId)
        .filter((id) => waiting.has(id) && !isWaitingForAction(this.effectiveStatus(id))),
    );
    return waiting.size - markedAway.size;
  }

  /** Orders waiting for action, with their purchase time, the outbox's marks applied. */
  private *waitingOrders(): Generator<[string, string | undefined]> {
    for (const [orderId, since] of this.log.waitingOrders()) {
      if (isWaitingForAction(this.effectiveStatus(orderId))) yield [orderId, since];
    }
  }

  /** The status the order has, or will have once the outbox delivers what the user marked. */
  private effectiveStatus(orderId: string): string | undefined {
    const marked = this.outbox
      .forOrder(orderId)
      .filter((i) => i.state !== 'failed')
      .at(-1);
    return marked && (marked.state === 'pending' || !this.log.has(marked.eventId ?? ''))
      ? marked.statusCode
      : this.log.status(orderId);
  }

  private pausedUntil(): number | null {
    const until = this.ports.settings().pausedUntil;
    const ms = until ? Date.parse(until) : Number.NaN;
    return Number.isFinite(ms) && ms > this.now() ? ms : null;
  }

  private async fetchOrder(orderId: string): Promise<Order> {
    const cached = this.orderCache.get(orderId);
    if (cached) {
      // Refreshed as most recently used.
      this.orderCache.delete(orderId);
      this.orderCache.set(orderId, cached);
      return cached;
    }
    const order = await this.ports.client.getOrder(orderId);
    this.orderCache.set(orderId, order);
    this.orderBriefs.set(orderId, briefOf(orderId, order));
    if (this.orderCache.size > ORDER_CACHE_SIZE)
      this.orderCache.delete(this.orderCache.keys().next().value ?? '');
    return order;
  }

  /** What notifications say of orders; an order that cannot be fetched is still notified. */
  private async briefs(orderIds: readonly string[]): Promise<OrderBrief[]> {
    return Promise.all(
      orderIds.map(async (id) => briefOf(id, await this.fetchOrder(id).catch(() => undefined))),
    );
  }

  private onPollerState(state: PollerState, error?: unknown): void {
    if (error !== undefined) this.lastError = error instanceof Error ? error.message : String(error);
    const connection: Connection | undefined =
      state === 'idle'
        ? 'ok'
        : state === 'backing-off'
          ? 'offline'
          : state === 'credentials-rejected'
            ? 'credentials-rejected'
            : state === 'paused'
              ? 'paused'
              : undefined;
    if (connection === undefined) return;
    this.connection = connection;
    this.emitStatus();
    if (error instanceof SellerApiError && (state === 'credentials-rejected' || state === 'backing-off')) {
      this.emit({ type: 'problem', message: error.message });
    }
  }

  private emitStatus(): void {
    this.emit({ type: 'state-changed', status: this.status() });
  }

  private emit(event: CoreEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

function waitedFor(settings: CoreSettings): string {
  const minutes = settings.reminderAfterMinutes;
  return minutes % 60 === 0 ? `${minutes / 60} hour${minutes === 60 ? '' : 's'}` : `${minutes} minutes`;
}
