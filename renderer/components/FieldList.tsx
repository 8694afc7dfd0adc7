// Labelled values as a description list. Absent values are left out, so an order shows
// exactly the fields it holds. Text values are shown as the server's text.
import type { ReactNode } from 'react';
import { ServerText } from './ServerText';

export type Field = readonly [label: string, value: ReactNode];

export function FieldList({ fields, label }: { fields: readonly Field[]; label?: string }) {
  const shown = fields.filter(
    ([, value]) => value !== undefined && value !== null && value !== '' && value !== false,
  );
  if (shown.length === 0) return null;
  return (
    <dl className="fields" aria-label={label}>
      {shown.map(([name, value], index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list per render; labels from the server may repeat
        <div className="field" key={`${index}:${name}`}>
          <dt>{name}</dt>
          <dd>{typeof value === 'string' ? <ServerText text={value} /> : value}</dd>
        </div>
      ))}
    </dl>
  );
}
