// @vitest-environment happy-dom
// "Copy link" on the order page: the order's seller-tray:// link on the clipboard, read back by the
// same parser the main process opens links with; no button for an id a link cannot carry. With
// several accounts served, the page and the link name the order's account, read and marked there.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseOrderLink } from '../../preload/order-link';
import { namedAccount } from '../../preload/served-account';
import { accountState, createFakeBridge } from '../../test/support/renderer/fake-bridge';
import { FULL_ORDER_ID, fullView } from '../../test/support/renderer/fixtures';
import { renderWithUndo } from '../../test/support/renderer/render';
import { CopyOrderLink } from './CopyOrderLink';
import { OrderDetail } from './OrderDetail';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('Copy link', () => {
  it('is on the order page and copies a link that opens this very order', async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    renderWithUndo(
      createFakeBridge({ views: [fullView()] }),
      <OrderDetail orderId={FULL_ORDER_ID} onBack={() => {}} />,
    );
    const button = await screen.findByRole('button', { name: 'Copy link to this order' });
    expect(button.textContent).toBe('Copy link');
    fireEvent.click(button);
    await waitFor(() => expect(writeText).toHaveBeenCalledTimes(1));
    const copied = writeText.mock.calls[0]?.[0] as string;
    expect(copied).toBe(`seller-tray://order/${FULL_ORDER_ID}`);
    expect(parseOrderLink(copied)).toEqual({ orderId: FULL_ORDER_ID });
    expect(await screen.findByText('Copied')).toBeTruthy();
  });

  it('names the account, and the page says it, while the app serves several; reads and marks it there', async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    const accounts = [accountState('EU'), accountState('US')];
    const bridge = createFakeBridge({ views: [fullView()] });
    renderWithUndo(
      bridge,
      <OrderDetail
        orderId={FULL_ORDER_ID}
        account="id-us"
        named={namedAccount(accounts, 'id-us')}
        onBack={() => {}}
      />,
    );
    expect(await screen.findByText('Account US')).toBeTruthy();
    fireEvent.click(await screen.findByRole('button', { name: 'Copy link to this order' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledTimes(1));
    const copied = writeText.mock.calls[0]?.[0] as string;
    expect(parseOrderLink(copied)).toEqual({ orderId: FULL_ORDER_ID, account: 'US' });
    expect(bridge.callsOf('getOrder')).toContainEqual({ orderId: FULL_ORDER_ID, account: 'id-us' });
    // Marked by that account only.
    fireEvent.click(await screen.findByRole('button', { name: 'Mark completed' }));
    await waitFor(() => expect(bridge.callsOf('markStatus')).toHaveLength(1));
    expect(bridge.callsOf('markStatus')[0]).toMatchObject({ orderId: FULL_ORDER_ID, account: 'id-us' });
    // One account served: nothing to tell apart, so neither the page nor the link names it.
    const oneServed = accounts.map((a) => (a.id === 'id-us' ? { ...a, open: false } : a));
    expect(namedAccount(oneServed, 'id-eu')).toBeUndefined();
  });

  it('is not offered for an id that is not a marketplace order id', () => {
    render(<CopyOrderLink orderId="o-1; rm -rf" />);
    expect(screen.queryByRole('button')).toBeNull();
  });
});
