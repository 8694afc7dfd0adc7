// Names for the unit codes of quantities (UN/ECE Recommendation 20, as UBL orders use them):
// the codes this marketplace's orders carry, and the time units a price is commonly given
// per. A code not listed here is shown as it came. USR is not in Recommendation 20, but the
// marketplace uses it for seats. One table for the window and the CLI, which write numbers
// their own way (the window in the user's locale, the CLI plainly for pipes).

/** Singular and plural, in English, as the window is. */
const UNIT_NAMES: Readonly<Record<string, readonly [one: string, other: string]>> = {
  // Time
  SEC: ['second', 'seconds'],
  MIN: ['minute', 'minutes'],
  HUR: ['hour', 'hours'],
  DAY: ['day', 'days'],
  WEE: ['week', 'weeks'],
  MON: ['month', 'months'],
  QAN: ['quarter', 'quarters'],
  ANN: ['year', 'years'],
  // Counts
  C62: ['unit', 'units'],
  EA: ['unit', 'units'],
  H87: ['piece', 'pieces'],
  IE: ['person', 'people'],
  USR: ['user', 'users'],
  // Storage
  E34: ['GB', 'GB'],
  E35: ['TB', 'TB'],
};

/** The time units: a price per one of them is a rate ("€9.95 per month"). */
const TIME_UNITS: ReadonlySet<string> = new Set(['SEC', 'MIN', 'HUR', 'DAY', 'WEE', 'MON', 'QAN', 'ANN']);

const pluralRules = new Intl.PluralRules('en');

/** The unit's name for `count` of it, or undefined for a code this app does not know. */
export function unitName(code: string, count: number): string | undefined {
  const names = UNIT_NAMES[code.toUpperCase()];
  if (!names) return undefined;
  return pluralRules.select(count) === 'one' ? names[0] : names[1];
}

export function isTimeUnit(code: string | undefined): boolean {
  return code !== undefined && TIME_UNITS.has(code.toUpperCase());
}

export interface Quantity {
  value?: number | undefined;
  unitCode?: string | undefined;
}

/** A quantity with its unit named ("176 users", "1 month"); an unknown unit code as it came ("25 SEAT"). */
export function quantityWords(quantity: Quantity | undefined, number: (value: number) => string): string {
  if (!quantity) return '';
  const { value, unitCode } = quantity;
  const unit = unitCode === undefined || unitCode === '' ? '' : (unitName(unitCode, value ?? 0) ?? unitCode);
  return [value === undefined ? '' : number(value), unit].filter((part) => part !== '').join(' ');
}

/** What a price is for: "per month" for one of a unit, "per 12 months" for more. */
export function perWords(base: Quantity | undefined, number: (value: number) => string): string {
  if (!base || (base.value === undefined && !base.unitCode)) return '';
  const one = base.value === 1 && base.unitCode ? unitName(base.unitCode, 1) : undefined;
  return `per ${one ?? quantityWords(base, number)}`;
}
