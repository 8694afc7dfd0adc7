// The inbox: every order this laptop knows of, those waiting for action first (the store
// sorts them). Virtualised and paged, so ten thousand orders load and render only the rows in
// view; rows have one fixed height (ROW_HEIGHT here, .inbox-row in styles.css). Keyboard: ArrowUp/ArrowDown
// (and Home, End, PageUp, PageDown) move the selection, Enter opens, "/" goes to the search.
import { useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { LIMITS, type OrderListItem } from '../../preload/contract';
import { isPlainPurchase, purchaseTypeLabel } from '../../preload/order-status';
import { type BridgeEvent, useBridge, useBridgeEvents } from '../bridge/context';
import { formatAge, formatDateTime, plural } from '../format';
import { useNow } from '../hooks/useNow';
import { useOrderPages } from '../hooks/useOrderPages';
import { ErrorAlert } from './ErrorAlert';
import { FILTERS, type InboxQuery } from './inbox-query';
import { ServerText } from './ServerText';
import { StatusChip } from './StatusChip';

/** The height of one row in pixels; the same as `--row-height` in styles.css. */
export const ROW_HEIGHT = 56;
const PAGE = 8;
const REFRESHING_EVENTS: ReadonlySet<BridgeEvent['type']> = new Set([
  'app-state',
  'orders-arrived',
  'orders-updated',
  'state-changed',
]);

export function Inbox({
  query,
  onQueryChange,
  selectedId,
  onSelect,
  onOpen,
}: {
  query: InboxQuery;
  onQueryChange: (query: InboxQuery) => void;
  selectedId: string | null;
  onSelect: (orderId: string) => void;
  onOpen: (orderId: string) => void;
}) {
  const bridge = useBridge();
  const now = useNow();
  const [reloads, setReloads] = useState(0);
  const searchRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const filterName = useId();

  const { filter, search } = query;
  const orders = useOrderPages(bridge, query, reloads);

  useBridgeEvents((event) => {
    if (REFRESHING_EVENTS.has(event.type)) setReloads((n) => n + 1);
  });

  // "/" anywhere in the inbox (but in a text field) goes to the search box.
  useEffect(() => {
    function onKey(event: globalThis.KeyboardEvent): void {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
      if (isEditable(event.target)) return;
      event.preventDefault();
      searchRef.current?.focus();
      searchRef.current?.select();
    }
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const count = orders.total ?? 0;
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => listRef.current,
    estimateSize: () => ROW_HEIGHT,
    getItemKey: (index) => orders.rowAt(index)?.orderId ?? index,
    overscan: 6,
  });
  const visible = virtualizer.getVirtualItems();
  const firstVisible = visible[0]?.index ?? 0;
  const lastVisible = visible.at(-1)?.index ?? 0;
  const { want } = orders;
  useEffect(() => {
    if (count > 0) want(firstVisible, lastVisible);
  }, [want, count, firstVisible, lastVisible]);
  const selectedIndex = selectedId === null ? -1 : orders.indexOf(selectedId);

  // A row selected before its page arrived (End, PageDown far down) is selected once it is there.
  const [selectWhenLoaded, setSelectWhenLoaded] = useState<number | null>(null);
  const arrived = selectWhenLoaded === null ? undefined : orders.rowAt(selectWhenLoaded);
  useEffect(() => {
    if (!arrived) return;
    setSelectWhenLoaded(null);
    onSelect(arrived.orderId);
  }, [arrived, onSelect]);

  function select(index: number): void {
    if (index < 0 || index >= count) return;
    virtualizer.scrollToIndex(index, { align: 'auto' });
    const order = orders.rowAt(index);
    if (order) onSelect(order.orderId);
    else setSelectWhenLoaded(index);
  }

  function onListKeyDown(event: KeyboardEvent<HTMLDivElement>): void {
    const last = count - 1;
    if (last < 0) return;
    const from = selectedIndex;
    let to: number | undefined;
    switch (event.key) {
      case 'ArrowDown':
        to = from < 0 ? 0 : Math.min(from + 1, last);
        break;
      case 'ArrowUp':
        to = from < 0 ? 0 : Math.max(from - 1, 0);
        break;
      case 'PageDown':
        to = Math.min(Math.max(from, 0) + PAGE, last);
        break;
      case 'PageUp':
        to = Math.max(from - PAGE, 0);
        break;
      case 'Home':
        to = 0;
        break;
      case 'End':
        to = last;
        break;
      case 'Enter': {
        const order = orders.rowAt(from);
        if (order) {
          event.preventDefault();
          onOpen(order.orderId);
        }
        return;
      }
      default:
        return;
    }
    event.preventDefault();
    select(to);
  }

  function onSearchKeyDown(event: KeyboardEvent<HTMLInputElement>): void {
    if (event.key !== 'ArrowDown' && event.key !== 'Enter') return;
    if (count === 0) return;
    event.preventDefault();
    listRef.current?.focus();
    if (selectedIndex < 0) select(0);
  }

  // Coming back from an order: the list has the focus again, on the order that was open.
  const restoreFocus = useRef(selectedId !== null);
  useEffect(() => {
    if (!restoreFocus.current || orders.total === null) return;
    restoreFocus.current = false;
    listRef.current?.focus();
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: 'center' });
  }, [orders.total, selectedIndex, virtualizer]);

  const waiting = orders.waiting;

  return (
    <section className="inbox" aria-label="Inbox">
      <div className="inbox-tools">
        <input
          ref={searchRef}
          className="search"
          type="search"
          aria-label="Search orders"
          placeholder="Search buyer, product, order id  ( / )"
          maxLength={LIMITS.search}
          value={search}
          onChange={(event) => onQueryChange({ filter, search: event.target.value })}
          onKeyDown={onSearchKeyDown}
        />
      </div>
      <fieldset className="filter">
        <legend className="sr-only">Filter by status</legend>
        {FILTERS.map((option) => (
          <label key={option.value} className={`filter-chip${filter === option.value ? ' active' : ''}`}>
            <input
              type="radio"
              name={filterName}
              value={option.value}
              checked={filter === option.value}
              onChange={() => onQueryChange({ search, filter: option.value })}
            />
            {option.label}
          </label>
        ))}
      </fieldset>
      <ErrorAlert message={orders.error} />
      <p className="inbox-count" role="status">
        {orders.total === null
          ? 'Loading orders…'
          : `${plural(count, 'order')}${waiting > 0 ? `, ${waiting} waiting for action` : ''}`}
      </p>
      <div
        ref={listRef}
        className="inbox-scroll"
        role="listbox"
        aria-label="Orders"
        tabIndex={0}
        aria-activedescendant={selectedIndex >= 0 ? rowId(selectedIndex) : undefined}
        onKeyDown={onListKeyDown}
        onFocus={(event) => {
          if (event.target === event.currentTarget && selectedIndex < 0 && count > 0) select(0);
        }}
      >
        {orders.total === 0 && (
          <p className="empty">
            {search !== '' || filter !== 'all'
              ? 'No orders match.'
              : 'No orders yet: they appear here as they come in.'}
          </p>
        )}
        <div className="inbox-rows" role="presentation" style={{ height: virtualizer.getTotalSize() }}>
          {visible.map((item) => {
            const order = orders.rowAt(item.index);
            if (!order) return null;
            return (
              <InboxRow
                key={item.key}
                id={rowId(item.index)}
                order={order}
                top={item.start}
                position={item.index + 1}
                count={count}
                selected={item.index === selectedIndex}
                now={now}
                onClick={() => {
                  onSelect(order.orderId);
                  onOpen(order.orderId);
                }}
              />
            );
          })}
        </div>
      </div>
    </section>
  );
}

