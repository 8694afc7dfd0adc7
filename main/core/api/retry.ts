// When to try a failed call again, and how long to wait first.

export interface RetryPolicy {
  /** Tries of one call in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited out: the call fails and says so. */
  maxRetryAfterMs: number;
  /**
   * Whether a refused connection (nothing listens at the address) is tried again: the app's
   * polls, which nobody waits on, do; the CLI's commands, which a person waits on, tell it at once.
   */
  retryRefused: boolean;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  retryRefused: true,
};

/**
 * The wait before retry number `retry` (1 for the first retry): capped exponential backoff
 * with full jitter, so that many laptops recovering at once do not retry in step. A server's
 * Retry-After makes it longer, never shorter: a "0" or a date in the past still waits the
 * backoff (the floor).
 */
export function retryDelayMs(
  policy: RetryPolicy,
  retry: number,
  random: () => number,
  retryAfterSeconds?: number,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  const backoff = Math.round(ceiling / 2 + (random() * ceiling) / 2);
  return Math.max(backoff, (retryAfterSeconds ?? 0) * 1000);
}

/**
 * The longest Retry-After believed (the ceiling): the poller's own longest backoff. A server
 * asking for hours (or a date years ahead) is asked again after this.
 */
export const RETRY_AFTER_MAX_SECONDS = 15 * 60;

/** HTTP's date form (IMF-fixdate, RFC 9110 §5.6.7): "Sun, 06 Nov 1994 08:49:37 GMT". */
const HTTP_DATE = /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * Retry-After in seconds, from either form HTTP allows (delta seconds, a fraction rounded up,
 * or a date), at most `RETRY_AFTER_MAX_SECONDS`; anything else (negative, garbage, a date in
 * another form) is no Retry-After at all.
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  const text = value?.trim() ?? '';
  let seconds: number | undefined;
  if (/^\d+(\.\d+)?$/.test(text)) seconds = Math.ceil(Number(text));
  else if (HTTP_DATE.test(text)) seconds = Math.max(0, Math.ceil((Date.parse(text) - nowMs) / 1000));
  return seconds === undefined || !Number.isFinite(seconds)
    ? undefined
    : Math.min(seconds, RETRY_AFTER_MAX_SECONDS);
}
