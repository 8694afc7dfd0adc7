// How pressing an order in the inbox is: a waiting order is "late" past the reminder delay and
// "very late" past twice it (but for the first sync's backlog: orders there before Seller Tray
// first ran are not alarms); an order in progress longer than the in-progress limit is "stalled". Pure, so the thresholds are tested without a window; the inbox shows each as a
// word and a colour (never the colour alone).

export type Urgency = 'none' | 'late' | 'very-late' | 'stalled';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export interface UrgencyLimits {
  /** The reminder delay in minutes; 0 = reminders off, so nothing is late. */
  reminderAfterMinutes: number;
  /** Days in progress before an order is flagged; 0 = never. */
  staleInProgressDays: number;
}

export function urgencyOf(
  order: {
    waiting: boolean;
    /** Waiting since the first sync. */
    backlog?: boolean | undefined;
    status: string | undefined;
    /** While it waits: since when, for this laptop (InboxRow.waitingSince, as reminders count). */
    waitingSince?: string | undefined;
    statusSince?: string | undefined;
  },
  now: number,
  limits: UrgencyLimits,
): Urgency {
  if (order.waiting) {
    if (order.backlog) return 'none';
    const waited = now - Date.parse(order.waitingSince ?? '');
    const after = limits.reminderAfterMinutes * MINUTE;
    if (!(after > 0) || !Number.isFinite(waited)) return 'none';
    if (waited > 2 * after) return 'very-late';
    return waited > after ? 'late' : 'none';
  }
  if (order.status === 'ProvisioningInProgress' && limits.staleInProgressDays > 0) {
    const inProgress = now - Date.parse(order.statusSince ?? '');
    if (Number.isFinite(inProgress) && inProgress > limits.staleInProgressDays * DAY) return 'stalled';
  }
  return 'none';
}

/** The word that goes with an urgency, for everyone (the colour only helps). */
export const URGENCY_WORDS: Readonly<Record<Urgency, string>> = {
  none: '',
  late: 'late',
  'very-late': 'very late',
  stalled: 'stalled',
};
