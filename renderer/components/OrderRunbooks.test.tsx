// @vitest-environment happy-dom
// The order page's runbooks: one per product the order has a runbook for (two products, two
// runbooks), the checklist ticked through the store's channel, each link shown as the address it
// opens, hostile buyer text only ever inside the encoded values, and the Failed form offering
// the runbooks' reasons.
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { CodedError } from '../../preload/coded-error';
import type { Order } from '../../preload/marketplace';
import type { Runbook } from '../../preload/runbooks';
import { createFakeBridge } from '../../test/support/renderer/fake-bridge';
import { FULL_ORDER_ID, fullOrder, fullView } from '../../test/support/renderer/fixtures';
import { renderWithUndo } from '../../test/support/renderer/render';
import { OrderDetail } from './OrderDetail';

afterEach(cleanup);

const RUNBOOKS: Runbook[] = [
  {
    itemId: 'csa-pro-25',
    name: 'Analytics Pro',
    checklist: ['Create the tenant', 'Invite the admin'],
    links: [
      {
        label: 'Tenant console',
        url: 'https://console.example/tenants/{buyerName}?account={buyerAccountId}',
      },
      { label: 'License admin', url: 'https://licenses.example/users/{licenseEmail}' },
    ],
    reasons: [{ description: 'Quota reached', detailedDescription: 'The region has no tenant quota left.' }],
  },
  {
    itemId: 'AN-ADD',
    name: 'Add-on',
    checklist: ['Enable the add-on'],
    links: [],
    reasons: [
      { description: 'Add-on unavailable', detailedDescription: 'The add-on is not sold in that region.' },
    ],
  },
  { itemId: 'NOT-ORDERED', name: 'Not in this order', checklist: ['Never shown'], links: [], reasons: [] },
];

/** The full order with a second product, and the buyer's name `buyerName`. */
function order(buyerName = 'Acme Industrial GmbH'): Order {
  const base = fullOrder();
  return {
    ...base,
    buyerCustomerParty: { ...base.buyerCustomerParty, party: { partyName: buyerName } },
    documentLines: [
      ...base.documentLines,
      { lineId: '2', lineItem: { name: 'Add-on', sellersItemId: 'AN-ADD', quantity: { value: 1 } } },
    ],
  };
}

async function renderOrder(buyerName?: string, licenses = fullView().licenses) {
  const bridge = createFakeBridge({
    views: [fullView({ order: order(buyerName), licenses })],
    settings: { runbooks: RUNBOOKS },
  });
  renderWithUndo(bridge, <OrderDetail orderId={FULL_ORDER_ID} onBack={() => {}} />);
  await screen.findByRole('region', { name: 'Runbook: Analytics Pro (csa-pro-25)' });
  return bridge;
}

const runbook = (name: string) => screen.getByRole('region', { name }) as HTMLElement;

it('shows the runbook of each product the order has, and only those', async () => {
  await renderOrder();
  expect(screen.getAllByRole('heading', { level: 3, name: /^Runbook/ }).map((h) => h.textContent)).toEqual([
    'Runbook: Analytics Pro (csa-pro-25)',
    'Runbook: Add-on (AN-ADD)',
  ]);
  expect(screen.queryByText('Never shown')).toBeNull();
});

it('ticks a step through the store and counts what is done', async () => {
  const bridge = await renderOrder();
  const pro = runbook('Runbook: Analytics Pro (csa-pro-25)');
  expect(within(pro).getByRole('group', { name: 'Checklist: 0 of 2 done' })).toBeTruthy();
  const step = within(pro).getByRole('checkbox', { name: 'Invite the admin' }) as HTMLInputElement;
  fireEvent.click(step);
  await waitFor(() => expect(step.checked).toBe(true));
  expect(within(pro).getByRole('group', { name: 'Checklist: 1 of 2 done' })).toBeTruthy();
  expect(bridge.callsOf('tickRunbookStep')).toEqual([
    {
      orderId: FULL_ORDER_ID,
      account: undefined,
      itemId: 'csa-pro-25',
      step: 'Invite the admin',
      ticked: true,
    },
  ]);
  // The same step in another product's runbook is that runbook's own.
  const addOn = runbook('Runbook: Add-on (AN-ADD)');
  expect(
    (within(addOn).getByRole('checkbox', { name: 'Enable the add-on' }) as HTMLInputElement).checked,
  ).toBe(false);
  fireEvent.click(step);
  await waitFor(() => expect(step.checked).toBe(false));
  expect(bridge.callsOf('tickRunbookStep').at(-1)?.ticked).toBe(false);
});

