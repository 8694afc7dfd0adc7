// @vitest-environment happy-dom
// The window in a German user's browser: an order's total reads the same in its inbox row and on
// its page, in the user's locale ("1.234,56 €"), not in the English the core once wrote rows in.
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterAll, afterEach, expect, it, vi } from 'vitest';
import type { OrderListItem } from '../preload/contract';
import { createFakeBridge } from '../test/support/renderer/fake-bridge';
import { FULL_ORDER_ID, fullOrder, fullView } from '../test/support/renderer/fixtures';
import { withInboxHeight } from '../test/support/renderer/layout';
import { App } from './App';

// Before any module builds a number format: Intl's default locale is German, as in such a browser.
const restoreLocale = vi.hoisted(() => {
  const original = Intl.NumberFormat;
  const german = new Proxy(original, {
    construct: (target, [locales, options]) => new target(locales ?? 'de-DE', options),
    apply: (target, _this, [locales, options]) => target(locales ?? 'de-DE', options),
  });
  const use = (value: typeof Intl.NumberFormat) =>
    Object.defineProperty(Intl, 'NumberFormat', { value, configurable: true, writable: true });
  use(german);
  return () => use(original);
});

withInboxHeight(480);
afterAll(restoreLocale);
afterEach(cleanup);

it('writes a total in the inbox row as on the order page, in the user’s locale', async () => {
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
  const view = fullView({ order: { ...fullOrder(), anticipatedMonetaryTotal: total } });
  render(<App bridge={createFakeBridge({ orders: [row], views: [view] })} />);

  const option = await within(await screen.findByRole('listbox', { name: 'Orders' })).findByRole('option');
  const inRow = option.querySelector('.row-amount')?.textContent;
  expect(inRow).toMatch(/^1\.234,56\s€$/);

  fireEvent.click(option);
  const details = await screen.findByRole('region', { name: 'Order details' });
  expect(document.querySelector('.order-total')?.textContent).toBe(inRow);
  const anticipated = within(details).getByText('Anticipated total', { selector: 'dt' });
  expect(anticipated.nextElementSibling?.textContent).toBe(inRow);
});
