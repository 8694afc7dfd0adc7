// What the CLI prints. Human-readable lists are one line per item, tab-separated so they pipe
// into cut/awk, and at a terminal under a header with their columns lined up (as gh's lists are);
// one order is a labelled view, a line per fact. The server's text has its control
// characters escaped (marketplace-text.ts), so a buyer's name can neither forge a line nor send
// the terminal an escape sequence. JSON output is the API's objects exactly.

import { parseMark } from '../../preload/marked-by';
import { escapedControls, escapedInJson } from '../../preload/marketplace-text';
import { orderTotal } from '../../preload/money';
import { orderLink } from '../../preload/order-link';
import { currentReversal, reversalText } from '../../preload/order-status';
import { statusLabel } from '../../preload/status-words';
import { perWords, quantityWords } from '../../preload/unit-names';
import type { License, MarketplaceEvent, Order, PingResponse } from '../core/api/wire';
import { orderIdOf } from '../core/api/wire';
import { type AsideItem, describeAside } from '../core/kept-aside';

/** What trying the credentials found: accepted, rejected, or none to try (and why). */
export type CredentialsCheck =
  | { outcome: 'accepted'; sellerId: number | null }
  | { outcome: 'rejected' }
  | { outcome: 'not given'; reason: string };

export type Printable =
  | { kind: 'ping'; value: PingResponse; credentials: CredentialsCheck }
  /** Newest first; with each order's status when the events were read. */
  | { kind: 'orders'; value: Order[]; statuses?: ReadonlyMap<string, string> }
  /** With its history (oldest first) when the events were read. */
  | { kind: 'order'; value: Order; history?: readonly MarketplaceEvent[] }
  | { kind: 'events'; value: MarketplaceEvent[] }
  /** A posted status: the stored event (undefined when the server confirmed without one, perhaps naming its id), and what it did. */
  | { kind: 'mark'; value: MarketplaceEvent | undefined; eventId?: string | undefined; mark: PostedMark }
  | { kind: 'licenses'; value: License[] }
  | { kind: 'license'; value: License };

/** An order as a sentence names it: its id, and its buyer when known. */
export interface NamedOrder {
  orderId: string;
  buyer?: string | undefined;
}

/** A status posted by `status`: the order, its status before (if any was found), the one marked, by whom. */
export interface PostedMark extends NamedOrder {
  from: string | undefined;
  to: string;
  actor: string;
  forced: boolean;
}

const cell = (value: unknown): string =>
  value === undefined || value === null ? '-' : escapedControls(String(value));
/** One item's line: its cells tab-separated, the server's text escaped. */
export const row = (cells: unknown[]): string => `${cells.map(cell).join('\t')}\n`;

/**
 * A list: for a pipe, one `row` per item and nothing else, so cut and awk read every line; for a
 * `terminal`, its `header` first and each column padded to line up, two spaces apart.
 */
