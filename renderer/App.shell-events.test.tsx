// @vitest-environment happy-dom
// The Electron shell's events: a notification click opens its order in its account (or the inbox), the tray's
// Settings opens the settings.
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ShellEvent } from '../preload/contract';
import { createFakeBridge } from '../test/support/renderer/fake-bridge';
import { FULL_ORDER_ID, fullView, manyOrders } from '../test/support/renderer/fixtures';
import { App } from './App';

afterEach(cleanup);

describe('App and the shell’s events', () => {
  it('opens the order, the settings and the inbox the shell asks for', async () => {
    const orders = manyOrders(3);
    orders[1] = {
      ...(orders[1] as (typeof orders)[number]),
      orderId: FULL_ORDER_ID,
      buyer: 'Acme Industrial GmbH',
    };
    const bridge = createFakeBridge({ orders, views: [fullView()] });
    // The fake bridge's emit is typed for the service's events; it relays any event.
    const emit = (event: ShellEvent) => (bridge.emit as unknown as (event: ShellEvent) => void)(event);
    render(<App bridge={bridge} />);
    await screen.findByRole('list', { name: 'Status' });

    act(() => emit({ type: 'open-order', orderId: FULL_ORDER_ID, account: 'id-us' }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Acme Industrial GmbH' })).toBeTruthy();
    // The order is read in the account the notification named (an id may be in two).
    expect(bridge.callsOf('getOrder')).toContainEqual({ orderId: FULL_ORDER_ID, account: 'id-us' });

    act(() => emit({ type: 'open-settings' }));
    expect(await screen.findByRole('heading', { name: 'Settings' })).toBeTruthy();

    act(() => emit({ type: 'open-inbox' }));
    expect(await screen.findByRole('listbox', { name: 'Orders' })).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Settings' })).toBeNull();
  });
});
