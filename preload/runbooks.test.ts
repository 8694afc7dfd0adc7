// Runbooks: a link's template fixes where it goes whatever the order's text holds (each hostile
// character tried in each field, in the path, the query and the fragment), templates that could go
// anywhere else are refused, and a list or a file is checked whole with per-item problems.
import { describe, expect, it } from 'vitest';
import type { License, Order } from './marketplace';
import {
  checkRunbooks,
  isRunbookLink,
  linkTemplateProblem,
  orderFields,
  RUNBOOK_FIELDS,
  type Runbook,
  readRunbooksFile,
  runbookFor,
  runbookLink,
  runbooksFile,
  runbooksOfOrder,
} from './runbooks';

const HOSTILE = [
  '}',
  '{',
  '{orderId}',
  '&admin=1',
  '#frag',
  '/../../admin',
  '..',
  '.',
  'a\nb',
  'javascript:alert(1)',
  '?x=1',
  '//evil.example/x',
  '@evil.example',
  '%2e%2e',
  'a b+c',
  '\\..\\x',
];

/** A template with every kind of place a value can go. */
const TEMPLATE =
  'https://console.example.com:8443/tenants/{buyerName}/users?email={licenseEmail}&order={orderId}#{buyerAccountId}';

describe('a runbook link', () => {
  it('fills every field URL-encoded and keeps its host, path and query keys whatever the text', () => {
    for (const hostile of HOSTILE) {
      const built = runbookLink(TEMPLATE, {
        buyerName: hostile,
        licenseEmail: hostile,
        orderId: 'o-1',
        buyerAccountId: hostile,
      });
      if (hostile === '..' || hostile === '.') {
        // A whole path segment of dots would move the link up: refused, in words.
        expect(built, hostile).toEqual({
          ok: false,
          problem: expect.stringMatching(/change where the link goes/),
        });
        continue;
      }
      expect(built.ok, hostile).toBe(true);
      if (!built.ok) continue;
      const url = new URL(built.url);
      expect(url.origin).toBe('https://console.example.com:8443');
      const segments = url.pathname.split('/');
      expect(segments, hostile).toHaveLength(4);
      expect(segments[1]).toBe('tenants');
      expect(segments[3]).toBe('users');
      expect(decodeURIComponent(segments[2] ?? '')).toBe(hostile);
      expect([...url.searchParams.keys()]).toEqual(['email', 'order']);
      expect(url.searchParams.get('email')).toBe(hostile);
      expect(url.searchParams.get('order')).toBe('o-1');
      expect(decodeURIComponent(url.hash.slice(1))).toBe(hostile);
    }
  });

  it('encodes what encodeURIComponent leaves as it is', () => {
    const built = runbookLink('https://x.example/{buyerName}', { buyerName: "it's (new)*!" });
    expect(built).toEqual({ ok: true, url: 'https://x.example/it%27s%20%28new%29%2A%21' });
  });

  it('says which field the order lacks instead of making half a link', () => {
    expect(runbookLink('https://x.example/{licenseEmail}/{orderId}', { orderId: '1' })).toEqual({
      ok: false,
      problem: "This order does not have the first license's e-mail address yet.",
    });
    expect(runbookLink('https://x.example/{buyerName}/{buyerEmail}/{buyerName}', {})).toEqual({
      ok: false,
      problem: "This order does not have the buyer's name or the buyer contact's e-mail address yet.",
    });
  });

  it('refuses templates that could go anywhere but an http(s) host they name', () => {
    const refused = [
      'javascript:alert(1)//{orderId}',
      'JAVASCRIPT:alert(1)',
      'file:///etc/passwd',
      'data:text/html,<script>alert(1)</script>',
      '/relative/{orderId}',
      '//host.example/{orderId}',
      'ftp://host.example/',
      'https://user:pass@host.example/',
      'https://user@host.example/',
      'https://{buyerName}.example/',
      'https://host.example{orderId}/',
      'https://{orderId}',
      'https://host.example/{secret}',
      'https://host.example/{orderId',
      'https://host.example/}',
      'https:///path',
      ' https://host.example/',
      // A URL parser reads `\` as `/`: each of these goes to evil.example, whatever it seems to say.
      'https://evil.example\\.good.example/{orderId}',
      'https://evil.example\\good.example/',
      'https://evil.example\\',
      'https://evil.example\\?to=good.example',
      'https://\\evil.example/',
      'https://good.example\\@evil.example/',
    ];
    for (const template of refused) {
      expect(linkTemplateProblem(template), template).not.toBeNull();
      expect(runbookLink(template, { orderId: '1', buyerName: 'b', secret: 's' } as never).ok, template).toBe(
        false,
      );
    }
    expect(linkTemplateProblem('http://intranet.local/orders/{orderId}?q={buyerEmail}')).toBeNull();
    expect(linkTemplateProblem('https://host.example')).toBeNull();
  });

  it('is opened only at the origin of a configured template', () => {
    const runbooks: Runbook[] = [
      { itemId: 'A', name: 'A', checklist: [], links: [{ label: 'Console', url: TEMPLATE }], reasons: [] },
    ];
    expect(isRunbookLink('https://console.example.com:8443/tenants/x', runbooks)).toBe(true);
    expect(isRunbookLink('https://console.example.com/tenants/x', runbooks)).toBe(false);
    expect(isRunbookLink('http://console.example.com:8443/tenants/x', runbooks)).toBe(false);
    expect(isRunbookLink('https://u:p@console.example.com:8443/', runbooks)).toBe(false);
    expect(isRunbookLink('javascript:alert(1)', runbooks)).toBe(false);
    expect(isRunbookLink('not a url', runbooks)).toBe(false);
  });
});

