// @vitest-environment happy-dom
// The organization's locale (policy `locale`, in the app's state) is the window's too: an inbox
// row's total and the order page's dates are written in it, and in the browser's own without one.
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { type OrderListItem, UNMANAGED_STATE } from '../preload/contract';
import { appState, createFakeBridge } from '../test/support/renderer/fake-bridge';
import { FULL_ORDER_ID, fullOrder, fullView } from '../test/support/renderer/fixtures';
import { withInboxHeight } from '../test/support/renderer/layout';
import { App } from './App';
import { setWindowLocale } from './format';

withInboxHeight(480);
afterEach(() => {
  cleanup();
  setWindowLocale(null);
});

const total = { amount: 1234.56, currencyCode: 'EUR' };
const row: OrderListItem = {
  account: 'account-1',
  orderId: FULL_ORDER_ID,
  status: 'ProvisioningStarted',
  purchaseType: 'ServicePurchased',
  since: '2026-11-20T09:30:00.000Z',
  statusSince: '2026-11-20T09:30:00.000Z',
  waiting: true,
  unopened: false,
  backlog: false,
  delivery: null,
  buyer: 'Acme Industrial GmbH',
  product: 'CloudSoft Analytics × 25',
  total,
};

async function openWith(locale: string | null) {
  const bridge = createFakeBridge({
    state: appState({ managed: { ...UNMANAGED_STATE, locale } }),
    orders: [row],
    views: [fullView({ order: { ...fullOrder(), anticipatedMonetaryTotal: total } })],
  });
  render(<App bridge={bridge} />);
  const option = await within(await screen.findByRole('listbox', { name: 'Orders' })).findByRole('option');
  const inRow = option.querySelector('.row-amount')?.textContent;
  fireEvent.click(option);
  await screen.findByRole('region', { name: 'Order details' });
  return { inRow, onPage: document.querySelector('.order-total')?.textContent };
}

describe('the window in the organization’s locale', () => {
  it('writes totals in it, in the row and on the order page', async () => {
    const { inRow, onPage } = await openWith('de-DE');
    expect(inRow).toMatch(/^1\.234,56\s€$/);
    expect(onPage).toBe(inRow);
  });

  it('writes them in the browser’s own without one', async () => {
    const browsers = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'EUR' }).format(1234.56);
    const { inRow } = await openWith(null);
    expect(inRow).toBe(browsers);
    expect(inRow).not.toMatch(/^1\.234,56/);
  });
});
