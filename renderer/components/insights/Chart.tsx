// Insights' charts, drawn as plain SVG (no chart library: the comparison in docs/window.md chose
// this). Each chart sits in a ChartFigure: its title, a sentence saying what it shows, the picture
// (role="img", named by the two), its data as a table (always there for screen readers, shown on
// screen by a toggle) and as a CSV download. Marketplace text (products, reasons) is drawn as
// text, made plain; the table and the CSV read from one list of rows.
import { type ReactNode, useId, useRef, useState } from 'react';
import { plainText } from '../../../preload/marketplace-text';
import { type CsvCell, csvText } from './csv';
import { useWidth } from './useWidth';

export interface Column {
  label: string;
  /** The CSV's header for it, where it differs (a unit the raw values are in). */
  csvLabel?: string;
  /** How the table writes a value (the CSV keeps it raw); as it is when not given. */
  format?: (value: CsvCell) => string;
}

export interface ChartTable {
  columns: Column[];
  rows: CsvCell[][];
}

/** What names a chart's picture: its title, and the sentence that describes it. */
export interface ChartName {
  title: string;
  summaryId: string;
}

/** A chart's picture: an image named by its title and described by its sentence. */
function ChartSvg({
  name,
  width,
  height,
  children,
}: {
  name: ChartName;
  width: number;
  height: number;
  children: ReactNode;
}) {
  return (
    <svg className="chart-svg" width={width} height={height} role="img" aria-describedby={name.summaryId}>
      <title>{name.title}</title>
      {children}
    </svg>
  );
}

/** The height of a chart's drawing area and the room its axes take. */
const HEIGHT = 180;
const PAD = { top: 10, right: 12, bottom: 24, left: 64 };
/** Below this width, every other bucket's label is left out, and so on. */
const LABEL_ROOM = 46;
/** How many series a chart colours apart (styles.css: --series-1 to --series-6). */
export const SERIES_COLOURS = 6;

