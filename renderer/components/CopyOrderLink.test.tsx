// @vitest-environment happy-dom
// "Copy link" on the order page: the order's seller-tray:// link on the clipboard, read back by the
// same parser the main process opens links with; no button for an id a link cannot carry.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseOrderLink } from '../../preload/order-link';
import { createFakeBridge } from '../../test/support/renderer/fake-bridge';
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

  it('is not offered for an id that is not a marketplace order id', () => {
    render(<CopyOrderLink orderId="o-1; rm -rf" />);
    expect(screen.queryByRole('button')).toBeNull();
  });
});
