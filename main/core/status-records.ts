// Proof of delivery (issue 26): every status this laptop marked, as finance and disputes read it:
// the order, the status, who marked it, when it was held and sent, the request id, the
// marketplace's answer (HTTP status, event id) and when a poll's listing showed it back. The store
// keeps each outbox item's last form in `status_records` with its changes, after the outbox lets
// it go; this turns those records into rows, and rows into CSV or JSON. Every cell is text a
// stranger may have written (the marketplace's words, a pasted description): in CSV it is kept
// from starting a formula and from hiding characters, in JSON it is escaped for a terminal.
import { parseMark } from '../../preload/marked-by';
import { escapedControls, escapedInJson } from '../../preload/marketplace-text';
import type { OutboxItem } from '../../preload/model';

/** How an item left the outbox before it was confirmed: undone while held, or posted again as a new one. */
export interface StatusEnding {
  as: 'undone' | 'sent-again';
  /** When (ISO time). */
  at: string;
}

/** A status marked here: its outbox item as last stored, and how it left before confirmed, if it did. */
export interface StatusRecord {
  item: OutboxItem;
  ended?: StatusEnding;
}

/** How long a record is kept from when its status was marked: a year of disputes and a month's grace. */
export const STATUS_RECORDS_KEPT_DAYS = 400;

/** The oldest marking time (ISO) a record is kept for at `now` (ms): those marked before go. */
export const recordsKeptFrom = (now: number): string =>
  new Date(now - STATUS_RECORDS_KEPT_DAYS * 24 * 60 * 60_000).toISOString();

/** Where the status stands, in a word people and spreadsheets filter by. */
export type ProofOutcome = 'confirmed' | 'sent' | 'refused' | 'pending' | 'undone' | 'sent-again';

/** One row of the export: a status as its proof of delivery. */
export interface ProofRow {
  account: string;
  orderId: string;
  status: string;
  /** Who marked it, as its description names them ("" when it names nobody). */
  markedBy: string;
  markedAt: string;
  /** The end of its grace period, when it was held to be undone. */
  heldUntil: string;
  sentAt: string;
  requestId: string;
  outcome: ProofOutcome;
  /** The HTTP status of the marketplace's answer to its last post; null without one (none came, or found by reading back). */
  httpStatus: number | null;
  eventId: string;
  /** When a poll's listing showed it (confirmed). */
  readBackAt: string;
  /** Undone or sent again: when. */
  endedAt: string;
  attempts: number;
  /** Why its last post failed, in words (the marketplace's quoted). */
  problem: string;
  description: string;
}

function outcomeOf({ item, ended }: StatusRecord): ProofOutcome {
  if (ended) return ended.as;
  if (item.state === 'failed') return 'refused';
  if (item.state === 'pending') return 'pending';
  return item.readBackAt === undefined ? 'sent' : 'confirmed';
}

/** The rows of one account's records, in the order given (oldest first). */
export function proofRows(account: string, records: readonly StatusRecord[]): ProofRow[] {
  return records.map((record) => {
    const { item, ended } = record;
    return {
      account,
      orderId: item.orderId,
      status: item.statusCode,
      markedBy: parseMark(item.description)?.actor ?? '',
      markedAt: item.createdAt,
      heldUntil: item.notBefore ?? '',
      sentAt: item.sentAt ?? '',
      requestId: item.requestId,
      outcome: outcomeOf(record),
      httpStatus: item.httpStatus ?? null,
      eventId: item.eventId ?? '',
      readBackAt: item.readBackAt ?? '',
      endedAt: ended?.at ?? '',
      attempts: item.attempts,
      problem: item.problem?.message ?? '',
      description: item.description,
    };
  });
}

/** The CSV's columns, in order, with their headings. */
const COLUMNS: readonly [keyof ProofRow, string][] = [
  ['account', 'Account'],
  ['orderId', 'Order ID'],
  ['status', 'Status'],
  ['markedBy', 'Marked by'],
  ['markedAt', 'Marked at (UTC)'],
  ['heldUntil', 'Held until (UTC)'],
  ['sentAt', 'Sent at (UTC)'],
  ['requestId', 'Request ID'],
  ['outcome', 'Outcome'],
  ['httpStatus', 'HTTP status'],
  ['eventId', 'Event ID'],
  ['readBackAt', 'Read back at (UTC)'],
  ['endedAt', 'Undone or sent again at (UTC)'],
  ['attempts', 'Attempts'],
  ['problem', 'Problem'],
  ['description', 'Description'],
];

/**
 * One CSV cell (RFC 4180): controls and bidirectional characters written as visible escapes, a
 * text a spreadsheet would run as a formula (leading =, +, -, @) opened with an apostrophe (OWASP's
 * advice), quoted when it holds a quote, a comma or a line break.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = escapedControls(value);
  const safe = /^[=+\-@]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The rows as CSV, a heading line first, lines ended with CRLF (as spreadsheets expect). */
export function proofCsv(rows: readonly ProofRow[]): string {
  const lines = [
    COLUMNS.map(([, heading]) => heading),
    ...rows.map((row) => COLUMNS.map(([key]) => csvCell(row[key]))),
  ];
  return lines.map((cells) => `${cells.join(',')}\r\n`).join('');
}

/** The rows as JSON, one array, with what a terminal would act on escaped (it parses the same). */
export function proofJson(rows: readonly ProofRow[]): string {
  return `${escapedInJson(JSON.stringify(rows, null, 2))}\n`;
}

export type ProofFormat = 'csv' | 'json';

/** The rows in the format asked for. */
export const proofText = (rows: readonly ProofRow[], format: ProofFormat): string =>
  format === 'csv' ? proofCsv(rows) : proofJson(rows);
