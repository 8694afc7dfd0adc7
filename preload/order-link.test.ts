// Order links: written for a marketplace order id (and its account, when named), read back exactly,
// and anything else refused: links come from chat and e-mail, so every trick a hostile or mangled
// link could carry is tried.
import { describe, expect, it } from 'vitest';
import { isLinkArgument, isOrderId, ORDER_LINK_SCHEME, orderLink, parseOrderLink } from './order-link';

const id = '3f2b8c1e-9a4d-4c7b-8e2f-1a2b3c4d5e6f';

describe('order links', () => {
  it('round-trips an order id, in either case, through the link', () => {
    expect(orderLink(id)).toBe(`seller-tray://order/${id}`);
    expect(parseOrderLink(`seller-tray://order/${id}`)).toEqual({ orderId: id });
    // An id in upper case is the same order: written and read in its one form, lower case.
    expect(orderLink(id.toUpperCase())).toBe(`seller-tray://order/${id}`);
    expect(parseOrderLink(`seller-tray://order/${id.toUpperCase()}`)).toEqual({ orderId: id });
    // Scheme and host are case-insensitive in URLs.
    expect(parseOrderLink(`Seller-Tray://ORDER/${id}`)).toEqual({ orderId: id });
    expect(ORDER_LINK_SCHEME).toBe('seller-tray');
  });

  it('names the account by its label when plain, else by its id, and reads the name back as written', () => {
    const eu = { id: '0a1b2c3d4e5f6a7b', label: 'EU' };
    expect(orderLink(id, eu)).toBe(`seller-tray://order/EU/${id}`);
    expect(parseOrderLink(`seller-tray://order/EU/${id}`)).toEqual({ orderId: id, account: 'EU' });
    expect(parseOrderLink(`seller-tray://order/${eu.id}/${id}`)).toEqual({ orderId: id, account: eu.id });
    // Labels the link cannot carry plainly (spaces, slashes, non-ASCII, too long): the id instead.
    // A label another account's id could be (16 hex digits, the demo's "demo") would be read as that id.
    const idShaped = ['fa3423bd6c753a5d', 'FA3423BD6C753A5D', 'demo', 'Demo'];
    for (const label of ['EU west', 'a/b', '../x', '.hidden', 'Zürich', 'é', 'x'.repeat(25), '', ...idShaped])
      expect(orderLink(id, { ...eu, label }), label).toBe(`seller-tray://order/${eu.id}/${id}`);
    for (const label of ['EU', 'us-2', 'Test_1', 'prod.eu', 'x'.repeat(24)]) {
      const link = orderLink(id, { ...eu, label }) ?? '';
      expect(parseOrderLink(link), label).toEqual({ orderId: id, account: label });
    }
  });

  it('writes no link for an id the marketplace would not use', () => {
    for (const bad of ['', 'abc', `${id}/x`, `{${id}}`, id.replaceAll('-', ''), `${id} `, '../settings']) {
      expect(orderLink(bad), bad).toBeUndefined();
      expect(isOrderId(bad), bad).toBe(false);
    }
  });

  it.each([
    ['another host', `seller-tray://settings/${id}`],
    ['no host', `seller-tray:order/${id}`],
    ['a single slash', `seller-tray:/order/${id}`],
    ['three slashes', `seller-tray:///order/${id}`],
    ['another scheme', `https://order/${id}`],
    ['a look-alike scheme', `seller-trayx://order/${id}`],
    ['a user before the host', `seller-tray://evil@order/${id}`],
    ['a port', `seller-tray://order:443/${id}`],
    ['a trailing slash', `seller-tray://order/${id}/`],
    ['an extra path part', `seller-tray://order/${id}/delete`],
    ['two path parts before the id', `seller-tray://order/x/y/${id}`],
    ['an account and no id', 'seller-tray://order/EU/'],
    ['an account after the id', `seller-tray://order/${id}/EU`],
    ['an empty account', `seller-tray://order//${id}`],
    ['a dot account', `seller-tray://order/./${id}`],
    ['a dot-dot account', `seller-tray://order/../${id}`],
    ['an account starting with a hyphen', `seller-tray://order/-EU/${id}`],
    ['an account with a space', `seller-tray://order/EU west/${id}`],
    ['a percent-encoded account', `seller-tray://order/E%55/${id}`],
    ['a non-ASCII account', `seller-tray://order/Zürich/${id}`],
    ['a look-alike account (Cyrillic)', `seller-tray://order/\u0415U/${id}`],
    ['an account with a NUL', `seller-tray://order/EU\u0000/${id}`],
    ['an account with a colon', `seller-tray://order/a:b/${id}`],
    ['an account too long', `seller-tray://order/${'x'.repeat(25)}/${id}`],
    ['an account in a query', `seller-tray://order/${id}?account=EU`],
    ['dot segments', `seller-tray://order/../order/${id}`],
    ['a query', `seller-tray://order/${id}?status=Completed`],
    ['a fragment', `seller-tray://order/${id}#x`],
    ['an empty query', `seller-tray://order/${id}?`],
    ['a percent-encoded slash', `seller-tray://order/x%2F${id}`],
    ['a percent-encoded id', `seller-tray://order/${id.slice(0, -1)}%66`],
    ['a backslash', `seller-tray://order\\${id}`],
    ['a line break after the id', `seller-tray://order/${id}\n`],
    ['a line break before a second link', `seller-tray://order/${id}\nseller-tray://order/${id}`],
    ['leading space', ` seller-tray://order/${id}`],
    ['trailing space', `seller-tray://order/${id} `],
    ['a NUL', `seller-tray://order/${id}\u0000`],
    ['a right-to-left override', `seller-tray://order/\u202e${id}`],
    ['an id too short', `seller-tray://order/${id.slice(1)}`],
    ['an id too long', `seller-tray://order/${id}0`],
    ['an id with non-hex letters', `seller-tray://order/${id.replace('f', 'g')}`],
    ['an id without hyphens', `seller-tray://order/${id.replaceAll('-', '')}0000`],
    ['an id in braces', `seller-tray://order/{${id}}`],
    ['a URN', `seller-tray://order/urn:uuid:${id}`],
    ['full-width digits', `seller-tray://order/${id.replace('3', '\uff13')}`],
    ['no id', 'seller-tray://order/'],
    ['the bare scheme', 'seller-tray:'],
    ['a huge link', `seller-tray://order/${id}${'a'.repeat(100_000)}`],
    ['a command-line switch', `--inspect=seller-tray://order/${id}`],
  ])('refuses %s', (_name, link) => {
    expect(parseOrderLink(link)).toBeUndefined();
  });

  it('tells a link meant for the app (even malformed) from other launch arguments', () => {
    expect(isLinkArgument(`seller-tray://order/${id}`)).toBe(true);
    expect(isLinkArgument('SELLER-TRAY://whatever')).toBe(true);
    expect(isLinkArgument('seller-tray:')).toBe(true);
    expect(isLinkArgument('--hidden')).toBe(false);
    expect(isLinkArgument('/opt/Seller Tray')).toBe(false);
    expect(isLinkArgument(`--x=seller-tray://order/${id}`)).toBe(false);
  });
});
