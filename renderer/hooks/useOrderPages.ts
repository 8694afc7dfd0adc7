// The inbox's rows, a page at a time: the bridge answers one page of the store's list and how
// many orders match, so ten thousand orders cost the pages in view, not the whole list. A reload
// (new orders, a mark) reads the loaded pages again, keeping what is shown until they answer.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { OrderListItem, OrderPage } from '../../preload/contract';
import type { Explained } from '../../preload/model';
import { call, explained } from '../bridge/call';
import type { useBridge } from '../bridge/context';
import type { InboxQuery, InboxSort } from '../components/inbox-query';

export const PAGE_SIZE = 100;
const NONE: OrderPage['unopened'] = [];
const NO_GROUPS: OrderPage['groups'] = [];

export interface OrderPages {
  /** Null until the first page answered. */
  total: number | null;
  waiting: number;
  /** The list's groups (just arrived, waiting, stalled, backlog, the rest), each with its place. */
  groups: OrderPage['groups'];
  /** The unopened arrivals that match, with their place in the list. */
  unopened: OrderPage['unopened'];
  /** The search may miss orders: the first start's are still being indexed. */
  searchIncomplete: boolean;
  /** Why the last page could not be read, with its detail. */
  error: Explained | null;
  rowAt(index: number): OrderListItem | undefined;
  indexOf(orderId: string): number;
  /** Asks for the pages holding rows `from` to `to` (the rows in view). */
  want(from: number, to: number): void;
}

export function useOrderPages(
  bridge: ReturnType<typeof useBridge>,
  { filter, search, backlog }: InboxQuery,
  sort: InboxSort,
  reloads: number,
): OrderPages {
  const [pages, setPages] = useState<ReadonlyMap<number, OrderListItem[]>>(new Map());
  const [counts, setCounts] = useState<Pick<
    OrderPage,
    'total' | 'waiting' | 'groups' | 'unopened' | 'searchIncomplete'
  > | null>(null);
  const [error, setError] = useState<Explained | null>(null);
  const generation = useRef(0);
  const requested = useRef(new Set<number>());

  const load = useCallback(
    (page: number, mine: number) => {
      requested.current.add(page);
      const request = { filter, search, sort, ...(backlog ? { backlog } : {}) };
      call(bridge, 'listOrders', { ...request, offset: page * PAGE_SIZE, limit: PAGE_SIZE }).then(
        (answer: OrderPage) => {
          if (mine !== generation.current) return;
          setPages((before) => new Map(before).set(page, answer.orders));
          setCounts({
            total: answer.total,
            waiting: answer.waiting,
            groups: answer.groups,
            unopened: answer.unopened,
            ...(answer.searchIncomplete ? { searchIncomplete: true } : {}),
          });
          setError(null);
        },
        (failure: unknown) => {
          if (mine !== generation.current) return;
          requested.current.delete(page);
          setError(explained(failure));
        },
      );
    },
    [bridge, filter, search, sort, backlog],
  );

  // A new query starts from its first page; a reload reads again the pages already loaded.
  const lastQuery = useRef<string>('');
  // biome-ignore lint/correctness/useExhaustiveDependencies: `reloads` is the trigger to load again
  useEffect(() => {
    const mine = ++generation.current;
    const query = JSON.stringify([filter, search, sort, backlog]);
    const again = query === lastQuery.current ? [...requested.current] : [];
    lastQuery.current = query;
    if (again.length === 0) {
      setPages(new Map());
      setCounts(null);
    }
    requested.current = new Set();
    for (const page of again.length > 0 ? again : [0]) load(page, mine);
  }, [load, reloads]);

  const rowAt = useCallback(
    (index: number) => pages.get(Math.floor(index / PAGE_SIZE))?.[index % PAGE_SIZE],
    [pages],
  );
  const indexOf = useCallback(
    (orderId: string) => {
      for (const [page, rows] of pages) {
        const at = rows.findIndex((row) => row.orderId === orderId);
        if (at >= 0) return page * PAGE_SIZE + at;
      }
      return -1;
    },
    [pages],
  );
  const want = useCallback(
    (from: number, to: number) => {
      for (let page = Math.floor(from / PAGE_SIZE); page <= Math.floor(to / PAGE_SIZE); page++) {
        if (!requested.current.has(page)) load(page, generation.current);
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
  };
}
