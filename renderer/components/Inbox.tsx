// The inbox: every order this laptop knows of, in the store's groups (preload/inbox-sort.ts): just
// arrived (on top for an hour), waiting (the longest waiting or, as the user chooses and the
// settings keep, the newest first), stalled in progress, the first sync's backlog (folded away
// when large: old orders, not alarms), then the rest. How long an order waited is said
// prominently, "late" past the reminder delay and "very late" past twice it; an order in progress
// past the in-progress limit is "stalled". Arrivals are marked until opened, and a pill brings
// into view those that came in out of view. Rows can be selected for a bulk Start or Complete
// (InboxMarks). Virtualised and paged, so ten thousand orders load and render only the rows in
// view; rows and group headings have fixed heights (ROW_HEIGHT and HEADING_HEIGHT here, the same
// in styles.css). Keyboard: ArrowUp/ArrowDown (and Home, End, PageUp, PageDown) move the current
// row, Enter opens, Space selects, Shift+arrows select on the way, Ctrl/⌘+A selects all, s/c/f
// mark the current row (in the split view the open order's page takes them), "/" searches.
// With more than one account served, the list holds every account's orders (a filter shows one),
// each row tagged with its account's label, and each mark goes to the row's own account.
import { useVirtualizer } from '@tanstack/react-virtual';
import {
  type KeyboardEvent,
  type MouseEvent,
  memo,
  useCallback,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
} from 'react';
import { LIMITS, type OrderListItem } from '../../preload/contract';
import type { InboxGroup, InboxGroupName } from '../../preload/inbox-sort';
import { plainText } from '../../preload/marketplace-text';
import type { MarkableStatus } from '../../preload/order-status';
import { isPlainPurchase, purchaseTypeLabel } from '../../preload/order-status';
import { call } from '../bridge/call';
import { useBridge, useBridgeEvents } from '../bridge/context';
import { formatAge, formatDateTime, formatTotal, plural, statusLabel } from '../format';
import { useDocumentKey } from '../hooks/useDocumentKey';
import { useEscapeLayer } from '../hooks/useEscapeLayer';
import { useNarrow } from '../hooks/useNarrow';
import { useNow } from '../hooks/useNow';
import { useOrderPages } from '../hooks/useOrderPages';
import { useSettings } from '../hooks/useSettings';
import { isEditable, isWindowKey, keyAction, markKey } from '../keyboard';
import { URGENCY_WORDS, type Urgency, type UrgencyLimits, urgencyOf } from '../urgency';
import { AccountTag } from './AccountTag';
import { ErrorAlert } from './ErrorAlert';
import { BULK_STEPS, rowsFor, useInboxMarks } from './InboxMarks';
import {
  FILTERS,
  INBOX_SORT_CHOICES,
  type InboxQuery,
  type InboxSort,
  listQuery,
  rowKey,
} from './inbox-query';
import { ServerText } from './ServerText';
import { StatusChip } from './StatusChip';

/** The height of one row in pixels; the same as `--row-height` in styles.css. */
export const ROW_HEIGHT = 56;
/**
 * A narrow list (a tray-sized window, the split view's pane) gives the product a line of its own
 * (a third), so it is not cut after a dozen characters beside the status and the waiting time; the
 * same width (a container query on `.inbox-scroll`) and height in styles.css.
 */
export const NARROW_LIST_WIDTH = 560;
export const NARROW_ROW_HEIGHT = 76;
/** The height of a group's heading in pixels; the same as `--heading-height` in styles.css. */
export const HEADING_HEIGHT = 32;
/** The groups that are headed when the list has any of them (otherwise the list has no headings). */
const NOTABLE_GROUPS: ReadonlySet<InboxGroupName> = new Set(['arrived', 'stalled', 'backlog']);
const GROUP_HEADINGS: Readonly<Record<InboxGroupName, string>> = {
  arrived: 'Just arrived',
  waiting: 'Waiting',
  stalled: 'Stalled in progress',
  backlog: 'Backlog, from before the first sync',
  rest: 'Other orders',
};
const PAGE = 8;
/** What the search finds; the field is sized to show it whole (styles.css wraps the tools when it cannot). */
const SEARCH_HINT = 'Search buyer, product, id (/)';
const NO_ARRIVALS: readonly string[] = [];
const NO_LABELS: ReadonlyMap<string, string> = new Map();
/** The defaults of the settings, until the settings answer. */
const DEFAULT_LIMITS: UrgencyLimits = { reminderAfterMinutes: 240, staleInProgressDays: 7 };

