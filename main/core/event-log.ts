// Every marketplace event this laptop has learned, kept in an append-only file (one JSON
// event per line) and indexed by order in memory. A poll that learns nothing writes
// nothing; one that learns a few events appends a few lines.
import { appendFileSync, closeSync, fsyncSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { eventKey, MarketplaceEvent, orderIdOf } from './api/wire';
import { readTextIfExists } from './durable-file';
import { compareEventTime, isNewPurchase, isWaitingForAction } from './order-status';

export interface EventLogLoad {
  log: EventLog;
  /** Lines that could not be read (a write cut short by a crash), for the user to know. */
  skippedLines: number;
}

export class EventLog {
  private readonly ids = new Set<string>();
  private readonly byOrder = new Map<string, MarketplaceEvent[]>();
  /** Kept up to date as events arrive, so a poll never scans the history. */
  private readonly latest = new Map<string, MarketplaceEvent>();
  private readonly purchasedAt = new Map<string, string>();
  private readonly waiting = new Map<string, string | undefined>();

  private constructor(private readonly file: string) {}

  static async open(file: string): Promise<EventLogLoad> {
    const log = new EventLog(file);
    const text = (await readTextIfExists(file)) ?? '';
    let skippedLines = 0;
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      const parsed = safeJson(line);
      const event = MarketplaceEvent.safeParse(parsed);
      if (event.success) log.index(event.data);
      else skippedLines += 1;
    }
    return { log, skippedLines };
  }

  has(eventId: string): boolean {
    return this.ids.has(eventId);
  }

  get size(): number {
    return this.ids.size;
  }

  /** Records the events not known yet, durably, and returns them. */
  append(events: readonly MarketplaceEvent[]): MarketplaceEvent[] {
    const fresh: MarketplaceEvent[] = [];
    const seen = new Set<string>();
    for (const event of events) {
      const id = eventKey(event);
      if (this.ids.has(id) || seen.has(id)) continue;
      seen.add(id);
      fresh.push(event);
    }
    if (fresh.length === 0) return fresh;
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    appendFileSync(this.file, fresh.map((e) => `${JSON.stringify(e)}\n`).join(''), { mode: 0o600 });
    const fd = openSync(this.file, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    for (const event of fresh) this.index(event);
    return fresh;
  }

  /** An order's events in time order. */
  history(orderId: string): MarketplaceEvent[] {
    return [...(this.byOrder.get(orderId) ?? [])].sort(compareEventTime);
  }

  status(orderId: string): string | undefined {
    return this.latest.get(orderId)?.statusCode;
  }

  /** When the order's purchase event says it came in. */
  purchaseTime(orderId: string): string | undefined {
    return this.purchasedAt.get(orderId);
  }

  /** Orders whose latest status waits for action, with their purchase time. */
  waitingOrders(): ReadonlyMap<string, string | undefined> {
    return this.waiting;
  }

  orderIds(): IterableIterator<string> {
    return this.byOrder.keys();
  }

  private index(event: MarketplaceEvent): void {
    this.ids.add(eventKey(event));
    const orderId = orderIdOf(event);
    if (orderId === undefined) return;
    const list = this.byOrder.get(orderId);
    if (list) list.push(event);
    else this.byOrder.set(orderId, [event]);
    if (isNewPurchase(event) && event.eventTime && !this.purchasedAt.has(orderId)) {
      this.purchasedAt.set(orderId, event.eventTime);
    }
    const latest = this.latest.get(orderId);
    if (!latest || compareEventTime(event, latest) >= 0) this.latest.set(orderId, event);
    if (isWaitingForAction(this.latest.get(orderId)?.statusCode))
      this.waiting.set(orderId, this.purchasedAt.get(orderId));
    else this.waiting.delete(orderId);
  }
}

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
