// Who takes delivery of the order's lines: each contact once, with the lines it is for, so an
// order of many lines with one administrator shows one card, not one per line. The products it
// names are the marketplace's words: each isolated and plain (ServerText).
import { Fragment } from 'react';
import type { Contact, DocumentLine } from '../../preload/marketplace';
import { ContactDetails } from './ContactDetails';
import { ServerText } from './ServerText';

interface DeliveryContact {
  contact: Contact;
  lines: string[];
}

export function DeliveryContacts({ lines }: { lines: DocumentLine[] }) {
  const contacts = deliveryContacts(lines);
  if (contacts.length === 0) return null;
  return (
    <ul className="cards" aria-label="Delivery contacts">
      {contacts.map(({ contact, lines: forLines }, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: contacts in the order of their first line, never reordered
        <li className="card" key={index}>
          <p className="muted card-caption">
            For{' '}
            {forLines.map((name, line) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the contact's lines, in the order's order
              <Fragment key={line}>
                {line > 0 && ', '}
                <ServerText text={name} />
              </Fragment>
            ))}
          </p>
          <ContactDetails contact={contact} label={`Delivery contact ${index + 1}`} />
        </li>
      ))}
    </ul>
  );
}

function deliveryContacts(lines: DocumentLine[]): DeliveryContact[] {
  const byContact = new Map<string, DeliveryContact>();
  lines.forEach((line, index) => {
    const contact = line.lineItem?.delivery?.contact;
    if (!contact) return;
    const key = JSON.stringify([contact.name, contact.electronicMail, contact.telephone, contact.note]);
    const entry = byContact.get(key) ?? { contact, lines: [] };
    entry.lines.push(line.lineItem?.name ?? `line ${line.lineId ?? index + 1}`);
    byContact.set(key, entry);
  });
  return [...byContact.values()];
}
