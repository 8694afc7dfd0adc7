// @vitest-environment happy-dom
import { cleanup, renderHook } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { REPEATED_PRESS_MS, useRepeatGuard } from './useRepeatGuard';

afterEach(() => {
  vi.restoreAllMocks();
  cleanup();
});

it('takes a press at once after a mark as its repeat, and one after REPEATED_PRESS_MS as a new decision', async () => {
  const { result } = renderHook(() => useRepeatGuard());
  expect(result.current.tooSoon()).toBe(false);
  result.current.marked();
  expect(result.current.tooSoon()).toBe(true);
  await new Promise((r) => setTimeout(r, REPEATED_PRESS_MS + 50));
  expect(result.current.tooSoon()).toBe(false);
});

it('takes a press after the clock was set back as a new decision once REPEATED_PRESS_MS passed', async () => {
  const { result } = renderHook(() => useRepeatGuard());
  result.current.marked();
  await new Promise((r) => setTimeout(r, REPEATED_PRESS_MS + 50));
  // Set back 3 hours (by hand, or NTP): the mark reads as hours ahead; every press would be its repeat.
  const now = Date.now();
  vi.spyOn(Date, 'now').mockReturnValue(now - 3 * 3_600_000);
  expect(result.current.tooSoon()).toBe(false);
});
