// What the CLI prints. Human-readable output is one line per item, tab-separated so it pipes into
// cut/awk; the server's text in it has its control characters escaped (marketplace-text.ts), so a
// buyer's name can neither forge a line nor send the terminal an escape sequence. JSON output is
// the API's objects exactly.

import { escapedControls, escapedInJson } from '../../preload/marketplace-text';
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

const cell = (value: unknown): string =>
  value === undefined || value === null ? '-' : escapedControls(String(value));
/** One item's line: its cells tab-separated, the server's text escaped. */
export const row = (cells: unknown[]): string => `${cells.map(cell).join('\t')}\n`;

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
        .map(([key, value]) => `${cell(key)}: ${cell(value)}\n`)
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

/** JSON, exact once parsed, with nothing in it a terminal could act on; `indent` 0 for one line. */
export function terminalJson(value: unknown, indent = 2): string {
  return `${escapedInJson(JSON.stringify(value ?? null, null, indent))}\n`;
}
