// The order's lines: what was bought, how many, at what price, and who takes delivery.
import type { DocumentLine } from '../../preload/marketplace';
import { formatAmount, formatQuantity } from '../format';
import { ContactDetails } from './ContactDetails';
import { FieldList } from './FieldList';
import { ServerText } from './ServerText';

export function DocumentLines({ lines, currency }: { lines: DocumentLine[]; currency: string }) {
  if (lines.length === 0) return <p className="muted">The order has no lines.</p>;
  return (
    <ol className="lines" aria-label="Order lines">
      {lines.map((line, index) => {
        const item = line.lineItem;
        const price = item?.price;
        const label = `Line ${line.lineId ?? index + 1}`;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines keep the server's order; line ids may be absent or repeat
          <li className="line" key={index}>
            <h4>
              {label}
              {item?.name !== undefined && (
                <>
                  : <ServerText text={item.name} />
                </>
              )}
            </h4>
            <FieldList
              label={label}
              fields={[
                ['Line id', line.lineId],
                ['Product', item?.name],
                ["Seller's item id", item?.sellersItemId],
                ['Quantity', formatQuantity(item?.quantity)],
                [
                  'Price',
                  formatAmount(
                    price?.priceAmount?.amount,
                    price?.priceAmount?.currencyCode ??
                      (price?.priceAmount?.amount === undefined ? undefined : currency),
                  ),
                ],
                ['Price currency', price?.priceAmount?.currencyCode],
                ['Per', formatQuantity(price?.baseQuantity)],
                ['Line note', line.note && <ServerText text={line.note} lines />],
              ]}
            />
            <ContactDetails contact={item?.delivery?.contact} label={`${label}: delivery contact`} />
          </li>
        );
      })}
    </ol>
  );
}
