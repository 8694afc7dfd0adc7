// Realistic, seeded marketplace data: orders with every UBL part in its variants, their
// licenses, and their event histories.
import {
  type AdditionalProperty,
  type DocumentLine,
  type License,
  type MarketplaceEvent,
  ORDER_ID_PROPERTY,
  type Order,
  type Party,
  type PostalAddress,
  type StatusCode,
} from '../main/core/api/wire';
import {
  COMPANY_FORMS,
  COMPANY_KINDS,
  COMPANY_STEMS,
  CURRENCY_BY_COUNTRY,
  FAILURE_REASONS,
  FIRST_NAMES,
  LAST_NAMES,
  ORDER_NOTES,
  PLACES,
  type Place,
  PRODUCTS,
} from './catalog';
import type { Random } from './random';

const DAY_MS = 86_400_000;

/**
 * The spec's integer ids (sellerId, lineId) as the simulator writes them: JSON numbers. The app's
 * types hold them as text (wire.ts reads any id as text, whatever its size).
 */
export const specInteger = (n: number): string => n as unknown as string;

export interface Purchase {
  order: Order & { orderId: string; issueTime: string };
  licenses: License[];
}

/** One marketplace: a seller's orders, licenses and events, the events ordered by time. */
export interface SellerData {
  orders: Purchase['order'][];
  licenses: License[];
  events: StoredEvent[];
}

/** An event as stored: `fromMarketplace` events are the ones the "new" listing offers. */
export interface StoredEvent {
  event: MarketplaceEvent & { eventId: string; eventTime: string };
  fromMarketplace: boolean;
}

export function orderIdProperty(orderId: string, withDescription: boolean): AdditionalProperty {
  return withDescription
    ? { name: ORDER_ID_PROPERTY, value: orderId, description: 'Identifier of the related order' }
    : { name: ORDER_ID_PROPERTY, value: orderId };
}

const round2 = (n: number): number => Math.round(n * 100) / 100;
const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function personName(random: Random): string {
  return `${random.pick(FIRST_NAMES)} ${random.pick(LAST_NAMES)}`;
}

function emailOf(name: string, company: string): string {
  const local = name
    .toLowerCase()
    .normalize('NFD')
    .replace(/[^a-z ]/g, '')
    .replace(/ +/g, '.');
  const domain =
    company
      .toLowerCase()
      .split(' ')[0]
      ?.replace(/[^a-z]/g, '') ?? 'example';
  return `${local}@${domain}.example`;
}

/** Addresses come in either variant the spec allows: one `addressLine`, or lines 1 to 3. */
function postalAddress(random: Random, place: Place): PostalAddress {
  const street = `${random.pick(place.streets)} ${random.int(1, 120)}`;
  const address: PostalAddress = {
    cityName: place.city,
    postalZone: place.postalZone,
    countryCode: place.countryCode,
  };
  if (place.subentity) address.countrySubentityCode = place.subentity;
  if (random.chance(0.5)) {
    address.addressLine = street;
  } else {
    address.addressLine1 = street;
    if (random.chance(0.7)) address.addressLine2 = `Floor ${random.int(1, 9)}`;
    if (random.chance(0.3))
      address.addressLine3 = `c/o ${random.pick(['Reception', 'IT department', 'Mailroom'])}`;
  }
  return address;
}

function party(random: Random, name: string, place: Place): Party {
  const identifications = [
    { id: `${place.countryCode}${random.int(10_000_000, 99_999_999)}`, schemeId: 'VAT' },
  ];
  if (random.chance(0.5))
    identifications.push({ id: String(random.int(100_000_000, 999_999_999)), schemeId: 'DUNS' });
  if (random.chance(0.3))
    identifications.push({ id: `0${random.int(10 ** 11, 10 ** 12 - 1)}`, schemeId: 'GLN' });
  return {
    partyName: name,
    partyIdentifications: identifications,
    postalAddress: postalAddress(random, place),
  };
}

export interface SellerIdentity {
  sellerId: number;
  name: string;
  place: Place;
}

export function sellerIdentity(random: Random, sellerId: number): SellerIdentity {
  return {
    sellerId,
    name: `${random.pick(COMPANY_STEMS)} Cloud ${random.pick(COMPANY_FORMS)}`,
    place: random.pick(PLACES),
  };
}

