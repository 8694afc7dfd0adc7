// A press of a marking action right after a mark is taken for the same press (a double Enter,
// click or key), not a second decision: the order page's buttons and keys and the inbox's row
// keys all ask this one guard. Timed by the page's monotonic clock: the wall clock set back (by
// hand, or NTP) would make every press for hours a repeat.
import { useCallback, useMemo, useRef } from 'react';

/** A press of an action this soon after a mark is taken for the same press. */
export const REPEATED_PRESS_MS = 600;

export interface RepeatGuard {
  /** Whether a press now is the repeat of the mark just made. */
  tooSoon(): boolean;
  /** A mark is being made now. */
  marked(): void;
}

export function useRepeatGuard(): RepeatGuard {
  const last = useRef(Number.NEGATIVE_INFINITY);
  const tooSoon = useCallback(() => performance.now() - last.current < REPEATED_PRESS_MS, []);
  const marked = useCallback(() => {
    last.current = performance.now();
  }, []);
  return useMemo(() => ({ tooSoon, marked }), [tooSoon, marked]);
}
