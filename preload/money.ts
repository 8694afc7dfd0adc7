// An amount with its currency: an order's total as every process reads it, and how the main
// process writes one into notifications and the terminal (the window writes its own, in the
// user's locale: renderer/format.ts).
import type { Order } from './marketplace';

/** An amount in a currency (an ISO 4217 code, or whatever the marketplace sent). */
export interface Money {
  amount: number;
  currencyCode: string;
}

/** An order's anticipated total, in its own currency or else the document's; none without an amount. */
export function orderTotal(order: Order): Money | undefined {
  const total = order.anticipatedMonetaryTotal;
  if (total?.amount === undefined) return undefined;
  return { amount: total.amount, currencyCode: total.currencyCode ?? order.documentCurrencyCode };
}

/**
 * An amount in `locale` (the runtime's default when absent: README, "The window"); a currency
 * code Intl does not know, or a locale it does not, gives the number with the code after it.
 */
export function formatMoney({ amount, currencyCode }: Money, locale?: string): string {
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency: currencyCode }).format(amount);
  } catch {
    return `${amount} ${currencyCode}`;
  }
}
