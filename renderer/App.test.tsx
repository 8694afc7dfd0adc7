// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CodedError } from '../preload/coded-error';
import { UNTIL_RESUMED } from '../preload/pause';
import {
  bridgeFailure,
  expectExplainedOneClickAway,
  settingsWriteProblem,
} from '../test/support/renderer/error-details';
import { appState, createFakeBridge } from '../test/support/renderer/fake-bridge';
import { FULL_ORDER_ID, fullView, manyOrders } from '../test/support/renderer/fixtures';
import { setWindowSize, withInboxHeight } from '../test/support/renderer/layout';
import { App } from './App';
import { formatAmount } from './format';

withInboxHeight(480);
// The tray-sized window, one page at a time; the split view's tests widen it.
beforeEach(() => setWindowSize(420, 640));
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

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

  it('offers "Open in a window" only while the desktop app shows it as the tray popover', async () => {
    const bridge = createFakeBridge({ orders: manyOrders(3) });
    render(<App bridge={bridge} />);
    await waitFor(() => expect(orderRows()).toHaveLength(3));
    expect(screen.queryByRole('button', { name: 'Open in a window' })).toBeNull();
    act(() => bridge.emit({ type: 'window-mode', mode: 'popover' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Open in a window' }));
    await waitFor(() => expect(bridge.callsOf('openInWindow')).toHaveLength(1));
    act(() => bridge.emit({ type: 'window-mode', mode: 'window' }));
    expect(screen.queryByRole('button', { name: 'Open in a window' })).toBeNull();
  });

  it('shows the state in the status bar and follows its events', async () => {
    const bridge = createFakeBridge({
      state: { connection: 'ok', waitingCount: 2, pendingOutbox: 1, setup: 'demo' },
      orders: manyOrders(3, 2),
    });
    render(<App bridge={bridge} />);
    const status = await screen.findByRole('list', { name: 'Status' });
    expect(status.textContent).toContain('Connected');
    expect(status.textContent).toMatch(/Checked \d+ \w+ ago/);
    expect(status.textContent).toContain('1 status to send');
    expect(screen.queryByText(/Notifications paused/)).toBeNull();
    expect(screen.getByRole('button', { name: 'Inbox 2 waiting' })).toBeTruthy();
    expect(screen.getByText(/This is the demo marketplace/)).toBeTruthy();
    expect(bridge.listenerCount).toBe(1);

    const until = new Date(Date.now() + 3_600_000).toISOString();
    act(() =>
      bridge.emit({
        type: 'app-state',
        state: appState({
          connection: 'credentials-rejected',
          lastError: 'createToken: HTTP 401 Unauthorized',
          problem: { message: 'The marketplace rejected the client id or secret.', details: [] },
          pendingOutbox: 3,
          notificationsPausedUntil: until,
        }),
      }),
    );
    expect(status.textContent).toContain('Credentials rejected');
    expect(status.textContent).not.toContain('HTTP 401');
    expect(status.textContent).toContain('3 statuses to send');
    // The pause is a banner of its own, with Resume.
    expect(screen.getByText(/Notifications paused until/).closest('.paused-banner')).toBeTruthy();

    act(() =>
      bridge.emit({
        type: 'app-state',
        state: { ...bridge.state, connection: 'offline', lastError: 'ECONNRESET', lastSuccessfulPoll: null },
      }),
    );
    expect(status.textContent).toContain('Offline');
    expect(status.textContent).not.toContain('ECONNRESET');
    expect(status.textContent).toContain('Not read yet');

    act(() => bridge.emit({ type: 'app-state', state: { ...bridge.state, connection: 'server-problem' } }));
    expect(status.textContent).toContain('Marketplace having problems');

    act(() => bridge.emit({ type: 'app-state', state: { ...bridge.state, connection: 'paused' } }));
    expect(status.textContent).toContain('Checking paused');
  });

  it("shows the connection's problem in plain words while it lasts, its detail one click away", async () => {
    const bridge = createFakeBridge();
    render(<App bridge={bridge} />);
    await screen.findByRole('list', { name: 'Status' });
    const problem = {
      message: 'The marketplace is having problems: it answered with a server error.',
      details: ['Operation: listNewEvents', 'HTTP status: 503 ServiceUnavailable', 'Request id: 5c1d'],
    };
    act(() =>
      bridge.emit({
        type: 'app-state',
        state: appState({ connection: 'server-problem', lastError: 'listNewEvents: HTTP 503', problem }),
      }),
    );
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(problem.message);
    expect(alert.textContent).not.toContain('listNewEvents: HTTP 503');
    fireEvent.click(within(alert).getByText('Details'));
    expect(
      within(alert)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(problem.details);
    expect(within(alert).getByRole('button', { name: 'Copy the details' })).toBeTruthy();

    // The next poll works: the banner goes by itself, under a "Connected" status.
    act(() => bridge.emit({ type: 'app-state', state: appState({ connection: 'ok' }) }));
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
    expect(screen.getByRole('list', { name: 'Status' }).textContent).toContain('Connected');
  });

  it('carries the waiting count in the window title, and announces arrivals', async () => {
    const bridge = createFakeBridge({ state: { waitingCount: 3 }, orders: manyOrders(3, 3) });
    render(<App bridge={bridge} />);
    await waitFor(() => expect(document.title).toBe('(3) Seller Tray'));
    act(() => bridge.emit({ type: 'orders-arrived', orderIds: ['order-00001', 'order-00002'] }));
    expect(screen.getByText('2 new orders arrived.').getAttribute('role')).toBe('status');
    act(() => bridge.emit({ type: 'app-state', state: appState({ waitingCount: 0 }) }));
    await waitFor(() => expect(document.title).toBe('Seller Tray'));
  });

  it('says when the marketplace was last read, and warns while it is not', async () => {
    const bridge = createFakeBridge({
      state: { lastSuccessfulPoll: new Date(Date.now() - 90_000).toISOString() },
    });
    render(<App bridge={bridge} />);
    const status = await screen.findByRole('list', { name: 'Status' });
    expect(status.textContent).toContain('Checked 1 min ago');
    act(() =>
      bridge.emit({
        type: 'app-state',
        state: appState({
          health: 'stale',
          lastSuccessfulPoll: new Date(Date.now() - 20.5 * 60_000).toISOString(),
        }),
      }),
    );
    // Polls that neither work nor fail are not "Connected".
    expect(status.textContent).toContain('No answer from the marketplace');
    expect(status.textContent).not.toContain('Connected');
    const checked = status.querySelector('.checked');
    expect(checked?.textContent).toMatch(/^⚠ Not read for 20 min \(last read at /);
    expect(checked?.className).toBe('checked checked-stale');
  });

  it('opens Needs attention from the header, with its count, and from the tray', async () => {
    const bridge = createFakeBridge({
      state: { attention: { notStarted: 1, stalled: 0, unconfirmed: 1, failed: 0, keptAside: 0 } },
    });
    render(<App bridge={bridge} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Needs attention 2 items' }));
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Seller Tray: Needs attention');
    await waitFor(() => expect(bridge.callsOf('getAttention')).toHaveLength(1));
    fireEvent.click(screen.getByRole('button', { name: 'Inbox' }));
    act(() => bridge.emit({ type: 'open-attention' }));
    expect(screen.getByRole('button', { name: 'Needs attention 2 items' }).getAttribute('aria-current')).toBe(
      'page',
    );
  });

  it('checks now, and says what it found', async () => {
    const bridge = createFakeBridge({ state: { lastSuccessfulPoll: null } });
    render(<App bridge={bridge} />);
    const status = await screen.findByRole('list', { name: 'Status' });
    expect(status.textContent).toContain('Not checked yet');
    fireEvent.click(screen.getByRole('button', { name: 'Check now' }));
    await waitFor(() => expect(status.textContent).toMatch(/Checked just now/));
    expect(bridge.callsOf('checkNow')).toEqual([undefined]);
    expect(within(status).getByRole('status').textContent).toBe('No new orders');

    bridge.handle('checkNow', () => ({ state: bridge.state, newOrders: 2 }));
    fireEvent.click(screen.getByRole('button', { name: 'Check now' }));
    await waitFor(() => expect(within(status).getByRole('status').textContent).toBe('2 new orders'));

    bridge.handle('checkNow', () => ({ state: { ...bridge.state, connection: 'offline' }, newOrders: 0 }));
    fireEvent.click(screen.getByRole('button', { name: 'Check now' }));
    await waitFor(() => expect(within(status).getByRole('status').textContent).toBe('Check failed'));
  });

  it('pauses from the header in one click, shows a banner while paused, and resumes from it', async () => {
    const bridge = createFakeBridge();
    render(<App bridge={bridge} />);
    const pause = await screen.findByRole('button', { name: 'Pause notifications' });
    expect(pause.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(pause);
    expect(pause.getAttribute('aria-expanded')).toBe('true');
    const choices = screen.getByText('Pause notifications', { selector: 'p' }).parentElement as HTMLElement;
    expect(
      within(choices)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['For 1 hour', 'For 4 hours', 'Until tomorrow 08:00', 'Until I resume']);
    fireEvent.click(within(choices).getByRole('button', { name: 'Until I resume' }));
    await waitFor(() => expect(bridge.callsOf('pauseNotifications')).toEqual([{ until: UNTIL_RESUMED }]));
    const banner = await screen.findByText(/Notifications paused until you resume them/);
    expect(pause.getAttribute('aria-expanded')).toBe('false');
    expect(screen.getByRole('button', { name: 'Paused notifications' })).toBe(pause);

    fireEvent.click(
      within(banner.closest('.paused-banner') as HTMLElement).getByRole('button', { name: 'Resume' }),
    );
    await waitFor(() => expect(bridge.callsOf('pauseNotifications').at(-1)).toEqual({ until: null }));
    await waitFor(() => expect(screen.queryByText(/Notifications paused/)).toBeNull());
  });

  it('closes the pause choices with Escape, back on their button', async () => {
    const bridge = createFakeBridge();
    render(<App bridge={bridge} />);
    const pause = await screen.findByRole('button', { name: 'Pause notifications' });
    fireEvent.click(pause);
    const first = screen.getByRole('button', { name: 'For 1 hour' });
    await waitFor(() => expect(document.activeElement).toBe(first));
    fireEvent.keyDown(first, { key: 'Escape' });
    expect(pause.getAttribute('aria-expanded')).toBe('false');
    expect(document.activeElement).toBe(pause);
    expect(bridge.callsOf('pauseNotifications')).toEqual([]);
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

  it('opens an order at once from its row, steps through the inbox with j/k and ↑/↓, and Escape goes back to its row', async () => {
    const orders = manyOrders(5);
    const bridge = createFakeBridge({ orders, views: [] });
    // Each order's page reads its document slowly: the page shows the row meanwhile.
    bridge.handle('getOrder', () => new Promise(() => {}));
    render(<App bridge={bridge} />);
    await waitFor(() => expect(orderRows()).toHaveLength(5));
    fireEvent.click(screen.getByRole('option', { name: /Buyer 1\b/ }));
    const heading = await screen.findByRole('heading', { level: 2, name: 'Buyer 1' });
    expect(document.activeElement).toBe(heading);
    expect(screen.getByText(formatAmount(1, 'EUR'))).toBeTruthy();
    expect(screen.getByText('Loading the order…')).toBeTruthy();

    fireEvent.keyDown(document.activeElement ?? document.body, { key: 'j' });
    expect(await screen.findByRole('heading', { level: 2, name: 'Buyer 2' })).toBeTruthy();
    fireEvent.keyDown(document.activeElement ?? document.body, { key: 'ArrowDown' });
    expect(await screen.findByRole('heading', { level: 2, name: 'Buyer 3' })).toBeTruthy();
    fireEvent.keyDown(document.activeElement ?? document.body, { key: 'k' });
    expect(await screen.findByRole('heading', { level: 2, name: 'Buyer 2' })).toBeTruthy();
    fireEvent.keyDown(document.activeElement ?? document.body, { key: 'ArrowUp' });
    expect(await screen.findByRole('heading', { level: 2, name: 'Buyer 1' })).toBeTruthy();
    fireEvent.keyDown(document.activeElement ?? document.body, { key: 'ArrowUp' });
    expect(await screen.findByRole('heading', { level: 2, name: 'Buyer 0' })).toBeTruthy();
    // At the top there is nowhere to go: it stays.
    fireEvent.keyDown(document.activeElement ?? document.body, { key: 'ArrowUp' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.getByRole('heading', { level: 2, name: 'Buyer 0' })).toBeTruthy();

    fireEvent.keyDown(document.activeElement ?? document.body, { key: 'Escape' });
    const list = await screen.findByRole('listbox', { name: 'Orders' });
    await waitFor(() => expect(document.activeElement).toBe(list));
    expect(document.getElementById(list.getAttribute('aria-activedescendant') ?? '')?.textContent).toContain(
      'Buyer 0',
    );
  });

  it('steps on from where the last step landed when a key comes again before the page followed (a held ↓)', async () => {
    const bridge = createFakeBridge({ orders: manyOrders(5), views: [] });
    bridge.handle('getOrder', () => new Promise(() => {}));
    render(<App bridge={bridge} />);
    await waitFor(() => expect(orderRows()).toHaveLength(5));
    fireEvent.click(screen.getByRole('option', { name: /Buyer 1\b/ }));
    await screen.findByRole('heading', { level: 2, name: 'Buyer 1' });
    for (const key of ['j', 'j', 'ArrowDown']) fireEvent.keyDown(document.body, { key });
    expect(await screen.findByRole('heading', { level: 2, name: 'Buyer 4' })).toBeTruthy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(screen.getByRole('heading', { level: 2, name: 'Buyer 4' })).toBeTruthy();
  });

  // steps take turns on one promise chain, so a step whose listing never answers
  // (a wedged call) holds every later step for the life of the window, even after the order was
  // left and another opened: the new order's j waits behind it forever.
  it('a step that never ends holds no step of an order opened after it', async () => {
    const bridge = createFakeBridge({ orders: manyOrders(5), views: [] });
    bridge.handle('getOrder', () => new Promise(() => {}));
    const answer = bridge.listOrders.bind(bridge);
    let wedged = false;
    bridge.listOrders = (request) => (wedged ? new Promise(() => {}) : answer(request));
    render(<App bridge={bridge} />);
    await waitFor(() => expect(orderRows()).toHaveLength(5));
    fireEvent.click(screen.getByRole('option', { name: /Buyer 1\b/ }));
    await screen.findByRole('heading', { level: 2, name: 'Buyer 1' });
    wedged = true;
    fireEvent.keyDown(document.body, { key: 'j' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    wedged = false;
    // Back to the list, and another order opened: its steps are its own.
    fireEvent.keyDown(document.body, { key: 'Escape' });
    await waitFor(() => expect(orderRows()).toHaveLength(5));
    fireEvent.click(screen.getByRole('option', { name: /Buyer 3\b/ }));
    await screen.findByRole('heading', { level: 2, name: 'Buyer 3' });
    fireEvent.keyDown(document.body, { key: 'j' });
    expect(await screen.findByRole('heading', { level: 2, name: 'Buyer 4' })).toBeTruthy();
  });

  // a step waiting its turn reads its place when its turn comes, not when its key
  // was pressed; so j j on one order, then back to the list and another order opened before they
  // ran, moves the order just opened: the second j, pressed on Buyer 1, steps Buyer 3 on to 4.
  it('steps pressed on an order left meanwhile never move the order opened since', async () => {
    const bridge = createFakeBridge({ orders: manyOrders(5), views: [] });
    bridge.handle('getOrder', () => new Promise(() => {}));
    const answer = bridge.listOrders.bind(bridge);
    let open = (): void => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    // The steps' listings (a window of 51 rows around the order) wait; the inbox's do not.
    bridge.listOrders = async (request) => {
      if (request.limit === 51) await gate;
      return answer(request);
    };
    render(<App bridge={bridge} />);
    await waitFor(() => expect(orderRows()).toHaveLength(5));
    fireEvent.click(screen.getByRole('option', { name: /Buyer 1\b/ }));
    await screen.findByRole('heading', { level: 2, name: 'Buyer 1' });
    fireEvent.keyDown(document.body, { key: 'j' });
    fireEvent.keyDown(document.body, { key: 'j' });
    // The first step is on its way (its listing waits); the second waits its turn.
    await new Promise((resolve) => setTimeout(resolve, 20));
    fireEvent.keyDown(document.body, { key: 'Escape' });
    await waitFor(() => expect(orderRows()).toHaveLength(5));
    fireEvent.click(screen.getByRole('option', { name: /Buyer 3\b/ }));
    await screen.findByRole('heading', { level: 2, name: 'Buyer 3' });
    open();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe('Buyer 3');
  });

  it('from 900 px wide shows the list and the open order side by side: the order follows the list', async () => {
    setWindowSize(1280, 800);
    const bridge = createFakeBridge({ orders: manyOrders(5, 3), views: [] });
    bridge.handle('getOrder', () => new Promise(() => {}));
    render(<App bridge={bridge} />);
    await waitFor(() => expect(orderRows()).toHaveLength(5));
    expect(screen.getByText(/Choose an order in the list/)).toBeTruthy();
    const list = screen.getByRole('listbox', { name: 'Orders' });
    list.focus();
    fireEvent.focus(list);
    expect(await screen.findByRole('heading', { level: 2, name: 'Buyer 0' })).toBeTruthy();
    fireEvent.keyDown(list, { key: 'ArrowDown' });
    expect(await screen.findByRole('heading', { level: 2, name: 'Buyer 1' })).toBeTruthy();
    // The list keeps the focus and stays on screen; the order has no way "back".
    expect(document.activeElement).toBe(list);
    expect(screen.getByRole('listbox', { name: 'Orders' })).toBe(list);
    expect(screen.queryByRole('button', { name: /Back to inbox/ })).toBeNull();
    // s in the list marks the order shown, in its row's account, and the focus stays in the list.
    fireEvent.keyDown(list, { key: 's' });
    await waitFor(() =>
      expect(bridge.callsOf('markStatus')).toEqual([
        { orderId: 'order-00001', statusCode: 'ProvisioningInProgress', account: 'account-1' },
      ]),
    );
    expect(document.activeElement).toBe(list);
    // A click on a row shows it beside the list, too.
    fireEvent.click(screen.getByRole('option', { name: /Buyer 3\b/ }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Buyer 3' })).toBeTruthy();
    expect(screen.getByRole('listbox', { name: 'Orders' })).toBeTruthy();
  });

  it('goes on to a backlog order when only the backlog waits, though the inbox folds it away', async () => {
    const orders = manyOrders(14, 13).map((o, i) => (i > 0 && o.waiting ? { ...o, backlog: true } : o));
    const bridge = createFakeBridge({ orders, views: [] });
    bridge.handle('getOrder', () => new Promise(() => {}));
    render(<App bridge={bridge} />);
    // The arrival and the one done are listed; the twelve of the backlog are folded away.
    await waitFor(() => expect(orderRows()).toHaveLength(2));
    fireEvent.click(screen.getByRole('option', { name: /Buyer 0\b/ }));
    fireEvent.click(await screen.findByRole('button', { name: 'Start provisioning' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Next waiting order →' }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Buyer 1' })).toBeTruthy();
  });

  it('leaves the demo in one click, back to onboarding', async () => {
    const bridge = createFakeBridge({ state: { setup: 'demo' }, settings: { demoMode: true } });
    render(<App bridge={bridge} />);
    const leave = await screen.findByRole('button', { name: 'Leave the demo' });
    bridge.handle('getState', () =>
      appState({ setup: 'unconfigured', baseUrl: '', clientId: '', secretStored: false }),
    );
    fireEvent.click(leave);
    expect(
      await screen.findByRole('heading', { name: 'Connect Seller Tray to the marketplace' }),
    ).toBeTruthy();
    expect(bridge.callsOf('setSettings')).toEqual([{ demoMode: false }]);
  });

  it.each([
    {
      button: 'Resume',
      channel: 'pauseNotifications',
      options: { state: { notificationsPausedUntil: UNTIL_RESUMED } },
      words: 'Notifications paused until you resume them. New orders still arrive here.Resume',
    },
    {
      button: 'Leave the demo',
      channel: 'setSettings',
      options: { state: { setup: 'demo' }, settings: { demoMode: true } },
      words: 'This is the demo marketplace: its orders are made up.Leave the demo',
    },
  ] as const)(
    'says a failed $button under the banners, not in them',
    async ({ button, channel, options, words }) => {
      const bridge = createFakeBridge(options);
      bridge.handle(channel, () => {
        throw bridgeFailure('internal', settingsWriteProblem());
      });
      const { container } = render(<App bridge={bridge} />);
      fireEvent.click(await screen.findByRole('button', { name: button }));

      const alert = await screen.findByRole('alert');
      expect(container.querySelector('.problems')?.contains(alert)).toBe(true);
      expect(container.querySelector('.banners')?.textContent).toBe(words);
      await expectExplainedOneClickAway(alert, settingsWriteProblem());
    },
  );

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
    const toggle = within(alert).getByRole('button', { name: 'Details' });
    const disclosure = document.getElementById(toggle.getAttribute('aria-controls') ?? '');
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(disclosure?.hidden).toBe(true);
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(disclosure?.hidden).toBe(false);
    expect(
      within(alert)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(details);
  });

  it('says so when the state cannot be read, and tries again', async () => {
    const bridge = createFakeBridge();
    bridge.handle('getState', () => {
      throw new CodedError('preview-unreachable', 'The Seller Tray preview server is not running.');
    });
    render(<App bridge={bridge} />);
    expect((await screen.findByRole('alert')).textContent).toContain('preview server is not running');
    bridge.handle('getState', () => bridge.state);
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('list', { name: 'Status' })).toBeTruthy();
  });
});
