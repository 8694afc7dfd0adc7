// The licenses the marketplace issued for the order: each holder's e-mail first (what the
// person provisioning needs), with a copy button for each and one for all, then the license
// id and any other property.
import type { License } from '../../preload/marketplace';
import { ORDER_ID_PROPERTY } from '../../preload/marketplace';
import { plainText } from '../../preload/marketplace-text';
import { EmailAddress } from './ContactLink';
import { CopyButton, CopyServerText } from './CopyButton';
import { ServerText } from './ServerText';

export function Licenses({ licenses }: { licenses: License[] | null }) {
  if (licenses === null) {
    return (
      <p className="muted">
        Licenses not loaded yet: the marketplace has not answered. They show when it does.
      </p>
    );
  }
  if (licenses.length === 0) return <p className="muted">No licenses for this order yet.</p>;
  const emails = licenses.flatMap((license) =>
    license.electronicMail ? [plainText(license.electronicMail)] : [],
  );
  return (
    <>
      {emails.length > 1 && (
        <p className="copy-all">
          <CopyButton value={emails.join('\n')} label="all e-mails" text="Copy all e-mails" />
        </p>
      )}
      <ul className="license-list" aria-label="Licenses">
        {licenses.map((license, index) => {
          const others = (license.additionalProperties ?? []).filter((p) => p.name !== ORDER_ID_PROPERTY);
          return (
            <li className="license" key={license.licenseId ?? `license-${index}`}>
              <span className="license-email">
                {license.electronicMail ? (
                  <>
                    <EmailAddress address={license.electronicMail} />{' '}
                    <CopyServerText text={license.electronicMail} label="e-mail" />
                  </>
                ) : (
                  <span className="muted">No e-mail</span>
                )}
              </span>
              {license.licenseId !== undefined && (
                <span className="license-id">
                  <span className="muted">License id </span>
                  <span className="mono">
                    <ServerText text={license.licenseId} />
                  </span>{' '}
                  <CopyServerText text={license.licenseId} label="license id" />
                </span>
              )}
              {others.map((property, propertyIndex) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the server's properties, in its order
                <span className="license-property" key={propertyIndex}>
                  <span className="muted">
                    <ServerText text={property.name} />{' '}
                  </span>
                  <ServerText
                    text={
                      property.description
                        ? `${property.value ?? ''} (${property.description})`
                        : (property.value ?? '')
                    }
                  />
                </span>
              ))}
            </li>
          );
        })}
      </ul>
    </>
  );
}
