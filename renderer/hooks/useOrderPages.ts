// The inbox's rows, a page at a time: the bridge answers one page of the store's list and how
// many orders match, so ten thousand orders cost the pages in view, not the whole list. When the
// store changes the window is told which orders changed and whether rows may have moved
// (preload/model.ts, `orders-updated`), and reads again only what that can have changed: the
// pages holding rows changed in place; the first page when new orders arrived on top (the rows
// below move down as many, which the loaded pages know); every loaded page when rows moved
// otherwise. What is shown stays until the pages answer. A poll that changed nothing reads nothing.
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { INBOX_PAGE_ROWS, type OrderListItem, type OrderPage } from '../../preload/contract';
import type { Explained } from '../../preload/model';
import { call, explained } from '../bridge/call';
import type { useBridge } from '../bridge/context';
import { type InboxQuery, type InboxSort, listQuery, rowKey } from '../components/inbox-query';

export const PAGE_SIZE = INBOX_PAGE_ROWS;
const NONE: OrderPage['unopened'] = [];
const NO_GROUPS: OrderPage['groups'] = [];
/** The longest a timer may wait (setTimeout's limit, 24 days): a regroup further off is left to other changes. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

type Counts = Pick<
  OrderPage,
  'total' | 'waiting' | 'groups' | 'unopened' | 'regroupsAt' | 'searchIncomplete'
>;
type Pages = ReadonlyMap<number, OrderListItem[]>;

/** What changed in the store: these orders, and whether rows may have moved; or all of it. */
export type ListChange = { orderIds: readonly string[]; moved: boolean } | 'all';

export interface OrderPages {
  /** Null until the first page answered. */
  total: number | null;
  waiting: number;
  /** The list's groups (just arrived, waiting, stalled, backlog, the rest), each with its place: the same array while they are the same. */
  groups: OrderPage['groups'];
  /** The unopened arrivals that match, with their place in the list. */
  unopened: OrderPage['unopened'];
  /** The search may miss orders: the first start's are still being indexed. */
  searchIncomplete: boolean;
  /** Why the last page could not be read, with its detail. */
  error: Explained | null;
  rowAt(index: number): OrderListItem | undefined;
  /** The place of a row by its key (inbox-query.ts rowKey), or the first with an order id. */
  indexOf(key: string): number;
  /** Asks for the pages holding rows `from` to `to` (the rows in view). */
  want(from: number, to: number): void;
  /** The store changed: reads again what the change can have changed. */
  refresh(change: ListChange): void;
}

