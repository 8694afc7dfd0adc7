// The marketplace's resources as Seller Tray reads them (main/core/api/seller-api.md §2), for
// every process: the main process's wire schemas (main/core/api/wire.ts) read the server's
// answers into exactly these shapes (the compiler checks it), and the window shows them. Plain
// types and code lists only: nothing here may import from main/ or carry zod into the window.
//
// Fields the spec marks optional may be absent; codes the spec lists as enums are kept as text
// (a new event type or status is shown, not refused); unknown fields pass through. Ids are text
// whatever their size (a 64-bit `sellerId` keeps its digits); amounts and quantities are numbers,
// with their exact decimal text beside them when a number would lose digits.

export const EVENT_TYPE_CODES = [
  'ServicePurchased',
  'Evaluation',
  'Trial',
  'UpgradeToTrial',
  'UpgradeToPurchase',
] as const;
export const STATUS_CODES = [
  'ProvisioningStarted',
  'ProvisioningInProgress',
  'ProvisioningCompleted',
  'ProvisioningFailed',
] as const;
export const ORDER_TYPE_CODES = ['Purchase', 'Evaluation', 'Trial'] as const;

export type EventTypeCode = (typeof EVENT_TYPE_CODES)[number];
export type StatusCode = (typeof STATUS_CODES)[number];

/** The additional property that links an event or a license to its order. */
export const ORDER_ID_PROPERTY = 'orderId';

/** Fields this app does not know pass through as they came. */
interface Open {
  [field: string]: unknown;
}

// 2.2
export interface AdditionalProperty extends Open {
  name: string;
  value?: string;
  description?: string;
}

// 2.1
export interface MarketplaceEvent extends Open {
  eventId?: string;
  /** The spec's integer, as text: the app only shows it, and it may exceed 2^53. */
  sellerId?: string;
  eventTypeCode: string;
  statusCode: string;
  eventTime?: string;
  description: string;
  detailedDescription?: string;
  seenTime?: string;
  additionalProperties?: AdditionalProperty[];
}

// 2.8
export interface MonetaryAmount extends Open {
  amount?: number;
  /** The amount as the marketplace wrote it, when `amount` would lose digits of it. */
  exactAmount?: string;
  /** ISO 4217, upper case; a code that is not three letters as it came. */
  currencyCode?: string;
}

export interface Quantity extends Open {
  value?: number;
  /** The value as the marketplace wrote it, when `value` would lose digits of it. */
  exactValue?: string;
  /** A UN/ECE Recommendation 20 code, as the marketplace sent it. */
  unitCode?: string;
}

// 2.5
export interface TimePeriod extends Open {
  /** Calendar dates (YYYY-MM-DD). */
  startDate?: string;
  endDate?: string;
  description?: string;
}

// 2.10
export interface PostalAddress extends Open {
  addressLine?: string;
  addressLine1?: string;
  addressLine2?: string;
  addressLine3?: string;
  cityName?: string;
  postalZone?: string;
  countrySubentityCode?: string;
  countryCode?: string;
}

export interface PartyIdentification extends Open {
  id: string;
  schemeId?: string;
}

export interface Party extends Open {
  partyName?: string;
  partyIdentifications?: PartyIdentification[];
  postalAddress?: PostalAddress;
}

// 2.11
export interface Contact extends Open {
  name?: string;
  telephone?: string;
  electronicMail?: string;
  note?: string;
}

// 2.6, 2.7
export interface BuyerCustomerParty extends Open {
  supplierAssignedAccountId?: string;
  party?: Party;
  buyerContact?: Contact;
}

export interface SellerSupplierParty extends Open {
  party?: Party;
}

// 2.9
export interface LineItem extends Open {
  name?: string;
  sellersItemId?: string;
  quantity?: Quantity;
  price?: Open & { priceAmount?: MonetaryAmount; baseQuantity?: Quantity };
  delivery?: Open & { contact?: Contact };
}

export interface DocumentLine extends Open {
  /** The spec's integer, as text: the app only shows it, and it may exceed 2^53. */
  lineId?: string;
  note?: string;
  lineItem?: LineItem;
}

// 2.4
export interface Order extends Open {
  orderId?: string;
  issueTime?: string;
  orderTypeCode: string;
  note?: string;
  documentCurrencyCode: string;
  validityPeriod?: TimePeriod;
  buyerCustomerParty: BuyerCustomerParty;
  sellerSupplierParty: SellerSupplierParty;
  anticipatedMonetaryTotal?: MonetaryAmount;
  documentLines: DocumentLine[];
}

// 2.12
export interface License extends Open {
  licenseId?: string;
  electronicMail?: string;
  additionalProperties?: AdditionalProperty[];
}
