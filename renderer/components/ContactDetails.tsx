// A contact person of an order: name, telephone, e-mail and note. The e-mail is text, not a
// mailto link: no link is ever built from what the server sent.
import type { Contact } from '../../preload/marketplace';
import { FieldList } from './FieldList';
import { ServerText } from './ServerText';

export function ContactDetails({ contact, label }: { contact: Contact | undefined; label: string }) {
  if (!contact) return null;
  return (
    <FieldList
      label={label}
      fields={[
        ['Contact', contact.name],
        ['Telephone', contact.telephone],
        ['E-mail', contact.electronicMail],
        ['Contact note', contact.note && <ServerText text={contact.note} lines />],
      ]}
    />
  );
}
