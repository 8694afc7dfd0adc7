// An e-mail address or telephone number from the marketplace, as a mailto: or tel: link when it
// is one plain address or number (preload/contact-links.ts), else as text. An address may break
// after its @ and dots (<wbr>), so a long one wraps where a reader expects it, not mid-word.
import { Fragment } from 'react';
import { mailtoHref, telHref } from '../../preload/contact-links';
import { plainText } from '../../preload/marketplace-text';

export function EmailAddress({ address }: { address: string }) {
  const text = plainText(address);
  const shown = (
    <bdi className="server-text contact-value">
      {text.split(/(?<=[@.])/).map((part, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one address, in order
        <Fragment key={index}>
          {index > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </bdi>
  );
  const href = mailtoHref(text);
  // The name spelled out: some assistive technology reads a <wbr> as a space.
  return href ? (
    <a href={href} aria-label={text}>
      {shown}
    </a>
  ) : (
    shown
  );
}

export function PhoneNumber({ number }: { number: string }) {
  const text = plainText(number);
  const shown = <bdi className="server-text contact-value">{text}</bdi>;
  const href = telHref(text);
  return href ? <a href={href}>{shown}</a> : shown;
}
