// An order whose buyer and product try to speak for Seller Tray (issue 13, finding 1): markup a
// notification server would render as a bold, clickable phishing link, a terminal's escape
// sequences (window title, clear screen), a line break and tab that forge a line of CLI output
// with an order id the buyer chose, a right-to-left override that shows "Total: $1.00", and a
// name of more than 200,000 characters. Issue 22 added the line and paragraph separators (a line
// break to JavaScript and to Python's splitlines) and a delivery contact: its caption names the
// product with the override, and its e-mail address hides a second recipient and a header in
// percent escapes.

export const MARKUP = '<b>URGENT</b> <a href="https://evil.example/login">Payment failed: sign in</a>';
export const FORGED_ORDER_ID = 'forged-order-id';
export const HOSTILE_BUYER = `${MARKUP}\u001b]0;pwned\u0007\u001b[2J\n${FORGED_ORDER_ID}\tBcc: attacker@evil.example\u2028${FORGED_ORDER_ID}\u2029${FORGED_ORDER_ID} ${'A'.repeat(200_000)}`;
/** Shown as "Total: $1.00" by the override; the order's total is €9,999.99. */
export const SPOOFED_TOTAL = '\u202e00.1$ :latoT\u202c';

/** `%2C` a second recipient, `%0D%0A` a header line, once a mail program decodes the mailto: link. */
export const HOSTILE_EMAIL = 'ops%2Cattacker%0D%0ABcc%3Aspy@evil.example';

export const hostileContact = {
  name: `Ops\u2028${FORGED_ORDER_ID}\u202e`,
  electronicMail: HOSTILE_EMAIL,
  telephone: '+1 555 0100',
  note: `Call first\u2029${FORGED_ORDER_ID}`,
};

export const hostileOrder = {
  buyerCustomerParty: { party: { partyName: HOSTILE_BUYER } },
  documentCurrencyCode: 'EUR',
  anticipatedMonetaryTotal: { amount: 9999.99, currencyCode: 'EUR' },
  documentLines: [
    {
      lineId: 1,
      lineItem: { name: SPOOFED_TOTAL, quantity: { value: 1 }, delivery: { contact: hostileContact } },
    },
  ],
};

/**
 * Control characters, the line and paragraph separators and the bidirectional controls: none may
 * reach a notification, the terminal, the log or the window.
 */
export const CONTROL_OR_BIDI =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * What notification servers offer as a link in plain text: a scheme and its colon (dunst's
 * `mailto:`, GNOME Shell's and KDE's `https://`), `www.`, and a host name with a dot before a
 * top-level domain (GNOME Shell's `example.com/`, an e-mail address).
 */
export const LINK_SHAPED = /\b[a-z][\w+.-]*:(?=\S)|\bwww\d{0,3}\.|[a-z0-9-]\.[a-z]{2,}\b/i;
