// The one component that decides when to poll: on an interval, sooner when asked (Check
// now, resume from sleep, network back), later after errors, and once the credentials are
// rejected only when they change (asked at the interval, without a poll) or, unchanged, seldom.
import { waitLeftMs } from '../../preload/hold';
import { SellerApiError } from './api/errors';

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export type PollerState = 'idle' | 'polling' | 'backing-off' | 'credentials-rejected' | 'paused' | 'stopped';

/** After errors the wait doubles from this, up to the poll interval. */
const FIRST_BACKOFF_MS = 15_000;
/** The longest wait, whatever the server asks. */
const MAX_BACKOFF_MS = 15 * 60_000;
/**
 * A refused secret, unchanged, is tried again after this, the wait doubling up to an hour: the
 * marketplace may enable the client again, or a gateway may have refused it by mistake. At most one
 * call an hour, where the polls it replaces made one or more a minute.
 */
const SAME_SECRET_FIRST_MS = 15 * 60_000;
const SAME_SECRET_MAX_MS = 60 * 60_000;
/** A regular wait is this share longer or shorter at random: laptops started together drift apart. */
const INTERVAL_JITTER = 0.1;

/** `ms` at a random point of [1 - spread, 1 + spread] times it. */
function jittered(ms: number, spread: number, random: () => number): number {
  return Math.round(ms * (1 - spread + 2 * spread * random()));
}

/**
 * The wait before the next poll: the interval after a success (±10%, so many laptops of one
 * seller spread their polls); after `failures` failures in a row a wait doubling from 15 s up to
 * the interval, at a random point between half and one and a half times it (so laptops that lost
 * the marketplace together do not return together, and each is back within 1.5 intervals of its
 * return); never shorter than the server's Retry-After, never longer than 15 minutes.
 */
export function nextPollDelayMs(
  intervalMs: number,
  failures: number,
  error: unknown,
  random: () => number,
): number {
  if (failures === 0) return jittered(intervalMs, INTERVAL_JITTER, random);
  const doubling = Math.min(intervalMs, FIRST_BACKOFF_MS * 2 ** (failures - 1));
  const retryAfterMs =
    error instanceof SellerApiError && error.retryAfterSeconds !== undefined
      ? error.retryAfterSeconds * 1000
      : 0;
  return Math.min(MAX_BACKOFF_MS, Math.max(jittered(doubling, 0.5, random), retryAfterMs));
}

export interface PollerOptions {
  poll: () => Promise<void>;
  intervalMs: () => number;
  timers: Timers;
  random?: () => number;
  /** The clock nextPollAt is read on. */
  now?: () => number;
  /** A clock no one sets (performance.now): what is left of the timer's wait is counted on it. */
  elapsed?: () => number;
  onState?: (state: PollerState, error?: unknown) => void;
  /**
   * While the credentials are rejected, asked at the interval whether they changed since (another
   * process may replace them: the CLI for the app, the app for `run`); true polls at once. It must
   * not call the marketplace: only a new secret can make the next poll different.
   */
  credentialsChanged?: () => Promise<boolean>;
  /** Before the refused secret is tried again unchanged: lets it be sent once more. */
  retrySameSecret?: () => void;
}

export class Poller {
  private timer: unknown;
  /** When the timer fires, on the `elapsed` clock. */
  private timerDue: number | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private failures = 0;
  /** Refusals of this secret in a row, and when it is tried again unchanged. */
  private refusals = 0;
  private sameSecretAt = 0;
  /** How long the refused secret's wait lasts (sameSecretAt is its end). */
  private sameSecretWaitMs = 0;
  private current: PollerState = 'stopped';

  constructor(private readonly options: PollerOptions) {}

  get state(): PollerState {
    return this.current;
  }

  /** When the next poll is due (ms); undefined while one runs and when none will (stopped, paused, credentials rejected). */
  get nextPollAt(): number | undefined {
    if (this.timerDue === undefined) return undefined;
    return this.clock() + Math.max(0, this.timerDue - this.elapsed());
  }