describe("an order line's fields", () => {
  const order = {
    orderId: 'o-1',
    orderTypeCode: 'Purchase',
    documentCurrencyCode: 'EUR',
    buyerCustomerParty: {
      supplierAssignedAccountId: 'acct-9',
      party: { partyName: 'Acme' },
      buyerContact: { electronicMail: 'buyer@acme.example' },
    },
    sellerSupplierParty: {},
    documentLines: [
      { lineId: '1', lineItem: { sellersItemId: 'SS-STD', quantity: { value: 3 } } },
      {
        lineId: '2',
        lineItem: { sellersItemId: 'AN-ADD', quantity: { value: 1e20, exactValue: '100000000000000000001' } },
      },
    ],
  } satisfies Order;
  const licenses: License[] = [
    { licenseId: 'l1' },
    { licenseId: 'l2', electronicMail: 'holder@acme.example' },
  ];

  it('takes each documented field from the order, its first license with an address, and the line', () => {
    expect(orderFields(order, licenses, 0)).toEqual({
      orderId: 'o-1',
      buyerAccountId: 'acct-9',
      licenseEmail: 'holder@acme.example',
      buyerName: 'Acme',
      buyerEmail: 'buyer@acme.example',
      itemId: 'SS-STD',
      lineId: '1',
      quantity: '3',
    });
    expect(Object.keys(orderFields(order, licenses, 0)).sort()).toEqual(Object.keys(RUNBOOK_FIELDS).sort());
    expect(orderFields(order, null, 1)).toMatchObject({
      itemId: 'AN-ADD',
      quantity: '100000000000000000001',
    });
    expect(orderFields(order, null, 1).licenseEmail).toBeUndefined();
  });

  it("gives an order's runbooks once per product, in line order", () => {
    const std: Runbook = { itemId: 'ss-std', name: 'Standard', checklist: [], links: [], reasons: [] };
    const addOn: Runbook = { ...std, itemId: 'AN-ADD', name: 'Add-on' };
    const twice = {
      ...order,
      documentLines: [...order.documentLines, { lineItem: { sellersItemId: 'SS-STD' } }],
    };
    expect(runbooksOfOrder(twice, [addOn, std])).toEqual([
      { runbook: std, lineIndex: 0 },
      { runbook: addOn, lineIndex: 1 },
    ]);
    expect(runbooksOfOrder(order, [])).toEqual([]);
  });

  it('finds the runbook of an item id without case or spaces mattering', () => {
    const runbooks = checkRunbooks([{ itemId: 'SS-STD', name: 'Standard', checklist: ['Create tenant'] }]);
    expect(runbooks.ok).toBe(true);
    if (!runbooks.ok) return;
    expect(runbookFor(runbooks.runbooks, ' ss-std ')?.name).toBe('Standard');
    expect(runbookFor(runbooks.runbooks, 'AN-ADD')).toBeUndefined();
    expect(runbookFor(runbooks.runbooks, undefined)).toBeUndefined();
  });
});

