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

/** What one account adds to the answer. */
export interface InsightsPart {
  /** By bucket start: its orders, those past the reminder delay, and its durations (ms, sorted). */
  buckets: Map<string, { orders: number; pastReminder: number; firstAction: number[]; completed: number[] }>;
  orders: InsightOrderCount[];
  failedReasons: Map<string, number>;
  products: string[];
}

export interface InsightsQuery extends Omit<InsightsRequest, 'account'> {
  /** The reminder delay in minutes (0: off, nothing counts as past it). */
  reminderAfterMinutes: number;
  /** Now (ms): an order not started yet is past the delay once it has waited that long. */
  now: number;
}

// The period's orders, bought from the first day's local midnight up to the day after the last.
// julianday(purchased_at) is indexed (orders_by_purchase); the bucket is the local day, or the
// Monday of its week.
const PERIOD = `
  WITH period AS (
    SELECT order_id, COALESCE(item, '') AS product, COALESCE(purchase_type, '') AS type,
           round(unixepoch(purchased_at, 'subsec') * 1000) AS bought,
           CASE WHEN $week THEN date(purchased_at, $shift, 'weekday 0', '-6 days')
                ELSE date(purchased_at, $shift) END AS start
      FROM orders
     WHERE julianday(purchased_at) >= $fromDay AND julianday(purchased_at) < $toDay
       AND ($product IS NULL OR COALESCE(item, '') = $product)
  )`;

// The first status after the purchase and the first Completed, by the events' times; a status
// stamped before its purchase (another clock) counts as taking no time.
const BY_BUCKET = `${PERIOD},
  timed AS (
    SELECT start, bought,
           (SELECT MIN(e.event_ms) FROM events e
             WHERE e.order_id = p.order_id AND e.status != 'ProvisioningStarted') AS acted,
           (SELECT MIN(e.event_ms) FROM events e
             WHERE e.order_id = p.order_id AND e.status = 'ProvisioningCompleted') AS done
      FROM period p
  )
  SELECT start, COUNT(*) AS orders,
         COALESCE(SUM($remindMs > 0 AND COALESCE(acted, $now) - bought > $remindMs), 0) AS pastReminder,
         json_group_array(MAX(0, acted - bought) ORDER BY acted - bought) FILTER (WHERE acted IS NOT NULL) AS firstAction,
         json_group_array(MAX(0, done - bought) ORDER BY done - bought) FILTER (WHERE done IS NOT NULL) AS completed
    FROM timed GROUP BY start`;

const BY_PRODUCT = `${PERIOD}
  SELECT start, product, type, COUNT(*) AS count FROM period GROUP BY start, product, type ORDER BY start, product, type`;

// Each Failed status of the period's orders, by its reason: the detailed description (what the
// marketplace or a colleague wrote), else the description.
const FAILED = `${PERIOD}
  SELECT substr(COALESCE(NULLIF(trim(json_extract(e.json, '$.detailedDescription')), ''),
                         NULLIF(trim(json_extract(e.json, '$.description')), ''), ''), 1, 200) AS reason,
         COUNT(*) AS count
    FROM period p JOIN events e ON e.order_id = p.order_id AND e.status = 'ProvisioningFailed'
   GROUP BY reason`;

const PRODUCTS = `
  SELECT DISTINCT COALESCE(item, '') AS product FROM orders
   WHERE julianday(purchased_at) >= $fromDay AND julianday(purchased_at) < $toDay ORDER BY product`;

/** One account's figures for the period, from its store (`sql` prepares a statement on it). */
export function readInsights(sql: (text: string) => StatementSync, query: InsightsQuery): InsightsPart {
  const shiftMs = query.utcOffsetMinutes * 60_000;
  const range = {
    $fromDay: julianDay(Date.parse(`${query.from}T00:00:00Z`) - shiftMs),
    $toDay: julianDay(Date.parse(`${query.to}T00:00:00Z`) + DAY_MS - shiftMs),
  };
  const params = {
    ...range,
    $week: query.bucket === 'week' ? 1 : 0,
    $shift: `${query.utcOffsetMinutes >= 0 ? '+' : ''}${query.utcOffsetMinutes} minutes`,
    $product: query.product,
  };
  const buckets: InsightsPart['buckets'] = new Map();
  const rows = sql(BY_BUCKET).all({
    ...params,
    $remindMs: query.reminderAfterMinutes * 60_000,
    $now: query.now,
  }) as {
    start: string;
    orders: number;
    pastReminder: number;
    firstAction: string | null;
    completed: string | null;
  }[];
  for (const row of rows) {
    buckets.set(row.start, {
      orders: row.orders,
      pastReminder: row.pastReminder,
      firstAction: JSON.parse(row.firstAction ?? '[]') as number[],
      completed: JSON.parse(row.completed ?? '[]') as number[],
    });
  }
  const failed = sql(FAILED).all(params) as { reason: string; count: number }[];
  return {
    buckets,
    orders: sql(BY_PRODUCT).all(params) as unknown as InsightOrderCount[],
    failedReasons: new Map(failed.map((f) => [f.reason, f.count])),
    products: (sql(PRODUCTS).all(range) as { product: string }[]).map((p) => p.product),
  };
}

/** The answer from each account's part: counts added, durations merged before their percentiles. */
export function summarizeInsights(
  parts: readonly InsightsPart[],
  request: Omit<InsightsRequest, 'account'>,
  reminderAfterMinutes: number,
  accounts: string[],
): Insights {
  const buckets: InsightBucketRow[] = [];
  const all = { firstAction: [] as number[], completed: [] as number[], pastReminder: 0 };
  for (const start of bucketStarts(request)) {
    const row = { orders: 0, pastReminder: 0, firstAction: [] as number[], completed: [] as number[] };
    for (const part of parts) {
      const found = part.buckets.get(start);
      if (!found) continue;
      row.orders += found.orders;
      row.pastReminder += found.pastReminder;
      row.firstAction.push(...found.firstAction);
      row.completed.push(...found.completed);
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
  for (const count of parts.flatMap((p) => p.orders)) {
    const key = JSON.stringify([count.start, count.product, count.type]);
    const known = orders.get(key);
    if (known) known.count += count.count;
    else orders.set(key, { ...count });
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