it('takes a tick back, saying why and what to do, when this laptop cannot keep it', async () => {
  const bridge = await renderOrder();
  // As the core explains a failed save (failure-words.ts): what happened and what to do.
  const full = 'The disk is full, so Seller Tray could not save its files. Free some space, then try again.';
  bridge.handle('tickRunbookStep', () => {
    throw new CodedError('internal', full);
  });
  const step = screen.getByRole('checkbox', { name: 'Create the tenant' }) as HTMLInputElement;
  fireEvent.click(step);
  await screen.findByText(full);
  expect(step.checked).toBe(false);
});

it('shows the ticks the store has when the order opens', async () => {
  const bridge = createFakeBridge({
    views: [
      fullView({
        order: order(),
        runbookTicks: [{ itemId: 'an-add', step: 'Enable the add-on', tickedAt: '2026-11-26T10:00:00Z' }],
      }),
    ],
    settings: { runbooks: RUNBOOKS },
  });
  renderWithUndo(bridge, <OrderDetail orderId={FULL_ORDER_ID} onBack={() => {}} />);
  const step = (await screen.findByRole('checkbox', { name: 'Enable the add-on' })) as HTMLInputElement;
  expect(step.checked).toBe(true);
});

it("shows each link as the address it opens, the buyer's text only encoded in it", async () => {
  const hostile = 'Evil}{&#/../javascript:alert(1)\nx';
  await renderOrder(hostile);
  const links = within(runbook('Runbook: Analytics Pro (csa-pro-25)')).getByRole('list', {
    name: 'Links of Analytics Pro',
  });
  const console = within(links).getByRole('link', { name: 'Tenant console' }) as HTMLAnchorElement;
  const expected = `https://console.example/tenants/${encodeURIComponent(hostile).replace('(', '%28').replace(')', '%29')}?account=ACME-ACCOUNT-77`;
  expect(console.getAttribute('href')).toBe(expected);
  expect(console.getAttribute('target')).toBe('_blank');
  const url = new URL(console.href);
  expect(url.host).toBe('console.example');
  expect(url.pathname.split('/')).toHaveLength(3);
  // The address is there to read before opening it.
  expect(within(links).getByText(expected)).toBeTruthy();
  expect(
    (within(links).getByRole('link', { name: 'License admin' }) as HTMLAnchorElement).getAttribute('href'),
  ).toBe('https://licenses.example/users/licenses%40acme.example');
});

it('says which field the order lacks instead of offering half a link', async () => {
  await renderOrder(undefined, null);
  const links = screen.getByRole('list', { name: 'Links of Analytics Pro' });
  expect(within(links).queryByRole('link', { name: 'License admin' })).toBeNull();
  expect(
    within(links).getByText("This order does not have the first license's e-mail address yet."),
  ).toBeTruthy();
});

it("offers the runbooks' reasons when marking Failed, filling both fields", async () => {
  const bridge = await renderOrder();
  fireEvent.click(screen.getByRole('button', { name: 'Mark failed…' }));
  const reasons = screen.getByLabelText('Start from a reason') as HTMLSelectElement;
  expect([...reasons.options].map((o) => o.textContent)).toEqual([
    'Choose a reason from the runbook…',
    'Quota reached',
    'Add-on unavailable',
  ]);
  fireEvent.change(reasons, { target: { value: '1' } });
  expect((screen.getByLabelText('Description (required)') as HTMLInputElement).value).toBe(
    'Add-on unavailable',
  );
  expect(
    (screen.getByLabelText('Detailed description of the reason (required)') as HTMLTextAreaElement).value,
  ).toBe('The add-on is not sold in that region.');
  fireEvent.click(screen.getByRole('button', { name: 'Mark as failed' }));
  await waitFor(() =>
    expect(bridge.callsOf('markStatus')).toEqual([
      {
        orderId: FULL_ORDER_ID,
        statusCode: 'ProvisioningFailed',
        description: 'Add-on unavailable',
        detailedDescription: 'The add-on is not sold in that region.',
      },
    ]),
  );
});

it('offers no reasons, and no runbook, for an order without one', async () => {
  const bridge = createFakeBridge({ views: [fullView()], settings: { runbooks: [RUNBOOKS[1] as Runbook] } });
  renderWithUndo(bridge, <OrderDetail orderId={FULL_ORDER_ID} onBack={() => {}} />);
  await screen.findByRole('region', { name: 'To provision' });
  fireEvent.click(screen.getByRole('button', { name: 'Mark failed…' }));
  expect(screen.queryByLabelText('Start from a reason')).toBeNull();
  expect(screen.queryByRole('heading', { name: /^Runbook/ })).toBeNull();
});
