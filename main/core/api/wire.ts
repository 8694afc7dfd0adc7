// The Seller API's wire model: one zod schema per resource of the specification
// (../shared/spec/seller-api.md §2), the TypeScript types inferred from them.
//
// Reading is tolerant: unknown fields pass through (loose objects), and codes the spec
// lists as enums are read as strings so a new event type or status is shown, not
// crashed on. Writing (what the simulator accepts from a seller) is strict.
import { z } from 'zod';

export const Uuid = z.guid();
/** Timestamps carry fractional seconds and a UTC offset (`Z` or `+00:00`). */
export const Timestamp = z.iso.datetime({ offset: true });
const CalendarDate = z.iso.date();

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

// 2.2
export const AdditionalProperty = z.looseObject({
  name: z.string(),
  value: z.string(),
  description: z.string().optional(),
});
export type AdditionalProperty = z.infer<typeof AdditionalProperty>;

// 2.1
export const MarketplaceEvent = z.looseObject({
  eventId: Uuid.optional(),
  sellerId: z.int().optional(),
  eventTypeCode: z.string().min(1),
  statusCode: z.string().min(1),
  eventTime: Timestamp.optional(),
  description: z.string(),
  detailedDescription: z.string().optional(),
  seenTime: Timestamp.optional(),
  additionalProperties: z.array(AdditionalProperty).optional(),
});
export type MarketplaceEvent = z.infer<typeof MarketplaceEvent>;

/** What a seller may post (4.4): the known codes only, and the server assigns ids and times. */
export const NewMarketplaceEvent = z.object({
  eventTypeCode: z.enum(EVENT_TYPE_CODES),
  statusCode: z.enum(STATUS_CODES),
  description: z.string().trim().min(1),
  detailedDescription: z.string().optional(),
  additionalProperties: z
    .array(z.object({ name: z.string().min(1), value: z.string(), description: z.string().optional() }))
    .optional(),
});
export type NewMarketplaceEvent = z.infer<typeof NewMarketplaceEvent>;

// 2.3
export const MarketplaceEventList = z.looseObject({
  hasMore: z.boolean(),
  marketplaceEvents: z.array(MarketplaceEvent),
});
export type MarketplaceEventList = z.infer<typeof MarketplaceEventList>;

// 2.8
export const MonetaryAmount = z.looseObject({
  amount: z.number().optional(),
  currencyCode: z.string().optional(),
});
export type MonetaryAmount = z.infer<typeof MonetaryAmount>;

const Quantity = z.looseObject({ value: z.number().optional(), unitCode: z.string().optional() });
export type Quantity = z.infer<typeof Quantity>;

// 2.5
export const TimePeriod = z.looseObject({
  startDate: CalendarDate.optional(),
  endDate: CalendarDate.optional(),
  description: z.string().optional(),
});
export type TimePeriod = z.infer<typeof TimePeriod>;

// 2.10
export const PostalAddress = z.looseObject({
  addressLine: z.string().optional(),
  addressLine1: z.string().optional(),
  addressLine2: z.string().optional(),
  addressLine3: z.string().optional(),
  cityName: z.string().optional(),
  postalZone: z.string().optional(),
  countrySubentityCode: z.string().optional(),
  countryCode: z.string().optional(),
});
export type PostalAddress = z.infer<typeof PostalAddress>;

export const PartyIdentification = z.looseObject({ id: z.string(), schemeId: z.string().optional() });
export type PartyIdentification = z.infer<typeof PartyIdentification>;

export const Party = z.looseObject({
  partyName: z.string().optional(),
  partyIdentifications: z.array(PartyIdentification).optional(),
  postalAddress: PostalAddress.optional(),
});
export type Party = z.infer<typeof Party>;

// 2.11
export const Contact = z.looseObject({
  name: z.string().optional(),
  telephone: z.string().optional(),
  electronicMail: z.string().optional(),
  note: z.string().optional(),
});
export type Contact = z.infer<typeof Contact>;

// 2.6, 2.7
export const BuyerCustomerParty = z.looseObject({
  supplierAssignedAccountId: z.string().optional(),
  party: Party.optional(),
  buyerContact: Contact.optional(),
});
export type BuyerCustomerParty = z.infer<typeof BuyerCustomerParty>;

export const SellerSupplierParty = z.looseObject({ party: Party.optional() });
export type SellerSupplierParty = z.infer<typeof SellerSupplierParty>;

// 2.9
export const LineItem = z.looseObject({
  name: z.string().optional(),
  sellersItemId: z.string().optional(),
  quantity: Quantity.optional(),
  price: z
    .looseObject({ priceAmount: MonetaryAmount.optional(), baseQuantity: Quantity.optional() })
    .optional(),
  delivery: z.looseObject({ contact: Contact.optional() }).optional(),
});
export type LineItem = z.infer<typeof LineItem>;

export const DocumentLine = z.looseObject({
  lineId: z.int().optional(),
  note: z.string().optional(),
  lineItem: LineItem.optional(),
});
export type DocumentLine = z.infer<typeof DocumentLine>;

// 2.4
export const Order = z.looseObject({
  orderId: Uuid.optional(),
  issueTime: Timestamp.optional(),
  orderTypeCode: z.string().min(1),
  note: z.string().optional(),
  documentCurrencyCode: z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code of three capital letters'),
  validityPeriod: TimePeriod.optional(),
  buyerCustomerParty: BuyerCustomerParty,
  sellerSupplierParty: SellerSupplierParty,
  anticipatedMonetaryTotal: MonetaryAmount.optional(),
  documentLines: z.array(DocumentLine),
});
export type Order = z.infer<typeof Order>;

export const OrderList = z.looseObject({ hasMore: z.boolean(), orders: z.array(Order) });
export type OrderList = z.infer<typeof OrderList>;

// 2.12
export const License = z.looseObject({
  licenseId: Uuid.optional(),
  electronicMail: z.string().optional(),
  additionalProperties: z.array(AdditionalProperty).optional(),
});
export type License = z.infer<typeof License>;

/** 4.6 answers a bare array of licenses (the wrapped list of 2.12 is not used by any operation). */
export const LicenseArray = z.array(License);

// 2.13
export const PingResponse = z.looseObject({
  access: z.string().optional(),
  date: z.string().optional(),
  stage: z.string().optional(),
  version: z.string().optional(),
});
export type PingResponse = z.infer<typeof PingResponse>;

// 2.14
export const TokenResponse = z.looseObject({
  accessToken: z.string().min(1),
  tokenType: z.literal('Bearer'),
});
export type TokenResponse = z.infer<typeof TokenResponse>;

// 2.15
export const ErrorBody = z.looseObject({
  errorCode: z.string(),
  description: z.string(),
  detailedDescription: z.string(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** The error codes this project assumes (design notes §2), with their HTTP statuses. */
export const ERROR_STATUS = {
  BadRequest: 400,
  Unauthorized: 401,
  NotFound: 404,
  MethodNotAllowed: 405,
  Conflict: 409,
  PayloadTooLarge: 413,
  TooManyRequests: 429,
  InternalServerError: 500,
  ServiceUnavailable: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

/** The `orderId` additional property of an event or license, if it has one. */
export function orderIdOf(item: {
  additionalProperties?: AdditionalProperty[] | undefined;
}): string | undefined {
  return item.additionalProperties?.find((p) => p.name === ORDER_ID_PROPERTY)?.value;
}

/** What tells events apart: the id, or for an event without one (the spec allows it) its content. */
export function eventKey(event: MarketplaceEvent): string {
  return event.eventId ?? JSON.stringify(event);
}
