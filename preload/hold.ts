// Whether a marked status is still in its grace period, held unsent so it can be undone: the
// outbox decides by it, and the window shows Undo by it. Imports nothing, so every process may use it.

/** The longest grace period (the settings' undoSeconds at most). */
export const LONGEST_HOLD_SECONDS = 60;

/**
 * What is left at `now` of a wait planned in this laptop's clock to end at `untilMs` and last
 * `lastsMs`: none once it ended, nor when more is left than it lasts. The clock was then set back
 * after it was planned (by hand, or by NTP), or had run ahead: counted as it is, the wait would
 * last as much longer. The one rule of every such wait (docs/design-notes.md, "Causality, not
 * clocks"): the marketplace's Retry-After (client.ts), a refused secret's retry (poller.ts), an open
 * order's refresh and the planner's hourly statistics (seller-core.ts), a mark's hold, an access
 * token's renewal (access-token.ts).
 */
export function waitLeftMs(untilMs: number, lastsMs: number, now: number): number {
  const leftMs = untilMs - now;
  return leftMs > lastsMs ? 0 : Math.max(0, leftMs);
}

/** Held until its end, and never longer than the longest hold (waitLeftMs). */
export function isHeld(item: { state: string; notBefore?: string | undefined }, now: number): boolean {
  if (item.state !== 'pending' || item.notBefore === undefined) return false;
  return waitLeftMs(Date.parse(item.notBefore), LONGEST_HOLD_SECONDS * 1000, now) > 0;
}
