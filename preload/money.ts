// An amount with its currency: an order's total as every process reads it, and how the main
// process writes one into notifications and the terminal (the window writes its own, in the
// user's locale: renderer/format.ts).
import type { Order } from './marketplace';

/** An amount in a currency (an ISO 4217 code, or whatever the marketplace sent). */
export interface Money {
  amount: number;
  currencyCode: string;
  /** The amount as the marketplace wrote it, when `amount` would lose digits of it: written instead. */
  exact?: string;
}

/** An order's anticipated total, in its own currency or else the document's; none without an amount. */
export function orderTotal(order: Order): Money | undefined {
  const total = order.anticipatedMonetaryTotal;
  if (total?.amount === undefined) return undefined;
  const money = { amount: total.amount, currencyCode: total.currencyCode ?? order.documentCurrencyCode };
  return total.exactAmount === undefined ? money : { ...money, exact: total.exactAmount };
}

/**
 * An amount in `locale` (the runtime's default when absent: docs/window.md, "Order"); a currency
 * code Intl does not know, or a locale it does not, gives the number with the code after it.
 */
export function formatMoney({ amount, currencyCode, exact }: Money, locale?: string): string {
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency: currencyCode }).format(
      exactly(amount, exact),
    );
  } catch {
    return `${exact ?? amount} ${currencyCode}`;
  }
}

/** What Intl formats: the exact decimal text when there is one (Intl writes every digit of it). */
export function exactly(amount: number, exact: string | undefined): number {
  // Intl.NumberFormat formats a decimal string exactly; the lib's type names numbers only.
  return (exact ?? amount) as number;
}
