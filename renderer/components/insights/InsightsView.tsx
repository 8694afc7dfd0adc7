// Insights (issue 26): how the team is doing over a period, per account and product. New orders
// per day or week (by product and purchase type), time from purchase to the first action and to
// Completed (median and 90th percentile, as a trend), orders nobody started within the reminder
// delay, and the reasons of Failed statuses. Read from the stores alone (getInsights): opening or
// holding the view costs the marketplace nothing; it is read again when orders change.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AppState } from '../../../preload/contract';
import {
  INSIGHT_MAX_DAYS,
  INSIGHT_PERIODS,
  type InsightBucket,
  type Insights,
  type InsightsRequest,
  UNKNOWN_PRODUCT,
} from '../../../preload/insights';
import { plainText } from '../../../preload/marketplace-text';
import type { Explained } from '../../../preload/model';
import { purchaseTypeLabel } from '../../../preload/order-status';
import { call, explained } from '../../bridge/call';
import { type BridgeEvent, useBridge, useBridgeEvents } from '../../bridge/context';
import { formatDate, formatNumber, plural } from '../../format';
import { ErrorAlert } from '../ErrorAlert';
import {
  ChartFigure,
  type ChartTable,
  HorizontalBars,
  Lines,
  niceCeiling,
  SERIES_COLOURS,
  StackedBars,
} from './Chart';
import type { CsvCell } from './csv';

const REFRESHING_EVENTS: ReadonlySet<BridgeEvent['type']> = new Set(['orders-arrived', 'orders-updated']);

type Period = (typeof INSIGHT_PERIODS)[number] | 'custom';

const MINUTE = 60_000;
const DAY = 86_400_000;

/** A local calendar date (YYYY-MM-DD) `daysBack` days before today. */
function localDate(daysBack = 0): string {
  const d = new Date();
  d.setDate(d.getDate() - daysBack);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** The window's offset from UTC in minutes, east positive (0, not -0, in UTC: it is sent as JSON). */
function utcOffset(): number {
  return 0 - new Date().getTimezoneOffset();
}

/** A duration as people say it: "45 min", "3 h 20 min", "2 d 4 h". */
export function formatDuration(ms: number): string {
  const minutes = Math.round(ms / MINUTE);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

/** Hours an axis of durations tops out at: their halves are round too (30 min, 1 h, 2 h, ...). */
const HOUR_TOPS = [1, 2, 4, 6, 8, 12, 16, 24, 48];

/** A round top for an axis of durations (ms): minutes within the hour, then hours, then days. */
export function durationCeiling(maxMs: number): number {
  const hours = maxMs / (60 * MINUTE);
  if (hours <= 1) return niceCeiling(maxMs / MINUTE) * MINUTE;
  const top = HOUR_TOPS.find((h) => h >= hours);
  return top !== undefined ? top * 60 * MINUTE : niceCeiling(hours / 24) * DAY;
}

const productName = (product: string) =>
  product === UNKNOWN_PRODUCT ? 'Not fetched yet' : plainText(product);
const typeName = (type: string) => (type === '' ? 'Unknown type' : purchaseTypeLabel(type));
const durationCell = (v: CsvCell) => (typeof v === 'number' ? formatDuration(v * MINUTE) : '–');
/** A duration as the CSV has it: minutes, to a tenth. */
const minutesOf = (ms: number | null) => (ms === null ? null : Math.round(ms / (MINUTE / 10)) / 10);

export function InsightsView({ state }: { state: AppState }) {
  const bridge = useBridge();
  const served = state.accounts.filter((a) => a.open);
  const [account, setAccount] = useState(served.length > 1 ? 'all' : (served[0]?.id ?? 'all'));
  const [product, setProduct] = useState<string | null>(null);
  const [period, setPeriod] = useState<Period>(30);
  const [custom, setCustom] = useState({ from: localDate(29), to: localDate() });
  const [bucket, setBucket] = useState<InsightBucket>('day');
  const [insights, setInsights] = useState<Insights | null>(null);
  const [problem, setProblem] = useState<Explained | null>(null);
  const asked = useRef(0);

  const request: InsightsRequest =
    period === 'custom'
      ? { account, product, ...custom, bucket, utcOffsetMinutes: utcOffset() }
      : {
          account,
          product,
          from: localDate(period - 1),
          to: localDate(),
          bucket,
          utcOffsetMinutes: utcOffset(),
        };
  const key = JSON.stringify(request);
  // A custom period the marketplace's figures cannot have (it ends before it begins, or spans
  // more than a year) is said here, not asked for.
  const valid =
    request.from <= request.to &&
    (Date.parse(request.to) - Date.parse(request.from)) / DAY < INSIGHT_MAX_DAYS;

  const load = useCallback(async () => {
    if (!valid) return;
    const ask = ++asked.current;
    try {
      const found = await call(bridge, 'getInsights', JSON.parse(key) as InsightsRequest);
      // An answer to an older choice is dropped: the newest one wins.
      if (ask !== asked.current) return;
      setInsights(found);
      setProblem(null);
    } catch (failure) {
      if (ask === asked.current) setProblem(explained(failure));
    }
  }, [bridge, key, valid]);
  useEffect(() => {
    void load();
  }, [load]);
  useBridgeEvents((event) => {
    if (REFRESHING_EVENTS.has(event.type)) void load();
  });

  return (
    <div className="insights">
      <form
        className="insights-controls"
        aria-label="What the charts show"
        onSubmit={(e) => e.preventDefault()}
      >
        {served.length > 1 && (
          <label className="insights-control">
            Account
            <select value={account} onChange={(e) => setAccount(e.target.value)}>
              <option value="all">All accounts</option>
              {served.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.label}
                </option>
              ))}
            </select>
          </label>
        )}
        <label className="insights-control">
          Product
          <select
            value={product ?? '\u0000all'}
            onChange={(e) => setProduct(e.target.value === '\u0000all' ? null : e.target.value)}
          >
            <option value={'\u0000all'}>All products</option>
            {(insights?.products ?? []).map((p) => (
              <option key={p} value={p}>
                {productName(p)}
              </option>
            ))}
          </select>
        </label>
        <label className="insights-control">
          Period
          <select
            value={String(period)}
            onChange={(e) =>
              setPeriod(e.target.value === 'custom' ? 'custom' : (Number(e.target.value) as Period))
            }
          >
            {INSIGHT_PERIODS.map((days) => (
              <option key={days} value={days}>
                Last {days} days
              </option>
            ))}
            <option value="custom">Custom…</option>
          </select>
        </label>
        {period === 'custom' && (
          <>
            <label className="insights-control">
              From
              <input
                type="date"
                value={custom.from}
                max={custom.to}
                onChange={(e) => e.target.value && setCustom({ ...custom, from: e.target.value })}
              />
            </label>
            <label className="insights-control">
              To
              <input
                type="date"
                value={custom.to}
                min={custom.from}
                onChange={(e) => e.target.value && setCustom({ ...custom, to: e.target.value })}
              />
            </label>
          </>
        )}
        <label className="insights-control">
          By
          <select value={bucket} onChange={(e) => setBucket(e.target.value as InsightBucket)}>
            <option value="day">Day</option>
            <option value="week">Week</option>
          </select>
        </label>
      </form>
      {!valid && (
        <p className="alert" role="alert">
          Choose a first day on or before the last day, at most a year before it.
        </p>
      )}
      {problem && <ErrorAlert problem={problem} />}
      {!insights ? !problem && <p role="status">Reading…</p> : <InsightCharts insights={insights} />}
    </div>
  );
}