/**
 * Drawn again only when a prop changed (the window's app state, told at each poll and with several
 * accounts once per account at Check now, changes none of them: App.tsx keeps them the same), and
 * each row only when what it shows did.
 */
export const Inbox = memo(function Inbox({
  query,
  onQueryChange,
  selectedId,
  onSelect,
  onOpen,
  arrivals = NO_ARRIVALS,
  onArrivalsSeen,
  split = false,
  onFail,
  onShowKeys,
  accountLabels = NO_LABELS,
}: {
  query: InboxQuery;
  onQueryChange: (query: InboxQuery) => void;
  /** The current row's key (inbox-query.ts rowKey). */
  selectedId: string | null;
  onSelect: (key: string) => void;
  /** Opens an order: its row (shown at once) and where it is in the list (to step to its neighbours). */
  onOpen: (order: OrderListItem, index: number) => void;
  /** Orders that arrived while the app ran and have not been in view since. */
  arrivals?: readonly string[];
  /** These arrivals came into view (or were opened). */
  onArrivalsSeen?: (orderIds: string[]) => void;
  /** Beside the open order: moving the current row opens it, and the order's page takes s, c and f. */
  split?: boolean;
  /** "f" on a row: the order opens with its failure form (the same question first when unusual). */
  onFail?: (order: OrderListItem, index: number) => void;
  /** Opens Help at its keys. */
  onShowKeys?: () => void;
  /** The labels of the accounts served, by id (useAccountLabels): with any, rows are tagged and a filter offered. */
  accountLabels?: ReadonlyMap<string, string>;
}) {
  const bridge = useBridge();
  const now = useNow();
  const searchRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const filterName = useId();
  const sortId = useId();
  const accountFilterId = useId();
  const { settings, save } = useSettings();
  const [sortChosen, setSortChosen] = useState<InboxSort | null>(null);
  const sort = sortChosen ?? settings?.inboxSort ?? 'longest-waiting';
  const limits = settings ?? DEFAULT_LIMITS;

  // A filter by an account no longer served (removed, or the only one left) shows them all.
  const account = query.account !== undefined && accountLabels.has(query.account) ? query.account : undefined;
  const { filter, search, backlog } = query;
  const orders = useOrderPages(bridge, { ...query, account }, sort);
  // The store tells what changed; other accounts served (or the demo) are another list altogether.
  const served = useRef<string | null>(null);
  useBridgeEvents((event) => {
    if (event.type === 'orders-updated') orders.refresh(event);
    if (event.type !== 'app-state') return;
    const { setup, baseUrl, clientId, accounts: listed } = event.state;
    const now = JSON.stringify([setup, baseUrl, clientId, listed.filter((a) => a.open).map((a) => a.id)]);
    if (served.current !== null && served.current !== now) orders.refresh('all');
    served.current = now;
  });

  // The rows selected for a bulk step, as last seen (a new query starts with none).
  const [checked, setChecked] = useState<ReadonlyMap<string, OrderListItem>>(new Map());
  const anchor = useRef<number | null>(null);
  const queryKey = JSON.stringify([filter, search, sort, backlog, account]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new query is the trigger
  useEffect(() => {
    setChecked(new Map());
    anchor.current = null;
  }, [queryKey]);
  const clearChecked = useCallback(() => setChecked(new Map()), []);
  useEscapeLayer(checked.size > 0, clearChecked);
  // After a bulk step the selection is done with; the list has the focus again (its bar is gone).
  const marks = useInboxMarks(() => {
    if (checked.size > 0) listRef.current?.focus();
    clearChecked();
  });

  // "/" anywhere in the inbox (but in a text field) goes to the search box.
  useDocumentKey((event) => {
    if (keyAction(event, 'window') !== 'search' || isEditable(event.target)) return;
    event.preventDefault();
    searchRef.current?.focus();
    searchRef.current?.select();
  });

  const count = orders.total ?? 0;
  const layout = useMemo(() => listLayout(orders.groups, count), [orders.groups, count]);
  const rowHeight = useNarrow(listRef, NARROW_LIST_WIDTH) ? NARROW_ROW_HEIGHT : ROW_HEIGHT;
  // The virtualiser measures every place of the list again whenever its key function is another
  // one. Keyed by place (a row's React key is its order's), it is another only when the layout is
  // (the list grew or shrank, a heading moved), not when a page of rows is loaded or read again.
  const getItemKey = useCallback(
    (at: number) => {
      const heading = layout.headingAt(at);
      return heading ? `group-${heading.name}` : at;
    },
    [layout],
  );
  const virtualizer = useVirtualizer({
    count: count + layout.headings.length,
    getScrollElement: () => listRef.current,
    estimateSize: (at) => (layout.headingAt(at) ? HEADING_HEIGHT : rowHeight),
    getItemKey,
    overscan: 6,
  });
  // The window crossed the narrow width: every row's place is measured again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: run again when the row height changes
  useEffect(() => virtualizer.measure(), [rowHeight, virtualizer]);
  const visible = virtualizer.getVirtualItems();
  const visibleRows = visible.flatMap((item) => {
    const { row } = layout.itemAt(item.index);
    return row === undefined ? [] : [row];
  });
  const firstVisible = visibleRows[0] ?? 0;
  const lastVisible = visibleRows.at(-1) ?? 0;
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
    onSelect(rowKey(arrived));
  }, [arrived, onSelect]);

  function select(index: number): void {
    if (index < 0 || index >= count) return;
    virtualizer.scrollToIndex(layout.placeOf(index), { align: 'auto' });
    const order = orders.rowAt(index);
    if (!order) setSelectWhenLoaded(index);
    else if (split) onOpen(order, index);
    else onSelect(rowKey(order));
  }

  /** Rows `from` to `to` (either way) selected, or unselected when `on` is false; those loaded. */
  function check(from: number, to: number, on: boolean): void {
    setChecked((before) => {
      const next = new Map(before);
      for (let index = Math.min(from, to); index <= Math.max(from, to); index++) {
        const order = orders.rowAt(index);
        if (order && on) next.set(rowKey(order), order);
        else if (order) next.delete(rowKey(order));
      }
      return next;
    });
  }

  function toggle(index: number): void {
    const order = orders.rowAt(index);
    if (!order) return;
    anchor.current = index;
    check(index, index, !checked.has(rowKey(order)));
  }

  /** Every row of the list selected, pages not loaded yet read for it. */
  async function checkAll(): Promise<void> {
    const all = new Map<string, OrderListItem>();
    for (let offset = 0; offset < count; offset += LIMITS.page) {
      const request = { ...listQuery({ ...query, account }, sort), offset, limit: LIMITS.page };
      const page = await call(bridge, 'listOrders', request).catch(() => null);
      if (!page) return;
      for (const order of page.orders) all.set(rowKey(order), order);
    }
    setChecked(all);
  }

  function onListKeyDown(event: KeyboardEvent<HTMLDivElement>): void {
    const last = count - 1;
    if (last < 0) return;
    const from = selectedIndex;
    const action = keyAction(event.nativeEvent, 'list');
    const step = markKey(event.nativeEvent, 'list');
    const current = orders.rowAt(from);
    if (step) {
      // In the split view the open order's page takes them.
      if (split || !current || !isWindowKey(event.nativeEvent)) return;
      event.preventDefault();
      markRow(current, from, step);
      return;
    }
    let to: number | undefined;
    switch (action) {
      case 'selectAll':
        event.preventDefault();
        void checkAll();
        return;
      case 'select':
        event.preventDefault();
        if (from >= 0) toggle(from);
        return;
      case 'open':
        if (current) {
          event.preventDefault();
          onOpen(current, from);
        }
        return;
      case 'next':
      case 'selectNext':
        to = from < 0 ? 0 : Math.min(from + 1, last);
        break;
      case 'previous':
      case 'selectPrevious':
        to = from < 0 ? 0 : Math.max(from - 1, 0);
        break;
      case 'pageDown':
        to = Math.min(Math.max(from, 0) + PAGE, last);
        break;
      case 'pageUp':
        to = Math.max(from - PAGE, 0);
        break;
      case 'first':
        to = 0;
        break;
      case 'last':
        to = last;
        break;
      default:
        return;
    }
    event.preventDefault();
    // Shift with an arrow selects the rows on the way, from where the selection began.
    if ((action === 'selectNext' || action === 'selectPrevious') && from >= 0) {
      anchor.current ??= from;
      check(anchor.current, to, true);
    }
    select(to);
  }

  /** A row's s, c or f: the same steps as the order page's buttons. */
  function markRow(order: OrderListItem, index: number, target: MarkableStatus): void {
    if (target === 'ProvisioningFailed') onFail?.(order, index);
    else marks.rowStep(order, target);
  }

  /**
   * A click on a row opens it; on its box, or with Ctrl/⌘, selects it; with Shift, the rows from the
   * last one selected. The list takes its rows' clicks, as it takes their keys: a row has no handler
   * of its own to be made anew at each render (which would draw every row again).
   */
  function onListClick(event: MouseEvent): void {
    const option = (event.target as Element).closest('.inbox-row');
    const index = Number(option?.getAttribute('aria-posinset')) - 1;
    const order = option ? orders.rowAt(index) : undefined;
    if (!order) return;
    const box = (event.target as Element).closest('.row-check') !== null;
    if (event.shiftKey && anchor.current !== null) {
      check(anchor.current, index, true);
    } else if (box || event.ctrlKey || event.metaKey) {
      toggle(index);
    } else {
      onSelect(rowKey(order));
      onOpen(order, index);
      return;
    }
    anchor.current ??= index;
    onSelect(rowKey(order));
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
    if (selectedIndex >= 0) virtualizer.scrollToIndex(layout.placeOf(selectedIndex), { align: 'center' });
  }, [orders.total, selectedIndex, virtualizer, layout]);

  const waiting = orders.waiting;

  // Arrivals in view are seen; those out of view are counted on the pill that brings them in.
  const scrollTop = virtualizer.scrollOffset ?? 0;
  const height = virtualizer.scrollRect?.height ?? 0;
  const inView = visible
    .filter((item) => item.start >= scrollTop && item.end <= scrollTop + height)
    .flatMap((item) => {
      const { row } = layout.itemAt(item.index);
      return row === undefined ? [] : [row];
    });
  const firstInView = inView[0] ?? Number.POSITIVE_INFINITY;
  const lastInView = inView.at(-1) ?? Number.NEGATIVE_INFINITY;
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
    virtualizer.scrollToIndex(layout.placeOf(first), { align: 'start' });
  }

  function chooseSort(next: InboxSort): void {
    setSortChosen(next);
    void save({ inboxSort: next }).catch(() => undefined); // Kept for this session all the same.
  }

  const backlogGroup = orders.groups.find((g) => g.name === 'backlog');
  const folded = backlogGroup !== undefined && backlogGroup.holds > 0 && backlogGroup.size === 0;
  // Folding is offered for a backlog folded away, or shown by the user's choice (not a small one, or a search's).
  const foldable = folded || backlog === 'shown';
  function showBacklog(shown: boolean): void {
    onQueryChange({ ...query, backlog: shown ? 'shown' : 'hidden' });
  }
  // Each as the list has it now, if still loaded there (its status may have changed).
  const selectedRows = [...checked.values()].map((row) => {
    return orders.rowAt(orders.indexOf(rowKey(row))) ?? row;
  });
  const listed = count > 0;

  return (
    <section className="inbox" aria-label="Inbox">
      <div className="inbox-tools">
        <input
          ref={searchRef}
          className="search"
          type="search"
          aria-label="Search orders"
          placeholder={SEARCH_HINT}
          size={SEARCH_HINT.length}
          maxLength={LIMITS.search}
          value={search}
          onChange={(event) => onQueryChange({ ...query, search: event.target.value })}
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
        {onShowKeys && (
          <button
            type="button"
            className="keys-button"
            aria-label="Keyboard shortcuts"
            title="Keyboard shortcuts (?)"
            onClick={onShowKeys}
          >
            ?
          </button>
        )}
      </div>
      <div className="inbox-filters">
        <fieldset className="filter">
          <legend className="sr-only">Filter by status</legend>
          {FILTERS.map((option) => (
            <label key={option.value} className={`filter-chip${filter === option.value ? ' active' : ''}`}>
              <input
                type="radio"
                name={filterName}
                value={option.value}
                checked={filter === option.value}
                onChange={() => onQueryChange({ ...query, filter: option.value })}
              />
              {option.label}
            </label>
          ))}
        </fieldset>
        {accountLabels.size > 0 && (
          <>
            <label className="sr-only" htmlFor={accountFilterId}>
              Filter by account
            </label>
            <select
              id={accountFilterId}
              className="account-filter"
              value={account ?? ''}
              onChange={(event) => onQueryChange({ ...query, account: event.target.value || undefined })}
            >
              <option value="">All accounts</option>
              {[...accountLabels].map(([id, label]) => (
                <option key={id} value={id}>
                  {label}
                </option>
              ))}
            </select>
          </>
        )}
      </div>
      <ErrorAlert problem={orders.error} />
      <ErrorAlert problem={marks.problem} onDismiss={marks.dismissProblem} />
      {checked.size > 0 ? (
        <fieldset className="bulk-bar">
          <legend className="sr-only">Selected orders</legend>
          <span className="bulk-count" role="status">
            {plural(checked.size, 'order')} selected
          </span>
          {BULK_STEPS.map((step) => {
            const fit = rowsFor(selectedRows, step.target).length;
            return (
              <button
                key={step.target}
                type="button"
                className={step.target === 'ProvisioningInProgress' ? 'primary' : ''}
                disabled={fit === 0 || marks.busy}
                onClick={() => marks.bulkStep(selectedRows, step)}
              >
                {step.label} ({fit})
              </button>
            );
          })}
          <button type="button" className="link-button" onClick={clearChecked}>
            Clear selection <kbd>Esc</kbd>
          </button>
        </fieldset>
      ) : (
        <p className="inbox-count" role="status">
          {orders.total === null
            ? 'Loading orders…'
            : `${plural(count + (folded ? backlogGroup.holds : 0), 'order')}${waiting > 0 ? `, ${waiting} waiting for action` : ''}`}
          {folded && ` · ${backlogGroup.holds} in the backlog`}
          {orders.searchIncomplete &&
            ' · Search is still indexing the orders of the first sync, so it may miss some: try again in a minute.'}
          {foldable && (
            <>
              {' '}
              <button
                type="button"
                className="link-button backlog-toggle"
                aria-expanded={!folded}
                aria-label={folded ? 'Show the backlog' : 'Fold the backlog'}
                onClick={() => showBacklog(folded)}
              >
                {folded ? 'Show' : 'Fold'}
              </button>
            </>
          )}
        </p>
      )}
      <div className="inbox-list">
        {outOfView.length > 0 && (
          <button type="button" className={`arrivals-pill ${pillAt}`} onClick={showArrivals}>
            <span aria-hidden="true">{pillAt === 'above' ? '↑' : '↓'}</span>{' '}
            {plural(outOfView.length, 'new order')}
          </button>
        )}
        {orders.total === 0 && (
          <p className="empty">
            {search !== '' || filter !== 'all'
              ? 'No orders match.'
              : 'No orders yet: they appear here as they come in.'}
          </p>
        )}
        {/* biome-ignore lint/a11y/noStaticElementInteractions: a listbox whenever it lists an order (below) */}
        <div
          ref={listRef}
          id="inbox-list"
          className="inbox-scroll"
          // Only a list of orders is a listbox: one with no options is not.
          {...(listed
            ? {
                role: 'listbox',
                'aria-label': 'Orders',
                tabIndex: 0,
                'aria-activedescendant': selectedIndex >= 0 ? rowId(selectedIndex) : undefined,
              }
            : {})}
          onKeyDown={onListKeyDown}
          onClick={onListClick}
          onFocus={(event) => {
            if (event.target === event.currentTarget && selectedIndex < 0 && count > 0) select(0);
          }}
        >
          <div className="inbox-rows" role="presentation" style={{ height: virtualizer.getTotalSize() }}>
            {groupsOf(
              visible.map((item) => ({ item, ...layout.itemAt(item.index) })),
              layout.headings.length > 0,
            ).map(({ group, items }) => {
              const rowsShown = items.map(({ item, row, heading }) => {
                if (heading) {
                  return (
                    <GroupHeading
                      key={item.key}
                      group={heading}
                      top={item.start}
                      onToggle={
                        heading.name === 'backlog' && foldable
                          ? () => showBacklog(heading.size === 0)
                          : undefined
                      }
                    />
                  );
                }
                const order = row === undefined ? undefined : orders.rowAt(row);
                if (!order || row === undefined) return null;
                return (
                  <InboxRow
                    key={rowKey(order)}
                    id={rowId(row)}
                    order={order}
                    top={item.start}
                    height={rowHeight}
                    position={row + 1}
                    count={count}
                    selected={row === selectedIndex}
                    checked={checked.has(rowKey(order))}
                    accountLabel={accountLabels.get(order.account)}
                    now={now}
                    limits={limits}
                  />
                );
              });
              return group ? (
                // biome-ignore lint/a11y/useSemanticElements: a listbox's group of options, not a form's
                <div key={group} role="group" aria-label={GROUP_HEADINGS[group]}>
                  {rowsShown}
                </div>
              ) : (
                rowsShown
              );
            })}
          </div>
        </div>
      </div>
      {marks.dialog}
    </section>
  );
});

