// @vitest-environment happy-dom
// What the window's list draws again, and what not. Every poll tells the window the app's state
// (with several accounts, Check now tells it once per account): one that changes nothing the list
// shows draws neither the inbox nor a row again, and moving the current row draws the two rows it
// concerns, without the list's places being measured again (the virtualiser's pass over every
// order listed: with 5 accounts, five times as many), nor does a page of rows read again. What
// the rows do show still draws them.
// Counted through test-only wrappers: each row draws one StatusChip, each inbox render asks the
// virtualiser once, and the virtualiser measures by asking each place's key.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppState, OrderListItem } from '../preload/contract';
import { accountState, createFakeBridge, type FakeBridge } from '../test/support/renderer/fake-bridge';
import { manyOrders } from '../test/support/renderer/fixtures';
import { setWindowSize, withInboxHeight } from '../test/support/renderer/layout';
import { App } from './App';

const drawn = vi.hoisted(() => ({ rows: 0, inbox: 0, keys: 0 }));

vi.mock('./components/StatusChip', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./components/StatusChip')>();
  return {
    StatusChip: (props: Parameters<typeof actual.StatusChip>[0]) => {
      drawn.rows += 1;
      return actual.StatusChip(props);
    },
  };
});

vi.mock('@tanstack/react-virtual', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@tanstack/react-virtual')>();
  // Each of the inbox's key functions counted, kept the same function while the inbox's is.
  const counted = new WeakMap<(index: number) => unknown, (index: number) => unknown>();
  const countedKeys = <K,>(getItemKey: (index: number) => K): ((index: number) => K) => {
    let wrapper = counted.get(getItemKey) as ((index: number) => K) | undefined;
    if (!wrapper) {
      wrapper = (index: number) => {
        drawn.keys += 1;
        return getItemKey(index);
      };
      counted.set(getItemKey, wrapper);
    }
    return wrapper;
  };
  return {
    ...actual,
    useVirtualizer: ((options: Parameters<typeof actual.useVirtualizer>[0]) => {
      drawn.inbox += 1;
      const { getItemKey } = options;
      return actual.useVirtualizer(
        getItemKey ? { ...options, getItemKey: countedKeys(getItemKey) } : options,
      );
    }) as typeof actual.useVirtualizer,
  };
});

withInboxHeight(480);
beforeEach(() => setWindowSize(420, 640));
afterEach(cleanup);

const LISTED = 400;
const rows = () => within(screen.getByRole('listbox', { name: 'Orders' })).queryAllByRole('option');
const tags = () => rows().map((r) => r.querySelector('.row-account')?.textContent ?? null);

/** Two accounts served, their orders listed together, every other one the US account's. */
async function twoAccounts(): Promise<FakeBridge> {
  const orders: OrderListItem[] = manyOrders(LISTED, 3).map((o, i) => ({
    ...o,
    account: i % 2 === 0 ? 'id-eu' : 'id-us',
  }));
  const bridge = createFakeBridge({
    state: { accounts: [accountState('EU'), accountState('US')] },
    orders,
  });
  render(<App bridge={bridge} />);
  await waitFor(() => expect(tags().slice(0, 2)).toEqual(['Account EU: ', 'Account US: ']));
  return bridge;
}

/** The app's state told again, as a poll tells it; settled: the settings it has the inbox read again answered. */
async function told(bridge: FakeBridge, state: AppState): Promise<void> {
  const reads = bridge.callsOf('getSettings').length;
  bridge.state = state;
  act(() => bridge.emit({ type: 'app-state', state }));
  await waitFor(() => expect(bridge.callsOf('getSettings').length).toBeGreaterThan(reads));
  // The answers' renders.
  await act(() => new Promise((resolve) => setTimeout(resolve, 100)));
}

const resetCounts = () => Object.assign(drawn, { rows: 0, inbox: 0, keys: 0 });

describe('the window’s list drawn again', () => {
  it('is not, for an app state that changes nothing it shows (each account polled)', async () => {
    const bridge = await twoAccounts();
    expect(rows().length).toBeGreaterThan(4);
    for (let poll = 1; poll <= 3; poll++) {
      resetCounts();
      const at = `2026-11-21T10:0${poll}:00.000Z`;
      await told(bridge, {
        ...bridge.state,
        lastSuccessfulPoll: at,
        accounts: bridge.state.accounts.map((a) => ({ ...a, lastSuccessfulPoll: at })),
      });
      expect(drawn).toEqual({ rows: 0, inbox: 0, keys: 0 });
    }
    expect(tags().slice(0, 2)).toEqual(['Account EU: ', 'Account US: ']);
  });

  it('is, for what its rows show: an account renamed, a row’s status', async () => {
    const bridge = await twoAccounts();
    const shown = rows().length;
    resetCounts();
    await told(bridge, {
      ...bridge.state,
      accounts: bridge.state.accounts.map((a) => (a.id === 'id-us' ? { ...a, label: 'Americas' } : a)),
    });
    expect(tags().slice(0, 2)).toEqual(['Account EU: ', 'Account Americas: ']);
    // Its rows, and only they.
    expect(drawn.rows).toBe(tags().filter((tag) => tag === 'Account Americas: ').length);
    expect(drawn.rows).toBeGreaterThan(shown / 3);

    const first = rows()[0];
    expect(first?.querySelector('.chip')?.textContent).not.toBe('In progress');
    resetCounts();
    bridge.orders = bridge.orders.map((o, i) => (i === 0 ? { ...o, status: 'ProvisioningInProgress' } : o));
    act(() => bridge.emit({ type: 'orders-updated', orderIds: ['order-00000'], moved: false }));
    await waitFor(() => expect(rows()[0]?.querySelector('.chip')?.textContent).toBe('In progress'));
    // Its page read again: no place of the list moved, so none is measured again.
    expect(drawn.keys).toBeLessThan(LISTED);
  });

  it('moving the current row draws the two rows it concerns, the list not measured again', async () => {
    await twoAccounts();
    const list = screen.getByRole('listbox', { name: 'Orders' });
    list.focus();
    fireEvent.keyDown(list, { key: 'ArrowDown' });
    await waitFor(() => expect(rows()[0]?.getAttribute('aria-selected')).toBe('true'));
    resetCounts();
    fireEvent.keyDown(list, { key: 'ArrowDown' });
    await waitFor(() => expect(rows()[1]?.getAttribute('aria-selected')).toBe('true'));
    expect(rows()[0]?.getAttribute('aria-selected')).toBe('false');
    expect(drawn.rows).toBe(2);
    expect(drawn.keys).toBeLessThan(LISTED);
  });
});
