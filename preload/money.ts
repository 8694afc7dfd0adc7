// An amount with its currency, written the same way in notifications, the tray and the window.

/** An amount in its currency; a currency code Intl does not know is written after the number. */
export function formatMoney(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}
