// Fetches order documents and licenses in the background, a few at a time: what the store says
// is due (new orders first, then changed ones, then the first start's backlog). A failed fetch
// waits until the store says it is due again (a wait that grows with each failure, ended by a
// change of the order's events); a bounded wait lets a notification show the buyer and the
// amount when they arrive in time.

export interface OrderFetcherPorts {
  /** Up to `limit` orders due for fetching, newest first, none of those in `skip`. */
  due(limit: number, skip: ReadonlySet<string>): string[];
  /** Fetches one order into the store; rejects when it could not. */
  fetch(orderId: string): Promise<void>;
  /** Whether the store holds the order's document. */
  stored(orderId: string): boolean;
  /** The fetcher has nothing more to do for now (tell the views once, not per order). */
  idle(): void;
}

/** At most this many orders are fetched at once (each fetch is one request at a time). */
export const FETCH_CONCURRENCY = 4;

export class OrderFetcher {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly failed = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private stopped = false;
  /** Fetches ended, stored or failed, since the views were last told: a failure changes what they show too. */
  private endedSinceIdle = 0;
  /** The most fetches ever running at once (for the benchmark's report). */
  peakInFlight = 0;

  constructor(
    private readonly ports: OrderFetcherPorts,
    private readonly concurrency = FETCH_CONCURRENCY,
  ) {}

  /** A new round (a poll): orders that failed in the last one are tried again if they are due. */
  round(): void {
    this.failed.clear();
    this.pump();
  }

  /** Resolves when each of `orderIds` is stored or failed this round, after `ms`, or once stopped. */
  settled(orderIds: readonly string[], ms: number): Promise<void> {
    const done = () => this.stopped || orderIds.every((id) => this.failed.has(id) || this.ports.stored(id));
    if (done()) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
        resolve();
      };
      const check = () => {
        if (done()) finish();
      };
      const timer = setTimeout(finish, ms);
      this.listeners.add(check);
    });
  }

  /**
   * Fetches one order now (an order being opened), unless it is already on its way; resolves or
   * rejects with that fetch.
   */
  refresh(orderId: string): Promise<void> {
    return this.inFlight.get(orderId) ?? this.start(orderId);
  }

  /** No new fetch starts; resolves when those running have ended. */
  stop(): Promise<void> {
    this.stopped = true;
    // Those waiting for documents (an announcement) are let go: nothing more arrives for them.
    for (const listener of [...this.listeners]) listener();
    return Promise.allSettled(this.inFlight.values()).then(() => undefined);
  }

  private pump(): void {
    while (!this.stopped && this.inFlight.size < this.concurrency) {
      const skip = new Set([...this.inFlight.keys(), ...this.failed]);
      const next = this.ports.due(this.concurrency - this.inFlight.size, skip);
      if (next.length === 0) break;
      for (const orderId of next) this.start(orderId);
    }
    if (this.inFlight.size === 0 && this.endedSinceIdle > 0) {
      this.endedSinceIdle = 0;
      this.ports.idle();
    }
  }

  private start(orderId: string): Promise<void> {
    const fetching = this.ports.fetch(orderId);
    this.inFlight.set(orderId, fetching);
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight.size);
    fetching
      .catch(() => {
        this.failed.add(orderId);
      })
      .finally(() => {
        this.endedSinceIdle += 1;
        this.inFlight.delete(orderId);
        for (const listener of [...this.listeners]) listener();
        this.pump();
      });
    return fetching;
  }
}
