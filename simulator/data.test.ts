import { describe, expect, it } from 'vitest';
import { License, MarketplaceEvent, Order, orderIdOf } from '../main/core/api/wire';
import { formatEventTime, parseEventMicros } from './data';
import { MarketplaceStore } from './store';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const setups = [{ sellerId: 1001, clients: [{ clientId: 'c', clientSecret: 's' }], orders: 300 }];

function withoutKey(store: MarketplaceStore) {
  const { signingKey: _, ...rest } = store.snapshot();
  return rest;
}

describe('generated marketplace', () => {
  const store = MarketplaceStore.generate(42, setups, () => NOW);
  const { sellers } = store.snapshot();
  const seller = sellers[0];
  if (!seller) throw new Error('no seller');
  const orders = seller.orders.map((o) => Order.parse(o));
  const addresses = orders.flatMap((o) => [
    o.buyerCustomerParty.party?.postalAddress,
    o.sellerSupplierParty.party?.postalAddress,
  ]);

  it('is the same for the same seed and start time, and differs for another seed', () => {
    expect(withoutKey(MarketplaceStore.generate(42, setups, () => NOW))).toEqual(withoutKey(store));
    expect(withoutKey(MarketplaceStore.generate(43, setups, () => NOW)).sellers[0]?.orders[0]).not.toEqual(
      seller.orders[0],
    );
  });

  it('holds valid orders, licenses and events only', () => {
    expect(orders).toHaveLength(300);
    for (const license of seller.licenses) License.parse(license);
    for (const { event } of seller.events) MarketplaceEvent.parse(event);
  });

  it('populates every UBL part in its variants', () => {
    expect(addresses.some((a) => a?.addressLine !== undefined)).toBe(true);
    expect(addresses.some((a) => a?.addressLine1 !== undefined && a.addressLine2 !== undefined)).toBe(true);
    expect(addresses.some((a) => a?.addressLine3 !== undefined)).toBe(true);
    expect(orders.some((o) => (o.buyerCustomerParty.party?.partyIdentifications?.length ?? 0) >= 2)).toBe(
      true,
    );
    expect(orders.some((o) => o.documentLines.length >= 3)).toBe(true);
    expect(orders.some((o) => o.documentLines.some((l) => l.note && l.lineItem?.delivery?.contact))).toBe(
      true,
    );
    expect(orders.some((o) => o.note)).toBe(true);
    expect(orders.some((o) => o.buyerCustomerParty.buyerContact?.note)).toBe(true);
    expect(orders.every((o) => o.validityPeriod?.startDate && o.validityPeriod.endDate)).toBe(true);
    expect(new Set(orders.map((o) => o.documentCurrencyCode)).size).toBeGreaterThanOrEqual(4);
    expect(orders.some((o) => !Number.isInteger(o.anticipatedMonetaryTotal?.amount))).toBe(true);
  });

  it('totals each order from its lines', () => {
    for (const order of orders) {
      const total = order.documentLines.reduce((sum, { lineItem }) => {
        const quantity = lineItem?.quantity?.value ?? 0;
        const price = lineItem?.price?.priceAmount?.amount ?? 0;
        return sum + (quantity * price) / (lineItem?.price?.baseQuantity?.value ?? 1);
      }, 0);
      expect(order.anticipatedMonetaryTotal?.amount).toBeCloseTo(total, 1);
    }
  });

  it('gives every contact a well-formed e-mail address', () => {
    const mails = [
      ...seller.licenses.map((l) => l.electronicMail),
      ...orders.map((o) => o.buyerCustomerParty.buyerContact?.electronicMail),
    ];
    for (const mail of mails) expect(mail).toMatch(/^[a-z]+(\.[a-z]+)+@[a-z]+\.example$/);
  });

  it('links every license and event to an order of the seller', () => {
    const ids = new Set(orders.map((o) => o.orderId));
    for (const license of seller.licenses) expect(ids.has(orderIdOf(license) ?? '')).toBe(true);
    for (const { event } of seller.events) expect(ids.has(orderIdOf(event) ?? '')).toBe(true);
  });

  it('gives every order its purchase event, and some orders progress in every status', () => {
    const purchases = seller.events.filter((e) => e.fromMarketplace);
    expect(purchases).toHaveLength(300);
    expect(purchases.every((e) => e.event.statusCode === 'ProvisioningStarted')).toBe(true);
    const statuses = new Set(seller.events.filter((e) => !e.fromMarketplace).map((e) => e.event.statusCode));
    expect([...statuses].sort()).toEqual([
      'ProvisioningCompleted',
      'ProvisioningFailed',
      'ProvisioningInProgress',
    ]);
  });

  it('leaves the newest purchases unseen and everything else seen, all in the past', () => {
    const unseen = seller.events.filter((e) => seller.newEventIds.includes(e.event.eventId));
    expect(unseen.length).toBe(30);
    expect(unseen.every((e) => e.event.seenTime === undefined)).toBe(true);
    expect(seller.events.every((e) => parseEventMicros(e.event.eventTime) <= NOW * 1000)).toBe(true);
  });

  it('orders events by time then id', () => {
    const times = seller.events.map((e) => e.event.eventTime);
    expect([...times].sort()).toEqual(times);
  });
});

describe('event times', () => {
  it('carry microseconds and a UTC offset, and read back exactly', () => {
    const micros = Date.parse('2026-11-21T12:00:00.123Z') * 1000 + 456;
    expect(formatEventTime(micros)).toBe('2026-11-21T12:00:00.123456+00:00');
    expect(parseEventMicros(formatEventTime(micros))).toBe(micros);
  });
});
