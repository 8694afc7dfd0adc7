import { describe, expect, it } from 'vitest';
import { BODY_MAX, linkless, TITLE_MAX } from '../../preload/marketplace-text';
import {
  CONTROL_OR_BIDI,
  hostileOrder,
  LINK_SHAPED,
  MARKUP,
  SPOOFED_TOTAL,
} from '../../test/support/hostile-order';
import type { Order } from './api/wire';
import {
  automationFailedNotification,
  briefOf,
  dueReminders,
  type OrderBrief,
  purchaseNotifications,
  reminderNotifications,
  resumeSummary,
} from './notification-policy';

const brief = (n: number): OrderBrief => ({
  orderId: `o${n}`,
  buyer: `Buyer ${n}`,
  product: 'Suite × 2',
  total: '€10.00',
});

describe('purchase notifications', () => {
  it('are one per order up to three', () => {
    expect(purchaseNotifications([brief(1), brief(2), brief(3)]).map((n) => n.orderId)).toEqual([
      'o1',
      'o2',
      'o3',
    ]);
  });

  it('become one summary past three, naming two buyers and counting the rest', () => {
    expect(purchaseNotifications([1, 2, 3, 4].map(brief))).toEqual([
      { kind: 'summary', title: '4 new orders', body: 'From Buyer 1, Buyer 2 and 2 more' },
    ]);
  });

  it("name the account where the app serves several: each title, a summary's, a reminder's, an urgent one's", () => {
    const inEu = (n: number): OrderBrief => ({ ...brief(n), account: 'EU' });
    expect(purchaseNotifications([inEu(1)])[0]?.title).toBe('New order in EU from Buyer 1');
    expect(purchaseNotifications([1, 2, 3, 4].map(inEu))[0]?.title).toBe('4 new orders in EU');
    expect(resumeSummary([inEu(1)])[0]?.title).toBe('1 new order while paused in EU');
    expect(reminderNotifications([inEu(1)], '4 hours')[0]?.title).toBe('Still waiting in EU: Buyer 1');
    expect(reminderNotifications([1, 2, 3, 4].map(inEu), '4 hours')[0]?.title).toBe(
      '4 orders still waiting in EU',
    );
    expect(reminderNotifications([inEu(1)], '1 hour', true)[0]?.title).toBe(
      'Urgent: not started in EU, Buyer 1',
    );
    expect(reminderNotifications([1, 2, 3, 4].map(inEu), '1 hour', true)[0]?.title).toBe(
      'Urgent: 4 new orders not started in EU',
    );
    // An automation may serve several accounts: which one's order it failed for.
    expect(automationFailedNotification(inEu(1), 'provision', 'exit status 2').title).toBe(
      'Automation provision failed in EU',
    );
  });

  it('are none for no orders', () => {
    expect(purchaseNotifications([])).toEqual([]);
    expect(resumeSummary([])).toEqual([]);
  });
});

describe('notifications about a hostile buyer', () => {
  const hostile = (n: number): OrderBrief => ({
    ...briefOf(`o${n}`, hostileOrder as unknown as Order, 'en'),
    orderId: `o${n}`,
  });
  const all = [
    ...purchaseNotifications([hostile(1)]),
    ...purchaseNotifications([1, 2, 3, 4].map(hostile)),
    ...resumeSummary([hostile(1)]),
    ...reminderNotifications([hostile(1)], '4 hours'),
  ];

  it('carry plain text within the lengths: no control or bidi character, title ≤ 64, body ≤ 200', () => {
    expect(all).toHaveLength(4);
    for (const { title, body } of all) {
      expect(title).not.toMatch(CONTROL_OR_BIDI);
      expect(body).not.toMatch(CONTROL_OR_BIDI);
      expect(`${title} ${body}`).not.toMatch(LINK_SHAPED);
      expect(Array.from(title).length).toBeLessThanOrEqual(TITLE_MAX);
      expect(Array.from(body).length).toBeLessThanOrEqual(BODY_MAX);
    }
    expect(all[0]?.title).toBe(`New order from ${linkless(MARKUP.slice(0, 48))}…`);
  });

  it('always show the total, however long the product name', () => {
    expect(all[0]?.body).toBe(`${SPOOFED_TOTAL.slice(1, -1)} × 1 — €9,999.99`);
    const long = purchaseNotifications([{ ...hostile(1), product: 'P'.repeat(5000) }]);
    expect(long[0]?.body).toMatch(/^P+… — €9,999\.99$/);
  });

  it('in a summary, name two buyers and still count the rest', () => {
    const summary = purchaseNotifications(
      [1, 2, 3, 4].map((n) => ({ ...brief(n), buyer: `${n}${'B'.repeat(500)}` })),
    );
    expect(summary[0]?.body).toMatch(/^From 1B+…, 2B+… and 2 more$/);
  });
});

describe('order brief', () => {
  const order: Order = {
    orderTypeCode: 'Purchase',
    documentCurrencyCode: 'SEK',
    buyerCustomerParty: { party: { partyName: 'Fjord AB' } },
    sellerSupplierParty: {},
    anticipatedMonetaryTotal: { amount: 1500, currencyCode: 'SEK' },
    documentLines: [
      { lineItem: { name: 'Suite', quantity: { value: 12 } } },
      { lineItem: { name: 'Support' } },
    ],
  };

  it('says buyer, first product × quantity with the rest counted, and the total in its currency', () => {
    expect(briefOf('o1', order, 'en')).toEqual({
      orderId: 'o1',
      buyer: 'Fjord AB',
      product: 'Suite × 12 and 1 more',
      total: expect.stringMatching(/^SEK\s1,500\.00$/),
    });
  });

  it("writes the total in the locale it is given, the runtime's by default", () => {
    expect(briefOf('o1', order, 'de-DE').total).toMatch(/^1\.500,00\sSEK$/);
    expect(briefOf('o1', order).total).toBe(
      new Intl.NumberFormat(undefined, { style: 'currency', currency: 'SEK' }).format(1500),
    );
  });

  it('still says something when the order could not be fetched', () => {
    expect(briefOf('o1', undefined)).toEqual({
      orderId: 'o1',
      buyer: 'A buyer',
      product: 'a product',
      total: '',
    });
  });

  it('keeps an unknown currency code as it is', () => {
    const odd = { ...order, anticipatedMonetaryTotal: { amount: 5, currencyCode: 'XYZW' } };
    expect(briefOf('o1', odd).total).toBe('5 XYZW');
  });
});

describe('reminders', () => {
  it('are due once an order waited the configured age, once, and never when off', () => {
    const waiting = [
      { orderId: 'old', since: 0 },
      { orderId: 'young', since: 50 },
      { orderId: 'done', since: 0 },
    ];
    expect(dueReminders(waiting, new Set(['done']), 100, 60).map((o) => o.orderId)).toEqual(['old']);
    expect(dueReminders(waiting, new Set(), 100, 0)).toEqual([]);
  });
});