function InsightCharts({ insights }: { insights: Insights }) {
  const unit = insights.bucket === 'week' ? 'Week of' : 'Day';
  const labels = insights.buckets.map((b) => shortDate(b.start));
  const total = insights.buckets.reduce((sum, b) => sum + b.orders, 0);
  const file = (name: string) => `seller-tray-${name}-${insights.from}-to-${insights.to}.csv`;
  const dayColumn = { label: unit, format: (v: CsvCell) => formatDate(String(v)) };

  // The series of the orders chart: the biggest product and type pairs, the rest as one.
  const pairs = new Map<string, number>();
  for (const o of insights.orders) {
    const name = `${productName(o.product)} · ${typeName(o.type)}`;
    pairs.set(name, (pairs.get(name) ?? 0) + o.count);
  }
  const ranked = [...pairs].sort(([a, x], [b, y]) => y - x || a.localeCompare(b)).map(([name]) => name);
  const shown = ranked.length > SERIES_COLOURS ? ranked.slice(0, SERIES_COLOURS - 1) : ranked;
  const legend = ranked.length > shown.length ? [...shown, 'Other products'] : shown;
  const series = legend.map(() => insights.buckets.map(() => 0));
  const bucketIndex = new Map(insights.buckets.map((b, i) => [b.start, i]));
  for (const o of insights.orders) {
    const name = `${productName(o.product)} · ${typeName(o.type)}`;
    const s = shown.includes(name) ? shown.indexOf(name) : legend.length - 1;
    const i = bucketIndex.get(o.start);
    const line = series[s];
    if (line && i !== undefined) line[i] = (line[i] ?? 0) + o.count;
  }
  const busiest = insights.buckets.reduce(
    (best, b) => (b.orders > (best?.orders ?? 0) ? b : best),
    insights.buckets[0],
  );

  const ordersTable: ChartTable = {
    columns: [
      dayColumn,
      { label: 'Product', format: (v) => productName(String(v)) },
      { label: 'Type', format: (v) => typeName(String(v)) },
      { label: 'Orders' },
    ],
    rows: insights.orders.map((o) => [o.start, o.product, o.type, o.count]),
  };
  /** A chart of how long orders took to `measure`, its trend by median and 90th percentile. */
  const durationChart = (
    measure: 'firstAction' | 'completed',
    title: string,
    what: string,
    counted: string,
    name: string,
  ) => {
    const d = insights[measure];
    return (
      <ChartFigure
        title={title}
        summary={
          d.medianMs === null || d.p90Ms === null
            ? `No order of the period has ${what} yet.`
            : `Half of the ${plural(d.count, 'order')} had ${what} within ${formatDuration(d.medianMs)}, 9 in 10 within ${formatDuration(d.p90Ms)}.`
        }
        table={{
          columns: [
            dayColumn,
            { label: counted },
            { label: 'Median', csvLabel: 'Median (minutes)', format: durationCell },
            { label: '90th percentile', csvLabel: '90th percentile (minutes)', format: durationCell },
          ],
          rows: insights.buckets.map((b) => [
            b.start,
            b[measure].count,
            minutesOf(b[measure].medianMs),
            minutesOf(b[measure].p90Ms),
          ]),
        }}
        fileName={file(name)}
        legend={['Median', '90th percentile']}
      >
        {(width, chartName) => (
          <Lines
            width={width}
            name={chartName}
            labels={labels}
            series={[
              insights.buckets.map((b) => b[measure].medianMs),
              insights.buckets.map((b) => b[measure].p90Ms),
            ]}
            ceiling={durationCeiling}
            format={formatDuration}
          />
        )}
      </ChartFigure>
    );
  };
  const reminder = insights.reminderAfterMinutes;

  return (
    <div className="insights-charts">
      <ChartFigure
        title={`New orders per ${insights.bucket}`}
        summary={
          total === 0
            ? 'No orders in this period.'
            : `${plural(total, 'new order')} from ${formatDate(insights.from)} to ${formatDate(insights.to)}; the most, ${formatNumber(busiest?.orders ?? 0)}, ${insights.bucket === 'week' ? 'in the week of' : 'on'} ${formatDate(busiest?.start ?? '')}.`
        }
        table={ordersTable}
        fileName={file('new-orders')}
        legend={legend}
      >
        {(width, name) => <StackedBars width={width} name={name} labels={labels} series={series} />}
      </ChartFigure>
      {durationChart(
        'firstAction',
        'Time to the first action',
        'a first status',
        'Orders started',
        'first-action',
      )}
      {durationChart('completed', 'Time to Completed', 'Completed', 'Orders completed', 'completed')}
      <ChartFigure
        title="Orders past the reminder delay"
        summary={
          reminder === 0
            ? 'Reminders are off (Settings), so no order counts as late.'
            : `${plural(insights.pastReminder, 'order')} of ${formatNumber(total)} waited longer than ${formatDuration(reminder * MINUTE)} for a first status.`
        }
        table={{
          columns: [dayColumn, { label: 'Orders' }, { label: 'Past the delay' }],
          rows: insights.buckets.map((b) => [b.start, b.orders, b.pastReminder]),
        }}
        fileName={file('past-reminder')}
      >
        {(width, name) => (
          <StackedBars
            width={width}
            name={name}
            labels={labels}
            series={[insights.buckets.map((b) => b.pastReminder)]}
          />
        )}
      </ChartFigure>
      <ChartFigure
        title="Failed reasons"
        summary={
          insights.failedReasons.length === 0
            ? 'No order of the period was marked Failed.'
            : `${plural(
                insights.failedReasons.reduce((s, r) => s + r.count, 0),
                'Failed status',
                'Failed statuses',
              )}; the most common reason is listed first.`
        }
        table={{
          columns: [{ label: 'Reason' }, { label: 'Failed statuses' }],
          rows: insights.failedReasons.map((r) => [r.reason, r.count]),
        }}
        fileName={file('failed-reasons')}
      >
        {(width, name) => (
          <HorizontalBars
            width={width}
            name={name}
            rows={insights.failedReasons.map((r) => ({ label: r.reason, value: r.count }))}
          />
        )}
      </ChartFigure>
    </div>
  );
}

const short = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' });
/** A bucket's first day on an axis: "16 Nov". */
function shortDate(date: string): string {
  const ms = Date.parse(`${date}T00:00:00Z`);
  return Number.isFinite(ms) ? short.format(ms) : date;
}
