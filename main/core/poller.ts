// The one component that decides when to poll: on an interval, sooner when asked (Check
// now, resume from sleep, network back), later after errors, and not at all once the
// credentials are rejected, until they change.
import { SellerApiError } from './api/errors';

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export type PollerState = 'idle' | 'polling' | 'backing-off' | 'credentials-rejected' | 'paused' | 'stopped';

/** After errors the wait doubles from this, up to the cap. */
const FIRST_BACKOFF_MS = 15_000;
const MAX_BACKOFF_MS = 15 * 60_000;

/**
 * The wait before the next poll: the interval after a success; after `failures` failures
 * in a row a doubling backoff (with jitter, so laptops that lost the network together do
 * not return together), never shorter than the server's Retry-After, never longer than
 * the cap or, unless the server asks, the regular interval times the failures.
 */
export function nextPollDelayMs(
  intervalMs: number,
  failures: number,
  error: unknown,
  random: () => number,
): number {
  if (failures === 0) return intervalMs;
  const doubling = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (failures - 1));
  const jittered = Math.round(doubling * (0.8 + random() * 0.4));
  const retryAfterMs =
    error instanceof SellerApiError && error.retryAfterSeconds !== undefined
      ? error.retryAfterSeconds * 1000
      : 0;
  return Math.max(Math.min(jittered, MAX_BACKOFF_MS), retryAfterMs);
}

export interface PollerOptions {
  poll: () => Promise<void>;
  intervalMs: () => number;
  timers: Timers;
  random?: () => number;
  onState?: (state: PollerState, error?: unknown) => void;
}

export class Poller {
  private timer: unknown;
  private running: Promise<void> | undefined;
  private again = false;
  private failures = 0;
  private current: PollerState = 'stopped';

  constructor(private readonly options: PollerOptions) {}

  get state(): PollerState {
    return this.current;
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
        this.setState('idle');
      } catch (error) {
        if (error instanceof SellerApiError && error.credentialsRejected) {
          // Polling again cannot help; it would only hammer the server.
          this.failures = 0;
          this.setState('credentials-rejected', error);
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
    this.timer = this.options.timers.setTimeout(() => {
      this.timer = undefined;
      void this.pollNow();
    }, delay);
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) this.options.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private setState(state: PollerState, error?: unknown): void {
    // A poll that ends after stop() or pause() does not revive the poller.
    if (!this.isActive()) return;
    this.current = state;
    this.options.onState?.(state, error);
  }
}