/** A group's heading in the list: its name and how many it holds; the backlog's folds it away or shows it. */
function GroupHeading({
  group,
  top,
  onToggle,
}: {
  group: InboxGroup;
  top: number;
  onToggle?: (() => void) | undefined;
}) {
  const folded = group.size === 0;
  return (
    // A label of the rows under it, not an option: the backlog's "Show the backlog" button above
    // the list does this by keyboard; a click here is the same for the mouse.
    // biome-ignore lint/a11y/noStaticElementInteractions: the keyboard's way is the button above the list
    // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard's way is the button above the list
    <div
      className={`inbox-group group-${group.name}${onToggle ? ' toggles' : ''}`}
      style={{ transform: `translateY(${top}px)`, height: HEADING_HEIGHT }}
      onClick={onToggle}
    >
      {onToggle && (
        <span className="group-caret" aria-hidden="true">
          {folded ? '▸' : '▾'}
        </span>
      )}
      {GROUP_HEADINGS[group.name]} · {group.holds}
      {folded && <span className="group-note"> · folded away</span>}
    </div>
  );
}

/** A row of the list, drawn again only when what it shows changed (memo: its props are values, and no handler). */
const InboxRow = memo(function InboxRow({
  id,
  order,
  top,
  height,
  position,
  count,
  selected,
  checked,
  now,
  limits,
  accountLabel,
}: {
  id: string;
  order: OrderListItem;
  top: number;
  height: number;
  position: number;
  count: number;
  selected: boolean;
  /** Selected for a bulk step. */
  checked: boolean;
  now: number;
  limits: UrgencyLimits;
  /** Its account's label, while more than one account is served. */
  accountLabel?: string | undefined;
}) {
  const urgency = urgencyOf(order, now, limits);
  const buyer = order.buyer ?? order.orderId;
  const product = order.product ?? (order.buyer === undefined ? '' : order.orderId);
  return (
    // The listbox owns the keyboard (aria-activedescendant) and its rows' clicks (its place is aria-posinset).
    <div
      id={id}
      role="option"
      aria-selected={selected}
      aria-checked={checked}
      aria-setsize={count}
      aria-posinset={position}
      tabIndex={-1}
      className={`inbox-row${selected ? ' selected' : ''}${checked ? ' checked' : ''}${order.waiting ? ' waiting' : ''}${order.unopened ? ' unopened' : ''}${order.backlog ? ' backlog' : ''}`}
      style={{ transform: `translateY(${top}px)`, height }}
      // The whole name and product on hover: the row may cut them short.
      title={plainText([accountLabel, buyer, product].filter(Boolean).join(' — '))}
    >
      {/* The row's box: a click selects it (the option says it is checked to assistive technology). */}
      <span className="row-check" aria-hidden="true">
        {checked ? '✓' : ''}
      </span>
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
      {/* The account beside the product, not the buyer: a long label would cut the buyer's name short. */}
      <span className="row-sub">
        <AccountTag label={accountLabel} />
        <ServerText text={product} />
      </span>
      <span className="row-amount">{order.total && <ServerText text={formatTotal(order.total)} />}</span>
      <RowAge order={order} now={now} urgency={urgency} />
    </div>
  );
});

