import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, parseRetryAfter, retryDelayMs } from './retry';

describe('retry delay', () => {
  it('doubles up to the cap, with jitter between half and all of the ceiling', () => {
    const low = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => retryDelayMs(DEFAULT_RETRY, n, () => 0));
    const high = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => retryDelayMs(DEFAULT_RETRY, n, () => 0.999999));
    expect(low).toEqual([125, 250, 500, 1000, 2000, 4000, 4000, 4000]);
    expect(high).toEqual([250, 500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });

  it("takes the server's Retry-After over its own backoff, but never waits less than the backoff", () => {
    expect(retryDelayMs(DEFAULT_RETRY, 1, () => 0.5, 3)).toBe(3000);
    expect(retryDelayMs(DEFAULT_RETRY, 3, () => 0.5, 0)).toBe(750);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');
  it.each([
    ['120', 120],
    [' 0 ', 0],
    ['Sat, 21 Nov 2026 12:00:30 GMT', 30],
    ['Sat, 21 Nov 2026 11:00:00 GMT', 0],
    ['2.5', 3],
    ['99999999999999999999999', 900],
    ['Sat, 21 Nov 2126 12:00:00 GMT', 900],
    ['-5', undefined],
    ['1e3', undefined],
    ['garbage 12', undefined],
    ['21 Nov 2026 12:00:30', undefined],
    ['Sat, 99 Nov 2026 12:00:30 GMT', undefined],
    ['soon', undefined],
    ['', undefined],
    [null, undefined],
  ])('reads %j as %j seconds', (value, seconds) => {
    expect(parseRetryAfter(value, now)).toBe(seconds);
  });
});
