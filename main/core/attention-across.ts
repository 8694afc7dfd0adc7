// Needs attention across the served accounts: each account's lists (read from its store alone,
// SellerCore.attention) merged into one view, each kind in the order one account's store lists
// it, at most ATTENTION_SHOWN of each kind in all; the counts summed (the state's and the tray's
// counts are summed here too); each item naming its account, so what is done about it (Send
// again, snooze, mark seen, open) goes to that account.
import {
  type AccountAttention,
  ATTENTION_SHOWN,
  type Attention,
  type AttentionCounts,
  type AttentionMark,
  NO_ATTENTION,
  type OfAccount,
} from '../../preload/model';

/** One served account's Needs attention. */
export interface AttentionSource {
  account: string;
  attention: AccountAttention;
}

/** The limits the view says it was drawn with: the settings', the same for every account. */
export type AttentionShownLimits = Pick<
  Attention,
  'reminderAfterMinutes' | 'stalledAfterDays' | 'escalateAfterMinutes'
>;

/** Every kind's count, added over the accounts. */
export function sumAttentionCounts(counts: readonly AttentionCounts[]): AttentionCounts {
  const sum = { ...NO_ATTENTION };
  const kinds = Object.keys(sum) as (keyof AttentionCounts)[];
  for (const each of counts) for (const kind of kinds) sum[kind] += each[kind];
  return sum;
}

/** A time as a number to compare; one not readable goes last either way (Infinity/-Infinity by `missing`). */
const time = (iso: string | undefined, missing: number) => {
  const ms = Date.parse(iso ?? '');
  return Number.isNaN(ms) ? missing : ms;
};

/** Statuses in the order they were marked (each outbox's order). */
const byMarked = (a: AttentionMark, b: AttentionMark) =>
  time(a.item.createdAt, Infinity) - time(b.item.createdAt, Infinity);

/** The view of every source, in their order (ties between accounts go by it). */
export function attentionAcross(
  sources: readonly AttentionSource[],
  limits: AttentionShownLimits,
  shown = ATTENTION_SHOWN,
): Attention {
  /** One kind's items of every account, each tagged, merged by `compare` (the store's ORDER BY). */
  const merged = <T>(
    pick: (attention: AccountAttention) => T[],
    compare: (a: T, b: T) => number,
  ): OfAccount<T>[] => {
    const lists = sources.map(({ account, attention }) =>
      pick(attention).map((item) => ({ ...item, account })),
    );
    // One account: its store's order as it is. Several: a stable sort keeps each one's order.
    const all = lists.length === 1 ? (lists[0] ?? []) : lists.flat().sort(compare);
    return all.slice(0, shown);
  };
  const snoozed = new Map(sources.map(({ account, attention }) => [account, attention.snoozed]));
  return {
    counts: sumAttentionCounts(sources.map((s) => s.attention.counts)),
    // The newest wait past the reminder delay first, as each row counts it (this laptop's clock).
    notStarted: merged(
      (a) => a.notStarted,
      (a, b) => time(b.waitingSince, -Infinity) - time(a.waitingSince, -Infinity),
    ).map((row) => {
      const until = snoozed.get(row.account)?.[row.orderId];
      return until === undefined ? row : { ...row, snoozedUntil: until };
    }),
    // The longest in progress first.
    stalled: merged(
      (a) => a.stalled,
      (a, b) => time(a.statusSince, Infinity) - time(b.statusSince, Infinity),
    ),
    unconfirmed: merged((a) => a.unconfirmed, byMarked),
    failed: merged((a) => a.failed, byMarked),
    // The newest kept aside first.
    keptAside: merged(
      (a) => a.keptAside,
      (a, b) => time(b.seenAt, -Infinity) - time(a.seenAt, -Infinity),
    ),
    ...limits,
  };
}
