// Vocabulary for realistic simulated marketplace data.

export interface Place {
  city: string;
  postalZone: string;
  countryCode: string;
  subentity?: string;
  streets: readonly string[];
}

export const PLACES: readonly Place[] = [
  {
    city: 'Helsinki',
    postalZone: '00100',
    countryCode: 'FI',
    streets: ['Mannerheimintie', 'Aleksanterinkatu'],
  },
  { city: 'Espoo', postalZone: '02150', countryCode: 'FI', streets: ['Otakaari', 'Keilaranta'] },
  { city: 'Stockholm', postalZone: '111 22', countryCode: 'SE', streets: ['Drottninggatan', 'Kungsgatan'] },
  { city: 'Oslo', postalZone: '0150', countryCode: 'NO', streets: ['Karl Johans gate', 'Storgata'] },
  { city: 'København', postalZone: '1050', countryCode: 'DK', streets: ['Strøget', 'Bredgade'] },
  { city: 'Berlin', postalZone: '10117', countryCode: 'DE', subentity: 'BE', streets: ['Friedrichstraße'] },
  { city: 'München', postalZone: '80331', countryCode: 'DE', subentity: 'BY', streets: ['Maximilianstraße'] },
  {
    city: 'Amsterdam',
    postalZone: '1012 JS',
    countryCode: 'NL',
    subentity: 'NH',
    streets: ['Damrak', 'Rokin'],
  },
  { city: 'London', postalZone: 'EC2A 4NE', countryCode: 'GB', streets: ['Old Street', 'Bishopsgate'] },
  { city: 'Zürich', postalZone: '8001', countryCode: 'CH', subentity: 'ZH', streets: ['Bahnhofstrasse'] },
  { city: 'Austin', postalZone: '78701', countryCode: 'US', subentity: 'TX', streets: ['Congress Avenue'] },
  {
    city: 'New York',
    postalZone: '10013',
    countryCode: 'US',
    subentity: 'NY',
    streets: ['Broadway', 'Hudson St'],
  },
];

export const CURRENCY_BY_COUNTRY: Readonly<Record<string, string>> = {
  FI: 'EUR',
  DE: 'EUR',
  NL: 'EUR',
  SE: 'SEK',
  NO: 'NOK',
  DK: 'DKK',
  GB: 'GBP',
  CH: 'CHF',
  US: 'USD',
};

export const COMPANY_STEMS = [
  'Aurora',
  'Borealis',
  'Kestrel',
  'Lumen',
  'Northwind',
  'Fjord',
  'Harbor',
  'Juniper',
  'Meridian',
  'Polar',
  'Quarry',
  'Saga',
  'Tundra',
  'Vireo',
  'Wildrose',
  'Zephyr',
] as const;
export const COMPANY_KINDS = [
  'Logistics',
  'Analytics',
  'Health',
  'Retail',
  'Energy',
  'Foods',
  'Legal',
  'Media',
];
export const COMPANY_FORMS = ['Oy', 'AB', 'GmbH', 'Ltd', 'Inc.', 'B.V.', 'AS', 'ApS'];

export const FIRST_NAMES = [
  'Aino',
  'Mikko',
  'Sofia',
  'Lars',
  'Emma',
  'Jonas',
  'Maria',
  'Pekka',
  'Olivia',
  'Noah',
];
export const LAST_NAMES = [
  'Virtanen',
  'Lindqvist',
  'Müller',
  'Hansen',
  'de Vries',
  'Smith',
  'Korhonen',
  'Berg',
];

export interface Product {
  name: string;
  sellersItemId: string;
  /** Monthly or yearly price per unit, before the order's currency is applied. */
  unitPrice: number;
  unitCode: 'MON' | 'ANN';
  quantityUnit: 'EA' | 'USR';
}

export const PRODUCTS: readonly Product[] = [
  {
    name: 'Seller Suite Standard',
    sellersItemId: 'SS-STD',
    unitPrice: 49.9,
    unitCode: 'MON',
    quantityUnit: 'USR',
  },
  {
    name: 'Seller Suite Premium',
    sellersItemId: 'SS-PRM',
    unitPrice: 129.5,
    unitCode: 'MON',
    quantityUnit: 'USR',
  },
  {
    name: 'Analytics Add-on',
    sellersItemId: 'AN-ADD',
    unitPrice: 19.99,
    unitCode: 'MON',
    quantityUnit: 'EA',
  },
  { name: 'Backup Vault 1 TB', sellersItemId: 'BV-1TB', unitPrice: 240, unitCode: 'ANN', quantityUnit: 'EA' },
  {
    name: 'Priority Support',
    sellersItemId: 'SUP-PRI',
    unitPrice: 1499,
    unitCode: 'ANN',
    quantityUnit: 'EA',
  },
  {
    name: 'Single Sign-On Connector',
    sellersItemId: 'SSO-CON',
    unitPrice: 3.75,
    unitCode: 'MON',
    quantityUnit: 'USR',
  },
];

export const ORDER_NOTES = [
  'Please provision before the start of the month.',
  'Invoice to the finance department, reference PO-4471.',
  'Customer requested a kickoff call after provisioning.',
  'Migrating from an on-premise installation.',
];

export const FAILURE_REASONS = [
  'Tenant name already taken in the target region.',
  'Customer domain could not be verified.',
  'Quota exceeded in the provisioning backend.',
];
