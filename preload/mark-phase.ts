// Where a status the user marked is, in one place, so the undo bar, the order's action line and
// its history never tell it differently: Held (can be undone) → Sending → Sent (the marketplace
// accepted it) → Confirmed (its history lists it); or Undone, or Refused. Imports nothing from
// main/, so every process may use it.
import { isHeld } from './hold';
import type { OutboxItem, SettledMark } from './model';

export type MarkPhase = 'held' | 'sending' | 'sent' | 'confirmed' | 'undone' | 'refused';

export type Mark = OutboxItem | SettledMark;

export function markPhase(mark: Mark, now: number): MarkPhase {
  if ('outcome' in mark) return mark.outcome;
  switch (mark.state) {
    case 'pending':
      return isHeld(mark, now) ? 'held' : 'sending';
    case 'sent':
      return 'sent';
    case 'failed':
      return 'refused';
  }
}

/**
 * When the mark reached a phase that is a fact (sent, confirmed, undone: ISO time). Held and
 * sending have none to say: after "tries again by itself" a time would read as when it will.
 */
export function markPhaseTime(mark: Mark): string | undefined {
  if ('outcome' in mark) return mark.settledAt;
  return mark.state === 'sent' ? mark.sentAt : undefined;
}

/** The words of the phases that say the same whatever the mark. */
export const MARK_PHASE_WORDS = {
  sent: 'Sent: the marketplace accepted it',
  confirmed: 'Confirmed: the marketplace lists it',
  undone: 'Undone: the marketplace was not told',
  refused: 'Not sent: the marketplace refused it',
} as const satisfies Partial<Record<MarkPhase, string>>;

/** The phase in words, for people; a failure's own words are the caller's to add. */
export function markPhaseWords(mark: Mark, now: number): string {
  const phase = markPhase(mark, now);
  switch (phase) {
    case 'held': {
      const item = mark as OutboxItem;
      const seconds = Math.round((Date.parse(item.notBefore ?? '') - Date.parse(item.createdAt)) / 1000);
      return `Held ${seconds} s so it can be undone, then sent`;
    }
    case 'sending':
      return (mark as OutboxItem).problem ? 'Not sent yet; Seller Tray tries again by itself' : 'Sending';
    default:
      return MARK_PHASE_WORDS[phase];
  }
}

/** The latest of an order's marks, live or settled. */
export function latestMark(outbox: readonly OutboxItem[], settled: readonly SettledMark[]): Mark | undefined {
  return [...outbox, ...settled].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt)).at(-1);
}
