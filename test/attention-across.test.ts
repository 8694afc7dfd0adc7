// The Needs attention merge (attention-across.ts) on its own: each kind in one account's order
// across accounts, at most ATTENTION_SHOWN of a kind in all, counts summed, each item tagged,
// a snooze kept with its own account's order (the same id may be another account's).
import { describe, expect, it } from 'vitest';
import { attentionAcross } from '../main/core/attention-across';
import { type AccountAttention, ATTENTION_SHOWN, type InboxRow, NO_ATTENTION } from '../preload/model';
import { NOTHING_TO_ATTEND } from './support/renderer/fake-bridge';

const LIMITS = { reminderAfterMinutes: 15, stalledAfterDays: 7, escalateAfterMinutes: 60 };
const at = (minute: number) => new Date(Date.UTC(2026, 10, 26, 10, minute)).toISOString();

function row(orderId: string, minute: number): InboxRow {
  return {
    orderId,
    status: 'ProvisioningStarted',
    purchaseType: 'ServicePurchased',
    since: at(minute),
    statusSince: at(minute),
    waitingSince: at(minute),
    waiting: true,
    unopened: false,
    backlog: false,
    delivery: null,
  };
}

/** One account's view: nothing but `more`. */
const account = (more: Partial<AccountAttention>): AccountAttention => ({
  ...NOTHING_TO_ATTEND,
  ...LIMITS,
  snoozed: {},
  ...more,
});

describe('Needs attention across accounts', () => {
  it('orders each kind as one account does, tags each item, sums the counts and keeps snoozes to their account', () => {
    const eu = account({
      counts: { ...NO_ATTENTION, notStarted: 2, stalled: 1 },
      notStarted: [row('o-1', 50), row('o-2', 10)],
      stalled: [row('s-eu', 30)],
      snoozed: { 'o-1': at(59) },
    });
    const us = account({
      counts: { ...NO_ATTENTION, notStarted: 2, stalled: 2 },
      notStarted: [row('o-1', 40), row('o-9', 5)],
      // A time not readable goes last.
      stalled: [row('s-us', 20), { ...row('s-odd', 0), statusSince: 'soon' }],
    });
    const view = attentionAcross(
      [
        { account: 'eu', attention: eu },
        { account: 'us', attention: us },
      ],
      LIMITS,
    );
    expect(view.counts).toEqual({ ...NO_ATTENTION, notStarted: 4, stalled: 3 });
    expect(view.notStarted.map((r) => [r.account, r.orderId, r.snoozedUntil])).toEqual([
      ['eu', 'o-1', at(59)],
      ['us', 'o-1', undefined],
      ['eu', 'o-2', undefined],
      ['us', 'o-9', undefined],
    ]);
    expect(view.stalled.map((r) => r.orderId)).toEqual(['s-us', 's-eu', 's-odd']);
  });

  it('sends at most ATTENTION_SHOWN of a kind in all, the counts still whole', () => {
    const many = (prefix: string, offset: number) =>
      account({
        counts: { ...NO_ATTENTION, notStarted: ATTENTION_SHOWN },
        notStarted: Array.from({ length: ATTENTION_SHOWN }, (_, i) =>
          row(`${prefix}-${i}`, 59 - 2 * i - offset),
        ),
      });
    const view = attentionAcross(
      [
        { account: 'eu', attention: many('eu', 0) },
        { account: 'us', attention: many('us', 1) },
      ],
      LIMITS,
    );
    expect(view.notStarted).toHaveLength(ATTENTION_SHOWN);
    expect(view.counts.notStarted).toBe(2 * ATTENTION_SHOWN);
    expect(view.notStarted.slice(0, 4).map((r) => r.orderId)).toEqual(['eu-0', 'us-0', 'eu-1', 'us-1']);
  });
});
