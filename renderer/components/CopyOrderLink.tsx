// "Copy link" on an order: a seller-tray:// link that opens this order in Seller Tray on any
// colleague's laptop where it is installed (preload/order-link.ts writes it). An id the
// marketplace would not use gets no link, so no button. The link names the account when given
// (the app serving several: preload/served-account.ts decides).
import type { AccountState } from '../../preload/contract';
import { orderLink } from '../../preload/order-link';
import { CopyButton } from './CopyButton';

export function CopyOrderLink({ orderId, account }: { orderId: string; account?: AccountState | undefined }) {
  const link = orderLink(orderId, account);
  if (link === undefined) return null;
  return (
    <span className="copy-order-link">
      <CopyButton value={link} label="link to this order" text="Copy link" />
    </span>
  );
}
