// Lists as a pipe reads them (rows only) and as a person at a terminal reads them (a header, lined up).
import { expect, it } from 'vitest';
import { table } from './format';

const HEADER = ['ORDER', 'BUYER', 'TOTAL'];
const ROWS = [
  ['0a1b', 'Acme Industrial GmbH', '10 EUR'],
  ['9f8e7d6c', 'Z\u001b[2J', undefined],
];

it('gives a pipe one tab-separated row per item and nothing else', () => {
  expect(table(HEADER, ROWS, false)).toBe('0a1b\tAcme Industrial GmbH\t10 EUR\n9f8e7d6c\tZ\\x1b[2J\t-\n');
});

it("gives a terminal the header, each column as wide as its widest cell and two spaces apart, the server's text escaped", () => {
  expect(table(HEADER, ROWS, true).split('\n')).toEqual([
    'ORDER     BUYER                 TOTAL',
    '0a1b      Acme Industrial GmbH  10 EUR',
    '9f8e7d6c  Z\\x1b[2J              -',
    '',
  ]);
});

it('prints no header over an empty list', () => {
  expect(table(HEADER, [], true)).toBe('');
});
