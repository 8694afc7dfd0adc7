// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { OrderListItem } from '../../preload/contract';
import { createFakeBridge, type FakeBridge } from '../../test/support/renderer/fake-bridge';
import { manyOrders } from '../../test/support/renderer/fixtures';
import { withInboxHeight } from '../../test/support/renderer/layout';
import { renderWithUndo } from '../../test/support/renderer/render';
import { formatAmount } from '../format';
import { Inbox, ROW_HEIGHT } from './Inbox';
import { INITIAL_QUERY, type InboxQuery } from './inbox-query';

const VIEWPORT = 480;
withInboxHeight(VIEWPORT);
afterEach(cleanup);

/** The inbox with its query, selection and arrivals kept as the app keeps them. */
function Harness({
  onOpen,
  arrivals = [],
  onArrivalsSeen,
}: {
  onOpen: (order: OrderListItem, index: number) => void;
  arrivals?: string[];
  onArrivalsSeen?: (orderIds: string[]) => void;
}) {
  const [query, setQuery] = useState<InboxQuery>(INITIAL_QUERY);
  const [selected, setSelected] = useState<string | null>(null);
  return (
    <Inbox
      query={query}
      onQueryChange={setQuery}
      selectedId={selected}
      onSelect={setSelected}
      onOpen={onOpen}
      arrivals={arrivals}
      onArrivalsSeen={onArrivalsSeen}
    />
  );
}

/** The order rows (the filter's <option>s are options too). */
const rows = () => within(screen.getByRole('listbox', { name: 'Orders' })).queryAllByRole('option');

/**
 * Scrolls the list as a browser with layout does (the offset moves and a scroll event follows),
 * for `rows` rows; answers the offset.
 */
function scrollsLikeABrowser(list: HTMLElement, rows: number): () => number {
  let scrollTop = 0;
  Object.defineProperty(list, 'scrollTop', { configurable: true, get: () => scrollTop });
  Object.defineProperty(list, 'scrollHeight', { configurable: true, get: () => rows * ROW_HEIGHT });
  list.scrollTo = ((options: ScrollToOptions) => {
    scrollTop = options.top ?? scrollTop;
    list.dispatchEvent(new Event('scroll'));
  }) as typeof list.scrollTo;
  return () => scrollTop;
}

async function renderInbox(bridge: FakeBridge) {
  const onOpen = vi.fn();
  renderWithUndo(bridge, <Harness onOpen={onOpen} />);
  await waitFor(() => expect(rows().length).toBeGreaterThan(0));
  return { onOpen, list: screen.getByRole('listbox', { name: 'Orders' }) };
}

