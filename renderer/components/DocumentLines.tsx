// What to provision, line by line: the product, the line total, the quantity with its unit
// named and the price for its base quantity, the seller's item id and the line's note. Few
// elements per line, and lines out of view are neither styled nor laid out (styles.css), so an
// order of hundreds of lines opens about as fast as one of a few. Delivery contacts are listed once
// each below (DeliveryContacts). The server's words are isolated and plain, as ServerText has them.
import { type CSSProperties, memo } from 'react';
import type { DocumentLine } from '../../preload/marketplace';
import { unitName } from '../../preload/unit-names';
import { formatAmount, formatPer, formatQuantity, lineTotal } from '../format';
import { ServerText } from './ServerText';

/**
 * Lines are grouped for the browser to skip while out of view (`content-visibility` on the
 * group): one skipped box per twenty lines costs much less than one per line (order 500 / 5
 * lines, `npm run bench:renderer`: about 1.25 against 1.85). The groups are invisible to
 * assistive technology (role none): the list holds its lines directly, as an `ol` would, which
 * cannot hold the groups.
 */
const LINES_PER_GROUP = 20;

/** Drawn again only when the order's lines change (not on the page's other state: undo, errors, …). */
export const DocumentLines = memo(function DocumentLines({
  lines,
  currency,
}: {
  lines: DocumentLine[];
  currency: string;
}) {
  if (lines.length === 0) return <p className="muted">The order has no lines.</p>;
  const groups = [];
  for (let start = 0; start < lines.length; start += LINES_PER_GROUP) {
    const group = lines.slice(start, start + LINES_PER_GROUP);
    // The group's line count sizes it until it is drawn (styles.css): a short last group
    // takes its own height, so what follows the lines does not move when it comes into view.
    const size = { '--lines': group.length } as CSSProperties;
    groups.push(
      <div className="line-group" role="none" style={size} key={start}>
        {group.map((line, i) => lineItem(line, start + i + 1, currency))}
      </div>,
    );
  }
  return (
    // biome-ignore lint/a11y/useSemanticElements: an ol cannot hold the groups (see LINES_PER_GROUP).
    <div role="list" className="lines" aria-label="Order lines">
      {groups}
    </div>
  );
});

/** One line (a plain function, not a component: hundreds of them cost no component each). */
function lineItem(line: DocumentLine, position: number, currency: string) {
  const item = line.lineItem;
  const price = item?.price;
  const priceCurrency = price?.priceAmount?.currencyCode ?? currency;
  const amount = price?.priceAmount?.amount;
  const total = lineTotal(item?.quantity, { amount, base: price?.baseQuantity });
  const quantity = formatQuantity(item?.quantity);
  // "176 users × €9.95 per month"; a quantity without a unit says what it is.
  const counted = quantity === '' || item?.quantity?.unitCode ? quantity : `Quantity ${quantity}`;
  const priced =
    amount === undefined
      ? ''
      : `${formatAmount(amount, priceCurrency, price?.priceAmount?.exactAmount)} ${formatPer(price?.baseQuantity)}`;
  const facts = [counted, priced.trim()].filter((part) => part !== '').join(' × ');
  // Only a unit code this app does not name is the server's text there: isolated then.
  const unitCode = item?.quantity?.unitCode;
  const unknownUnit = unitCode !== undefined && unitCode !== '' && unitName(unitCode, 1) === undefined;
  return (
    // Lines keep the server's order; line ids may be absent or repeat, so the position is the key.
    // biome-ignore lint/a11y/useSemanticElements: an ol cannot hold the groups (see LINES_PER_GROUP).
    <div role="listitem" className="line" key={position}>
      <ServerText className="line-product" text={item?.name ?? `Line ${line.lineId ?? position}`} />
      <p className="line-facts">
        {total && (
          <span className="line-total">{`${formatAmount(total.amount, priceCurrency)}${total.per && ` ${total.per}`}`}</span>
        )}
        {facts !== '' && (
          <>
            {unknownUnit ? <ServerText text={facts} /> : facts}
            {' · '}
          </>
        )}
        {item?.sellersItemId !== undefined && (
          <>
            {/* No-break spaces: "Item id" stays with its id, "Line" with its number. */}
            {'Item\u00a0id\u00a0'}
            <ServerText className="mono" text={item.sellersItemId} />
            {' · '}
          </>
        )}
        {`Line\u00a0${line.lineId ?? position}`}
      </p>
      {line.note && (
        <p className="line-note">
          <ServerText text={line.note} lines />
        </p>
      )}
    </div>
  );
}
