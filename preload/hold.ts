// Whether a marked status is still in its grace period, held unsent so it can be undone: the
// outbox decides by it, and the window shows Undo by it. Imports nothing, so every process may use it.

export function isHeld(item: { state: string; notBefore?: string | undefined }, now: number): boolean {
  return item.state === 'pending' && item.notBefore !== undefined && Date.parse(item.notBefore) > now;
}
