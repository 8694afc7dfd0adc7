// The proof of delivery's CSV and JSON: hostile text (a formula, quotes, line breaks, controls,
// a right-to-left override) stays inert in a spreadsheet and a terminal, and reads back whole.
import { describe, expect, it } from 'vitest';
import type { OutboxItem } from './outbox';
import { csvCell, proofCsv, proofJson, proofRows } from './status-records';

const item: OutboxItem = {
  requestId: '0b9f3c1e-4a3b-4c8e-9d1f-2a6b7c8d9e0f',
  orderId: '=HYPERLINK("https://evil.example","click")',
  statusCode: 'ProvisioningFailed',
  description: 'Provisioning failed, reported by @Anna\u202e gnp.exe: line one\nline "two", +3',
  createdAt: '2026-11-26T10:00:00.000Z',
  state: 'failed',
  attempts: 1,
  httpStatus: 400,
  problem: { message: '-1+1 said the marketplace', details: [] },
};

describe('csvCell', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['\tTAB', '\\tTAB'],
    ['\u202eevil', '\\u202eevil'],
  ])('%j is written %j', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it('writes numbers as they are and a missing value as an empty cell', () => {
    expect([csvCell(201), csvCell(null)]).toEqual(['201', '']);
  });
});

describe('the export', () => {
  const [row] = proofRows('EU', [{ item }]);

  it('names who marked it, the outcome and the answer', () => {
    expect(row).toMatchObject({
      // The name as shown (parseMark cleans a name read from the history, which any client may write).
      markedBy: '@Anna gnp.exe',
      outcome: 'refused',
      httpStatus: 400,
      sentAt: '',
      problem: '-1+1 said the marketplace',
    });
  });

  it('as CSV: one line per status, no cell a formula, no raw control or line break', () => {
    const csv = proofCsv(row ? [row] : []);
    const lines = csv.split('\r\n');
    expect(lines).toHaveLength(3); // heading, the row, the end
    expect(lines[0]).toMatch(/^Account,Order ID,Status,Marked by,/);
    expect(csv).not.toMatch(/[\u202e\n](?<!\r\n)/u);
    const cells = lines[1]?.match(/("([^"]|"")*"|[^,]*)(,|$)/g)?.map((c) => c.replace(/,$/, '')) ?? [];
    for (const cell of cells) expect(cell.replace(/^"/, '')).not.toMatch(/^[=+\-@]/);
    expect(cells[1]).toBe(`"'=HYPERLINK(""https://evil.example"",""click"")"`);
    expect(lines[1]).toContain('\\u202e');
    expect(lines[1]).toContain('line one\\nline ""two"", +3');
  });

  it('as JSON: the same values, with the terminal controls escaped', () => {
    const json = proofJson(row ? [row] : []);
    expect(json).not.toContain('\u202e');
    expect(JSON.parse(json)).toEqual([row]);
  });
});
