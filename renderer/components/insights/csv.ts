// A chart's data as CSV, for a spreadsheet: marketplace text (products, reasons) is made plain
// first, and a text cell a spreadsheet would take for a formula (one starting with = + - @, a tab
// or a carriage return) is kept as text by a leading apostrophe (OWASP's advice on CSV injection).
import { plainText } from '../../../preload/marketplace-text';

export type CsvCell = string | number | null;

const FORMULA_LEAD = /^[=+\-@\t\r]/;

/** One cell as CSV writes it: quoted where it holds a comma, a quote or a line break. */
export function csvCell(cell: CsvCell): string {
  if (cell === null) return '';
  if (typeof cell === 'number') return Number.isFinite(cell) ? String(cell) : '';
  const text = plainText(cell);
  const safe = FORMULA_LEAD.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The header row and the rows, CRLF-separated as RFC 4180 has it. */
export function csvText(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return `${[header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n')}\r\n`;
}
