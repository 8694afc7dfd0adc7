// An order whose buyer and product try to speak for Seller Tray (issue 13, finding 1): markup a
// notification server would render as a bold, clickable phishing link, a terminal's escape
// sequences (window title, clear screen), a line break and tab that forge a line of CLI output
// with an order id the buyer chose, a right-to-left override that shows "Total: $1.00", and a
// name of more than 200,000 characters.

export const MARKUP = '<b>URGENT</b> <a href="https://evil.example/login">Payment failed: sign in</a>';
export const FORGED_ORDER_ID = 'forged-order-id';
export const HOSTILE_BUYER = `${MARKUP}\u001b]0;pwned\u0007\u001b[2J\n${FORGED_ORDER_ID}\tBcc: attacker@evil.example ${'A'.repeat(200_000)}`;
/** Shown as "Total: $1.00" by the override; the order's total is €9,999.99. */
export const SPOOFED_TOTAL = '\u202e00.1$ :latoT\u202c';

export const hostileOrder = {
  buyerCustomerParty: { party: { partyName: HOSTILE_BUYER } },
  documentCurrencyCode: 'EUR',
  anticipatedMonetaryTotal: { amount: 9999.99, currencyCode: 'EUR' },
  documentLines: [{ lineId: 1, lineItem: { name: SPOOFED_TOTAL, quantity: { value: 1 } } }],
};

/** Control characters and the bidirectional controls: none may reach a notification or the window. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
export const CONTROL_OR_BIDI = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