/** A realistic purchase issued at `issueMs`: the order and its licenses. */
export function makePurchase(random: Random, seller: SellerIdentity, issueMs: number): Purchase {
  const place = random.pick(PLACES);
  const currency = CURRENCY_BY_COUNTRY[place.countryCode] ?? 'EUR';
  const company = `${random.pick(COMPANY_STEMS)} ${random.pick(COMPANY_KINDS)} ${random.pick(COMPANY_FORMS)}`;
  const buyerName = personName(random);
  const orderId = random.uuid();

  const lineCount = random.chance(0.6) ? 1 : random.int(2, 4);
  const documentLines: DocumentLine[] = [];
  let total = 0;
  for (let lineId = 1; lineId <= lineCount; lineId++) {
    const product = random.pick(PRODUCTS);
    const quantity = product.quantityUnit === 'USR' ? random.int(1, 250) : random.int(1, 3);
    const baseQuantity = product.unitCode === 'ANN' ? 12 : 1;
    const price = round2(product.unitPrice * (0.9 + random.next() * 0.2));
    total += (quantity * price) / baseQuantity;
    const line: DocumentLine = {
      lineId: specInteger(lineId),
      lineItem: {
        name: product.name,
        sellersItemId: product.sellersItemId,
        quantity: { value: quantity, unitCode: product.quantityUnit },
        price: {
          priceAmount: { amount: price, currencyCode: currency },
          baseQuantity: { value: baseQuantity, unitCode: 'MON' },
        },
      },
    };
    if (random.chance(0.3))
      line.note = `Line ${lineId}: ${random.pick(['annual commitment', 'pilot seats', 'renewal'])}`;
    if (random.chance(0.5) && line.lineItem) {
      const contact = personName(random);
      line.lineItem.delivery = {
        contact: {
          name: contact,
          electronicMail: emailOf(contact, company),
          telephone: `+358 40 ${random.int(1_000_000, 9_999_999)}`,
        },
      };
    }
    documentLines.push(line);
  }

  const startMs = issueMs + random.int(0, 14) * DAY_MS;
  const order: Purchase['order'] = {
    orderId,
    issueTime: new Date(issueMs).toISOString(),
    orderTypeCode: 'Purchase',
    documentCurrencyCode: currency,
    validityPeriod: {
      startDate: isoDate(startMs),
      endDate: isoDate(startMs + random.pick([30, 90, 365]) * DAY_MS),
      ...(random.chance(0.5)
        ? { description: random.pick(['Initial term', 'Annual subscription', 'Pilot']) }
        : {}),
    },
    buyerCustomerParty: {
      supplierAssignedAccountId: `ACC-${random.int(100_000, 999_999)}`,
      party: party(random, company, place),
      buyerContact: {
        name: buyerName,
        telephone: `+${random.int(1, 49)} ${random.int(100, 999)} ${random.int(1_000_000, 9_999_999)}`,
        electronicMail: emailOf(buyerName, company),
        ...(random.chance(0.3) ? { note: 'Prefers e-mail over phone.' } : {}),
      },
    },
    sellerSupplierParty: { party: party(random, seller.name, seller.place) },
    anticipatedMonetaryTotal: { amount: round2(total), currencyCode: currency },
    documentLines,
  };
  if (random.chance(0.4)) order.note = random.pick(ORDER_NOTES);

  const licenses: License[] = [];
  for (let i = random.int(1, 3); i > 0; i--) {
    const holder = personName(random);
    licenses.push({
      licenseId: random.uuid(),
      electronicMail: emailOf(holder, company),
      additionalProperties: [orderIdProperty(orderId, false)],
    });
  }
  return { order, licenses };
}

/** The marketplace's purchase event for an order: ServicePurchased (or `eventTypeCode`), ProvisioningStarted. */
export function purchaseEvent(
  eventId: string,
  sellerId: number,
  order: Purchase['order'],
  eventTime: string,
  eventTypeCode = 'ServicePurchased',
): StoredEvent['event'] {
  const product = order.documentLines[0]?.lineItem?.name ?? 'a product';
  return {
    eventId,
    sellerId: specInteger(sellerId),
    eventTypeCode,
    statusCode: 'ProvisioningStarted',
    eventTime,
    description: `New purchase of ${product}`,
    detailedDescription: `${order.buyerCustomerParty.party?.partyName ?? 'A buyer'} purchased ${product}. Provision the service and report its status.`,
    additionalProperties: [orderIdProperty(order.orderId, true)],
  };
}

