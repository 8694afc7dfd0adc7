// @vitest-environment happy-dom
// The header's status with a fake bridge: one account as before; several, each account's state on
// its own (down and why in a banner of its own, credentials rejected, checked how long ago), and
// what Check now found naming the account it could not check.
import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppState } from '../../preload/contract';
import { accountState, appState, createFakeBridge } from '../../test/support/renderer/fake-bridge';
import { renderWithBridge } from '../../test/support/renderer/render';
import { ConnectionProblems } from './ConnectionProblems';
import { Header } from './Header';
import { pauseEnd } from './PauseControl';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const NOW = new Date('2026-11-21T10:30:00.000Z');
const ago = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString();
const DOWN_PROBLEM = {
  message:
    'The marketplace could not be reached. Check your internet connection (and VPN, if you use one); Seller Tray keeps trying.',
  details: ['operation: listEvents'],
};

function twoAccounts(): AppState {
  return appState({
    lastSuccessfulPoll: ago(1),
    accounts: [
      accountState('EU', { lastSuccessfulPoll: ago(1) }),
      accountState('Down', {
        connection: 'offline',
        health: 'stale',
        lastSuccessfulPoll: ago(20),
        problem: DOWN_PROBLEM,
      }),
      accountState('US', { connection: 'credentials-rejected', lastSuccessfulPoll: ago(3) }),
    ],
  });
}

function renderHeader(state: AppState) {
  vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
  const bridge = createFakeBridge({ state });
  const onState = vi.fn();
  renderWithBridge(
    bridge,
    <>
      <Header
        state={state}
        screen="Inbox"
        page="inbox"
        onNavigate={() => {}}
        onState={onState}
        onError={() => {}}
      />
      <ConnectionProblems state={state} />
    </>,
  );
  return { bridge, onState, status: screen.getByRole('list', { name: 'Status' }) };
}

describe('the header serving several accounts', () => {
  it("says each account's state, and why one is down in a banner naming it", () => {
    const { status } = renderHeader(twoAccounts());
    const items = within(status)
      .getAllByRole('listitem')
      .map((item) => item.textContent);
    expect(items.slice(0, 3)).toEqual([
      'EU Checked 1 min ago',
      'Down ⚠ Offline; not read for 20 min, trying again',
      'US Credentials rejected; last read 3 min ago',
    ]);
    expect(within(status).queryByText('Connected')).toBeNull();
    const alerts = screen.getAllByRole('alert');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.textContent).toMatch(/^Down: The marketplace could not be reached/);
  });

  it("says on an account's line that its own notifications are paused", () => {
    const state = twoAccounts();
    const [eu, ...others] = state.accounts;
    if (!eu) throw new Error('no account');
    const until = new Date(NOW.getTime() + 3_600_000).toISOString();
    const { status } = renderHeader({
      ...state,
      accounts: [{ ...eu, notificationsPausedUntil: until }, ...others],
    });
    // Until when, as the banner says the app's own pause.
    expect(within(status).getAllByRole('listitem')[0]?.textContent).toBe(
      `EU Checked 1 min ago; notifications paused ${pauseEnd(new Date(until), NOW.getTime())}`,
    );
    expect(within(status).getAllByRole('listitem')[0]?.textContent).toMatch(/paused until \d{1,2}:\d{2}/);
  });

  it('says when an account that fails was last read and that it tries again, never that it was checked', () => {
    const state = twoAccounts();
    const { status } = renderHeader({
      ...state,
      accounts: [
        accountState('EU', { lastSuccessfulPoll: ago(0) }),
        accountState('Down', { connection: 'offline', lastSuccessfulPoll: ago(0), problem: DOWN_PROBLEM }),
        accountState('New', { connection: 'server-problem', lastSuccessfulPoll: null }),
        accountState('Paused', { connection: 'paused', lastSuccessfulPoll: ago(3) }),
      ],
    });
    const items = within(status)
      .getAllByRole('listitem')
      .map((item) => item.textContent);
    expect(items.slice(0, 4)).toEqual([
      'EU Checked just now',
      'Down Offline; last read just now, trying again',
      'New The marketplace is having problems; not read yet, trying again',
      'Paused Checking paused; last read 3 min ago',
    ]);
  });

  it('says what Check now found, naming the account it could not check', async () => {
    const state = twoAccounts();
    const { bridge } = renderHeader(state);
    bridge.handle('checkNow', () => ({ state, newOrders: 1 }));
    fireEvent.click(screen.getByRole('button', { name: 'Check now' }));
    expect(await screen.findByText('1 new order; Down, US could not be checked')).toBeTruthy();
  });

  it('with one account served (the other has no secret), shows it as it always did', () => {
    const state = twoAccounts();
    const one = {
      ...state,
      accounts: state.accounts.map((a) => (a.label === 'EU' ? a : { ...a, open: false })),
    };
    const { status } = renderHeader(one);
    expect(within(status).getByText('Connected')).toBeTruthy();
    expect(within(status).getByText('Checked 1 min ago')).toBeTruthy();
    expect(within(status).queryByText(/EU/)).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe('the header serving one account', () => {
  it('says when an offline account was last read, not that it checked, and its banner that it tries again', () => {
    const { status } = renderHeader(
      appState({ connection: 'offline', lastSuccessfulPoll: ago(0), problem: DOWN_PROBLEM }),
    );
    const items = within(status)
      .getAllByRole('listitem')
      .map((item) => item.textContent);
    expect(items[0]).toBe('Offline');
    expect(items[1]).toMatch(/^Last read just now \(last read at .+\)$/);
    expect(screen.getByRole('alert').textContent).toContain('Seller Tray keeps trying');
  });

  it('says it tries again where its banner does not (an answer it cannot read), and not where it waits for a secret', () => {
    const unreadable = {
      message:
        'The marketplace answered in a form Seller Tray cannot read. If it lasts, choose Settings → Diagnose connection and send the result to the marketplace.',
      details: [],
    };
    const { status } = renderHeader(
      appState({ connection: 'failing', lastSuccessfulPoll: ago(3), problem: unreadable }),
    );
    expect(within(status).getAllByRole('listitem')[1]?.textContent).toMatch(
      /^Last read 3 min ago, trying again \(last read at .+\)$/,
    );
    cleanup();
    const rejected = renderHeader(
      appState({ connection: 'credentials-rejected', lastSuccessfulPoll: ago(3) }),
    );
    expect(within(rejected.status).getAllByRole('listitem')[1]?.textContent).toMatch(
      /^Last read 3 min ago \(last read at .+\)$/,
    );
  });
});