export function useOrderPages(
  bridge: ReturnType<typeof useBridge>,
  { filter, search, backlog, account }: InboxQuery,
  sort: InboxSort,
): OrderPages {
  const [pages, setPages] = useState<Pages>(new Map());
  const [counts, setCounts] = useState<Counts | null>(null);
  const [error, setError] = useState<Explained | null>(null);
  /** Changes with the query: an answer to another query is dropped. */
  const generation = useRef(0);
  /** The pages asked for under this query, and each one's latest request: an older answer is dropped. */
  const requested = useRef(new Map<number, number>());
  const requests = useRef(0);
  // What is shown, for a change to compare with: as committed (events come after the render that drew it).
  const shown = useRef<{ pages: Pages; counts: Counts | null }>({ pages, counts });
  useLayoutEffect(() => {
    shown.current = { pages, counts };
  });

  const load = useCallback(
    (page: number): Promise<OrderPage | null> => {
      const mine = generation.current;
      const request = ++requests.current;
      requested.current.set(page, request);
      const current = () => mine === generation.current && requested.current.get(page) === request;
      const query = listQuery({ filter, search, backlog, account }, sort);
      return call(bridge, 'listOrders', { ...query, offset: page * PAGE_SIZE, limit: PAGE_SIZE }).then(
        (answer: OrderPage) => {
          if (!current()) return null;
          setPages((before) => new Map(before).set(page, answer.orders));
          const { total, waiting, groups, unopened, regroupsAt, searchIncomplete } = answer;
          setCounts((before) => ({
            total,
            waiting,
            // Kept while the same: where the list's headings are follows them, and a change of it
            // has the whole list measured again (Inbox).
            groups:
              before && JSON.stringify(before.groups) === JSON.stringify(groups) ? before.groups : groups,
            unopened,
            regroupsAt,
            ...(searchIncomplete ? { searchIncomplete } : {}),
          }));
          setError(null);
          return answer;
        },
        (failure: unknown) => {
          if (!current()) return null;
          requested.current.delete(page);
          setError(explained(failure));
          return null;
        },
      );
    },
    [bridge, filter, search, sort, backlog, account],
  );

  // A new query starts from its first page.
  useEffect(() => {
    generation.current += 1;
    requested.current = new Map();
    setPages(new Map());
    setCounts(null);
    void load(0);
  }, [load]);

  const refresh = useCallback(
    (change: ListChange) => {
      const loaded = [...requested.current.keys()];
      const before = shown.current;
      // A search matches an order's words: any change may bring a row in or take one out.
      if (change !== 'all' && !change.moved && search.trim() === '') {
        const changed = new Set(change.orderIds);
        for (const [page, rows] of before.pages)
          if (rows.some((row) => changed.has(row.orderId))) void load(page);
        return;
      }
      void load(0).then((first) => {
        if (!first) return;
        const moved = change === 'all' ? null : arrivedOnTop(before, first, change.orderIds);
        if (moved === null) {
          for (const page of loaded) if (page !== 0) void load(page);
          return;
        }
        // Every other row moved down as many places: the loaded pages are moved, not read again;
        // one whose rows are not all known is dropped (read when in view), as are answers under way.
        const next = movedDown(before.pages, first, moved);
        requested.current = new Map([...next.keys()].map((page) => [page, ++requests.current]));
        setPages(next);
      });
    },
    [load, search],
  );

  // The clock moves rows between groups too (an arrival an hour old, an order stalling): read again then.
  const regroupsAt = counts?.regroupsAt ?? null;
  useEffect(() => {
    if (regroupsAt === null) return;
    const wait = Date.parse(regroupsAt) - Date.now();
    if (!(wait <= LONGEST_TIMER_MS)) return;
    const timer = setTimeout(() => refresh('all'), Math.max(wait, 0));
    return () => clearTimeout(timer);
  }, [regroupsAt, refresh]);

  const rowAt = useCallback(
    (index: number) => pages.get(Math.floor(index / PAGE_SIZE))?.[index % PAGE_SIZE],
    [pages],
  );
  const indexOf = useCallback(
    (key: string) => {
      for (const [page, rows] of pages) {
        const at = rows.findIndex((row) => rowKey(row) === key || row.orderId === key);
        if (at >= 0) return page * PAGE_SIZE + at;
      }
      return -1;
    },
    [pages],
  );
  const want = useCallback(
    (from: number, to: number) => {
      for (let page = Math.floor(from / PAGE_SIZE); page <= Math.floor(to / PAGE_SIZE); page++) {
        if (!requested.current.has(page)) void load(page);
      }
    },
    [load],
  );

  return {
    total: counts?.total ?? null,
    waiting: counts?.waiting ?? 0,
    groups: counts?.groups ?? NO_GROUPS,
    unopened: counts?.unopened ?? NONE,
    searchIncomplete: counts?.searchIncomplete === true,
    error,
    rowAt,
    indexOf,
    want,
    refresh,
  };
}

/**
 * How many orders arrived on top, when that is all that changed: the list grew by as many as its
 * "just arrived" group, which the first page holds whole, every other group is as it was, and no
 * changed order was a row shown before. Null otherwise.
 */
function arrivedOnTop(
  before: { pages: Pages; counts: Counts | null },
  first: OrderPage,
  changed: readonly string[],
): number | null {
  const was = before.counts;
  if (!was) return null;
  const grew = first.total - was.total;
  const [arrived, ...others] = first.groups;
  const [arrivedBefore, ...othersBefore] = was.groups;
  if (grew <= 0 || arrived?.name !== 'arrived' || arrivedBefore?.name !== 'arrived') return null;
  if (arrived.size !== arrivedBefore.size + grew || arrived.start + arrived.size > PAGE_SIZE) return null;
  if (others.length !== othersBefore.length) return null;
  if (others.some((g, i) => g.name !== othersBefore[i]?.name || g.size !== othersBefore[i]?.size))
    return null;
  const ids = new Set(changed);
  for (const rows of before.pages.values()) if (rows.some((row) => ids.has(row.orderId))) return null;
  return grew;
}

/** The pages after `by` rows arrived on top: the first as read, each other one from the rows above it before. */
function movedDown(before: Pages, first: OrderPage, by: number): Map<number, OrderListItem[]> {
  const next = new Map([[0, first.orders]]);
  const rowBefore = (index: number) => before.get(Math.floor(index / PAGE_SIZE))?.[index % PAGE_SIZE];
  const last = Math.max(...before.keys()) + 1;
  for (let page = 1; page <= last; page++) {
    const from = page * PAGE_SIZE;
    const to = Math.min(from + PAGE_SIZE, first.total);
    if (from >= to) break;
    const rows: OrderListItem[] = [];
    for (let index = from; index < to; index++) {
      const row = rowBefore(index - by);
      if (!row) break;
      rows.push(row);
    }
    if (rows.length === to - from) next.set(page, rows);
  }
  return next;
}
