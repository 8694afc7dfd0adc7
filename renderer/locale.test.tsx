// @vitest-environment happy-dom
// The window in a German user's browser: an order's total reads the same in its inbox row and on
// its page, in the user's locale ("1.234,56 €"), not in the English the core once wrote rows in;
// and in the organization's locale (policy `locale`, in the app's state) when it sets one.
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterAll, afterEach, expect, it, vi } from 'vitest';
import { UNMANAGED_STATE } from '../preload/contract';
import { appState, createFakeBridge } from '../test/support/renderer/fake-bridge';
import { fullOrder, fullRow, fullView } from '../test/support/renderer/fixtures';
import { withInboxHeight } from '../test/support/renderer/layout';
import { App } from './App';
import { setWindowLocale } from './format';

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
afterEach(() => {
  cleanup();
  setWindowLocale(null);
});

const total = { amount: 1234.56, currencyCode: 'EUR' };
const row = fullRow('2026-11-20T09:30:00.000Z', total);

/** The window with the order, the organization's locale as given: its total in the row, and on its page. */
async function totals(locale: string | null = null) {
  const view = fullView({ order: { ...fullOrder(), anticipatedMonetaryTotal: total } });
  const state = appState({ managed: { ...UNMANAGED_STATE, locale } });
  render(<App bridge={createFakeBridge({ state, orders: [row], views: [view] })} />);

  const option = await within(await screen.findByRole('listbox', { name: 'Orders' })).findByRole('option');
  const inRow = option.querySelector('.row-amount')?.textContent;
  fireEvent.click(option);
  const details = await screen.findByRole('region', { name: 'Order details' });
  const anticipated = within(details).getByText('Anticipated total', { selector: 'dt' });
  return {
    inRow,
    onPage: document.querySelector('.order-total')?.textContent,
    anticipated: anticipated.nextElementSibling?.textContent,
  };
}

it('writes a total in the inbox row as on the order page, in the user’s locale', async () => {
  const { inRow, onPage, anticipated } = await totals();
  expect(inRow).toMatch(/^1\.234,56\s€$/);
  expect(onPage).toBe(inRow);
  expect(anticipated).toBe(inRow);
});

it('writes them in the organization’s locale when a policy sets one', async () => {
  const { inRow, onPage } = await totals('en-GB');
  expect(inRow).toBe('€1,234.56');
  expect(onPage).toBe(inRow);
});
