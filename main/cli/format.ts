// Human-readable output of the CLI: one line per item, tab-separated so it pipes into cut/awk.
import type { License, MarketplaceEvent, Order, PingResponse } from '../core/api/wire';
import { orderIdOf } from '../core/api/wire';

export type Printable =
  | { kind: 'ping'; value: PingResponse }
  | { kind: 'orders'; value: Order[] }
  | { kind: 'order'; value: Order }
  | { kind: 'events'; value: MarketplaceEvent[] }
  /** A posted status: the stored event, or undefined when the server confirmed without one. */
  | { kind: 'event'; value: MarketplaceEvent | undefined }
  | { kind: 'licenses'; value: License[] }
  | { kind: 'license'; value: License };

/** Server text never carries line structure into the output. */
const cell = (value: unknown): string =>
  value === undefined || value === null ? '-' : String(value).replace(/\s+/g, ' ');
const row = (cells: unknown[]): string => `${cells.map(cell).join('\t')}\n`;

function orderRow(order: Order): string {
  const first = order.documentLines[0]?.lineItem;
  const total = order.anticipatedMonetaryTotal;
  return row([
    order.orderId,
    order.issueTime,
    order.buyerCustomerParty.party?.partyName,
    first ? `${first.name ?? '?'} × ${first.quantity?.value ?? '?'}` : undefined,
    total?.amount === undefined
      ? undefined
      : `${total.amount} ${total.currencyCode ?? order.documentCurrencyCode}`,
  ]);
}

const eventRow = (e: MarketplaceEvent): string =>
  row([e.eventTime, e.statusCode, e.eventTypeCode, orderIdOf(e), e.eventId, e.description]);

const licenseRow = (l: License): string => row([l.licenseId, l.electronicMail, orderIdOf(l)]);

export function formatItems(result: Printable): string {
  switch (result.kind) {
    case 'ping':
      return Object.entries(result.value)
        .map(([key, value]) => `${key}: ${cell(value)}\n`)
        .join('');
    case 'orders':
      return result.value.map(orderRow).join('');
    case 'order':
      return orderRow(result.value);
    case 'events':
      return result.value.map(eventRow).join('');
    case 'event':
      return result.value ? eventRow(result.value) : 'delivered (the marketplace sent no event back)\n';
    case 'licenses':
      return result.value.map(licenseRow).join('');
    case 'license':
      return licenseRow(result.value);
  }
}

/** A problem for stderr: its sentence, then each detail on a line of its own. */
export function describeProblem(problem: {
  message: string;
  details?: readonly string[] | undefined;
}): string {
  return [`seller-tray: ${problem.message}`, ...(problem.details ?? []).map((d) => `  ${cell(d)}`)]
    .map((line) => `${line}\n`)
    .join('');
}
