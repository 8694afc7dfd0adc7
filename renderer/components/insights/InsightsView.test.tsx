// @vitest-environment happy-dom
// The Insights view with the fake bridge: five charts, each named and described, its data as a
// table screen readers always have (the toggle shows it) and as CSV with formula-looking cells
// kept as text; marketplace words drawn as text; the choices (account, product, period, bucket)
// sent as asked; a period that cannot be asked said and not sent; and no call but getInsights.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type InsightsPart, summarizeInsights } from '../../../main/core/store/insights';
import type { InsightsRequest } from '../../../preload/insights';
import { MARKUP } from '../../../test/support/hostile-order';
import { accountState, appState, createFakeBridge } from '../../../test/support/renderer/fake-bridge';
import { App } from '../../App';
import { BridgeProvider } from '../../bridge/context';
import { niceCeiling } from './Chart';
import { csvCell, csvText } from './csv';
import { durationCeiling, formatDuration, InsightsView } from './InsightsView';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const MIN = 60_000;
const FORMULA = '=HYPERLINK("https://evil.example","Click")';

/** Two days of orders: the figures below are what the view must say. */
const PART: InsightsPart = {
  groups: [
    group('2026-11-16', 'Backup Vault', 'ServicePurchased', 2, 1, [10, 300], [60]),
    group('2026-11-16', FORMULA, 'Trial', 1, 0, [20], []),
    group('2026-11-17', '', 'ServicePurchased', 1, 0, [5], []),
  ],
  failedReasons: new Map([
    [MARKUP, 2],
    ['-2+3 quota', 1],
  ]),
  products: ['', 'Backup Vault', FORMULA],
};

function group(
  start: string,
  product: string,
  type: string,
  count: number,
  pastReminder: number,
  firstAction: number[],
  completed: number[],
) {
  const ms = (minutes: number[]) => minutes.map((m) => m * MIN);
  return {
    start,
    product,
    type,
    count,
    pastReminder,
    firstAction: ms(firstAction),
    completed: ms(completed),
  };
}

function answer(request: InsightsRequest) {
  const { account, ...rest } = request;
  return summarizeInsights([PART], { ...rest, from: '2026-11-16', to: '2026-11-17' }, 240, [account]);
}

function open(accounts = 1) {
  const bridge = createFakeBridge({ handlers: { getInsights: answer } });
  const state = appState({ accounts: ['EU', 'US'].slice(0, accounts).map((label) => accountState(label)) });
  render(
    <BridgeProvider bridge={bridge}>
      <InsightsView state={state} />
    </BridgeProvider>,
  );
  return bridge;
}

const figure = (name: string) => screen.getByRole('figure', { name });

