// Insights (issue 26) in SQL over one account's store: the period's orders by bucket, product and
// type, how long they took to a first action and to Completed, how many waited past the reminder
// delay, and the Failed reasons. Each account's figures come back in a form that adds up across
// accounts (counts, and each bucket's durations sorted), and summarizeInsights turns one or several
// into the answer, with the percentiles. Reads the store only: no marketplace call.
import type { StatementSync } from 'node:sqlite';
import {
  type Durations,
  FAILED_REASONS_SHOWN,
  type InsightBucketRow,
  type InsightOrderCount,
  type Insights,
  type InsightsRequest,
  OTHER_REASONS,
  percentile,
} from '../../../preload/insights';

const DAY_MS = 86_400_000;

/** An order's product, as Insights groups by it: its first line's name, else the seller's item id. */
export const ORDER_ITEM = (document: string): string =>
  `substr(COALESCE(json_extract(${document}, '$.documentLines[0].lineItem.name'),
                   json_extract(${document}, '$.documentLines[0].lineItem.sellersItemId')), 1, 200)`;

/** The period's orders of one bucket, product and purchase type, as one account has them. */
export interface InsightsGroup extends InsightOrderCount {
  /** Those nobody started within the reminder delay. */
  pastReminder: number;
  /** How long each took to a first action, and to Completed (ms; orders without it left out). */
  firstAction: number[];
  completed: number[];
}

/** What one account adds to the answer: it adds up across accounts (summarizeInsights). */
export interface InsightsPart {
  groups: InsightsGroup[];
  failedReasons: Map<string, number>;
  products: string[];
}

export interface InsightsQuery extends Omit<InsightsRequest, 'account'> {
  /** The reminder delay in minutes (0: off, nothing counts as past it). */
  reminderAfterMinutes: number;
  /** Now (ms): an order not started yet is past the delay once it has waited that long. */
  now: number;
}

// The period's orders, bought from the first day's local midnight up to the day after the last,
// read from one covering index (orders_by_purchase). Their bucket is a number of days since
// 1970-01-01 (local), or of the Monday of its week (that day was a Thursday): arithmetic on the
// indexed julianday in whole milliseconds (exact at midnight), a third of date()'s cost.
const PERIOD = `
  WITH period AS (
    SELECT COALESCE(item, '') AS product, COALESCE(purchase_type, '') AS type, first_action_ms, completed_ms,
           (julianday(purchased_at) - 2440587.5) * 86400000 AS bought,
           (CAST(round((julianday(purchased_at) - 2440587.5) * 86400000) AS INTEGER) + CAST($shiftMs AS INTEGER)) / 86400000 AS day
      FROM orders
     WHERE julianday(purchased_at) >= $fromDay AND julianday(purchased_at) < $toDay
       AND ($product IS NULL OR COALESCE(item, '') = $product)
  )`;

// One pass over the period: each bucket, product and type's orders, those past the reminder delay
// (one not started yet is once it has waited that long by now), and their times (unsorted: sorting
// in the aggregate tripled the query; summarizeInsights sorts what it merges anyway).
const GROUPS = `${PERIOD}
  SELECT CASE WHEN $week THEN (day + 3) / 7 * 7 - 3 ELSE day END AS start, product, type, COUNT(*) AS count,
         COALESCE(SUM($remindMs > 0 AND COALESCE(first_action_ms, $now - bought) > $remindMs), 0) AS pastReminder,
         json_group_array(first_action_ms) FILTER (WHERE first_action_ms IS NOT NULL) AS firstAction,
         json_group_array(completed_ms) FILTER (WHERE completed_ms IS NOT NULL) AS completed
    FROM period GROUP BY 1, product, type`;

// Each Failed status of the period's orders, by its reason: the detailed description (what the
// marketplace or a colleague wrote), else the description.
const FAILED = `
  SELECT substr(COALESCE(NULLIF(trim(json_extract(e.json, '$.detailedDescription')), ''),
                         NULLIF(trim(json_extract(e.json, '$.description')), ''), ''), 1, 200) AS reason,
         COUNT(*) AS count
    FROM orders o INDEXED BY orders_by_purchase
    JOIN events e INDEXED BY events_failed ON e.order_id = o.order_id AND e.status = 'ProvisioningFailed'
   WHERE julianday(o.purchased_at) >= $fromDay AND julianday(o.purchased_at) < $toDay
     AND ($product IS NULL OR COALESCE(o.item, '') = $product)
   GROUP BY reason`;

// Every product of the period, for the filter: read apart only when the groups are of one product.
const PRODUCTS = `
  SELECT DISTINCT COALESCE(item, '') AS product FROM orders
   WHERE julianday(purchased_at) >= $fromDay AND julianday(purchased_at) < $toDay`;

/**
 * How long an order took from its purchase to its first status after it (in progress, completed or
 * failed) and to Completed, by the events' times (null where it has none; a status stamped before
 * its purchase, by another clock, takes no time): SQL expressions over the order's id and purchase
 * time, stored with each order's status (AccountStore) so Insights reads the times from an index.
 */
export function timesTaken(orderId: string, purchasedAt: string): { firstAction: string; completed: string } {
  const after = (condition: string) =>
    `(SELECT MAX(0, MIN(e.event_ms) - round(unixepoch(${purchasedAt}, 'subsec') * 1000))
        FROM events e WHERE e.order_id = ${orderId} AND ${condition})`;
  return {
    firstAction: after("e.status != 'ProvisioningStarted'"),
    completed: after("e.status = 'ProvisioningCompleted'"),
  };
}