function InboxRow({
  id,
  order,
  top,
  position,
  count,
  selected,
  now,
  onClick,
}: {
  id: string;
  order: OrderListItem;
  top: number;
  position: number;
  count: number;
  selected: boolean;
  now: number;
  onClick: () => void;
}) {
  const age = formatAge(order.since, now);
  return (
    // The listbox owns the keyboard (aria-activedescendant); a click on a row opens it.
    // biome-ignore lint/a11y/useKeyWithClickEvents: keys are handled by the listbox, as the pattern wants
    <div
      id={id}
      role="option"
      aria-selected={selected}
      aria-setsize={count}
      aria-posinset={position}
      tabIndex={-1}
      className={`inbox-row${selected ? ' selected' : ''}${order.waiting ? ' waiting' : ''}`}
      style={{ transform: `translateY(${top}px)`, height: ROW_HEIGHT }}
      onClick={onClick}
    >
      <StatusChip status={order.status} />
      <span className="row-main">
        <span className="row-title">
          {!isPlainPurchase(order.purchaseType) && (
            <span className="purchase-type">
              <ServerText text={purchaseTypeLabel(order.purchaseType ?? '')} />
            </span>
          )}
          <ServerText text={order.buyer ?? order.orderId} />
        </span>
        <span className="row-sub">
          <ServerText text={order.product ?? (order.buyer === undefined ? '' : order.orderId)} />
        </span>
      </span>
      <span className="row-side">
        <span className="row-amount">
          <ServerText text={order.total ?? ''} />
        </span>
        <span className="row-age" title={order.since === undefined ? undefined : formatDateTime(order.since)}>
          {ageText(age, order.waiting)}
          {order.delivery === 'pending' && ' · sending'}
          {order.delivery === 'failed' && ' · not sent'}
        </span>
      </span>
    </div>
  );
}

function ageText(age: string, waiting: boolean): string {
  if (age === '' || age === 'just now') return age;
  return waiting ? `waiting ${age}` : `${age} ago`;
}

function rowId(index: number): string {
  return `inbox-row-${index}`;
}

function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}