/** How long the order has waited (or been in its status), with its urgency in words. */
function RowAge({ order, now, urgency }: { order: OrderListItem; now: number; urgency: Urgency }) {
  const inProgress = order.status === 'ProvisioningInProgress' && order.statusSince !== undefined;
  const from = inProgress ? order.statusSince : order.waiting ? order.waitingSince : order.since;
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
  const delivery = order.delivery === null ? undefined : DELIVERY_WORDS[order.delivery];
  // A separator between the things said, none before the first (the age may be unknown).
  const said = [
    text,
    word && (
      <strong key="urgency" className="urgency-word">
        {word}
      </strong>
    ),
    delivery,
  ].filter((part) => part !== '' && part !== undefined);
  return (
    <span
      className={`row-age${order.waiting ? ' row-waiting' : ''} urgency-${urgency}`}
      title={from === undefined ? undefined : formatDateTime(from)}
    >
      {said.flatMap((part, index) => (index === 0 ? [part] : [' · ', part]))}
    </span>
  );
}

/** What a row says of the status marked on it until the marketplace has it. */
const DELIVERY_WORDS: Partial<Record<NonNullable<OrderListItem['delivery']>, string>> = {
  pending: 'sending',
  retrying: 'not sent yet',
  failed: 'not sent',
};

