// Whether a marked status is still in its grace period, held unsent so it can be undone: the
// outbox decides by it, and the window shows Undo by it. Imports nothing, so every process may use it.

/** The longest grace period (the settings' undoSeconds at most). */
export const LONGEST_HOLD_SECONDS = 60;

/**
 * Held until its end, and never longer than the longest hold from now: a clock set back after the
 * mark (by hand, or by NTP) would otherwise keep it from the marketplace for as long as it went back.
 */
export function isHeld(item: { state: string; notBefore?: string | undefined }, now: number): boolean {
  if (item.state !== 'pending' || item.notBefore === undefined) return false;
  const left = Date.parse(item.notBefore) - now;
  return left > 0 && left <= LONGEST_HOLD_SECONDS * 1000;
}
