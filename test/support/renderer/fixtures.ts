// Orders for the component tests: one holding every field the wire model knows (in both
// postal address variants), and many small list items for the virtualised inbox.
import type { OrderListItem, OrderView } from '../../../preload/contract';
import type { Order } from '../../../preload/marketplace';
import { apiProblem } from './error-details';
import { historyEvent } from './fake-bridge';

export const FULL_ORDER_ID = '3f1c2b9e-8d4a-4c6b-9e2f-0a1b2c3d4e5f';

/** Every field of the Order schema, the buyer with `addressLine`, the seller with lines 1 to 3. */
export function fullOrder(orderId = FULL_ORDER_ID): Order {
  return {
    orderId,
    issueTime: '2026-11-20T09:30:00.000Z',
    orderTypeCode: 'Purchase',
    note: 'Please provision before Monday',
    documentCurrencyCode: 'EUR',
    validityPeriod: { startDate: '2026-12-01', endDate: '2027-11-30', description: 'First contract year' },
    buyerCustomerParty: {
      supplierAssignedAccountId: 'ACME-ACCOUNT-77',
      party: {
        partyName: 'Acme Industrial GmbH',
        partyIdentifications: [
          { id: 'DE123456789', schemeId: 'VAT' },
          { id: '4000001000005', schemeId: 'GLN' },
        ],
        postalAddress: {
          addressLine: 'Hauptstraße 12',
          cityName: 'Berlin',
          postalZone: '10115',
          countrySubentityCode: 'BE',
          countryCode: 'DE',
        },
      },
      buyerContact: {
        name: 'Erika Mustermann',
        telephone: '+49 30 1234567',
        electronicMail: 'erika@acme.example',
        note: 'Call mornings only',
      },
    },
    sellerSupplierParty: {
      party: {
        partyName: 'CloudSoft Ltd',
        partyIdentifications: [{ id: 'GB987654321', schemeId: 'UKVAT' }],
        postalAddress: {
          addressLine1: 'Unit 4',
          addressLine2: 'Harbour Business Park',
          addressLine3: 'Dock Road',
          cityName: 'Bristol',
          postalZone: 'BS1 6AA',
          countrySubentityCode: 'ENG',
          countryCode: 'GB',
        },
      },
    },
    anticipatedMonetaryTotal: { amount: 1234.5, currencyCode: 'EUR' },
    documentLines: [
      {
        lineId: '1',
        note: 'Annual plan, 25 seats',
        lineItem: {
          name: 'CloudSoft Analytics',
          sellersItemId: 'CSA-PRO-25',
          quantity: { value: 25, unitCode: 'SEAT' },
          price: {
            priceAmount: { amount: 49.38, currencyCode: 'EUR' },
            baseQuantity: { value: 1, unitCode: 'MON' },
          },
          delivery: {
            contact: {
              name: 'Max Admin',
              telephone: '+49 30 7654321',
              electronicMail: 'it@acme.example',
              note: 'Send the login link here',
            },
          },
        },
      },
    ],
  };
}

/** The full order's inbox row, as the inbox hands it over when the order is opened: waiting since `since`. */
export function fullRow(since: string, total = { amount: 1234.5, currencyCode: 'EUR' }): OrderListItem {
  return {
    account: 'account-1',
    orderId: FULL_ORDER_ID,
    status: 'ProvisioningStarted',
    purchaseType: 'ServicePurchased',
    since,
    waitingSince: since,
    statusSince: since,
    waiting: true,
    unopened: false,
    backlog: false,
    delivery: null,
    buyer: 'Acme Industrial GmbH',
    product: 'CloudSoft Analytics × 25',
    total,
  };
}

export function fullView(overrides: Partial<OrderView> = {}): OrderView {
  const order = overrides.order ?? fullOrder();
  const orderId = order.orderId ?? FULL_ORDER_ID;
  return {
    order,
    fetchedAt: '2026-11-20T10:00:00.000Z',
    refreshProblem: null,
    refreshAgainAt: null,
    licenses: [
      {
        licenseId: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
        electronicMail: 'licenses@acme.example',
        additionalProperties: [{ name: 'orderId', value: orderId }],
      },
    ],
    history: [
      historyEvent(orderId),
      historyEvent(orderId, {
        eventId: '22222222-2222-4222-8222-222222222222',
        eventTypeCode: 'ServicePurchased',
        statusCode: 'ProvisioningInProgress',
        eventTime: '2026-11-20T10:00:00.000Z',
        description: 'Setting up the tenant',
        detailedDescription: 'Tenant acme-prod being created in eu-central',
      }),
    ],
    outbox: [
      {
        requestId: '33333333-3333-4333-8333-333333333333',
        orderId,
        statusCode: 'ProvisioningCompleted',
        description: 'Provisioning is complete.',
        createdAt: '2026-11-20T11:00:00.000Z',
        state: 'failed',
        attempts: 3,
        problem: apiProblem('sendEvent', 400),
      },
      {
        requestId: '44444444-4444-4444-8444-444444444444',
        orderId,
        statusCode: 'ProvisioningInProgress',
        description: 'Restarted',
        createdAt: '2026-11-20T11:05:00.000Z',
        state: 'pending',
        attempts: 0,
      },
    ],
    settled: [],
    automationRuns: [],
    runbookTicks: [],
    status: 'ProvisioningInProgress',
    ...overrides,
  };
}

/** `count` orders, the first `waiting` of them waiting for action; every 7th without buyer details. */
export function manyOrders(count: number, waiting = 0): OrderListItem[] {
  const base = Date.parse('2026-11-21T12:00:00.000Z');
  return Array.from({ length: count }, (_, i) => {
    const orderId = `order-${String(i).padStart(5, '0')}`;
    const item: OrderListItem = {
      account: 'account-1',
      orderId,
      status: i < waiting ? 'ProvisioningStarted' : 'ProvisioningCompleted',
      purchaseType: 'ServicePurchased',
      since: new Date(base - i * 60_000).toISOString(),
      ...(i < waiting ? { waitingSince: new Date(base - i * 60_000).toISOString() } : {}),
      statusSince: new Date(base - i * 60_000).toISOString(),
      waiting: i < waiting,
      unopened: false,
      backlog: false,
      delivery: null,
    };
    return i % 7 === 6
      ? item
      : {
          ...item,
          buyer: `Buyer ${i}`,
          product: `Product ${i} × 1`,
          total: { amount: i, currencyCode: 'EUR' },
        };
  });
}
