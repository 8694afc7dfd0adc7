// A party of an order (buyer or seller): its name, every identification with its scheme,
// and its postal address on one line (whichever form it came in: one address line, or lines 1
// to 3), the country by its name.
import type { Party, PostalAddress } from '../../preload/marketplace';
import { countryName } from '../format';
import { type Field, FieldList } from './FieldList';
import { ServerText } from './ServerText';

export function PartyDetails({
  party,
  extra = [],
  label,
}: {
  party: Party | undefined;
  extra?: Field[];
  label: string;
}) {
  const identifications = party?.partyIdentifications ?? [];
  return (
    <>
      <FieldList
        label={label}
        fields={[
          ['Name', party?.partyName],
          ...extra,
          [
            identifications.length === 1 ? 'Identification' : 'Identifications',
            identifications.length > 0 && (
              <ul className="plain">
                {identifications.map((identification, index) => (
                  // Identifications have no key of their own; the same id may repeat under another scheme.
                  // biome-ignore lint/suspicious/noArrayIndexKey: the list is the server's, in its order, never reordered
                  <li key={index}>
                    <span className="mono">
                      <ServerText text={identification.id} />
                    </span>
                    {identification.schemeId !== undefined && (
                      <span className="muted">
                        {' '}
                        (scheme <ServerText text={identification.schemeId} />)
                      </span>
                    )}
                  </li>
                ))}
              </ul>
            ),
          ],
        ]}
      />
      <AddressDetails address={party?.postalAddress} label={`${label}: postal address`} />
    </>
  );
}

export function AddressDetails({ address, label }: { address: PostalAddress | undefined; label: string }) {
  const text = address && addressText(address);
  if (!text) return null;
  return <FieldList label={label} fields={[['Address', <ServerText key="address" text={text} />]]} />;
}

/** An address on one line, as people write it: street lines, postal code and city, region, country by name. */
function addressText(address: PostalAddress): string {
  const town = [address.postalZone, address.cityName].filter(Boolean).join(' ');
  return [
    address.addressLine,
    address.addressLine1,
    address.addressLine2,
    address.addressLine3,
    town,
    address.countrySubentityCode,
    address.countryCode && countryName(address.countryCode),
  ]
    .filter((part): part is string => part !== undefined && part !== '')
    .join(', ');
}
