// How the renderer writes times, dates, durations, statuses, numbers, quantities and amounts:
// one place, in the user's locale (Intl), so every view says the same thing the same way.
// Whatever the server sent is returned as text (never markup); a value that does not parse is
// shown as it came.

import { capped, NAME_MAX, plainText, sentenceEnded } from '../preload/marketplace-text';
import type { Connection, Health } from '../preload/model';
import { exactly, type Money } from '../preload/money';
import { ageText } from '../preload/status-words';
import { isTimeUnit, perWords, type Quantity, quantityWords } from '../preload/unit-names';

export { statusLabel } from '../preload/status-words';

/** The window's formats in one locale (undefined: the browser's). */
function formatsIn(locale: string | undefined) {
  return {
    locale,
    dateTime: new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }),
    /** Calendar dates are days, not instants: read and written in UTC so no time zone moves them. */
    dateOnly: new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }),
    timeOnly: new Intl.DateTimeFormat(locale, { timeStyle: 'short' }),
    numbers: new Intl.NumberFormat(locale, { maximumFractionDigits: 6 }),
    regions: new Intl.DisplayNames(locale, { type: 'region', fallback: 'code' }),
    /** Per currency code; null for one Intl does not know. */
    money: new Map<string, Intl.NumberFormat | null>(),
  };
}

let formats = formatsIn(undefined);

/**
 * The locale everything here writes in: the organization's (policy `locale`, in the app's state)
 * when it sets one, else the browser's (null). Set before the views draw in it (App.tsx).
 */
export function setWindowLocale(locale: string | null): void {
  if ((locale ?? undefined) !== formats.locale) formats = formatsIn(locale ?? undefined);
}

/** A timestamp (ISO 8601) in the user's locale and time zone. */
export function formatDateTime(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? formats.dateTime.format(ms) : iso;
}

/** A calendar date (YYYY-MM-DD), such as a validity period's end, in the same style as timestamps. */
export function formatDate(date: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) return date;
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return Number.isFinite(ms) ? formats.dateOnly.format(ms) : date;
}

export function formatNumber(value: number): string {
  return formats.numbers.format(value);
}

/** A country by its name in the user's language ("FI" → "Finland"); a code Intl does not know, as it came. */
export function countryName(code: string): string {
  if (!/^[A-Za-z]{2}$/.test(code)) return code;
  try {
    return formats.regions.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/** Today's times as a time only, others with their date. */
export function formatWhen(iso: string, now: number): string {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  return new Date(ms).toDateString() === new Date(now).toDateString()
    ? formats.timeOnly.format(ms)
    : formats.dateTime.format(ms);
}

/** How long since `iso`, compactly: "just now", "12 min", "3 h", "5 d". */
export function formatAge(iso: string | undefined, now: number): string {
  const ms = iso === undefined ? Number.NaN : Date.parse(iso);
  return Number.isFinite(ms) ? ageText(ms, now) : '';
}

/**
 * An amount with its currency, when it has one; a currency code Intl does not know is written
 * after it, as the marketplace's text it is: one plain line (no control, override or hidden
 * character), capped, so every place an amount shows is safe, ServerText or not.
 */
export function formatAmount(
  amount: number | undefined,
  currency: string | undefined,
  exact?: string | undefined,
): string {
  if (amount === undefined) return '';
  const value = exactly(amount, exact);
  if (!currency) return formatNumber(value);
  let format = formats.money.get(currency);
  if (format === undefined) {
    try {
      format = new Intl.NumberFormat(formats.locale, { style: 'currency', currency });
    } catch {
      format = null; // not an ISO 4217 code
    }
    formats.money.set(currency, format);
  }
  return format ? format.format(value) : `${formatNumber(value)} ${capped(plainText(currency), NAME_MAX)}`;
}

/** A total (an inbox row's, an order's): written the same in the row and on the order page. */
export function formatTotal(total: Money): string {
  return formatAmount(total.amount, total.currencyCode, total.exact);
}

/** A quantity with its unit named ("176 users", "1 month"), its number in the user's locale. */
export const formatQuantity = (quantity: Quantity | undefined): string =>
  quantityWords(quantity, formatNumber);

/** What a price is for: "per month" for one of a unit, "per 12 months" for more. */
export const formatPer = (base: Quantity | undefined): string => perWords(base, formatNumber);

/**
 * A line's total: its quantity times the price, the price being for its base quantity (UBL).
 * When the base quantity is a time ("per 12 months"), the total is per one of that unit ("per
 * month"), which is how the marketplace's order total adds the lines up.
 */
export function lineTotal(
  quantity: Quantity | undefined,
  price: { amount?: number | undefined; base?: Quantity | undefined },
): { amount: number; per: string } | undefined {
  if (quantity?.value === undefined || price.amount === undefined) return undefined;
  const baseValue = price.base?.value ?? 1;
  if (!(baseValue > 0)) return undefined;
  const sameUnit = price.base?.unitCode !== undefined && price.base.unitCode === quantity.unitCode;
  const timeUnit = isTimeUnit(price.base?.unitCode) && !sameUnit ? price.base?.unitCode : undefined;
  return {
    amount: (quantity.value * price.amount) / baseValue,
    per: timeUnit ? formatPer({ value: 1, unitCode: timeUnit }) : '',
  };
}

/** The CSS modifier of a status chip. */
export function statusTone(status: string | undefined): string {
  switch (status) {
    case 'ProvisioningStarted':
      return 'new';
    case 'ProvisioningInProgress':
      return 'progress';
    case 'ProvisioningCompleted':
      return 'done';
    case 'ProvisioningFailed':
      return 'failed';
    default:
      return 'unknown';
  }
}

const CONNECTION_LABELS: Readonly<Record<Connection, string>> = {
  starting: 'Connecting…',
  ok: 'Connected',
  offline: 'Offline',
  'server-problem': 'Marketplace having problems',
  failing: 'Connection problem',
  'credentials-rejected': 'Credentials rejected',
  paused: 'Checking paused',
};

export function connectionLabel(connection: Connection): string {
  return CONNECTION_LABELS[connection];
}

/** The polls neither work nor fail for too long (a request that never returns): not "Connected". */
export function noAnswer(status: { connection: Connection; health: Health }): boolean {
  return status.health !== 'healthy' && (status.connection === 'ok' || status.connection === 'starting');
}

/** How an account stands with the marketplace, as the header and Settings say it. */
export function standingLabel(status: { connection: Connection; health: Health }): string {
  return noAnswer(status) ? 'No answer from the marketplace' : connectionLabel(status.connection);
}

export { plural } from '../preload/counted';

/** A clause the command line words for after its "seller-tray: " (lower case, no stop) as a sentence of its own. */
export function sentence(clause: string): string {
  return sentenceEnded(clause.charAt(0).toUpperCase() + clause.slice(1));
}
