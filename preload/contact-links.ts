// mailto: and tel: links to an order's contacts. The address and number come from the
// marketplace, so a link is made only from a plain address or number (no second recipient,
// no subject or body, no other scheme), and the Electron shell opens only links of exactly
// that shape (main/shell/external-links.ts). Imports nothing, so every process may use it.

/**
 * One address: no spaces, quotes, commas, angle brackets or query characters, and no `%`: a mail
 * program decodes the link, so `%2C` would be a second recipient and `%0D%0A` a header line.
 */
const EMAIL =
  /^[A-Za-z0-9.!#$&'*+/=^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;
/** A number as people write it: an optional +, digits, and spaces, dots, dashes or brackets between. */
const PHONE = /^\+?[0-9][0-9 ().-]{2,30}$/;

/** The mailto: link for an address, or undefined when it is not one plain address. */
export function mailtoHref(address: string): string | undefined {
  const trimmed = address.trim();
  return trimmed.length <= 254 && EMAIL.test(trimmed) ? `mailto:${trimmed}` : undefined;
}

/** The tel: link for a number (digits and a leading + only), or undefined when it is not one. */
export function telHref(number: string): string | undefined {
  const trimmed = number.trim();
  if (!PHONE.test(trimmed)) return undefined;
  return `tel:${trimmed.replace(/[^0-9+]/g, '')}`;
}

/** Whether a URL is a contact link as made above: the shell opens it in the mail or phone app. */
export function isContactHref(url: string): boolean {
  if (url.startsWith('mailto:')) return mailtoHref(url.slice('mailto:'.length)) === url;
  if (url.startsWith('tel:')) return /^tel:\+?[0-9]{3,31}$/.test(url);
  return false;
}
