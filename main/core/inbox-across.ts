// One inbox across the served accounts: the same groups and order as one account's
// (preload/inbox-sort.ts), the counts summed, each row tagged with its account.
//
// How a page is merged, and why: each account's store stays its own database, opened, mended and
// closed by its account's session alone (no ATTACH). The window pages by place (offset), so for
// each group a page reaches, each store is asked for the sort keys (three indexed columns) of the
// group's first offset+limit rows; the keys are merged by the group's order (compared as the
// stores' ORDER BY compares, both written from one declaration in account-store.ts), and the
// page's rows are then read whole, each store's a run of its group read as one account's page
// reads it. Cost: a first page asks each of k stores for at most `limit` keys per group; a page N
// rows deep reads up to N+limit keys in each store and merges k·(N+limit) of them (milliseconds
// deep in a large inbox; the stores remember their keys until they change). A seek (keyset)
// cursor would keep deep pages flat, but the window jumps to any place (End, a scrollbar drag),
// so it needs places, which only offsets give without a cursor for every place.

import type { OrderListItem, OrderPage } from '../../preload/contract';
import { backlogShown, INBOX_GROUPS, type InboxGroup, type InboxGroupName } from '../../preload/inbox-sort';
import { compareInboxKeys, type InboxKey, type InboxQuery, type InboxReader } from './store/account-store';
import { RememberedReads, readAt } from './store/remembered-reads';

/** One account's store, read through its session's core (each read mended like any other). */
export interface InboxSource {
  account: string;
  core: { inboxRead<T>(read: (store: InboxReader) => T): T };
}

/** The most unopened orders a page locates (as one store does). */
const UNOPENED_LOCATED = 50;

/** What a store's reads stand on now (one function for every read: no closure made a store a read). */
const versionOf = (store: InboxReader) => store.inboxVersion();

/** The most pages remembered: the window's few pages of a few queries. */
const PAGES_KEPT = 8;

/**
 * The inbox across the served accounts, each page remembered while no store it stands on
 * changed: the window reads the same page again on every change event, scroll and focus, and a
 * page read again then costs one version check a store (AccountStore.inboxVersion), as one
 * account's does, not the merge and five row runs. The versions are read before the page, so a
 * store written meanwhile (by a poll, or another process such as the CLI) reads again next time.
 */
export class InboxAcross {
  private readonly pages = new RememberedReads(PAGES_KEPT);

  /** One page of the inbox over `sources`' stores, in their order (ties between accounts go by it). */
  page(sources: readonly InboxSource[], query: InboxQuery): Omit<OrderPage, 'offset'> {
    const version = sources.map((source) => source.core.inboxRead(versionOf)).join(' ');
    const { filter, search, sort, backlog, offset, limit, now, stalledAfterDays } = query;
    const name = JSON.stringify([
      sources.map((source) => source.account),
      [filter, search, sort, backlog, offset, limit, stalledAfterDays, now === undefined],
    ]);
    return this.pages.read(name, version, readAt(now), () => {
      const page = frozen(assembled(sources, query));
      return { value: page, regroupsAt: page.regroupsAt };
    });
  }
}

/** A page as served again to every reader: none may change it for the next. */
function frozen(page: Omit<OrderPage, 'offset'>): Omit<OrderPage, 'offset'> {
  for (const list of [page.orders, page.groups, page.unopened]) {
    for (const item of list) Object.freeze(item);
    Object.freeze(list);
  }
  return Object.freeze(page);
}

