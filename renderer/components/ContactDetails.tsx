// A contact person of an order: name, telephone, e-mail and note. The e-mail and telephone
// are mailto: and tel: links when they are one plain address or number (ContactLink).
import type { Contact } from '../../preload/marketplace';
import { EmailAddress, PhoneNumber } from './ContactLink';
import { FieldList } from './FieldList';
import { ServerText } from './ServerText';

export function ContactDetails({ contact, label }: { contact: Contact | undefined; label: string }) {
  if (!contact) return null;
  return (
    <FieldList
      label={label}
      fields={[
        ['Contact', contact.name],
        ['Telephone', contact.telephone && <PhoneNumber number={contact.telephone} />],
        ['E-mail', contact.electronicMail && <EmailAddress address={contact.electronicMail} />],
        ['Contact note', contact.note && <ServerText text={contact.note} lines />],
      ]}
    />
  );
}
