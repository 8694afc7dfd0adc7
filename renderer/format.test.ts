// The one way the window writes quantities, prices, totals and dates.
import { describe, expect, it } from 'vitest';
import { formatAmount, formatDate, formatDateTime, formatPer, formatQuantity, lineTotal } from './format';

describe('quantities', () => {
  it.each([
    [{ value: 1, unitCode: 'USR' }, '1 user'],
    [{ value: 176, unitCode: 'USR' }, '176 users'],
    [{ value: 1, unitCode: 'EA' }, '1 unit'],
    [{ value: 3, unitCode: 'C62' }, '3 units'],
    [{ value: 12, unitCode: 'MON' }, '12 months'],
    [{ value: 1, unitCode: 'ann' }, '1 year'],
    [{ value: 2, unitCode: 'HUR' }, '2 hours'],
    [{ value: 1, unitCode: 'DAY' }, '1 day'],
    [{ value: 1250, unitCode: 'USR' }, `${(1250).toLocaleString()} users`],
    [{ value: 25, unitCode: 'SEAT' }, '25 SEAT'],
    [{ value: 4 }, '4'],
    [{ unitCode: 'MON' }, 'months'],
  ])('%j is written %s', (quantity, words) => {
    expect(formatQuantity(quantity)).toBe(words);
  });

  it('say what a price is for', () => {
    expect(formatPer({ value: 1, unitCode: 'MON' })).toBe('per month');
    expect(formatPer({ value: 12, unitCode: 'MON' })).toBe('per 12 months');
    expect(formatPer({ value: 1, unitCode: 'XYZ' })).toBe('per 1 XYZ');
    expect(formatPer(undefined)).toBe('');
  });
});

describe('line totals', () => {
  it('are the quantity times the price for its base quantity, per the time unit it is given in', () => {
    const monthly = { amount: 9.95, base: { value: 1, unitCode: 'MON' } };
    expect(lineTotal({ value: 176, unitCode: 'USR' }, monthly)).toEqual({
      amount: 176 * 9.95,
      per: 'per month',
    });
    const yearly = { amount: 240, base: { value: 12, unitCode: 'MON' } };
    expect(lineTotal({ value: 2, unitCode: 'EA' }, yearly)).toEqual({ amount: 40, per: 'per month' });
    // A base quantity in the quantity's own unit: a plain total.
    expect(
      lineTotal({ value: 10, unitCode: 'EA' }, { amount: 5, base: { value: 2, unitCode: 'EA' } }),
    ).toEqual({
      amount: 25,
      per: '',
    });
    expect(lineTotal({ value: 3 }, { amount: 2 })).toEqual({ amount: 6, per: '' });
  });

  it('are left out when a part is missing or the base quantity is no quantity', () => {
    expect(lineTotal(undefined, { amount: 1 })).toBeUndefined();
    expect(lineTotal({ value: 1 }, {})).toBeUndefined();
    expect(lineTotal({ value: 1 }, { amount: 1, base: { value: 0, unitCode: 'MON' } })).toBeUndefined();
  });
});

describe('dates and amounts', () => {
  it('write a calendar date in the style of a timestamp, on its own day in every time zone', () => {
    expect(formatDateTime('2026-12-01T12:00:00Z')).toContain(formatDate('2026-12-01'));
    expect(formatDate('2026-12-01')).not.toContain('2026-12-01');
    expect(formatDate('2026-12-01')).toContain('2026');
    expect(formatDate('not a date')).toBe('not a date');
  });

  it('write an amount in its currency, and one Intl does not know after the number', () => {
    expect(formatAmount(1234.5, 'EUR')).toBe(
      new Intl.NumberFormat(undefined, { style: 'currency', currency: 'EUR' }).format(1234.5),
    );
    expect(formatAmount(5, 'NOT A CODE')).toBe('5 NOT A CODE');
    expect(formatAmount(undefined, 'EUR')).toBe('');
  });

  it('write an amount a number would round with every digit the marketplace wrote', () => {
    const exact = '12345678901234567890.25';
    const digits = (text: string) => text.replace(/\D/g, '');
    expect(digits(formatAmount(Number(exact), 'EUR', exact))).toBe('1234567890123456789025');
    expect(digits(formatAmount(Number(exact), 'USDT', exact))).toBe('1234567890123456789025');
    expect(digits(formatAmount(Number(exact), 'EUR'))).not.toBe('1234567890123456789025');
  });
});