function rowId(index: number): string {
  return `inbox-row-${index}`;
}

/** One item of the list: a group's heading or a row (its index among the rows). */
interface ListItem {
  heading?: InboxGroup;
  row?: number;
  /** The group of the heading or row, when the list is headed. */
  group?: InboxGroupName;
}

/**
 * Where the rows and the groups' headings are in the list: each non-empty group headed when the
 * list has a notable one (just arrived, stalled, the backlog), else no heading at all.
 */
function listLayout(groups: readonly InboxGroup[], count: number) {
  const headed = groups.some((g) => g.holds > 0 && NOTABLE_GROUPS.has(g.name));
  const headings = headed
    ? groups.filter((g) => g.holds > 0).map((group, i) => ({ group, at: group.start + i }))
    : [];
  const headingPlaces = new Map(headings.map((h) => [h.at, h.group]));
  return {
    headings,
    /**
     * The group headed at a place of the list, if any: the virtualiser asks it of every place each
     * time the layout changes (26,000 with 5 accounts), so a lookup, no search and nothing made.
     */
    headingAt: (at: number): InboxGroup | undefined => headingPlaces.get(at),
    /** The item at a place of the list. */
    itemAt(at: number): ListItem {
      const heading = headingPlaces.get(at);
      if (heading) return { heading, group: heading.name };
      const row = at - headings.filter((h) => h.at < at).length;
      if (row >= count) return {};
      const group = headings.find((h) => h.group.start <= row && row < h.group.start + h.group.size);
      return group ? { row, group: group.group.name } : { row };
    },
    /** The place of a row in the list. */
    placeOf(row: number): number {
      return row + headings.filter((h) => h.group.start <= row).length;
    },
  };
}

/** The items in view, each group's together (under its name for assistive technology), when headed. */
function groupsOf<T extends ListItem>(
  items: readonly T[],
  headed: boolean,
): { group: InboxGroupName | undefined; items: T[] }[] {
  if (!headed) return [{ group: undefined, items: [...items] }];
  const out: { group: InboxGroupName | undefined; items: T[] }[] = [];
  for (const item of items) {
    const last = out.at(-1);
    if (last && last.group === item.group) last.items.push(item);
    else out.push({ group: item.group, items: [item] });
  }
  return out;
}
