// Links to orders, `seller-tray://order/<orderId>`, or `seller-tray://order/<account>/<orderId>`
// while the app serves more than one account (an order id may be in two marketplaces), that open
// the app on that order on any laptop where it is installed (shared in chat or e-mail: "can you
// take this one?"). Written and read here only, for every process: the window's "Copy link", the
// CLI's `orders get`, and the main process, which receives links from the desktop. A link comes
// from outside the app, so it is read strictly: exactly this scheme, this host, an optional
// account name of plain characters, then an order id, nothing more.

/** The URL scheme the installers and the app register. */
export const ORDER_LINK_SCHEME = 'seller-tray';

/**
 * An order id as the marketplace writes them: a UUID (the spec's `string (uuid)`, read by the wire
 * model as any 8-4-4-4-12 hex form, in either case). Anything else is not an order this app can
 * look up, so a link carrying it is refused rather than guessed at.
 */
const ORDER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * An account as a link names it: its label ("EU") when the label is plain letters, digits, `.`,
 * `_` or `-` (starting with a letter or digit, so never `.` or `..`) and fits 24 characters (the
 * label's limit), else its id, which always is. Nothing that needs escaping ever enters a link.
 */
const ACCOUNT_NAME = '[0-9a-z][0-9a-z._-]{0,23}';

/**
 * The whole link: scheme and host in any case (URLs are case-insensitive there), then the account's
 * name or not, then the id and the end. No user, port, further path parts, query, fragment or
 * percent escapes: any of those refuses the link. (JavaScript's `$` without the `m` flag matches
 * only at the very end.)
 */
const ORDER_LINK = new RegExp(`^${ORDER_LINK_SCHEME}://order/(?:(${ACCOUNT_NAME})/)?([0-9a-f-]{36})$`, 'i');
const PLAIN_NAME = new RegExp(`^${ACCOUNT_NAME}$`, 'i');
/**
 * A name as an account's id is written (16 hex digits, or the demo's): a label like one would be
 * read as that other account's id, so such a label is written as its own account's id instead.
 */
const ID_SHAPED = /^(?:[0-9a-f]{16}|demo)$/i;

/** Longer than any link this app writes: refused before any matching. */
const MAX_LINK_LENGTH = 128;

export function isOrderId(id: string): boolean {
  return ORDER_ID.test(id);
}

/**
 * An order id in the one form every comparison uses: a UUID in lower case (RFC 9562 reads them
 * in any case, and marketplaces write either), anything else as it came, trimmed. Every entry
 * of an order id (the wire model, links, the command line, the bridge) passes through here.
 */
export function canonicalOrderId(id: string): string {
  const trimmed = id.trim();
  return ORDER_ID.test(trimmed) ? trimmed.toLowerCase() : trimmed;
}

/** What a link points to: an order, and the account it names (a label or an id, as written), if any. */
export interface OrderLinkTarget {
  orderId: string;
  account?: string;
}

/**
 * The link to an order, naming `account` when given (give it while the app serves more than one:
 * preload/served-account.ts), or undefined when the id is not one a link can carry.
 */
export function orderLink(orderId: string, account?: { id: string; label: string }): string | undefined {
  if (!isOrderId(orderId)) return undefined;
  const plain = account && PLAIN_NAME.test(account.label) && !ID_SHAPED.test(account.label);
  const name = account === undefined ? '' : `${plain ? account.label : account.id}/`;
  return `${ORDER_LINK_SCHEME}://order/${name}${canonicalOrderId(orderId)}`;
}

/** The order (and account) a link points to, or undefined when it is not exactly an order link. */
export function parseOrderLink(link: string): OrderLinkTarget | undefined {
  if (link.length > MAX_LINK_LENGTH) return undefined;
  const [, account, id] = ORDER_LINK.exec(link) ?? [];
  if (id === undefined || !isOrderId(id)) return undefined;
  return { orderId: canonicalOrderId(id), ...(account === undefined ? {} : { account }) };
}

/**
 * Whether a launch argument is meant as a link of this app (valid or not): the desktop passes the
 * link as one argument, and one that names the scheme but is malformed deserves an answer too.
 */
export function isLinkArgument(argument: string): boolean {
  return argument.toLowerCase().startsWith(`${ORDER_LINK_SCHEME}:`);
}