describe('the Insights view', () => {
  it('draws five charts, each named, described in words, and its picture an image', async () => {
    open();
    await screen.findByRole('figure', { name: 'New orders per day' });
    for (const name of [
      'New orders per day',
      'Time to the first action',
      'Time to Completed',
      'Orders past the reminder delay',
      'Failed reasons',
    ]) {
      const img = within(figure(name)).getByRole('img');
      expect(img.querySelector('title')?.textContent).toBe(name);
      expect(img.getAttribute('aria-describedby')).toBeTruthy();
    }
    // 4 orders; first actions 5, 10, 20, 300 min → 2nd is 10 min, 4th 5 h.
    expect(within(figure('New orders per day')).getByText(/^4 new orders from/)).toBeTruthy();
    expect(
      within(figure('Time to the first action')).getByText(
        'Half of the 4 orders had a first status within 10 min, 9 in 10 within 5 h.',
      ),
    ).toBeTruthy();
    expect(
      within(figure('Orders past the reminder delay')).getByText(/^1 order of 4 waited longer than 4 h/),
    ).toBeTruthy();
  });

  it('has each chart’s data as a table screen readers always have, shown by its toggle', async () => {
    open();
    const reasons = await screen.findByRole('figure', { name: 'Failed reasons' });
    const table = within(reasons).getByRole('table', { name: 'Failed reasons' });
    expect(table.parentElement?.className).toBe('sr-only');
    const toggle = within(reasons).getByRole('button', { name: 'Show table' });
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-pressed')).toBe('true');
    expect(table.parentElement?.className).toBe('chart-table');
    const rows = within(table)
      .getAllByRole('row')
      .map((r) => r.textContent);
    expect(rows).toEqual(['ReasonFailed statuses', `${MARKUP}2`, '-2+3 quota1']);
    // The marketplace's words are text: no element came of the markup.
    expect(reasons.querySelector('a, b')).toBeNull();
    const first = within(figure('Time to the first action')).getByRole('table');
    const [columns, monday] = within(first).getAllByRole('row');
    expect(columns?.textContent).toBe('DayOrders startedMedian90th percentile');
    expect(monday?.textContent).toBe('Nov 16, 2026320 min5 h');
  });

  it('downloads a chart’s data as CSV, a formula-looking cell kept as text', async () => {
    open();
    const orders = await screen.findByRole('figure', { name: 'New orders per day' });
    let blob: Blob | undefined;
    vi.spyOn(URL, 'createObjectURL').mockImplementation((b) => {
      blob = b as Blob;
      return 'blob:fake';
    });
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
    const clicked = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      expect(this.download).toBe('seller-tray-new-orders-2026-11-16-to-2026-11-17.csv');
    });
    fireEvent.click(within(orders).getByRole('button', { name: 'Download CSV' }));
    expect(clicked).toHaveBeenCalledOnce();
    const text = await (blob as Blob).text();
    expect(text.split('\r\n')).toEqual([
      'Day,Product,Type,Orders',
      `2026-11-16,"'=HYPERLINK(""https://evil.example"",""Click"")",Trial,1`,
      '2026-11-16,Backup Vault,ServicePurchased,2',
      '2026-11-17,,ServicePurchased,1',
      '',
    ]);
  });

  it('asks for what is chosen: period, bucket, product, and with several accounts all or one', async () => {
    const bridge = open(2);
    await screen.findByRole('figure', { name: 'New orders per day' });
    const last = () => bridge.callsOf('getInsights').at(-1);
    expect(last()).toMatchObject({ account: 'all', product: null, bucket: 'day' });
    const first = last() as InsightsRequest;
    expect((Date.parse(first.to) - Date.parse(first.from)) / 86_400_000).toBe(29);
    fireEvent.change(screen.getByLabelText('Period'), { target: { value: '7' } });
    await waitFor(() =>
      expect((Date.parse(last()?.to ?? '') - Date.parse(last()?.from ?? '')) / 86_400_000).toBe(6),
    );
    fireEvent.change(screen.getByLabelText('By'), { target: { value: 'week' } });
    await waitFor(() => expect(last()?.bucket).toBe('week'));
    fireEvent.change(screen.getByLabelText('Account'), { target: { value: 'id-us' } });
    await waitFor(() => expect(last()?.account).toBe('id-us'));
    const product = screen.getByLabelText('Product') as HTMLSelectElement;
    expect([...product.options].map((o) => o.textContent)).toEqual([
      'All products',
      'Not fetched yet',
      FORMULA,
      'Backup Vault',
    ]);
    fireEvent.change(product, { target: { value: 'Backup Vault' } });
    await waitFor(() => expect(last()?.product).toBe('Backup Vault'));
    expect(last()?.utcOffsetMinutes).toBe(0 - new Date().getTimezoneOffset());
  });

  it('says a custom period that ends before it begins, and does not ask for it', async () => {
    const bridge = open();
    await screen.findByRole('figure', { name: 'New orders per day' });
    // Custom starts as the last 30 days: the same figures, not asked again.
    fireEvent.change(screen.getByLabelText('Period'), { target: { value: 'custom' } });
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-12-01' } });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-11-01' } });
    expect((await screen.findByRole('alert')).textContent).toMatch(/first day on or before the last day/);
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-10-01' } });
    await waitFor(() =>
      expect(bridge.callsOf('getInsights').at(-1)).toMatchObject({ from: '2026-10-01', to: '2026-11-01' }),
    );
    expect(screen.queryByRole('alert')).toBeNull();
    expect(bridge.callsOf('getInsights').every((r) => r.from <= r.to)).toBe(true);
  });

  it('reads again when orders change, with no call but getInsights', async () => {
    const bridge = open();
    await screen.findByRole('figure', { name: 'New orders per day' });
    act(() => bridge.emit({ type: 'orders-updated', orderIds: ['o-1'], moved: false }));
    await waitFor(() => expect(bridge.callsOf('getInsights')).toHaveLength(2));
    expect(new Set(bridge.calls.map((c) => c.channel))).toEqual(new Set(['getInsights']));
  });
});

it('opens from the header and from the tray', async () => {
  const bridge = createFakeBridge({ handlers: { getInsights: answer } });
  render(<App bridge={bridge} />);
  fireEvent.click(await screen.findByRole('button', { name: 'Insights' }));
  expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Seller Tray: Insights');
  await screen.findByRole('figure', { name: 'New orders per day' });
  fireEvent.click(screen.getByRole('button', { name: 'Inbox' }));
  expect(screen.queryByRole('figure', { name: 'New orders per day' })).toBeNull();
  act(() => bridge.emit({ type: 'open-insights' }));
  expect(screen.getByRole('button', { name: 'Insights' }).getAttribute('aria-current')).toBe('page');
  await screen.findByRole('figure', { name: 'New orders per day' });
});

describe('CSV cells', () => {
  it('keep formula-looking text as text, quote what needs it, and make marketplace text plain', () => {
    for (const lead of ['=', '+', '-', '@']) expect(csvCell(`${lead}1+1`)).toBe(`'${lead}1+1`);
    expect(csvCell('\t=cmd')).toBe("'=cmd");
    expect(csvCell(-3)).toBe('-3');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('line\nbreak\u202e')).toBe('line break');
    expect(csvCell(null)).toBe('');
    expect(csvText(['a', 'b'], [[1, 'x']])).toBe('a,b\r\n1,x\r\n');
  });
});

it('writes durations as people say them', () => {
  expect(formatDuration(0)).toBe('0 min');
  expect(formatDuration(59 * MIN)).toBe('59 min');
  expect(formatDuration(60 * MIN)).toBe('1 h');
  expect(formatDuration(200 * MIN)).toBe('3 h 20 min');
  expect(formatDuration(49 * 60 * MIN)).toBe('2 d 1 h');
});

it('tops an axis at a round number, or time, whose half is round too', () => {
  expect([0, 1, 3, 5, 7, 11, 45, 130].map(niceCeiling)).toEqual([2, 2, 4, 6, 8, 20, 60, 200]);
  const HOUR = 60 * MIN;
  expect(durationCeiling(0)).toBe(2 * MIN);
  expect(durationCeiling(33 * MIN)).toBe(40 * MIN);
  expect(durationCeiling(61 * MIN)).toBe(2 * HOUR);
  expect(durationCeiling(5 * HOUR)).toBe(6 * HOUR);
  expect(durationCeiling(30 * HOUR)).toBe(48 * HOUR);
  expect(durationCeiling(3 * 24 * HOUR)).toBe(4 * 24 * HOUR);
});
