// The licenses the marketplace issued for the order.
import type { License } from '../../preload/marketplace';
import { ORDER_ID_PROPERTY } from '../../preload/marketplace';
import { plainText } from '../../preload/marketplace-text';
import { CopyButton } from './CopyButton';
import { FieldList } from './FieldList';
import { ServerText } from './ServerText';

export function Licenses({ licenses }: { licenses: License[] }) {
  if (licenses.length === 0) return <p className="muted">No licenses for this order yet.</p>;
  return (
    <ul className="cards" aria-label="Licenses">
      {licenses.map((license, index) => {
        const others = (license.additionalProperties ?? []).filter((p) => p.name !== ORDER_ID_PROPERTY);
        return (
          <li className="card" key={license.licenseId ?? `license-${index}`}>
            <FieldList
              label={`License ${index + 1}`}
              fields={[
                [
                  'License id',
                  license.licenseId !== undefined && (
                    <>
                      <span className="mono">
                        <ServerText text={license.licenseId} />
                      </span>{' '}
                      <CopyButton value={license.licenseId} label="license id" />
                    </>
                  ),
                ],
                ['Holder e-mail', license.electronicMail],
                ...others.map(
                  (property) =>
                    [
                      plainText(property.name),
                      property.description ? `${property.value} (${property.description})` : property.value,
                    ] as const,
                ),
              ]}
            />
          </li>
        );
      })}
    </ul>
  );
}
