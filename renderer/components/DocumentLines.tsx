// What to provision, line by line: the product, the seller's item id, the quantity with its
// unit named, the price for its base quantity, and the line's total. One compact block per
// line (plain text, no nested lists), so an order of hundreds of lines renders about as fast
// as one of a few. Delivery contacts are listed once each below (DeliveryContacts).
import type { DocumentLine } from '../../main/core/api/wire';
import { formatAmount, formatPer, formatQuantity, lineTotal } from '../format';
import { ServerText } from './ServerText';

export function DocumentLines({ lines, currency }: { lines: DocumentLine[]; currency: string }) {
  if (lines.length === 0) return <p className="muted">The order has no lines.</p>;
  return (
    <ol className="lines" aria-label="Order lines">
      {lines.map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: lines keep the server's order; line ids may be absent or repeat
        <Line key={index} line={line} position={index + 1} currency={currency} />
      ))}
    </ol>
  );
}

function Line({ line, position, currency }: { line: DocumentLine; position: number; currency: string }) {
  const item = line.lineItem;
  const price = item?.price;
  const priceCurrency = price?.priceAmount?.currencyCode ?? currency;
  const total = lineTotal(item?.quantity, { amount: price?.priceAmount?.amount, base: price?.baseQuantity });
  const quantity = formatQuantity(item?.quantity);
  const amount = price?.priceAmount?.amount;
  // "176 users × €9.95 per month"; a quantity without a unit says what it is.
  const counted = quantity === '' || item?.quantity?.unitCode ? quantity : `Quantity ${quantity}`;
  const priced =
    amount === undefined
      ? ''
      : [formatAmount(amount, priceCurrency), formatPer(price?.baseQuantity)].join(' ');
  const facts = [counted, priced.trim()].filter((part) => part !== '').join(' × ');
  return (
    <li className="line">
      <div className="line-main">
        <span className="line-product">
          <ServerText text={item?.name ?? `Line ${line.lineId ?? position}`} />
        </span>
        {total && (
          <span className="line-total">
            {formatAmount(total.amount, priceCurrency)}
            {total.per && <span className="muted"> {total.per}</span>}
          </span>
        )}
      </div>
      <p className="line-facts">
        {facts !== '' && (
          <span className="line-quantity">
            <ServerText text={facts} />
          </span>
        )}
        {item?.sellersItemId !== undefined && (
          <span className="line-item-id">
            <span className="muted">Item id </span>
            <span className="mono">
              <ServerText text={item.sellersItemId} />
            </span>
          </span>
        )}
        <span className="muted line-id">Line {line.lineId ?? position}</span>
      </p>
      {line.note && (
        <p className="line-note">
          <ServerText text={line.note} lines />
        </p>
      )}
    </li>
  );
}