  /** Starts polling now and on the interval; resolves when the first poll ended. */
  start(): Promise<void> {
    if (this.isActive()) return this.running ?? Promise.resolve();
    this.current = 'idle';
    this.options.onState?.('idle');
    return this.pollNow();
  }

  stop(): void {
    this.halt('stopped');
  }

  /** Resolves when no poll is running (one still running after stop() ends by itself). */
  idle(): Promise<void> {
    return this.running?.catch(() => undefined) ?? Promise.resolve();
  }

  /** Stops polling until start(); the state says so. */
  pause(): void {
    this.halt('paused');
  }

  private halt(state: 'stopped' | 'paused'): void {
    this.cancelTimer();
    this.current = state;
    this.options.onState?.(state);
  }

  /**
   * Polls at once (Check now, resume, network back). A poll already running is followed
   * by one more, so nothing that happened meanwhile is missed. Also the way out of the
   * credentials-rejected state, once the credentials changed.
   */
  pollNow(): Promise<void> {
    if (!this.isActive()) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.cancelTimer();
    this.running = this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      this.setState('polling');
      try {
        await this.options.poll();
        this.failures = 0;
        this.refusals = 0;
        this.setState('idle');
      } catch (error) {
        if (error instanceof SellerApiError && error.credentialsRejected) {
          // Polling again cannot help; it would only hammer the server.
          this.failures = 0;
          this.refusals += 1;
          const wait = Math.min(SAME_SECRET_MAX_MS, SAME_SECRET_FIRST_MS * 2 ** (this.refusals - 1));
          this.sameSecretWaitMs = jittered(wait, INTERVAL_JITTER, this.options.random ?? Math.random);
          this.sameSecretAt = this.clock() + this.sameSecretWaitMs;
          this.setState('credentials-rejected', error);
          this.scheduleRecheck();
          return;
        }
        this.failures += 1;
        this.setState('backing-off', error);
        this.schedule(error);
        return;
      }
    } while (this.again && this.isActive());
    this.schedule(undefined);
  }

  private isActive(): boolean {
    return this.current !== 'stopped' && this.current !== 'paused';
  }

  private schedule(error: unknown): void {
    if (!this.isActive()) return;
    const delay = nextPollDelayMs(
      this.options.intervalMs(),
      this.failures,
      error,
      this.options.random ?? Math.random,
    );
    this.timerDue = this.elapsed() + delay;
    this.timer = this.options.timers.setTimeout(() => {
      this.timer = undefined;
      this.timerDue = undefined;
      void this.pollNow();
    }, delay);
  }

  /** Asks at the interval whether the rejected credentials changed, polling once they did or the same secret is due again. */
  private scheduleRecheck(): void {
    const changed = this.options.credentialsChanged;
    if (!changed || !this.isActive()) return;
    this.timer = this.options.timers.setTimeout(async () => {
      this.timer = undefined;
      const differ = await changed().catch(() => false);
      // Meanwhile a poll may have started (Check now) or the poller stopped: it then decides.
      if (this.current !== 'credentials-rejected' || this.running || this.timer !== undefined) return;
      // Another secret starts its own count of refusals: 15 minutes again, not the old one's hour.
      if (differ) {
        this.refusals = 0;
        void this.pollNow();
      } else if (this.sameSecretDue()) {
        this.options.retrySameSecret?.();
        void this.pollNow();
      } else this.scheduleRecheck();
    }, this.options.intervalMs());
  }

  /**
   * Whether the refused secret's wait is over: also when more of it is left than it lasts (the
   * laptop's clock went back since), which would otherwise hold it as much longer.
   */
  private sameSecretDue(): boolean {
    return waitLeftMs(this.sameSecretAt, this.sameSecretWaitMs, this.clock()) === 0;
  }

  private clock(): number {
    return (this.options.now ?? Date.now)();
  }

  private elapsed(): number {
    return (this.options.elapsed ?? performance.now.bind(performance))();
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) this.options.timers.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDue = undefined;
  }

  private setState(state: PollerState, error?: unknown): void {
    // A poll that ends after stop() or pause() does not revive the poller.
    if (!this.isActive()) return;
    this.current = state;
    this.options.onState?.(state, error);
  }
}
