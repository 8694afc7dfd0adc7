// "Copy link" on an order: a seller-tray:// link that opens this order in Seller Tray on any
// colleague's laptop where it is installed (preload/order-link.ts writes it). An id the
// marketplace would not use gets no link, so no button.
import { orderLink } from '../../preload/order-link';
import { CopyButton } from './CopyButton';

export function CopyOrderLink({ orderId }: { orderId: string }) {
  const link = orderLink(orderId);
  if (link === undefined) return null;
  return (
    <span className="copy-order-link">
      <CopyButton value={link} label="link to this order" text="Copy link" />
    </span>
  );
}
