// When to try a failed call again, and how long to wait first.

export interface RetryPolicy {
  /** Tries of one call in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited out: the call fails and says so. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/**
 * The wait before retry number `retry` (1 for the first retry): capped exponential backoff
 * with full jitter, so that many laptops recovering at once do not retry in step. A
 * server's Retry-After takes precedence.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  retry: number,
  random: () => number,
  retryAfterSeconds?: number,
): number {
  if (retryAfterSeconds !== undefined) return retryAfterSeconds * 1000;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Retry-After in seconds, from either form HTTP allows (delta seconds or a date). */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - nowMs) / 1000));
}