describe('a list of runbooks', () => {
  const good = {
    itemId: 'SS-STD',
    name: 'Standard',
    checklist: ['Create the tenant', 'Send the welcome mail'],
    links: [{ label: 'Console', url: 'https://console.example/{orderId}' }],
    reasons: [{ description: 'Tenant quota reached', detailedDescription: 'Line one\nline two' }],
  };

  it('is taken whole when every item is usable, trimmed', () => {
    expect(checkRunbooks([{ ...good, name: '  Standard  ' }])).toEqual({ ok: true, runbooks: [good] });
    // Missing lists are empty ones.
    expect(checkRunbooks([{ itemId: 'X', name: 'X' }])).toEqual({
      ok: true,
      runbooks: [{ itemId: 'X', name: 'X', checklist: [], links: [], reasons: [] }],
    });
  });

  it('names every problem by runbook and item, and takes nothing', () => {
    const checked = checkRunbooks([
      good,
      {
        itemId: 'AN-ADD',
        name: '',
        checklist: ['Step', 'Step', 7],
        links: [{ label: 'Bad', url: 'javascript:alert(1)' }, 'x'],
        reasons: [{ description: 'Only one' }],
        colour: 'red',
      },
      { ...good, itemId: 'ss-std' },
      'not a runbook',
    ]);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.problems).toEqual([
      'Runbook 2 (AN-ADD): colour is not part of a runbook',
      'Runbook 2 (AN-ADD): the name must be text (it is empty or missing)',
      'Runbook 2 (AN-ADD): step 3 must be text (it is empty or missing)',
      'Runbook 2 (AN-ADD): step 2 repeats "Step": each step once',
      "Runbook 2 (AN-ADD): link 1's address must start with https:// or http:// (no javascript:, file:, data: or relative addresses)",
      'Runbook 2 (AN-ADD): link 2 must be an object with label and url',
      "Runbook 2 (AN-ADD): reason 1's detailed description must be text (it is empty or missing)",
      'Runbook 4 must be an object with itemId, name, checklist, links and reasons',
      'Runbook 2 (ss-std) repeats the item id of runbook 1: one runbook per product',
    ]);
  });

  it('refuses control characters in names and steps, not line breaks in a detailed reason', () => {
    const checked = checkRunbooks([{ ...good, name: 'a\u0007b', checklist: ['x\ny'] }]);
    expect(checked.ok ? [] : checked.problems).toEqual([
      'Runbook 1 (SS-STD): the name must not contain control characters',
      'Runbook 1 (SS-STD): step 1 must not contain control characters',
    ]);
  });
});

describe('the runbooks file', () => {
  const runbooks: Runbook[] = [
    { itemId: 'SS-STD', name: 'Standard', checklist: ['One'], links: [], reasons: [] },
  ];

  it('round-trips through its versioned shape', () => {
    const text = runbooksFile(runbooks);
    expect(JSON.parse(text)).toMatchObject({ format: 'seller-tray-runbooks', version: 1 });
    expect(readRunbooksFile(text)).toEqual({ ok: true, runbooks });
    expect(readRunbooksFile(`\uFEFF${text}`)).toEqual({ ok: true, runbooks });
  });

  it('refuses what is no runbooks file, another version, or bad items, in words', () => {
    const problems = (text: string) => {
      const read = readRunbooksFile(text);
      return read.ok ? [] : read.problems;
    };
    expect(problems('{not json')[0]).toMatch(/not JSON/);
    expect(problems('[]')[0]).toMatch(/not a runbooks file/);
    expect(problems('{"format":"other","version":1,"runbooks":[]}')[0]).toMatch(/not a runbooks file/);
    expect(problems('{"format":"seller-tray-runbooks","version":2,"runbooks":[]}')[0]).toMatch(
      /version 2.*reads version 1/,
    );
    expect(problems('{"format":"seller-tray-runbooks","version":1,"runbooks":{}}')).toEqual([
      'The runbooks must be a list.',
    ]);
    expect(
      problems(
        '{"format":"seller-tray-runbooks","version":1,"runbooks":[{"itemId":"A","name":"A","links":[{"label":"x","url":"file:///etc"}]}]}',
      ),
    ).toEqual([
      "Runbook 1 (A): link 1's address must start with https:// or http:// (no javascript:, file:, data: or relative addresses)",
    ]);
  });
});
