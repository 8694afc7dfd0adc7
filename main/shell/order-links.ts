// Opening `seller-tray://order/[<account>/]<id>` links: the desktop hands one over as a launch argument (the
// first launch's, or a second launch's passed on to this instance on Windows and Linux) or as
// macOS's open-url event, possibly before the app is ready. The link is read strictly
// (preload/order-link.ts); the order is looked up once, in the store and then at the marketplace,
// and the window opens on it in its account, or says plainly why it cannot, without guessing (an
// old link whose id is in two accounts names them, for the user to choose).
import { isLinkArgument, parseOrderLink } from '../../preload/order-link';
import type { OrderLookup } from '../core/service';

export interface OrderLinkPorts {
  /** The store, then the marketplace, in the account the link names if any (SellerTrayService.lookUpOrder). */
  lookUp(orderId: string, account: string | undefined): Promise<OrderLookup>;
  /** Shows and focuses the window (hidden or not) on the order of that account (its id). */
  showOrder(orderId: string, account: string): void;
  /** Shows and focuses the window, saying this; details go behind a disclosure. */
  showProblem(message: string, details: string[]): void;
}

export const NOT_AN_ORDER_LINK =
  'Seller Tray cannot open this link: it is not a link to an order. Order links read seller-tray://order/ followed by the order id.';

type NotFound = Exclude<OrderLookup, { found: true }>;

/** What the window says when the lookup did not find the order, per reason. */
export const LOOKUP_MESSAGES: Record<Exclude<NotFound['reason'], 'ambiguous' | 'no-such-account'>, string> = {
  'not-in-account': 'This order is not in this marketplace account.',
  'not-configured':
    'Seller Tray is not connected to a marketplace yet: set up your account, then open the link again.',
  unreachable:
    'Seller Tray could not look up the order: the marketplace did not answer. Open the link again when Seller Tray is connected.',
};

/** What the window says: an id in several accounts names them (labels the user gave), an account not served its name. */
export function lookupMessage(lookup: NotFound): string {
  // The link's account name is plain letters, digits, '.', '_' and '-' (parseOrderLink), safe to repeat.
  if (lookup.reason === 'no-such-account')
    return `This link names the account ${lookup.account}, which Seller Tray does not serve on this computer now: it was removed, added on another computer, or could not be opened (Settings → Accounts says which). Open the link again once that account is served here.`;
  if (lookup.reason !== 'ambiguous') return LOOKUP_MESSAGES[lookup.reason];
  return `This link does not say which account the order is in, and ${lookup.accounts.join(' and ')} each have an order with this id. Open it from the inbox in the account you mean, or ask for a link copied there (it names the account).`;
}

export class OrderLinks {
  private ports: OrderLinkPorts | undefined;
  /** A link that came before the app was ready: the latest one is opened then. */
  private waiting: string | undefined;

  /** Opens the link among a launch's arguments (now, or once ready); whether there was one. */
  open(args: readonly string[]): boolean {
    const link = args.find(isLinkArgument);
    if (link === undefined) return false;
    if (this.ports) void follow(link, this.ports);
    else this.waiting = link;
    return true;
  }

  /** The app is ready: links are opened from now on, starting with the one that waited. */
  ready(ports: OrderLinkPorts): void {
    this.ports = ports;
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting !== undefined) void follow(waiting, ports);
  }
}

async function follow(link: string, ports: OrderLinkPorts): Promise<void> {
  const target = parseOrderLink(link);
  // The link itself is not repeated: it is text from outside, and it was not understood.
  if (target === undefined) return ports.showProblem(NOT_AN_ORDER_LINK, []);
  const { orderId, account } = target;
  const lookup = await ports.lookUp(orderId, account).catch(
    (error: unknown): OrderLookup => ({
      found: false,
      reason: 'unreachable',
      detail: error instanceof Error ? error.message : String(error),
    }),
  );
  if (lookup.found) ports.showOrder(orderId, lookup.account);
  else ports.showProblem(lookupMessage(lookup), [`Order id: ${orderId}`, lookup.detail]);
}
