// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Order } from '../../preload/marketplace';
import { createFakeBridge, historyEvent } from '../../test/support/renderer/fake-bridge';
import { FULL_ORDER_ID, fullOrder, fullView } from '../../test/support/renderer/fixtures';
import { renderWithBridge } from '../../test/support/renderer/render';
import { formatAmount } from '../format';
import { OrderDetail } from './OrderDetail';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

async function renderOrder(view = fullView()) {
  const bridge = createFakeBridge({ views: [view] });
  const onBack = vi.fn();
  const orderId = view.order.orderId ?? FULL_ORDER_ID;
  renderWithBridge(bridge, <OrderDetail orderId={orderId} onBack={onBack} />);
  await screen.findByRole('heading', { level: 2 });
  return { bridge, onBack };
}

/** The value a description list gives a label, within `scope`. */
function fieldValue(scope: HTMLElement, label: string): string | undefined {
  const term = within(scope).getAllByText(label, { selector: 'dt' }).at(0);
  return term?.nextElementSibling?.textContent ?? undefined;
}

const list = (name: string) => screen.getByRole('list', { name }) as HTMLElement;
const region = (name: string) => screen.getByRole('region', { name }) as HTMLElement;

describe('OrderDetail', () => {
  it('shows a stored order whose refresh failed, says since when, and reads it again when told', async () => {
    const { bridge } = await renderOrder(
      fullView({
        fetchedAt: '2026-11-20T10:42:00.000Z',
        refreshProblem: 'getOrder: HTTP 503 ServiceUnavailable',
      }),
    );
    const note = screen.getByText(/the marketplace did not answer since/);
    expect(note.querySelector('time[datetime="2026-11-20T10:42:00.000Z"]')).not.toBeNull();
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBeTruthy(); // the order is still shown
    const view = bridge.views.get(FULL_ORDER_ID);
    if (!view) throw new Error('no view');
    view.refreshProblem = null;
    const loads = bridge.callsOf('getOrder').length;
    act(() => bridge.emit({ type: 'orders-updated', orderIds: ['someone-else'] }));
    expect(bridge.callsOf('getOrder')).toHaveLength(loads);
    act(() => bridge.emit({ type: 'orders-updated', orderIds: [FULL_ORDER_ID] }));
    await waitFor(() => expect(screen.queryByText(/the marketplace did not answer since/)).toBeNull());
  });

  it('shows every field of a fully populated order', async () => {
    const { bridge } = await renderOrder();
    expect(bridge.callsOf('getOrder')).toEqual([{ orderId: FULL_ORDER_ID }]);
    const order = region('Order');
    expect(fieldValue(order, 'Order id')).toContain(FULL_ORDER_ID);
    expect(order.querySelector('time[datetime="2026-11-20T09:30:00.000Z"]')).not.toBeNull();
    expect(fieldValue(order, 'Type')).toBe('Purchase');
    expect(fieldValue(order, 'Currency')).toBe('EUR');
    expect(fieldValue(order, 'Note')).toBe('Please provision before Monday');
    expect(fieldValue(order, 'Anticipated total')).toBe(formatAmount(1234.5, 'EUR'));
    expect(fieldValue(order, 'Total currency')).toBe('EUR');
    expect(fieldValue(order, 'Starts')).toBe('2026-12-01');
    expect(fieldValue(order, 'Ends')).toBe('2027-11-30');
    expect(fieldValue(order, 'Description')).toBe('First contract year');

    const buyer = region('Buyer');
    expect(fieldValue(buyer, 'Name')).toBe('Acme Industrial GmbH');
    expect(fieldValue(buyer, 'Account id (ours)')).toContain('ACME-ACCOUNT-77');
    expect(fieldValue(buyer, 'Identifications')).toBe('DE123456789 (scheme VAT)4000001000005 (scheme GLN)');
    // The buyer's address comes as one addressLine.
    expect(fieldValue(buyer, 'Address')).toBe('Hauptstraße 12');
    expect(fieldValue(buyer, 'Postal code')).toBe('10115');
    expect(fieldValue(buyer, 'City')).toBe('Berlin');
    expect(fieldValue(buyer, 'Region')).toBe('BE');
    expect(fieldValue(buyer, 'Country')).toBe('DE');
    expect(fieldValue(buyer, 'Contact')).toBe('Erika Mustermann');
    expect(fieldValue(buyer, 'Telephone')).toBe('+49 30 1234567');
    expect(fieldValue(buyer, 'E-mail')).toBe('erika@acme.example');
    expect(fieldValue(buyer, 'Contact note')).toBe('Call mornings only');

    const seller = region('Seller');
    expect(fieldValue(seller, 'Name')).toBe('CloudSoft Ltd');
    expect(fieldValue(seller, 'Identification')).toBe('GB987654321 (scheme UKVAT)');
    // The seller's address comes as addressLine1..3, each on a line of its own.
    const lines = [...seller.querySelectorAll('.address-line')].map((l) => l.textContent);
    expect(lines).toEqual(['Unit 4', 'Harbour Business Park', 'Dock Road']);
    expect(fieldValue(seller, 'Postal code')).toBe('BS1 6AA');
    expect(fieldValue(seller, 'City')).toBe('Bristol');
    expect(fieldValue(seller, 'Region')).toBe('ENG');
    expect(fieldValue(seller, 'Country')).toBe('GB');

    const line = list('Order lines');
    expect(fieldValue(line, 'Line id')).toBe('1');
    expect(fieldValue(line, 'Product')).toBe('CloudSoft Analytics');
    expect(fieldValue(line, "Seller's item id")).toBe('CSA-PRO-25');
    expect(fieldValue(line, 'Quantity')).toBe('25 SEAT');
    expect(fieldValue(line, 'Price')).toBe(formatAmount(49.38, 'EUR'));
    expect(fieldValue(line, 'Price currency')).toBe('EUR');
    expect(fieldValue(line, 'Per')).toBe('1 MON');
    expect(fieldValue(line, 'Line note')).toBe('Annual plan, 25 seats');
    expect(fieldValue(line, 'Contact')).toBe('Max Admin');
    expect(fieldValue(line, 'Telephone')).toBe('+49 30 7654321');
    expect(fieldValue(line, 'E-mail')).toBe('it@acme.example');
    expect(fieldValue(line, 'Contact note')).toBe('Send the login link here');
  });

  it('shows the licenses, the history and the statuses not yet confirmed', async () => {
    await renderOrder();
    const licenses = list('Licenses');
    expect(fieldValue(licenses, 'License id')).toContain('9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d');
    expect(fieldValue(licenses, 'Holder e-mail')).toBe('licenses@acme.example');

    const history = within(list('Provisioning history')).getAllByRole('listitem');
    expect(history).toHaveLength(2);
    expect(history[0]?.textContent).toContain('New');
    expect(history[0]?.textContent).toContain('ServicePurchased');
    expect(history[0]?.textContent).toContain('Service purchased');
    expect(history[0]?.querySelector('time[datetime="2026-11-20T09:30:00.000Z"]')).not.toBeNull();
    expect(history[1]?.textContent).toContain('In progress');
    expect(history[1]?.textContent).toContain('Setting up the tenant');
    expect(history[1]?.textContent).toContain('Tenant acme-prod being created in eu-central');

    const outbox = within(list('Statuses not yet confirmed')).getAllByRole('listitem');
    expect(outbox[0]?.textContent).toContain('Not sent');
    expect(outbox[0]?.textContent).toContain('The marketplace refused the status: BadRequest');
    expect(outbox[1]?.textContent).toContain('Waiting to be sent');
    expect(within(outbox[1] as HTMLElement).queryByRole('button')).toBeNull();
  });

  it('sends a failed status again', async () => {
    const { bridge } = await renderOrder();
    fireEvent.click(screen.getByRole('button', { name: /Send again/ }));
    await waitFor(() =>
      expect(bridge.callsOf('retryDelivery')).toEqual([
        { requestId: '33333333-3333-4333-8333-333333333333' },
      ]),
    );
    await waitFor(() => expect(screen.queryByRole('button', { name: /Send again/ })).toBeNull());
    expect(bridge.callsOf('getOrder')).toHaveLength(2);
  });

  it('renders markup in server text as literal text', async () => {
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
        buyerContact: { name: img, electronicMail: script, telephone: img, note: script },
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
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe(script);
    expect(screen.getAllByText(script).length).toBeGreaterThan(5);
    expect(screen.getAllByText(img).length).toBeGreaterThan(5);
    expect(document.body.innerHTML).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(document.querySelector('a')).toBeNull();
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
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe(`Order ${FULL_ORDER_ID}`);
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
    renderWithBridge(bridge, <OrderDetail orderId="missing" onBack={() => {}} />);
    expect((await screen.findByRole('alert')).textContent).toContain('Order missing was not found.');
    bridge.views.set('missing', fullView());
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Acme Industrial GmbH' })).toBeTruthy();
  });

  it('reads the order again on state events while a status is on its way', async () => {
    const { bridge } = await renderOrder();
    act(() => bridge.emit({ type: 'state-changed', status: { ...bridge.state } }));
    await waitFor(() => expect(bridge.callsOf('getOrder')).toHaveLength(2));
  });

  it('goes back to the inbox', async () => {
    const { onBack } = await renderOrder();
    fireEvent.click(screen.getByRole('button', { name: /Back to inbox/ }));
    expect(onBack).toHaveBeenCalled();
  });
});
