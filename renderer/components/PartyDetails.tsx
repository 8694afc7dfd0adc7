// A party of an order (buyer or seller): its name, every identification with its scheme,
// and its postal address in whichever form it came (one address line, or lines 1 to 3).
import type { Party, PostalAddress } from '../../preload/marketplace';
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
  if (!address) return null;
  const lines = [
    address.addressLine,
    address.addressLine1,
    address.addressLine2,
    address.addressLine3,
  ].filter((line): line is string => line !== undefined && line !== '');
  return (
    <FieldList
      label={label}
      fields={[
        [
          'Address',
          lines.length > 0 && (
            <span className="address-lines">
              {lines.map((line, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: fixed positions (line, line 1, 2, 3)
                <span className="address-line" key={index}>
                  <ServerText text={line} />
                </span>
              ))}
            </span>
          ),
        ],
        ['Postal code', address.postalZone],
        ['City', address.cityName],
        ['Region', address.countrySubentityCode],
        ['Country', address.countryCode],
      ]}
    />
  );
}
