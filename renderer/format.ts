// How the renderer writes times, durations, statuses and amounts: one place, so every view
// says the same thing the same way. Whatever the server sent is returned as text (never
// markup); a value that does not parse is shown as it came.

import type { Connection } from '../preload/model';
import { formatMoney } from '../preload/money';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

/** A timestamp (ISO 8601) in the user's locale and time zone. */
export function formatDateTime(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? dateTime.format(ms) : iso;
}

/** Today's times as a time only, others with their date. */
export function formatWhen(iso: string, now: number): string {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  return new Date(ms).toDateString() === new Date(now).toDateString()
    ? timeOnly.format(ms)
    : dateTime.format(ms);
}

/** How long since `iso`, compactly: "just now", "12 min", "3 h", "5 d". */
export function formatAge(iso: string | undefined, now: number): string {
  const ms = iso === undefined ? Number.NaN : Date.parse(iso);
  if (!Number.isFinite(ms)) return '';
  const minutes = Math.floor((now - ms) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}

/** An amount with its currency, when it has one. */
export function formatAmount(amount: number | undefined, currency: string | undefined): string {
  if (amount === undefined) return '';
  return currency ? formatMoney(amount, currency) : String(amount);
}

/** A quantity with its unit code. */
export function formatQuantity(quantity: { value?: number; unitCode?: string } | undefined): string {
  if (!quantity) return '';
  return [quantity.value, quantity.unitCode].filter((part) => part !== undefined && part !== '').join(' ');
}

export { statusLabel } from '../preload/status-words';

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

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
