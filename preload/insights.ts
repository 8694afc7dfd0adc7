// The Insights view's request and answer (issue 26): how a team is doing over a period, per
// account and product, read from the stores alone. Plain types and the few values both sides
// need (periods, limits, the percentile rule), importing nothing from main/.

/** How orders are grouped in time: by calendar day, or by week (Monday to Sunday). */
export const INSIGHT_BUCKETS = ['day', 'week'] as const;
export type InsightBucket = (typeof INSIGHT_BUCKETS)[number];

/** The periods offered, in days back from today; "custom" takes two dates. */
export const INSIGHT_PERIODS = [7, 30, 90] as const;

/** The longest period one request may span (a year and a day: a leap year's custom range fits). */
export const INSIGHT_MAX_DAYS = 367;

/** The most Failed reasons listed; the rest are summed as one row. */
export const FAILED_REASONS_SHOWN = 8;

/** The row that sums the Failed reasons beyond those shown. */
export const OTHER_REASONS = 'Other reasons';

/** An order whose document has not been fetched yet has no product name to group it by. */
export const UNKNOWN_PRODUCT = '';

/** What the window asks for: one account (its id) or all, one product or all, a period of local dates. */
export interface InsightsRequest {
  /** An account's id (AccountState.id), or "all" for every account served. */
  account: string;
  /** A product's name as `products` lists it; null for every product. */
  product: string | null;
  /** First and last day of the period, both included (YYYY-MM-DD, the window's local dates). */
  from: string;
  to: string;
  bucket: InsightBucket;
  /** The window's offset from UTC in minutes (east positive): days start at its local midnight. */
  utcOffsetMinutes: number;
}

/** How long orders took, in one bucket or the whole period: nearest-rank median and 90th percentile. */
export interface Durations {
  /** How many orders have this measure (those without it, not started or not completed, are left out). */
  count: number;
  /** Milliseconds; null when count is 0. */
  medianMs: number | null;
  p90Ms: number | null;
}

/** One bucket of the period (its first day), with what happened to the orders bought in it. */
export interface InsightBucketRow {
  start: string;
  orders: number;
  /** From purchase to the first status after it (in progress, completed or failed). */
  firstAction: Durations;
  /** From purchase to Completed. */
  completed: Durations;
  /** Orders nobody started within the reminder delay (started late, or still waiting past it). */
  pastReminder: number;
}

/** New orders of one product and purchase type in one bucket. */
export interface InsightOrderCount {
  start: string;
  /** The product's name; UNKNOWN_PRODUCT when the order is not fetched yet. */
  product: string;
  /** The purchase event's type (ServicePurchased, Trial, ...), or "" when unknown. */
  type: string;
  count: number;
}

export interface Insights {
  from: string;
  to: string;
  bucket: InsightBucket;
  /** The accounts read (their ids): one, or every account served for "all". */
  accounts: string[];
  /** Every bucket of the period, empty ones included, oldest first. */
  buckets: InsightBucketRow[];
  /** The period's new orders by bucket, product and type (only those with orders). */
  orders: InsightOrderCount[];
  /** The whole period's durations. */
  firstAction: Durations;
  completed: Durations;
  pastReminder: number;
  /** The reminder delay `pastReminder` counts with (minutes, 0 = reminders off: nothing counted). */
  reminderAfterMinutes: number;
  /** Failed statuses by their reason (the marketplace's words: render as text), most first. */
  failedReasons: { reason: string; count: number }[];
  /** The products the period's orders have, for the product filter (whatever product is asked). */
  products: string[];
}

/**
 * The nearest-rank percentile of sorted values: the smallest value with at least `p` of them at or
 * below it (so the median of 4 values is the 2nd). One rule for every figure, which a person can
 * check by counting.
 */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? null;
}