export function table(header: readonly string[], rows: readonly unknown[][], terminal: boolean): string {
  if (!terminal || rows.length === 0) return rows.map(row).join('');
  const lines = [[...header], ...rows.map((cells) => cells.map(cell))];
  const widths = header.map((_, column) => Math.max(...lines.map((line) => line[column]?.length ?? 0)));
  return lines
    .map(
      (line) =>
        `${line
          .map((text, column) => text.padEnd(widths[column] ?? 0))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}

/**
 * A moment of this computer's own (a pause's end) in the user's time zone (the process's TZ), to
 * the minute, with its offset so a line pasted elsewhere still says when: "2026-11-28 14:30 +01:00".
 * The marketplace's times are printed as it sent them.
 */
export function localTime(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const east = -date.getTimezoneOffset();
  const offset = `${east < 0 ? '-' : '+'}${two(Math.floor(Math.abs(east) / 60))}:${two(Math.abs(east) % 60)}`;
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())} ${offset}`;
}

/** An order's total as a pipe reads it, the amount and its currency code: no locale's digits. */
const totalOf = (order: Order): string | undefined => {
  const total = orderTotal(order);
  return total && `${total.exact ?? total.amount} ${total.currencyCode}`;
};

/** An order's cells: id, issued, status (when known), buyer, first product × quantity (its unit named), total. */
function orderCells(order: Order, statuses?: ReadonlyMap<string, string>): unknown[] {
  const first = order.documentLines[0]?.lineItem;
  return [
    order.orderId,
    order.issueTime,
    ...(statuses ? [statusLabel(statuses.get(order.orderId ?? ''))] : []),
    order.buyerCustomerParty.party?.partyName,
    first ? `${first.name ?? '?'} × ${quantityWords(first.quantity, String) || '?'}` : undefined,
    totalOf(order),
  ];
}

const ORDER_HEADER = (statuses: boolean) => [
  'ORDER',
  'ISSUED',
  ...(statuses ? ['STATUS'] : []),
  'BUYER',
  'FIRST LINE',
  'TOTAL',
];

/** Who marked an event and their words, when Seller Tray posted it (preload/marked-by.ts); else its description. */
function eventWords(event: MarketplaceEvent): string | undefined {
  const mark = parseMark(event.description);
  if (!mark) return event.description;
  return `Marked by ${mark.actor}${mark.text === '' ? '' : `: ${mark.text}`}`;
}

/** An order's status as its latest event says it: since when, and who marked it. */
export function statusFact(latest: MarketplaceEvent | undefined): string | undefined {
  if (!latest) return undefined;
  const actor = parseMark(latest.description)?.actor;
  return [
    statusLabel(latest.statusCode),
    latest.eventTime && ` since ${latest.eventTime}`,
    actor && `, marked by ${actor}`,
  ]
    .filter(Boolean)
    .join('');
}

/** One event of an order's history on a line: when, the status, who marked it and why. */
function historyLine(event: MarketplaceEvent, index: number): string {
  const words = [eventWords(event), event.detailedDescription && `(${event.detailedDescription})`]
    .filter(Boolean)
    .join(' ');
  return `  ${index + 1}. ${[event.eventTime, statusLabel(event.statusCode), words].map(cell).join('  ')}\n`;
}

/**
 * One order to read: a labelled line per fact, its lines indented; nothing absent is printed.
 * `account`: the one its link names (see formatItems).
 */
function orderView(
  order: Order,
  history: readonly MarketplaceEvent[] = [],
  account?: { id: string; label: string },
): string {
  const buyer = order.buyerCustomerParty;
  const contact = buyer.buyerContact;
  const validity = order.validityPeriod;
  const reversal = currentReversal(history);
  const facts: [string, unknown][] = [
    ['Order', order.orderId],
    // Whose it is, while several accounts are saved: an order id may be in two.
    ['Account', account?.label],
    ['Status', statusFact(history.at(-1))],
    // Another laptop moved the status back: said, as the order page says it.
    ['Moved back', reversal && reversalText(reversal)],
    ['Issued', order.issueTime],
    ['Type', order.orderTypeCode],
    ['Buyer', buyer.party?.partyName],
    // The buyer's account in the seller's own systems, in the order page's words.
    ['Our account id', buyer.supplierAssignedAccountId],
    ['Contact', [contact?.name, contact?.electronicMail, contact?.telephone].filter(Boolean).join(', ')],
    ['Seller', order.sellerSupplierParty.party?.partyName],
    ['Total', totalOf(order)],
    ['Valid', validity && [validity.startDate, validity.endDate].filter(Boolean).join(' to ')],
    ['Note', order.note],
    // The link that opens the order in Seller Tray (none for an odd id).
    ['Link', order.orderId === undefined ? undefined : orderLink(order.orderId, account)],
  ];
  const lines = order.documentLines.map((line, i) => {
    const item = line.lineItem;
    const price = item?.price?.priceAmount;
    // Units by name ("176 users at 9.95 EUR per month"), numbers as they came, for pipes.
    const per = perWords(item?.price?.baseQuantity, String);
    return [
      `  ${line.lineId ?? i + 1}. ${cell(item?.name)}`,
      item?.sellersItemId && ` (${cell(item.sellersItemId)})`,
      item?.quantity?.value !== undefined &&
        ` × ${cell(quantityWords(item.quantity, (value) => item.quantity?.exactValue ?? String(value)))}`,
      price?.amount !== undefined &&
        ` at ${cell(price.exactAmount ?? price.amount)} ${cell(price.currencyCode ?? '')}`.trimEnd(),
      price?.amount !== undefined && per && ` ${cell(per)}`,
      '\n',
    ]
      .filter(Boolean)
      .join('');
  });
  const width = Math.max(...facts.map(([label]) => label.length)) + 2;
  return [
    ...facts
      .filter(([, value]) => value !== undefined && value !== '')
      .map(([label, value]) => `${`${label}:`.padEnd(width)}${cell(value)}\n`),
    ...(lines.length > 0 ? ['Lines:\n', ...lines] : []),
    ...(history.length > 0 ? ['History:\n', ...history.map(historyLine)] : []),
  ].join('');
}

function credentialsLine(check: CredentialsCheck): string {
  switch (check.outcome) {
    case 'accepted':
      return `credentials: accepted${check.sellerId === null ? '' : ` (seller ${check.sellerId})`}\n`;
    case 'rejected':
      return 'credentials: rejected: check the client id and secret in the Seller Console\n';
    case 'not given':
      return `credentials: not checked (${escapedControls(check.reason)})\n`;
  }
}

const eventCells = (e: MarketplaceEvent): unknown[] => [
  e.eventTime,
  e.statusCode,
  e.eventTypeCode,
  orderIdOf(e),
  e.eventId,
  e.description,
];
const EVENT_HEADER = ['TIME', 'STATUS', 'TYPE', 'ORDER', 'EVENT', 'DESCRIPTION'];

const licenseCells = (l: License): unknown[] => [l.licenseId, l.electronicMail, orderIdOf(l)];
const LICENSE_HEADER = ['LICENSE', 'EMAIL', 'ORDER'];

/** The kinds whose text names the `account` given to `formatItems` (an order's link, a mark's confirmation). */
export const NAMES_ITS_ACCOUNT: ReadonlySet<Printable['kind']> = new Set(['order', 'mark']);

/**
 * `account`: given while several accounts are listed, the one an order's link names (as the app's
 * links do) and a mark's confirmation says took it. `terminal`: stdout is one (lists as `table`).
 */
export function formatItems(
  result: Printable,
  account?: { id: string; label: string },
  terminal = false,
): string {
  switch (result.kind) {
    case 'ping':
      return (
        Object.entries(result.value)
          .map(([key, value]) => `${cell(key)}: ${cell(value)}\n`)
          .join('') + credentialsLine(result.credentials)
      );
    case 'orders':
      return table(
        ORDER_HEADER(result.statuses !== undefined),
        result.value.map((order) => orderCells(order, result.statuses)),
        terminal,
      );
    case 'order':
      return orderView(result.value, result.history, account);
    case 'events':
      return table(EVENT_HEADER, result.value.map(eventCells), terminal);
    case 'mark':
      return markText(result.mark, result.eventId ?? result.value?.eventId, account);
    case 'licenses':
      return table(LICENSE_HEADER, result.value.map(licenseCells), terminal);
    case 'license':
      return table(LICENSE_HEADER, [licenseCells(result.value)], terminal);
  }
}

const orderNamed = ({ orderId, buyer }: NamedOrder): string =>
  `order ${cell(orderId)}${buyer ? ` (${cell(buyer)})` : ''}`;

/** What `status` did, in a sentence: "Marked order … In progress as Anna Virtanen, from New; the marketplace accepted it (event …)." */
function markText(mark: PostedMark, eventId: string | undefined, account?: { label: string }): string {
  const before =
    mark.from === undefined
      ? 'no status found before'
      : `${mark.from === mark.to ? 'already' : 'from'} ${statusLabel(mark.from)}`;
  return [
    `Marked ${orderNamed(mark)} ${statusLabel(mark.to)}`,
    mark.actor && ` as ${cell(mark.actor)}`,
    `, ${before}${mark.forced ? ' (--force)' : ''}`,
    `; the marketplace${account ? ` of account ${cell(account.label)}` : ''} accepted it`,
    eventId ? ` (event ${cell(eventId)})` : ' (it sent no event back)',
    '.\n',
  ]
    .filter(Boolean)
    .join('');
}

/** Why `status` posted nothing without --force: the order's status, and why the mark is not the usual next step. */
export function refusedMarkText(order: NamedOrder, latest: MarketplaceEvent | undefined, to: string): string {
  const named = orderNamed(order);
  if (!latest) {
    return `No status was found for ${named}: none of the events the marketplace lists can be read as this order's, so whether ${statusLabel(to)} is the usual next step is unknown. Nothing was posted; add --force to mark it ${statusLabel(to)} anyway.`;
  }
  if (latest.statusCode === to) {
    return `The ${named} is already ${cell(statusFact(latest))}. Nothing was posted; add --force to mark it ${statusLabel(to)} again.`;
  }
  return `The ${named} is ${cell(statusFact(latest))}: marking it ${statusLabel(to)} now is unusual, so the window asks first. Nothing was posted; add --force to do it anyway.`;
}

/** A problem for stderr: its sentence, then each detail on a line of its own, the server's text escaped. */
export function describeProblem(problem: {
  message: string;
  details?: readonly string[] | undefined;
}): string {
  return [
    `seller-tray: ${escapedControls(problem.message)}`,
    ...(problem.details ?? []).map((d) => `  ${cell(d)}`),
  ]
    .map((line) => `${line}\n`)
    .join('');
}

/** Why an unreadable event is told although it may be of an order not printed. */
const UNKNOWN_ORDER = 'it names no order that can be read, so it may be of an order not printed here';

/**
 * What a command read that could not be read, for stderr (outcome as runCommand's): an event
 * told only because its order cannot be told says so.
 */
export function describeUnread(unread: {
  aside: readonly AsideItem[];
  ofUnknownOrder: readonly AsideItem[];
}): string {
  const unplaced = unread.ofUnknownOrder.map((item) => ({
    ...item,
    reason: `${item.reason} (${UNKNOWN_ORDER})`,
  }));
  return describeProblem(describeAside([...unread.aside, ...unplaced]));
}

/** JSON, exact once parsed, with nothing in it a terminal could act on; `indent` 0 for one line. */
export function terminalJson(value: unknown, indent = 2): string {
  return `${escapedInJson(JSON.stringify(value ?? null, null, indent))}\n`;
}

const WINDOW_NOUNS: Readonly<Record<string, string>> = {
  listEvents: 'events',
  listNewEvents: 'new events',
  listOrders: 'orders',
};

/**
 * The result windows a command met, for stderr: the listing is read within its window, so what
 * lies past it (the newest items while the listing is longer) is not printed.
 */
export function describeWindows(windows: Readonly<Record<string, number>>): string {
  return Object.entries(windows)
    .map(
      ([operation, size]) =>
        `seller-tray: the marketplace lists only its first ${size.toLocaleString('en')} ${WINDOW_NOUNS[operation] ?? operation} (a result window): those past them cannot be read, so what is shown ends there.\n`,
    )
    .join('');
}