/** A status event the seller posted, as the store records it. */
export function sellerStatusEvent(
  eventId: string,
  sellerId: number,
  orderId: string,
  statusCode: StatusCode,
  eventTime: string,
  description: string,
  detailedDescription?: string,
): StoredEvent['event'] {
  return {
    eventId,
    sellerId: specInteger(sellerId),
    eventTypeCode: 'ServicePurchased',
    statusCode,
    eventTime,
    description,
    ...(detailedDescription === undefined ? {} : { detailedDescription }),
    additionalProperties: [orderIdProperty(orderId, true)],
  };
}

/** Event times carry microseconds and a UTC offset, as the spec shows for returned events. */
export function formatEventTime(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const iso = new Date(ms).toISOString(); // 2026-11-21T16:15:27.123Z
  const fraction = String(micros % 1_000_000).padStart(6, '0');
  return `${iso.slice(0, 19)}.${fraction}+00:00`;
}

/** The inverse of formatEventTime, for any ISO timestamp with up to microseconds. */
export function parseEventMicros(time: string): number {
  const ms = Date.parse(time);
  const fraction = /\.(\d+)/.exec(time)?.[1] ?? '';
  return Math.floor(ms / 1000) * 1_000_000 + Number(fraction.slice(0, 6).padEnd(6, '0'));
}

/**
 * A seller's history up to `nowMs`: `orderCount` orders spread over the last 90 days, each
 * with its purchase event. Older orders have moved on (in progress, completed, failed);
 * the newest tenth are still waiting and have not been retrieved yet.
 */
export function generateSellerData(
  random: Random,
  seller: SellerIdentity,
  orderCount: number,
  nowMs: number,
): SellerData & { unseenEventIds: string[] } {
  const span = 90 * DAY_MS;
  const issueTimes = Array.from({ length: orderCount }, () => nowMs - random.int(60_000, span)).sort(
    (a, b) => a - b,
  );
  const unseenFrom = orderCount - Math.max(1, Math.ceil(orderCount / 10));
  const data: SellerData & { unseenEventIds: string[] } = {
    orders: [],
    licenses: [],
    events: [],
    unseenEventIds: [],
  };

  issueTimes.forEach((issueMs, index) => {
    const { order, licenses } = makePurchase(random, seller, issueMs);
    data.orders.push(order);
    data.licenses.push(...licenses);
    const purchaseMicros = (issueMs + random.int(1_000, 30_000)) * 1000 + random.int(0, 999);
    const purchase = purchaseEvent(random.uuid(), seller.sellerId, order, formatEventTime(purchaseMicros));
    const unseen = index >= unseenFrom;
    if (unseen) {
      data.unseenEventIds.push(purchase.eventId);
    } else {
      purchase.seenTime = formatEventTime(purchaseMicros + random.int(60, 3_600) * 1_000_000);
    }
    data.events.push({ event: purchase, fromMarketplace: true });
    if (unseen) return;

    // Progress posted by the seller, at most up to now.
    const laterMicros = (hours: number): number =>
      Math.min(purchaseMicros + hours * 3_600_000_000, nowMs * 1000 - 1);
    const roll = random.next();
    const history: [StatusCode, string, string?][] = [];
    if (roll < 0.3) return;
    history.push(['ProvisioningInProgress', 'Provisioning started by the operations team']);
    if (roll < 0.5) {
      history.push(['ProvisioningFailed', 'Provisioning failed', random.pick(FAILURE_REASONS)]);
      if (roll < 0.4) history.push(['ProvisioningInProgress', 'Retrying provisioning']);
    } else if (roll >= 0.6) {
      history.push(['ProvisioningCompleted', 'Service is ready for the customer']);
    }
    history.forEach(([status, description, detail], step) => {
      const time = formatEventTime(laterMicros(step * 6 + random.int(1, 5)) + step);
      data.events.push({
        event: sellerStatusEvent(
          random.uuid(),
          seller.sellerId,
          order.orderId,
          status,
          time,
          description,
          detail,
        ),
        fromMarketplace: false,
      });
    });
  });
  data.events.sort((a, b) => compareEvents(a.event, b.event));
  return data;
}

/** Listing order for events: by time, then id (design notes §2). */
export function compareEvents(a: StoredEvent['event'], b: StoredEvent['event']): number {
  return a.eventTime < b.eventTime ? -1 : a.eventTime > b.eventTime ? 1 : a.eventId < b.eventId ? -1 : 1;
}
