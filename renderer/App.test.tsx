// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appState, createFakeBridge, FakeBridgeError } from '../test/support/renderer/fake-bridge';
import { FULL_ORDER_ID, fullView, manyOrders } from '../test/support/renderer/fixtures';
import { App } from './App';

const clientHeight = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientHeight');
beforeAll(() => {
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', {
    configurable: true,
    get(this: HTMLElement) {
      return this.classList.contains('inbox-scroll') ? 480 : 0;
    },
  });
});
afterAll(() => {
  if (clientHeight) Object.defineProperty(HTMLElement.prototype, 'clientHeight', clientHeight);
});
afterEach(cleanup);

const orderRows = () => within(screen.getByRole('listbox', { name: 'Orders' })).queryAllByRole('option');

describe('App', () => {
  it('shows the onboarding until an account is set up, then the inbox', async () => {
    const bridge = createFakeBridge({
      state: { setup: 'unconfigured', baseUrl: '', clientId: '', secretStored: false },
      settings: { baseUrl: '', clientId: '' },
      orders: manyOrders(3),
    });
    render(<App bridge={bridge} />);
    await screen.findByRole('heading', { name: 'Connect Seller Tray to the marketplace' });
    fireEvent.change(screen.getByLabelText('Base URL'), { target: { value: 'https://marketplace.example' } });
    fireEvent.change(screen.getByLabelText('Client id'), { target: { value: 'seller-client' } });
    fireEvent.change(screen.getByLabelText('Client secret'), { target: { value: 's3cret' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(orderRows()).toHaveLength(3));
    expect(screen.queryByLabelText('Client secret')).toBeNull();
  });

  it('shows the state in the status bar and follows its events', async () => {
    const bridge = createFakeBridge({
      state: { connection: 'ok', waitingCount: 2, pendingOutbox: 1, setup: 'demo' },
      orders: manyOrders(3, 2),
    });
    render(<App bridge={bridge} />);
    const status = await screen.findByRole('list', { name: 'Status' });
    expect(status.textContent).toContain('Connected');
    expect(status.textContent).toMatch(/Last checked/);
    expect(status.textContent).toContain('1 status to send');
    expect(status.textContent).toContain('Notifications on');
    expect(screen.getByRole('button', { name: 'Inbox 2 waiting' })).toBeTruthy();
    expect(screen.getByText('Demo')).toBeTruthy();
    expect(bridge.listenerCount).toBe(1);

    const until = new Date(Date.now() + 3_600_000).toISOString();
    act(() =>
      bridge.emit({
        type: 'app-state',
        state: appState({
          connection: 'credentials-rejected',
          lastError: 'The marketplace rejected the client id or secret.',
          pendingOutbox: 3,
          notificationsPausedUntil: until,
        }),
      }),
    );
    expect(status.textContent).toContain(
      'Credentials rejected: The marketplace rejected the client id or secret.',
    );
    expect(status.textContent).toContain('3 statuses to send');
    expect(status.textContent).toContain('Notifications paused until');

    act(() =>
      bridge.emit({
        type: 'state-changed',
        status: { ...bridge.state, connection: 'offline', lastError: 'ECONNRESET', lastSuccessfulPoll: null },
      }),
    );
    expect(status.textContent).toContain('Offline: ECONNRESET');
    expect(status.textContent).toContain('Not checked yet');

    act(() => bridge.emit({ type: 'state-changed', status: { ...bridge.state, connection: 'paused' } }));
    expect(status.textContent).toContain('Checking paused');
  });

  it('checks now', async () => {
    const bridge = createFakeBridge({ state: { lastSuccessfulPoll: null } });
    render(<App bridge={bridge} />);
    const status = await screen.findByRole('list', { name: 'Status' });
    expect(status.textContent).toContain('Not checked yet');
    fireEvent.click(screen.getByRole('button', { name: 'Check now' }));
    await waitFor(() => expect(status.textContent).toMatch(/Last checked/));
    expect(bridge.callsOf('checkNow')).toEqual([undefined]);
  });

  it('opens an order from the inbox, goes back with the selection kept, and opens the settings', async () => {
    const view = fullView();
    const orders = manyOrders(5);
    orders[2] = {
      ...(orders[2] as (typeof orders)[number]),
      orderId: FULL_ORDER_ID,
      buyer: 'Acme Industrial GmbH',
    };
    const bridge = createFakeBridge({ orders, views: [view] });
    render(<App bridge={bridge} />);
    await waitFor(() => expect(orderRows()).toHaveLength(5));
    fireEvent.click(screen.getByRole('option', { name: /Acme Industrial GmbH/ }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Acme Industrial GmbH' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: /Back to inbox/ }));
    await waitFor(() => expect(orderRows()).toHaveLength(5));
    const list = screen.getByRole('listbox', { name: 'Orders' });
    await waitFor(() => expect(document.activeElement).toBe(list));
    expect(document.getElementById(list.getAttribute('aria-activedescendant') ?? '')?.textContent).toContain(
      'Acme Industrial GmbH',
    );

    fireEvent.click(screen.getByRole('button', { name: 'Settings' }));
    expect(await screen.findByRole('heading', { name: 'Settings' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Settings' }).getAttribute('aria-current')).toBe('page');
  });

  it('shows problems the service reports until dismissed', async () => {
    const bridge = createFakeBridge();
    render(<App bridge={bridge} />);
    await screen.findByRole('list', { name: 'Status' });
    act(() => bridge.emit({ type: 'problem', message: 'The keychain is locked.' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The keychain is locked.');
    fireEvent.click(within(alert).getByRole('button', { name: 'Dismiss this message' }));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('keeps the details of a problem one click away', async () => {
    const bridge = createFakeBridge();
    render(<App bridge={bridge} />);
    await screen.findByRole('list', { name: 'Status' });
    const details = ['event 1b2c: statusCode: Invalid input', 'event 3d4e: eventTime: Invalid ISO datetime'];
    act(() =>
      bridge.emit({ type: 'problem', message: '2 events from the marketplace could not be read', details }),
    );
    const alert = await screen.findByRole('alert');
    const disclosure = within(alert).getByText('Details').closest('details');
    expect(disclosure?.open).toBe(false);
    fireEvent.click(within(alert).getByText('Details'));
    expect(disclosure?.open).toBe(true);
    expect(
      within(alert)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(details);
  });

  it('says so when the state cannot be read, and tries again', async () => {
    const bridge = createFakeBridge();
    bridge.handle('getState', () => {
      throw new FakeBridgeError('preview-unreachable', 'The Seller Tray preview server is not running.');
    });
    render(<App bridge={bridge} />);
    expect((await screen.findByRole('alert')).textContent).toContain('preview server is not running');
    bridge.handle('getState', () => bridge.state);
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('list', { name: 'Status' })).toBeTruthy();
  });
});