/** One account's figures for the period, from its store (`sql` prepares a statement on it). */
export function readInsights(sql: (text: string) => StatementSync, query: InsightsQuery): InsightsPart {
  const shiftMs = query.utcOffsetMinutes * 60_000;
  const range = {
    $fromDay: julianDay(Date.parse(`${query.from}T00:00:00Z`) - shiftMs),
    $toDay: julianDay(Date.parse(`${query.to}T00:00:00Z`) + DAY_MS - shiftMs),
  };
  const rows = sql(GROUPS).all({
    ...range,
    $product: query.product,
    $week: query.bucket === 'week' ? 1 : 0,
    $shiftMs: shiftMs,
    $remindMs: query.reminderAfterMinutes * 60_000,
    $now: query.now,
  }) as unknown as (Omit<InsightOrderCount, 'start'> & {
    start: number;
    pastReminder: number;
    firstAction: string | null;
    completed: string | null;
  })[];
  const groups = rows.map((row) => ({
    ...row,
    start: new Date(row.start * DAY_MS).toISOString().slice(0, 10),
    firstAction: JSON.parse(row.firstAction ?? '[]') as number[],
    completed: JSON.parse(row.completed ?? '[]') as number[],
  }));
  const failed = sql(FAILED).all({ ...range, $product: query.product }) as {
    reason: string;
    count: number;
  }[];
  const products =
    query.product === null
      ? groups.map((g) => g.product)
      : (sql(PRODUCTS).all(range) as { product: string }[]).map((p) => p.product);
  return { groups, failedReasons: new Map(failed.map((f) => [f.reason, f.count])), products };
}

/** The answer from each account's part: counts added, durations merged before their percentiles. */
export function summarizeInsights(
  parts: readonly InsightsPart[],
  request: Omit<InsightsRequest, 'account'>,
  reminderAfterMinutes: number,
  accounts: string[],
): Insights {
  const groups = parts.flatMap((p) => p.groups);
  const buckets: InsightBucketRow[] = [];
  const all = { firstAction: [] as number[], completed: [] as number[], pastReminder: 0 };
  const byStart = new Map<string, InsightsGroup[]>();
  for (const group of groups) {
    const same = byStart.get(group.start);
    if (same) same.push(group);
    else byStart.set(group.start, [group]);
  }
  for (const start of bucketStarts(request)) {
    const row = { orders: 0, pastReminder: 0, firstAction: [] as number[], completed: [] as number[] };
    for (const group of byStart.get(start) ?? []) {
      row.orders += group.count;
      row.pastReminder += group.pastReminder;
      row.firstAction.push(...group.firstAction);
      row.completed.push(...group.completed);
    }
    all.firstAction.push(...row.firstAction);
    all.completed.push(...row.completed);
    all.pastReminder += row.pastReminder;
    buckets.push({
      start,
      orders: row.orders,
      pastReminder: row.pastReminder,
      firstAction: durations(row.firstAction),
      completed: durations(row.completed),
    });
  }
  const orders = new Map<string, InsightOrderCount>();
  for (const { start, product, type, count } of groups) {
    const key = JSON.stringify([start, product, type]);
    const known = orders.get(key);
    if (known) known.count += count;
    else orders.set(key, { start, product, type, count });
  }
  return {
    from: request.from,
    to: request.to,
    bucket: request.bucket,
    accounts,
    buckets,
    orders: [...orders.values()].sort((a, b) => compareOrderCounts(a, b)),
    firstAction: durations(all.firstAction),
    completed: durations(all.completed),
    pastReminder: all.pastReminder,
    reminderAfterMinutes,
    failedReasons: topReasons(parts),
    products: [...new Set(parts.flatMap((p) => p.products))].sort(),
  };
}

function durations(values: number[]): Durations {
  const sorted = values.sort((a, b) => a - b);
  return { count: sorted.length, medianMs: percentile(sorted, 0.5), p90Ms: percentile(sorted, 0.9) };
}

function compareOrderCounts(a: InsightOrderCount, b: InsightOrderCount): number {
  return a.start.localeCompare(b.start) || a.product.localeCompare(b.product) || a.type.localeCompare(b.type);
}

/** The most frequent reasons, then one row summing the rest. */
function topReasons(parts: readonly InsightsPart[]): Insights['failedReasons'] {
  const counts = new Map<string, number>();
  for (const part of parts)
    for (const [reason, count] of part.failedReasons) counts.set(reason, (counts.get(reason) ?? 0) + count);
  const sorted = [...counts].sort(([ra, a], [rb, b]) => b - a || ra.localeCompare(rb));
  const shown = sorted.slice(0, FAILED_REASONS_SHOWN).map(([reason, count]) => ({ reason, count }));
  const rest = sorted.slice(FAILED_REASONS_SHOWN).reduce((sum, [, count]) => sum + count, 0);
  return rest > 0 ? [...shown, { reason: OTHER_REASONS, count: rest }] : shown;
}

/** Every bucket's first day in the period, as the SQL names them (a week by its Monday). */
export function bucketStarts(request: Pick<InsightsRequest, 'from' | 'to' | 'bucket'>): string[] {
  let day = Date.parse(`${request.from}T00:00:00Z`);
  const last = Date.parse(`${request.to}T00:00:00Z`);
  const step = request.bucket === 'week' ? 7 * DAY_MS : DAY_MS;
  // getUTCDay: Sunday 0; the week's Monday is (day + 6) % 7 days back.
  if (request.bucket === 'week') day -= ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS;
  const starts: string[] = [];
  for (; day <= last; day += step) starts.push(new Date(day).toISOString().slice(0, 10));
  return starts;
}

const julianDay = (ms: number): number => ms / DAY_MS + 2440587.5;