/** One page of the inbox over `sources`' stores, read from them. */
function assembled(sources: readonly InboxSource[], query: InboxQuery): Omit<OrderPage, 'offset'> {
  const [first] = sources;
  if (!first) return { orders: [], total: 0, waiting: 0, groups: [], unopened: [], regroupsAt: null };
  if (sources.length === 1) {
    // One account: its store's own page, not a merge of one.
    const { rows, ...counts } = first.core.inboxRead((store) => store.inboxPage(query));
    return { orders: rows.map((row) => ({ ...row, account: first.account })), ...counts };
  }
  const { offset, limit, backlog, ...matching } = query;
  const outlines = sources.map((source) => source.core.inboxRead((store) => store.inboxOutline(matching)));
  const holds = (name: InboxGroupName, at: number) =>
    outlines[at]?.groups.find((g) => g.name === name)?.holds ?? 0;

  let start = 0;
  const groups: InboxGroup[] = INBOX_GROUPS.map((name) => {
    const held = sources.reduce((sum, _, at) => sum + holds(name, at), 0);
    // The backlog folds by the size of all accounts' together, as one account's does by its own.
    const size = name !== 'backlog' || backlogShown(backlog ?? 'shown', held) ? held : 0;
    const group = { name, start, size, holds: held };
    start += size;
    return group;
  });

  const orders: OrderListItem[] = [];
  for (const group of groups) {
    const from = Math.max(offset - group.start, 0);
    const wanted = Math.min(limit - orders.length, group.size - from);
    if (wanted <= 0) continue;
    const lists = sources.map((source, at) =>
      holds(group.name, at) === 0
        ? []
        : source.core.inboxRead((store) => store.inboxKeys(matching, group.name, from + wanted)),
    );
    const order = merged(lists, compareInboxKeys(group.name, matching.sort), from + wanted);
    // Each store's rows on the page are a run of its group in its order: read whole as one
    // account's page reads them, past the store's rows merged before the page.
    const picked = order.slice(from);
    const rows = sources.map((source, at) => {
      const count = picked.filter((p) => p.list === at).length;
      const skip = order.slice(0, from).filter((p) => p.list === at).length;
      return count === 0
        ? []
        : source.core.inboxRead((store) =>
            store.inboxGroupRows(matching, group.name, skip, count, outlines[at]?.regroupsAt ?? null),
          );
    });
    const next = rows.map(() => 0);
    for (const { list } of picked) {
      const row = rows[list]?.[next[list] ?? 0];
      next[list] = (next[list] ?? 0) + 1;
      if (row) orders.push({ ...row, account: sources[list]?.account ?? '' });
    }
  }

  const regroups = outlines.flatMap((o) => (o.regroupsAt === null ? [] : [o.regroupsAt]));
  return {
    orders,
    total: start,
    waiting: outlines.reduce((sum, o) => sum + o.waiting, 0),
    groups,
    unopened: unopenedAcross(sources, matching, outlines, groups),
    regroupsAt: regroups.sort()[0] ?? null,
    ...(outlines.some((o) => o.searchIncomplete) ? { searchIncomplete: true as const } : {}),
  };
}

/**
 * The first `count` keys of lists each in the group's order, merged in that order by their heads
 * (k comparisons a key, no sort of them all); equal keys (one order id in two marketplaces) by
 * the lists' order.
 */
function merged(
  lists: readonly (readonly InboxKey[])[],
  compare: (a: InboxKey, b: InboxKey) => number,
  count: number,
): { list: number; orderId: string }[] {
  const heads = lists.map(() => 0);
  const out: { list: number; orderId: string }[] = [];
  while (out.length < count) {
    let best = -1;
    let bestKey: InboxKey | undefined;
    lists.forEach((keys, list) => {
      const key = keys[heads[list] ?? 0];
      if (key && (bestKey === undefined || compare(key, bestKey) < 0)) {
        best = list;
        bestKey = key;
      }
    });
    if (!bestKey) break;
    heads[best] = (heads[best] ?? 0) + 1;
    out.push({ list: best, orderId: bestKey.order_id });
  }
  return out;
}

/**
 * Where each store's unopened orders stand in the merged list: the merged group's start, the
 * order's place in its own store's group, and how many of each other store's rows of the group
 * come before it (one pass over the group in each other store, for all its keys together).
 */
function unopenedAcross(
  sources: readonly InboxSource[],
  matching: Omit<InboxQuery, 'offset' | 'limit' | 'backlog'>,
  outlines: readonly Omit<OrderPage, 'orders' | 'offset'>[],
  groups: readonly InboxGroup[],
): OrderPage['unopened'] {
  if (outlines.every((o) => o.unopened.length === 0)) return [];
  const located: OrderPage['unopened'] = [];
  const keysOf = outlines.map((outline, at) =>
    outline.unopened.length === 0
      ? new Map<string, InboxKey>()
      : (sources[at]?.core.inboxRead((store) =>
          store.inboxKeysOf(
            matching,
            outline.unopened.map((u) => u.orderId),
          ),
        ) ?? new Map<string, InboxKey>()),
  );
  for (const group of groups) {
    if (group.size === 0) continue;
    // This group's unopened orders in each store, with their place in their own store's group.
    const mine = outlines.map((outline, at) => {
      const own = outline.groups.find((g) => g.name === group.name);
      if (!own) return [];
      return outline.unopened
        .filter((u) => u.index >= own.start && u.index < own.start + own.size)
        .flatMap((u) => {
          const key = keysOf[at]?.get(u.orderId);
          return key ? [{ orderId: u.orderId, place: u.index - own.start, key }] : [];
        });
    });
    if (mine.every((m) => m.length === 0)) continue;
    mine.forEach((found, at) => {
      if (found.length === 0) return;
      const keys: InboxKey[] = found.map((f) => f.key);
      const places = found.map((f) => group.start + f.place);
      sources.forEach((other, j) => {
        // A store with none of the group's rows has none before it.
        if (j === at || !outlines[j]?.groups.some((g) => g.name === group.name && g.holds > 0)) return;
        const before = other.core.inboxRead((store) => store.inboxRowsBefore(matching, group.name, keys));
        before.forEach((n, i) => {
          places[i] = (places[i] ?? 0) + n;
        });
      });
      located.push(...found.map((f, i) => ({ orderId: f.orderId, index: places[i] ?? 0 })));
    });
  }
  return located.sort((a, b) => a.index - b.index).slice(0, UNOPENED_LOCATED);
}