export function ChartFigure({
  title,
  summary,
  table,
  fileName,
  legend,
  children,
}: {
  title: string;
  /** One sentence: what the chart says, for everyone (and the picture's description). */
  summary: string;
  table: ChartTable;
  fileName: string;
  legend?: string[];
  children: (width: number, name: ChartName) => ReactNode;
}) {
  const id = useId();
  const box = useRef<HTMLElement | null>(null);
  const width = useWidth(box);
  const [tableShown, setTableShown] = useState(false);
  const download = () => {
    const csv = csvText(
      table.columns.map((c) => c.csvLabel ?? c.label),
      table.rows,
    );
    const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = fileName;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  };
  return (
    <figure className="chart" ref={box} aria-labelledby={`${id}-title`}>
      <figcaption>
        <h2 id={`${id}-title`} className="chart-title">
          {title}
        </h2>
        <p id={`${id}-summary`} className="chart-summary">
          {summary}
        </p>
      </figcaption>
      {legend && legend.length > 1 && (
        <ul className="chart-legend" aria-hidden="true">
          {legend.map((name, i) => (
            <li key={name}>
              <span className={`swatch series-${(i % SERIES_COLOURS) + 1}`} />
              {plainText(name)}
            </li>
          ))}
        </ul>
      )}
      {children(width, { title, summaryId: `${id}-summary` })}
      <div className="chart-actions">
        <button
          type="button"
          className="link-button"
          aria-pressed={tableShown}
          onClick={() => setTableShown((s) => !s)}
        >
          Show table
        </button>
        <button type="button" className="link-button" onClick={download}>
          Download CSV
        </button>
      </div>
      <div className={tableShown ? 'chart-table' : 'sr-only'}>
        <table>
          <caption>{title}</caption>
          <thead>
            <tr>
              {table.columns.map((c) => (
                <th key={c.label} scope="col">
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.rows.map((row, r) => (
              // Rows are a fixed list per answer: their place is their identity.
              // biome-ignore lint/suspicious/noArrayIndexKey: see above
              <tr key={r}>
                {row.map((cell, c) => {
                  const column = table.columns[c];
                  const text = column?.format
                    ? column.format(cell)
                    : cell === null
                      ? ''
                      : plainText(String(cell));
                  return c === 0 ? (
                    <th key={column?.label} scope="row">
                      {text}
                    </th>
                  ) : (
                    <td key={column?.label}>{text}</td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

/** The x axis of a chart over buckets: where each bucket's band is, and which get a label. */
function bands(count: number, width: number) {
  const inner = Math.max(1, width - PAD.left - PAD.right);
  const band = inner / Math.max(1, count);
  const every = Math.max(1, Math.ceil(LABEL_ROOM / band));
  return { band, at: (i: number) => PAD.left + i * band, labelled: (i: number) => i % every === 0 };
}

/** A y scale from 0 to a round maximum at or above `max` (by `ceiling`), with its ticks. */
function scale(max: number, ceiling: (max: number) => number = niceCeiling) {
  const top = ceiling(max);
  const y = (v: number) => PAD.top + (HEIGHT - PAD.top - PAD.bottom) * (1 - v / top);
  return { y, ticks: [0, top / 2, top] };
}

/**
 * The smallest of 2, 4, 6, 8, 10 times a power of ten at or above `max` (2 for nothing): even, so
 * the middle tick is a whole number too.
 */
export function niceCeiling(max: number): number {
  if (!(max > 2)) return 2;
  const power = 10 ** Math.floor(Math.log10(max));
  const step = [1, 2, 4, 6, 8, 10].find((s) => s * power >= max) ?? 10;
  return step * power;
}

function Axes({
  width,
  labels,
  ticks,
  y,
  format,
}: {
  width: number;
  labels: string[];
  ticks: number[];
  y: (v: number) => number;
  format: (v: number) => string;
}) {
  const x = bands(labels.length, width);
  return (
    <g className="chart-axes">
      {ticks.map((t) => (
        <g key={t}>
          <line x1={PAD.left} x2={width - PAD.right} y1={y(t)} y2={y(t)} className="chart-grid" />
          <text x={PAD.left - 6} y={y(t)} dy="0.32em" textAnchor="end">
            {format(t)}
          </text>
        </g>
      ))}
      {labels.map((label, i) =>
        x.labelled(i) ? (
          <text key={label} x={x.at(i) + x.band / 2} y={HEIGHT - 6} textAnchor="middle">
            {label}
          </text>
        ) : null,
      )}
    </g>
  );
}

/** Bars per bucket, each stacked from its series' values (bottom first). */
export function StackedBars({
  width,
  name,
  labels,
  series,
}: {
  width: number;
  name: ChartName;
  labels: string[];
  series: number[][];
}) {
  const totals = labels.map((_, i) => series.reduce((sum, values) => sum + (values[i] ?? 0), 0));
  const { y, ticks } = scale(Math.max(...totals, 0));
  const x = bands(labels.length, width);
  const barWidth = Math.max(1, Math.min(28, x.band * 0.7));
  return (
    <ChartSvg name={name} width={width} height={HEIGHT}>
      <Axes width={width} labels={labels} ticks={ticks} y={y} format={(v) => String(Math.round(v))} />
      {labels.map((label, i) => {
        let base = 0;
        return (
          <g key={label}>
            {series.map((values, s) => {
              const value = values[i] ?? 0;
              if (value === 0) return null;
              const top = base + value;
              const rect = (
                <rect
                  // biome-ignore lint/suspicious/noArrayIndexKey: a series is its place in the legend
                  key={s}
                  className={`series-${(s % SERIES_COLOURS) + 1}`}
                  x={x.at(i) + (x.band - barWidth) / 2}
                  width={barWidth}
                  y={y(top)}
                  height={Math.max(0, y(base) - y(top))}
                />
              );
              base = top;
              return rect;
            })}
          </g>
        );
      })}
    </ChartSvg>
  );
}

/** Lines over buckets (a gap where a bucket has no value), the first solid, the others dashed. */
export function Lines({
  width,
  name,
  labels,
  series,
  format,
  ceiling,
}: {
  width: number;
  name: ChartName;
  labels: string[];
  series: (number | null)[][];
  format: (v: number) => string;
  /** The axis's round top for the largest value (numbers' by default). */
  ceiling?: (max: number) => number;
}) {
  const values = series.flat().filter((v): v is number => v !== null);
  const { y, ticks } = scale(Math.max(...values, 0), ceiling);
  const x = bands(labels.length, width);
  const path = (line: (number | null)[]) => {
    let d = '';
    let pen = false;
    line.forEach((v, i) => {
      if (v === null) {
        pen = false;
        return;
      }
      d += `${pen ? 'L' : 'M'}${(x.at(i) + x.band / 2).toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
    });
    return d;
  };
  return (
    <ChartSvg name={name} width={width} height={HEIGHT}>
      <Axes width={width} labels={labels} ticks={ticks} y={y} format={format} />
      {series.map((line, s) => (
        <g
          // biome-ignore lint/suspicious/noArrayIndexKey: a series is its place in the legend
          key={s}
          className={`chart-line series-${(s % SERIES_COLOURS) + 1}${s > 0 ? ' chart-line-dashed' : ''}`}
        >
          <path d={path(line)} />
          {line.map((v, i) =>
            v === null ? null : (
              // biome-ignore lint/suspicious/noArrayIndexKey: one point per bucket
              <circle key={i} cx={x.at(i) + x.band / 2} cy={y(v)} r={2.5} />
            ),
          )}
        </g>
      ))}
    </ChartSvg>
  );
}

/** One horizontal bar per row, its label (made plain, cut to fit) to the left. */
export function HorizontalBars({
  width,
  name,
  rows,
}: {
  width: number;
  name: ChartName;
  rows: { label: string; value: number }[];
}) {
  const rowHeight = 24;
  const labelWidth = Math.min(220, width * 0.45);
  const max = Math.max(...rows.map((r) => r.value), 1);
  const room = Math.max(1, width - labelWidth - 48);
  const chars = Math.floor(labelWidth / 7);
  return (
    <ChartSvg name={name} width={width} height={rows.length * rowHeight + 4}>
      {rows.map((row, i) => {
        const label = plainText(row.label);
        return (
          <g key={row.label} className="chart-axes">
            <text x={labelWidth - 6} y={i * rowHeight + 16} textAnchor="end">
              {label.length > chars ? `${label.slice(0, chars - 1)}…` : label}
            </text>
            <rect
              className="series-5"
              x={labelWidth}
              y={i * rowHeight + 5}
              height={14}
              width={(room * row.value) / max}
            />
            <text x={labelWidth + (room * row.value) / max + 4} y={i * rowHeight + 16}>
              {row.value}
            </text>
          </g>
        );
      })}
    </ChartSvg>
  );
}
