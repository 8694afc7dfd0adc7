// The inbox: every order this laptop knows of, those waiting for action first, the longest
// waiting (or, as the user chooses and the settings keep, the newest) first: the store sorts
// them. How long an order waited is said prominently, "late" past the reminder delay and "very
// late" past twice it; an order in progress past the in-progress limit is "stalled". Arrivals
// are marked until opened, and a pill brings into view those that came in out of view.
// Virtualised and paged, so ten thousand orders load and render only the rows in view; rows
// have one fixed height (ROW_HEIGHT here, .inbox-row in styles.css). Keyboard: ArrowUp/ArrowDown
// (and Home, End, PageUp, PageDown) move the selection, Enter opens, "/" goes to the search.
import { useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { LIMITS, type OrderListItem } from '../../preload/contract';
import { plainText } from '../../preload/marketplace-text';
import { isPlainPurchase, purchaseTypeLabel } from '../../preload/order-status';
import { type BridgeEvent, useBridge, useBridgeEvents } from '../bridge/context';
import { formatAge, formatDateTime, formatTotal, plural, statusLabel } from '../format';
import { useNow } from '../hooks/useNow';
import { useOrderPages } from '../hooks/useOrderPages';
import { useSettings } from '../hooks/useSettings';
import { isEditable } from '../keyboard';
import { URGENCY_WORDS, type Urgency, type UrgencyLimits, urgencyOf } from '../urgency';
import { ErrorAlert } from './ErrorAlert';
import { FILTERS, INBOX_SORT_CHOICES, type InboxQuery, type InboxSort } from './inbox-query';
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
const NO_ARRIVALS: readonly string[] = [];
/** The defaults of the settings, until the settings answer. */
const DEFAULT_LIMITS: UrgencyLimits = { reminderAfterMinutes: 240, staleInProgressDays: 7 };

export function Inbox({
  query,
  onQueryChange,
  selectedId,
  onSelect,
  onOpen,
  arrivals = NO_ARRIVALS,
  onArrivalsSeen,
}: {
  query: InboxQuery;
  onQueryChange: (query: InboxQuery) => void;
  selectedId: string | null;
  onSelect: (orderId: string) => void;
  /** Opens an order: its row (shown at once) and where it is in the list (to step to its neighbours). */
  onOpen: (order: OrderListItem, index: number) => void;
  /** Orders that arrived while the app ran and have not been in view since. */
  arrivals?: readonly string[];
  /** These arrivals came into view (or were opened). */
  onArrivalsSeen?: (orderIds: string[]) => void;
}) {
  const bridge = useBridge();
  const now = useNow();
  const [reloads, setReloads] = useState(0);
  const searchRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const filterName = useId();
  const sortId = useId();
  const { settings, save } = useSettings();
  const [sortChosen, setSortChosen] = useState<InboxSort | null>(null);
  const sort = sortChosen ?? settings?.inboxSort ?? 'longest-waiting';
  const limits = settings ?? DEFAULT_LIMITS;

  const { filter, search } = query;
  const orders = useOrderPages(bridge, query, sort, reloads);

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
          onOpen(order, from);
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

  // Arrivals in view are seen; those out of view are counted on the pill that brings them in.
  const scrollTop = virtualizer.scrollOffset ?? 0;
  const height = virtualizer.scrollRect?.height ?? 0;
  const firstInView = Math.ceil(scrollTop / ROW_HEIGHT);
  const lastInView = Math.floor((scrollTop + height) / ROW_HEIGHT) - 1;
  const newcomers = orders.unopened.filter((o) => arrivals.includes(o.orderId));
  const seen = newcomers.filter((o) => o.index >= firstInView && o.index <= lastInView).map((o) => o.orderId);
  const outOfView = newcomers.filter((o) => o.index < firstInView || o.index > lastInView);
  const pillAt = outOfView.every((o) => o.index < firstInView) ? 'above' : 'below';
  const seenKey = seen.join(' ');
  useEffect(() => {
    if (seenKey !== '' && height > 0) onArrivalsSeen?.(seenKey.split(' '));
  }, [seenKey, height, onArrivalsSeen]);

  function showArrivals(): void {
    const first = Math.min(...outOfView.map((o) => o.index));
    listRef.current?.focus();
    select(first);
    // At the top of the view, so arrivals after it come into view with it.
    virtualizer.scrollToIndex(first, { align: 'start' });
  }

  function chooseSort(next: InboxSort): void {
    setSortChosen(next);
    void save({ inboxSort: next }).catch(() => undefined); // Kept for this session all the same.
  }

  return (
    <section className="inbox" aria-label="Inbox">
      <div className="inbox-tools">
        <input
          ref={searchRef}
          className="search"
          type="search"
          aria-label="Search orders"
          placeholder="Search buyer, product, id (/)"
          maxLength={LIMITS.search}
          value={search}
          onChange={(event) => onQueryChange({ filter, search: event.target.value })}
          onKeyDown={onSearchKeyDown}
        />
        <label className="sr-only" htmlFor={sortId}>
          Order of the inbox
        </label>
        <select
          id={sortId}
          className="sort"
          value={sort}
          onChange={(event) => chooseSort(event.target.value as InboxSort)}
        >
          {INBOX_SORT_CHOICES.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
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
      <ErrorAlert problem={orders.error} />
      <p className="inbox-count" role="status">
        {orders.total === null
          ? 'Loading orders…'
          : `${plural(count, 'order')}${waiting > 0 ? `, ${waiting} waiting for action` : ''}`}
      </p>
      <div className="inbox-list">
        {outOfView.length > 0 && (
          <button type="button" className={`arrivals-pill ${pillAt}`} onClick={showArrivals}>
            <span aria-hidden="true">{pillAt === 'above' ? '↑' : '↓'}</span>{' '}
            {plural(outOfView.length, 'new order')}
          </button>
        )}
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
                  limits={limits}
                  onClick={() => {
                    onSelect(order.orderId);
                    onOpen(order, item.index);
                  }}
                />
              );
            })}
          </div>
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
  limits,
  onClick,
}: {
  id: string;
  order: OrderListItem;
  top: number;
  position: number;
  count: number;
  selected: boolean;
  now: number;
  limits: UrgencyLimits;
  onClick: () => void;
}) {
  const urgency = urgencyOf(order, now, limits);
  const buyer = order.buyer ?? order.orderId;
  const product = order.product ?? (order.buyer === undefined ? '' : order.orderId);
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
      className={`inbox-row${selected ? ' selected' : ''}${order.waiting ? ' waiting' : ''}${order.unopened ? ' unopened' : ''}`}
      style={{ transform: `translateY(${top}px)`, height: ROW_HEIGHT }}
      // The whole name and product on hover: the row may cut them short.
      title={plainText([buyer, product].filter(Boolean).join(' — '))}
      onClick={onClick}
    >
      <StatusChip status={order.status} />
      <span className="row-title">
        {order.unopened && (
          <span className="unopened-mark">
            <span className="sr-only">Not opened yet: </span>
          </span>
        )}
        {!isPlainPurchase(order.purchaseType) && (
          <span className="purchase-type">
            <ServerText text={purchaseTypeLabel(order.purchaseType ?? '')} />
          </span>
        )}
        <ServerText text={buyer} />
      </span>
      <span className="row-sub">
        <ServerText text={product} />
      </span>
      <span className="row-amount">{order.total && <ServerText text={formatTotal(order.total)} />}</span>
      <RowAge order={order} now={now} urgency={urgency} />
    </div>
  );
}

/** How long the order has waited (or been in its status), with its urgency in words. */
function RowAge({ order, now, urgency }: { order: OrderListItem; now: number; urgency: Urgency }) {
  const inProgress = order.status === 'ProvisioningInProgress' && order.statusSince !== undefined;
  const from = inProgress ? order.statusSince : order.since;
  const age = formatAge(from, now);
  const text = order.waiting
    ? age === 'just now' || age === ''
      ? age
      : `Waiting ${age}`
    : inProgress && age !== 'just now'
      ? `${statusLabel(order.status)} ${age}`
      : age === '' || age === 'just now'
        ? age
        : `${age} ago`;
  const word = URGENCY_WORDS[urgency];
  return (
    <span
      className={`row-age${order.waiting ? ' row-waiting' : ''} urgency-${urgency}`}
      title={from === undefined ? undefined : formatDateTime(from)}
    >
      {text}
      {word && <strong className="urgency-word"> · {word}</strong>}
      {order.delivery === 'pending' && ' · sending'}
      {order.delivery === 'failed' && ' · not sent'}
    </span>
  );
}

function rowId(index: number): string {
  return `inbox-row-${index}`;
}
