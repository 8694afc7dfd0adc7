// Contact links are made only from one plain address or number, and only those are opened.
import { describe, expect, it } from 'vitest';
import { HOSTILE_EMAIL } from '../test/support/hostile-order';
import { isContactHref, mailtoHref, telHref } from './contact-links';

describe('contact links', () => {
  it('are made from a plain address or telephone number', () => {
    expect(mailtoHref(' erika.mustermann+orders@acme-industrial.example ')).toBe(
      'mailto:erika.mustermann+orders@acme-industrial.example',
    );
    expect(telHref('+49 (30) 123-45.67')).toBe('tel:+49301234567');
    for (const href of ['mailto:erika@acme.example', 'tel:+4930123457'])
      expect(isContactHref(href)).toBe(true);
  });

  it.each([
    'erika@acme.example?bcc=all@evil.example',
    'a@acme.example,b@evil.example',
    '"Erika" <erika@acme.example>',
    'erika@acme',
    'erika @acme.example',
    'javascript:alert(1)//@x.example',
    // Decoded by the mail program: a second recipient, a header line, a query.
    HOSTILE_EMAIL,
    'erika%2Cboss@acme.example',
    'erika%0d%0aBcc:spy@acme.example',
    'erika%3Fbcc=spy@acme.example',
    'erika@acme%2Eexample.com',
  ])('are not made from %j', (address) => {
    expect(mailtoHref(address)).toBeUndefined();
    expect(isContactHref(`mailto:${address}`)).toBe(false);
  });

  it.each(['call me', '+49;phone-context=x', '12', '+49 30 1234567 ext. 5'])(
    'make no telephone link of %j',
    (number) => {
      expect(telHref(number)).toBeUndefined();
    },
  );

  it('open nothing of another scheme', () => {
    for (const url of ['sms:+4930123', 'https://acme.example', 'tel:', 'mailto:']) {
      expect(isContactHref(url)).toBe(false);
    }
  });
});