describe('Inbox', () => {
  it('renders only a window of rows for 10,000 orders', async () => {
    const bridge = createFakeBridge({ orders: manyOrders(10_000, 3) });
    const { list } = await renderInbox(bridge);
    const shown = rows();
    expect(shown.length).toBeGreaterThanOrEqual(Math.floor(VIEWPORT / ROW_HEIGHT));
    expect(shown.length).toBeLessThan(50);
    // The status filter is a group of radios, not options among the rows.
    expect(
      within(screen.getByRole('group', { name: 'Filter by status' })).queryAllByRole('option'),
    ).toHaveLength(0);
    expect(shown[0]?.getAttribute('aria-setsize')).toBe('10000');
    expect(screen.getByText('10000 orders, 3 waiting for action')).toBeTruthy();
    // The scroll area is as tall as all rows together, so the scrollbar tells the truth.
    const spacer = list.firstElementChild as HTMLElement;
    expect(spacer.style.height).toBe(`${10_000 * ROW_HEIGHT}px`);
  });

  it('shows status, buyer, product, amount and age; the order id when the details are unknown', async () => {
    const bridge = createFakeBridge({ orders: manyOrders(8, 1) });
    await renderInbox(bridge);
    const [first, , , , , , seventh] = rows();
    expect(first?.textContent).toContain('New');
    expect(first?.textContent).toContain('Buyer 0');
    expect(first?.textContent).toContain('Product 0 × 1');
    expect(first?.textContent).toContain(formatAmount(0, 'EUR'));
    expect(first?.textContent).toMatch(/Waiting \d+ (min|h|d)/);
    expect(seventh?.textContent).toContain('order-00006');
    expect(seventh?.textContent).toContain('Completed');
  });

  it('names the kind of purchase when it is not a plain one: a trial, an upgrade, a type not known yet', async () => {
    const orders = manyOrders(4, 4).map((order, i) => ({
      ...order,
      purchaseType: ['ServicePurchased', 'Trial', 'UpgradeToPurchase', 'ServiceRenewed'][i],
    }));
    await renderInbox(createFakeBridge({ orders }));
    const tags = rows().map((row) => row.querySelector('.purchase-type')?.textContent ?? null);
    expect(tags).toEqual([null, 'Trial', 'Upgrade to purchase', 'Service renewed']);
  });

  it('moves the selection with the arrow keys and opens the order with Enter', async () => {
    const bridge = createFakeBridge({ orders: manyOrders(100) });
    const { list, onOpen } = await renderInbox(bridge);
    list.focus();
    fireEvent.focus(list);
    const selected = () => rows().find((r) => r.getAttribute('aria-selected') === 'true');
    expect(selected()?.id).toBe(list.getAttribute('aria-activedescendant'));
    expect(selected()?.textContent).toContain('Buyer 0');
    fireEvent.keyDown(list, { key: 'ArrowDown' });
    fireEvent.keyDown(list, { key: 'ArrowDown' });
    expect(selected()?.textContent).toContain('Buyer 2');
    fireEvent.keyDown(list, { key: 'ArrowUp' });
    expect(selected()?.textContent).toContain('Buyer 1');
    expect(list.getAttribute('aria-activedescendant')).toBe(selected()?.id);
    fireEvent.keyDown(list, { key: 'Enter' });
    expect(onOpen).toHaveBeenCalledWith(
      expect.objectContaining({ orderId: 'order-00001', buyer: 'Buyer 1' }),
      1,
    );
    fireEvent.keyDown(list, { key: 'ArrowUp' });
    fireEvent.keyDown(list, { key: 'ArrowUp' });
    expect(selected()?.textContent).toContain('Buyer 0');
  });

  it('scrolls the selection into view beyond the rendered window', async () => {
    const bridge = createFakeBridge({ orders: manyOrders(10_000) });
    const { list } = await renderInbox(bridge);
    const scrollTop = scrollsLikeABrowser(list, 10_000);
    fireEvent.focus(list);
    fireEvent.keyDown(list, { key: 'End' });
    await waitFor(() => expect(list.getAttribute('aria-activedescendant')).toBe('inbox-row-9999'));
    expect(scrollTop()).toBe(10_000 * ROW_HEIGHT - VIEWPORT);
    await waitFor(() =>
      expect(document.getElementById('inbox-row-9999')?.textContent).toContain('Buyer 9999'),
    );
    expect(rows().length).toBeLessThan(50);
    fireEvent.keyDown(list, { key: 'Home' });
    await waitFor(() =>
      expect(document.getElementById('inbox-row-0')?.getAttribute('aria-selected')).toBe('true'),
    );
  });

  it('focuses the search with "/" and searches and filters through the bridge', async () => {
    const bridge = createFakeBridge({ orders: manyOrders(30, 5) });
    await renderInbox(bridge);
    fireEvent.keyDown(document.body, { key: '/' });
    const search = screen.getByRole('searchbox', { name: 'Search orders' });
    expect(document.activeElement).toBe(search);
    fireEvent.change(search, { target: { value: 'Buyer 2' } });
    await waitFor(() =>
      expect(bridge.callsOf('listOrders').at(-1)).toEqual({
        filter: 'all',
        search: 'Buyer 2',
        sort: 'longest-waiting',
        offset: 0,
        limit: 100,
      }),
    );
    await waitFor(() => expect(rows()).toHaveLength(9)); // 2 and 21..29 less 27 (20 and 27 have no buyer)
    const filters = screen.getByRole('group', { name: 'Filter by status' });
    expect(within(filters).getByRole('radio', { name: 'All' })).toHaveProperty('checked', true);
    fireEvent.click(within(filters).getByRole('radio', { name: 'New' }));
    await waitFor(() =>
      expect(bridge.callsOf('listOrders').at(-1)).toEqual({
        filter: 'ProvisioningStarted',
        search: 'Buyer 2',
        sort: 'longest-waiting',
        offset: 0,
        limit: 100,
      }),
    );
    await waitFor(() => expect(rows()).toHaveLength(1));
    // ArrowDown from the search goes into the list, on the first order.
    fireEvent.keyDown(search, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(screen.getByRole('listbox'));
  });

  it('loads again when the bridge says orders arrived or the state changed', async () => {
    const bridge = createFakeBridge({ orders: manyOrders(2) });
    await renderInbox(bridge);
    bridge.orders = manyOrders(5);
    act(() => bridge.emit({ type: 'orders-arrived', orderIds: ['order-00004'] }));
    await waitFor(() => expect(rows()).toHaveLength(5));
    const before = bridge.callsOf('listOrders').length;
    act(() => bridge.emit({ type: 'notification', request: { kind: 'order', title: 't', body: 'b' } }));
    expect(bridge.callsOf('listOrders')).toHaveLength(before);
  });

  it('offers one filter per status and All, none showing the same orders as another', async () => {
    await renderInbox(createFakeBridge({ orders: manyOrders(3, 1) }));
    const filters = screen.getByRole('group', { name: 'Filter by status' });
    expect(
      within(filters)
        .getAllByRole('radio')
        .map((r) => r.closest('label')?.textContent),
    ).toEqual(['All', 'New', 'In progress', 'Completed', 'Failed']);
  });

  it('asks for the longest waiting first, or the newest first as chosen, and keeps the choice', async () => {
    const bridge = createFakeBridge({ orders: manyOrders(5, 2) });
    await renderInbox(bridge);
    expect(bridge.callsOf('listOrders')[0]?.sort).toBe('longest-waiting');
    fireEvent.change(screen.getByLabelText('Order of the inbox'), { target: { value: 'newest' } });
    await waitFor(() => expect(bridge.callsOf('listOrders').at(-1)?.sort).toBe('newest'));
    expect(bridge.callsOf('setSettings')).toEqual([{ inboxSort: 'newest' }]);
    cleanup();

    // Next time, the kept choice is the one asked for.
    await renderInbox(bridge);
    await waitFor(() => expect(bridge.callsOf('listOrders').at(-1)?.sort).toBe('newest'));
    expect(screen.getByLabelText('Order of the inbox')).toHaveProperty('value', 'newest');
  });

  it('says how long each order waited, "late" past the reminder delay and "very late" past twice it', async () => {
    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    const inProgress = { status: 'ProvisioningInProgress', waiting: false };
    const changes = [
      { since: ago(30) },
      { since: ago(5 * 60) },
      { since: ago(9 * 60) },
      { ...inProgress, since: ago(40 * 1440), statusSince: ago(35 * 1440) },
      { ...inProgress, since: ago(3 * 1440), statusSince: ago(2 * 1440) },
    ];
    const orders = manyOrders(5, 3).map((order, i) => ({ ...order, ...changes[i] }));
    await renderInbox(
      createFakeBridge({ orders, settings: { reminderAfterMinutes: 240, staleInProgressDays: 7 } }),
    );
    await waitFor(() => expect(rows()[1]?.textContent).toContain('· late'));
    const ages = rows().map((row) => row.querySelector('.row-age'));
    expect(ages.map((age) => age?.textContent)).toEqual([
      'Waiting 30 min',
      'Waiting 5 h · late',
      'Waiting 9 h · very late',
      'In progress 35 d · stalled',
      'In progress 2 d',
    ]);
    expect(ages.map((age) => age?.className.match(/urgency-[\w-]+/)?.[0])).toEqual([
      'urgency-none',
      'urgency-late',
      'urgency-very-late',
      'urgency-stalled',
      'urgency-none',
    ]);
  });

  it('marks an order not opened yet, and gives each row its whole buyer and product on hover', async () => {
    const orders = manyOrders(3, 2);
    orders[1] = { ...(orders[1] as (typeof orders)[number]), unopened: true, buyer: 'A'.repeat(120) };
    await renderInbox(createFakeBridge({ orders }));
    const [first, second] = rows();
    expect(first?.classList.contains('unopened')).toBe(false);
    expect(second?.classList.contains('unopened')).toBe(true);
    expect(second?.textContent).toContain('Not opened yet');
    expect(second?.getAttribute('title')).toBe(`${'A'.repeat(120)} — Product 1 × 1`);
  });

  it('brings arrivals out of view in with a pill, and tells when they were seen', async () => {
    const orders = manyOrders(200, 120);
    for (const i of [60, 90]) orders[i] = { ...(orders[i] as (typeof orders)[number]), unopened: true };
    const seen = vi.fn();
    const bridge = createFakeBridge({ orders });
    renderWithUndo(
      bridge,
      <Harness onOpen={() => {}} arrivals={['order-00060', 'order-00090']} onArrivalsSeen={seen} />,
    );
    const pill = await screen.findByRole('button', { name: '2 new orders' });
    const list = screen.getByRole('listbox', { name: 'Orders' });
    const scrollTop = scrollsLikeABrowser(list, 200);
    fireEvent.click(pill);
    await waitFor(() => expect(seen).toHaveBeenCalledWith(['order-00060']));
    expect(scrollTop()).toBe(60 * ROW_HEIGHT);
    expect(list.getAttribute('aria-activedescendant')).toBe('inbox-row-60');
    expect(screen.getByRole('button', { name: '1 new order' })).toBeTruthy();
  });

  it('says so when there are no orders', async () => {
    const bridge = createFakeBridge({ orders: [] });
    renderWithUndo(bridge, <Harness onOpen={() => {}} />);
    expect(await screen.findByText(/No orders yet/)).toBeTruthy();
  });
});
