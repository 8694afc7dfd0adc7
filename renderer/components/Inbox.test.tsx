// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AccountState, OrderListItem } from '../../preload/contract';
import { accountState, createFakeBridge, type FakeBridge } from '../../test/support/renderer/fake-bridge';
import { manyOrders } from '../../test/support/renderer/fixtures';
import { withInboxHeight } from '../../test/support/renderer/layout';
import { renderWithUndo } from '../../test/support/renderer/render';
import { formatAmount } from '../format';
import { useAccountLabels } from '../hooks/useAccountLabels';
import { REPEATED_PRESS_MS } from '../hooks/useRepeatGuard';
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
  onFail,
  accounts,
}: {
  onOpen: (order: OrderListItem, index: number) => void;
  arrivals?: string[];
  onArrivalsSeen?: (orderIds: string[]) => void;
  onFail?: (order: OrderListItem, index: number) => void;
  accounts?: AccountState[];
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
      onFail={onFail}
      accountLabels={useAccountLabels(accounts)}
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

async function renderInbox(bridge: FakeBridge, accounts?: AccountState[]) {
  const onOpen = vi.fn();
  const onFail = vi.fn();
  renderWithUndo(bridge, <Harness onOpen={onOpen} onFail={onFail} accounts={accounts} />);
  await waitFor(() => expect(rows().length).toBeGreaterThan(0));
  return { onOpen, onFail, list: screen.getByRole('listbox', { name: 'Orders' }) };
}

const checkedRows = () => rows().filter((r) => r.getAttribute('aria-checked') === 'true');
const buyersOf = (shown: HTMLElement[]) => shown.map((r) => r.querySelector('.row-title')?.textContent);

/** Two orders that arrived while the app ran, the first sync's backlog of `backlog` (84 days old), and three done. */
function triageOrders(backlog: number): OrderListItem[] {
  const old = new Date(Date.now() - 84 * 86_400_000).toISOString();
  const all = manyOrders(5 + backlog, 2 + backlog);
  return [
    ...all.slice(0, 2),
    ...all
      .slice(2, 2 + backlog)
      .map((o, i) => ({ ...o, buyer: `Backlog ${i}`, since: old, waitingSince: old, backlog: true })),
    ...all.slice(2 + backlog),
  ];
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

  it('reads again what the store says changed: the list when rows moved, only their page when in place', async () => {
    const bridge = createFakeBridge({ orders: manyOrders(2) });
    await renderInbox(bridge);
    const reads = () => bridge.callsOf('listOrders').length;
    bridge.orders = manyOrders(5);
    act(() => bridge.emit({ type: 'orders-updated', orderIds: ['order-00004'], moved: true }));
    await waitFor(() => expect(rows()).toHaveLength(5));
    // Polls that changed nothing, and what is not about the list, read nothing.
    let before = reads();
    act(() => bridge.emit({ type: 'app-state', state: bridge.state }));
    act(() => bridge.emit({ type: 'notification', request: { kind: 'order', title: 't', body: 'b' } }));
    act(() => bridge.emit({ type: 'orders-arrived', orderIds: ['order-00004'] }));
    // A row not in the list changed in place: nothing shown changed.
    act(() => bridge.emit({ type: 'orders-updated', orderIds: ['elsewhere'], moved: false }));
    expect(reads()).toBe(before);
    // A row shown changed in place: its page is read again.
    bridge.orders = bridge.orders.map((o) => (o.orderId === 'order-00001' ? { ...o, buyer: 'Renamed' } : o));
    act(() => bridge.emit({ type: 'orders-updated', orderIds: ['order-00001'], moved: false }));
    await waitFor(() => expect(buyersOf(rows())).toContain('Renamed'));
    expect(reads()).toBe(before + 1);
    // Another account: another list.
    before = reads();
    bridge.orders = manyOrders(3);
    act(() => bridge.emit({ type: 'app-state', state: { ...bridge.state, clientId: 'another-client' } }));
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(reads()).toBe(before + 1);
  });

  it('reads the list again when the clock regroups it, as the page said', async () => {
    const bridge = createFakeBridge();
    const data = createFakeBridge({ orders: manyOrders(3, 1) });
    let regroupsAt: string | null = new Date(Date.now() + 100).toISOString();
    bridge.handle('listOrders', async (request) => {
      const answer = await data.listOrders(request);
      if (!answer.ok) throw new Error('the fake failed');
      const page = { ...answer.value, regroupsAt };
      regroupsAt = null;
      return page;
    });
    await renderInbox(bridge);
    const first = bridge.callsOf('listOrders').length;
    await waitFor(() => expect(bridge.callsOf('listOrders').length).toBe(first + 1));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(bridge.callsOf('listOrders').length).toBe(first + 1);
  });

  it('moves the loaded rows down when orders arrive on top, reading only the first page', async () => {
    const orders = manyOrders(250);
    const bridge = createFakeBridge({ orders });
    const { list } = await renderInbox(bridge);
    const scrollTop = scrollsLikeABrowser(list, 250);
    for (const index of [150, 240]) {
      act(() => list.scrollTo({ top: index * ROW_HEIGHT }));
      await waitFor(() =>
        expect(bridge.callsOf('listOrders').map((r) => r.offset)).toContain(index - (index % 100)),
      );
      // Its answer shown: a page still on its way when the rows move is read again, rightly.
      await waitFor(() => expect(buyersOf(rows())).toContain(`Buyer ${index}`));
    }
    const arrived = {
      ...manyOrders(1, 1)[0],
      orderId: 'arrived-1',
      buyer: 'Arrived',
      unopened: true,
    } as OrderListItem;
    bridge.orders = [arrived, ...orders];
    const data = createFakeBridge({ orders: bridge.orders });
    bridge.handle('listOrders', (request) => {
      return data.listOrders(request).then((answer) => {
        if (!answer.ok) throw new Error('the fake failed');
        // As the store groups it: the arrival on top, in a group of its own.
        const groups = answer.value.groups.map((g) =>
          g.name === 'arrived'
            ? { ...g, size: 1, holds: 1 }
            : g.name === 'waiting'
              ? { ...g, start: g.start + 1, size: g.size - 1, holds: g.holds - 1 }
              : g,
        );
        return { ...answer.value, groups };
      });
    });
    const before = bridge.callsOf('listOrders').length;
    act(() => bridge.emit({ type: 'orders-updated', orderIds: ['arrived-1'], moved: true }));
    await waitFor(() => expect(bridge.callsOf('listOrders').length).toBe(before + 1));
    expect(bridge.callsOf('listOrders').at(-1)?.offset).toBe(0);
    // Deep in the list each row is the one before it: the order that was at 239 is at 240.
    act(() => list.scrollTo({ top: 238 * ROW_HEIGHT }));
    await waitFor(() => expect(buyersOf(rows())).toContain('Buyer 239'));
    const shown = rows().find((r) => r.querySelector('.row-title')?.textContent === 'Buyer 239');
    expect(shown?.getAttribute('aria-posinset')).toBe('241');
    expect(scrollTop()).toBe(238 * ROW_HEIGHT);
    expect(bridge.callsOf('listOrders').length).toBe(before + 1);
  });

  it("says while the first sync's orders are still being indexed that a search may miss some, and no more once done", async () => {
    const bridge = createFakeBridge({ orders: manyOrders(5) });
    const data = createFakeBridge({ orders: bridge.orders });
    let indexing = true;
    bridge.handle('listOrders', async (request) => {
      const answer = await data.listOrders(request);
      if (!answer.ok) throw new Error('the fake failed');
      return { ...answer.value, ...(indexing ? { searchIncomplete: true as const } : {}) };
    });
    await renderInbox(bridge);
    const said =
      /Search is still indexing the orders of the first sync, so it may miss some: try again in a minute\./;
    await waitFor(() => expect(document.querySelector('.inbox-count')?.textContent).toMatch(said));
    indexing = false;
    act(() => bridge.emit({ type: 'orders-updated', orderIds: [], moved: true }));
    await waitFor(() => expect(document.querySelector('.inbox-count')?.textContent).not.toMatch(said));
    expect(document.querySelector('.inbox-count')?.textContent).toMatch(/^5 orders/);
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
    // Purchase stamps of a marketplace clock hours off: the wait counts from the arrival here.
    const changes = [
      { since: ago(9 * 60), waitingSince: ago(30) },
      { since: ago(-3 * 60), waitingSince: ago(5 * 60) },
      { since: ago(3 * 60), waitingSince: ago(9 * 60) },
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

  it('puts a separator only between what a row says of its age, never before the first', async () => {
    const orders = manyOrders(3, 0).map((order, i) => ({
      ...order,
      waiting: false,
      status: 'ProvisioningCompleted',
      ...[
        { since: undefined, statusSince: undefined, delivery: 'pending' as const },
        { since: undefined, statusSince: undefined, delivery: 'failed' as const },
        { since: new Date(Date.now() - 3 * 60 * 60_000).toISOString(), delivery: 'retrying' as const },
      ][i],
    }));
    await renderInbox(createFakeBridge({ orders }));
    await waitFor(() => expect(rows()).toHaveLength(3));
    const ages = rows().map((row) => row.querySelector('.row-age')?.textContent);
    expect(ages).toEqual(['sending', 'not sent', '3 h ago · not sent yet']);
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

  it('folds a large backlog away under its heading, shows it when asked, and raises no late alarm on it', async () => {
    const bridge = createFakeBridge({ orders: triageOrders(15), settings: { reminderAfterMinutes: 240 } });
    await renderInbox(bridge);
    expect(rows()).toHaveLength(5);
    expect(document.querySelector('.inbox-count')?.textContent).toBe(
      '20 orders, 17 waiting for action · 15 in the backlog Show',
    );
    const headings = () => [...document.querySelectorAll('.inbox-group')].map((h) => h.textContent);
    expect(headings()).toEqual([
      'Waiting · 2',
      '▸Backlog, from before the first sync · 15 · folded away',
      'Other orders · 3',
    ]);
    // Each group's rows are a group of options, named for assistive technology.
    expect(within(screen.getByRole('group', { name: 'Waiting' })).getAllByRole('option')).toHaveLength(2);

    fireEvent.click(screen.getByRole('button', { name: 'Show the backlog' }));
    await waitFor(() => expect(bridge.callsOf('listOrders').at(-1)?.backlog).toBe('shown'));
    await waitFor(() => expect(document.querySelectorAll('.inbox-row.backlog').length).toBeGreaterThan(3));
    const backlogAges = [...document.querySelectorAll('.inbox-row.backlog .row-age')];
    expect(backlogAges.map((age) => age.textContent)).toContain('Waiting 84 d');
    expect(backlogAges.every((age) => age.className.includes('urgency-none'))).toBe(true);
    expect(screen.getByRole('button', { name: 'Fold the backlog' }).getAttribute('aria-expanded')).toBe(
      'true',
    );
    expect(headings()[1]).toBe('▾Backlog, from before the first sync · 15');
  });

  it('shows a small backlog at once', async () => {
    await renderInbox(createFakeBridge({ orders: triageOrders(3) }));
    expect(rows()).toHaveLength(8);
    expect(buyersOf(rows().slice(2, 5))).toEqual(['Backlog 0', 'Backlog 1', 'Backlog 2']);
    // Nothing to fold: a small backlog is just shown.
    expect(screen.queryByRole('button', { name: /backlog/ })).toBeNull();
  });

  it('lists nothing as a listbox when a search finds nothing', async () => {
    const bridge = createFakeBridge({ orders: manyOrders(5) });
    await renderInbox(bridge);
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search orders' }), {
      target: { value: 'nobody' },
    });
    await screen.findByText('No orders match.');
    expect(screen.queryByRole('listbox')).toBeNull();
  });

  it('selects rows by keyboard for a bulk step that asks first, marks each through the outbox and undoes them as one', async () => {
    const bridge = createFakeBridge({ orders: manyOrders(30, 5) });
    const { list } = await renderInbox(bridge);
    list.focus();
    fireEvent.focus(list);
    fireEvent.keyDown(list, { key: ' ' });
    expect(buyersOf(checkedRows())).toEqual(['Buyer 0']);
    fireEvent.keyDown(list, { key: 'ArrowDown', shiftKey: true });
    fireEvent.keyDown(list, { key: 'ArrowDown', shiftKey: true });
    expect(buyersOf(checkedRows())).toEqual(['Buyer 0', 'Buyer 1', 'Buyer 2']);
    expect(screen.getByText('3 orders selected')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Mark completed (0)' })).toHaveProperty('disabled', true);

    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning (3)' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Start provisioning: 3 orders?' });
    // The safe choice is the primary one, with the focus: Enter or Escape marks nothing.
    expect(document.activeElement).toBe(
      within(dialog).getByRole('button', { name: 'Keep them as they are' }),
    );
    expect(bridge.callsOf('markStatus')).toEqual([]);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Start provisioning (3)' }));
    await waitFor(() => expect(bridge.callsOf('markStatus')).toHaveLength(3));
    expect(bridge.callsOf('markStatus').map((r) => [r.orderId, r.statusCode])).toEqual(
      ['order-00000', 'order-00001', 'order-00002'].map((id) => [id, 'ProvisioningInProgress']),
    );
    const bar = document.querySelector('.undo-bar') as HTMLElement;
    await waitFor(() => expect(bar.textContent).toContain('Marked In progress: 3 orders.'));
    expect(checkedRows()).toEqual([]);
    await waitFor(() => expect(document.activeElement).toBe(list));

    fireEvent.keyDown(document.body, { key: 'z', ctrlKey: true });
    await waitFor(() => expect(bridge.callsOf('undoMark')).toHaveLength(3));
    await waitFor(() =>
      expect(bar.textContent).toContain('3 of 3 undone: the marketplace was not told of them.'),
    );
    expect(bridge.orders.slice(0, 3).map((o) => o.status)).toEqual(Array(3).fill('ProvisioningStarted'));
  });

  it('selects every order of the list with Ctrl+A, a range with Shift+click, and Escape clears', async () => {
    const bridge = createFakeBridge({ orders: manyOrders(250, 5) });
    const { list, onOpen } = await renderInbox(bridge);
    fireEvent.keyDown(list, { key: 'a', ctrlKey: true });
    // The pages not loaded yet are read for it.
    await screen.findByText('250 orders selected');
    expect(screen.getByRole('button', { name: 'Start provisioning (5)' })).toBeTruthy();
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(screen.queryByText(/selected$/)).toBeNull();

    // A click on a row's box selects it; Shift+click selects up to another; a plain click opens.
    fireEvent.click(rows()[1]?.querySelector('.row-check') as Element);
    fireEvent.click(rows()[3] as Element, { shiftKey: true });
    expect(buyersOf(checkedRows())).toEqual(['Buyer 1', 'Buyer 2', 'Buyer 3']);
    expect(onOpen).not.toHaveBeenCalled();
    fireEvent.click(rows()[4] as Element);
    expect(onOpen).toHaveBeenCalledWith(expect.objectContaining({ orderId: 'order-00004' }), 4);
  });

  it('marks the current row with s, asks first for an unusual c, opens it for f, never while typing or twice', async () => {
    const bridge = createFakeBridge({ orders: manyOrders(10, 5) });
    const { list, onFail } = await renderInbox(bridge);
    list.focus();
    fireEvent.focus(list);
    fireEvent.keyDown(list, { key: 's' });
    fireEvent.keyDown(list, { key: 's' }); // the same press twice: one mark
    await waitFor(() => expect(bridge.callsOf('markStatus')).toHaveLength(1));
    // Posted by the row's account.
    expect(bridge.callsOf('markStatus')[0]).toEqual({
      orderId: 'order-00000',
      account: 'account-1',
      statusCode: 'ProvisioningInProgress',
    });
    await waitFor(() =>
      expect(document.querySelector('.undo-bar')?.textContent).toContain('Marked In progress: Buyer 0.'),
    );

    // Past the guard against a repeated press (REPEATED_PRESS_MS), another step is another decision.
    await new Promise((done) => setTimeout(done, REPEATED_PRESS_MS + 50));
    fireEvent.keyDown(list, { key: 'ArrowDown' });
    fireEvent.keyDown(list, { key: 'c' });
    const dialog = await screen.findByRole('alertdialog', { name: 'Mark this order Completed?' });
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Keep it New' }));
    fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(bridge.callsOf('markStatus')).toHaveLength(1);

    fireEvent.keyDown(list, { key: 'f' });
    expect(onFail).toHaveBeenCalledWith(expect.objectContaining({ orderId: 'order-00001' }), 1);

    const search = screen.getByRole('searchbox', { name: 'Search orders' });
    fireEvent.keyDown(search, { key: 's' });
    expect(bridge.callsOf('markStatus')).toHaveLength(1);
  });

  describe('with two accounts served', () => {
    const account = (id: string, label: string, open = true): AccountState =>
      accountState(label, { id, open, clientId: 'seller-client', lastSuccessfulPoll: null });
    const ACCOUNTS = [account('account-1', 'EU'), account('account-2', 'US')];
    /** Eight orders, every other one the US account's; the first two the same order id in both. */
    const twoAccounts = () =>
      manyOrders(8, 4).map((o, i) => ({
        ...o,
        account: i % 2 === 0 ? 'account-1' : 'account-2',
        ...(i === 1 ? { orderId: 'order-00000' } : {}),
      }));
    const tags = () => rows().map((r) => r.querySelector('.row-account')?.textContent ?? null);

    it("tags each row with its account's label, and one account served tags none", async () => {
      const bridge = createFakeBridge({ orders: twoAccounts() });
      await renderInbox(bridge, ACCOUNTS);
      expect(tags().slice(0, 4)).toEqual(['Account EU: ', 'Account US: ', 'Account EU: ', 'Account US: ']);
      expect(rows()[1]?.getAttribute('title')).toMatch(/^US — /);
      cleanup();
      await renderInbox(createFakeBridge({ orders: twoAccounts() }), [
        ACCOUNTS[0] as AccountState,
        account('account-2', 'US', false),
      ]);
      expect(tags().every((t) => t === null)).toBe(true);
      expect(screen.queryByRole('combobox', { name: 'Filter by account' })).toBeNull();
    });

    it("marks a selection of both accounts' rows, and a row's key, each by its own account", async () => {
      const bridge = createFakeBridge({ orders: twoAccounts() });
      const { list } = await renderInbox(bridge, ACCOUNTS);
      list.focus();
      fireEvent.focus(list);
      // The same order id in both accounts (the first two rows): each row selected on its own.
      fireEvent.keyDown(list, { key: ' ' });
      fireEvent.keyDown(list, { key: 'ArrowDown', shiftKey: true });
      fireEvent.keyDown(list, { key: 'ArrowDown', shiftKey: true });
      expect(checkedRows()).toHaveLength(3);
      fireEvent.click(screen.getByRole('button', { name: 'Start provisioning (3)' }));
      const dialog = screen.getByRole('alertdialog', { name: 'Start provisioning: 3 orders?' });
      fireEvent.click(within(dialog).getByRole('button', { name: 'Start provisioning (3)' }));
      await waitFor(() => expect(bridge.callsOf('markStatus')).toHaveLength(3));
      expect(bridge.callsOf('markStatus').map((r) => [r.account, r.orderId])).toEqual([
        ['account-1', 'order-00000'],
        ['account-2', 'order-00000'],
        ['account-1', 'order-00002'],
      ]);
      // "s" on the fourth row, the US account's, once a press is no longer the bulk step's repeat.
      await waitFor(() => expect(document.activeElement).toBe(list));
      await new Promise((resolve) => setTimeout(resolve, REPEATED_PRESS_MS + 50));
      fireEvent.keyDown(list, { key: 'ArrowDown' });
      await waitFor(() => expect(rows()[3]?.getAttribute('aria-selected')).toBe('true'));
      fireEvent.keyDown(list, { key: 's' });
      await waitFor(() => expect(bridge.callsOf('markStatus')).toHaveLength(4));
      expect(bridge.callsOf('markStatus')[3]).toMatchObject({ account: 'account-2', orderId: 'order-00003' });
    });

    it('filters by account through the bridge, and all accounts again', async () => {
      const bridge = createFakeBridge({ orders: twoAccounts() });
      await renderInbox(bridge, ACCOUNTS);
      const filter = screen.getByRole('combobox', { name: 'Filter by account' });
      expect([...filter.querySelectorAll('option')].map((o) => o.textContent)).toEqual([
        'All accounts',
        'EU',
        'US',
      ]);
      fireEvent.change(filter, { target: { value: 'account-2' } });
      await waitFor(() => expect(tags().every((t) => t === 'Account US: ')).toBe(true));
      expect(rows()).toHaveLength(4);
      expect(bridge.callsOf('listOrders').at(-1)).toMatchObject({ account: 'account-2' });
      fireEvent.change(filter, { target: { value: '' } });
      await waitFor(() => expect(rows()).toHaveLength(8));
      expect(bridge.callsOf('listOrders').at(-1)?.account).toBeUndefined();
    });
  });

  it('says so when there are no orders', async () => {
    const bridge = createFakeBridge({ orders: [] });
    renderWithUndo(bridge, <Harness onOpen={() => {}} />);
    expect(await screen.findByText(/No orders yet/)).toBeTruthy();
  });
});
