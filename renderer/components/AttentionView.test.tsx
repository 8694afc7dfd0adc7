// @vitest-environment happy-dom
// The Needs attention view with the fake bridge: each kind listed with why it is there, the
// marketplace's words as text, "Send again" through the bridge saying what came of it, the items
// kept aside marked as seen, an order opened, and no call but the store's on the bridge's events.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { AccountState } from '../../preload/contract';
import type { Attention, AttentionOrder, OutboxItem } from '../../preload/model';
import { HOSTILE_BUYER, MARKUP } from '../../test/support/hostile-order';
import { accountState, createFakeBridge, NOTHING_TO_ATTEND } from '../../test/support/renderer/fake-bridge';
import { BridgeProvider } from '../bridge/context';
import { AttentionView } from './AttentionView';

afterEach(cleanup);

const HOUR = 3_600_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

const EU = 'id-eu';
const US = 'id-us';

function row(orderId: string, more: Partial<AttentionOrder>): AttentionOrder {
  return {
    account: EU,
    orderId,
    status: 'ProvisioningStarted',
    purchaseType: 'ServicePurchased',
    // Bought 9 hours ago by the marketplace's clock, arrived here 6 hours ago: it waits since then.
    since: ago(9 * HOUR),
    waitingSince: ago(6 * HOUR),
    statusSince: ago(6 * HOUR),
    waiting: true,
    unopened: false,
    backlog: false,
    delivery: null,
    ...more,
  };
}

function sent(requestId: string, more: Partial<OutboxItem> = {}): OutboxItem {
  return {
    requestId,
    orderId: 'order-b',
    statusCode: 'ProvisioningCompleted',
    description: 'Provisioning completed by Anna Virtanen.',
    createdAt: ago(HOUR),
    state: 'sent',
    attempts: 1,
    sentAt: ago(HOUR),
    eventId: 'e-1',
    sentAtPoll: 4,
    ...more,
  };
}

const UNCONFIRMED = '00000000-0000-4000-8000-000000000001';
const REFUSED = '00000000-0000-4000-8000-000000000002';

const SOME: Attention = {
  counts: { notStarted: 3, stalled: 1, unconfirmed: 1, failed: 1, keptAside: 2 },
  notStarted: [
    row('order-a', { buyer: HOSTILE_BUYER, product: 'Backup Vault × 3' }),
    row('order-c', { buyer: 'Kestrel Foods Oy' }),
  ],
  stalled: [
    row('order-s', {
      status: 'ProvisioningInProgress',
      waiting: false,
      buyer: 'Fjord Health GmbH',
      statusSince: ago(9 * 24 * HOUR),
    }),
  ],
  unconfirmed: [{ account: EU, item: sent(UNCONFIRMED), buyer: 'Fjord Health GmbH' }],
  failed: [
    {
      account: EU,
      item: sent(REFUSED, {
        state: 'failed',
        statusCode: 'ProvisioningFailed',
        problem: { message: `The marketplace refused this status ${MARKUP}`, details: [] },
      }),
    },
  ],
  keptAside: [
    {
      account: EU,
      id: 9,
      kind: 'event',
      key: 'ev-9',
      fieldPath: 'eventTime',
      reason: 'not a time',
      seenAt: ago(HOUR),
    },
    {
      account: EU,
      id: 8,
      kind: 'order',
      key: 'o-8',
      fieldPath: 'documentLines.0',
      reason: MARKUP,
      seenAt: ago(HOUR),
    },
  ],
  reminderAfterMinutes: 240,
  stalledAfterDays: 7,
  escalateAfterMinutes: 60,
};

function renderView(attention: Attention, accounts: AccountState[] = [accountState('EU')]) {
  const bridge = createFakeBridge({ attention });
  const opened: string[] = [];
  render(
    <BridgeProvider bridge={bridge}>
      <AttentionView
        accounts={accounts}
        onOpen={(orderId, account) => opened.push(`${account}/${orderId}`)}
      />
    </BridgeProvider>,
  );
  return { bridge, opened };
}

describe('Needs attention', () => {
  it('lists each kind with its count and why, the marketplace’s words as text', async () => {
    renderView(SOME);
    const notStarted = await screen.findByRole('region', { name: 'New orders not started' });
    expect(within(notStarted).getByRole('heading').textContent).toBe('New orders not started 3');
    expect(notStarted.textContent).toContain('Waiting for longer than the reminder delay (240 minutes).');
    expect(notStarted.textContent).toContain('waiting 6 h');
    expect(notStarted.textContent).toContain('and 1 more');
    // Markup stays text: no link, no bold from the buyer's name.
    expect(notStarted.querySelector('a, b')).toBeNull();
    expect(notStarted.textContent).toContain('<b>URGENT</b>');

    const stalled = screen.getByRole('region', { name: 'In progress without a final status' });
    expect(stalled.textContent).toContain('in progress for 9 d');
    expect(stalled.textContent).toContain('longer than 7 days');

    const unconfirmed = screen.getByRole('region', { name: 'Statuses the marketplace did not show' });
    expect(unconfirmed.textContent).toContain('Completed for Fjord Health GmbH');
    const refused = screen.getByRole('region', { name: 'Statuses the marketplace refused' });
    expect(refused.textContent).toContain('Failed for order-b');
    expect(refused.querySelector('a, b')).toBeNull();
    const aside = screen.getByRole('region', { name: 'Unreadable items kept aside' });
    expect(within(aside).getAllByRole('listitem')).toHaveLength(2);
    expect(aside.querySelector('a, b')).toBeNull();
  });

  it('says so when nothing needs attention, and lists no empty kind', async () => {
    renderView(NOTHING_TO_ATTEND);
    expect(await screen.findByText(/^Nothing needs attention/)).toBeTruthy();
    expect(screen.queryAllByRole('region')).toEqual([]);
  });

  it('sends again through the bridge, and says what came of it', async () => {
    const { bridge } = renderView(SOME);
    const button = await screen.findByRole('button', { name: 'Send again: Completed for Fjord Health GmbH' });
    fireEvent.click(button);
    await screen.findByText('Completed is being sent again.');
    expect(bridge.callsOf('resendStatus')).toEqual([{ requestId: UNCONFIRMED, account: EU }]);

    bridge.handle('resendStatus', ({ requestId }) => ({ outcome: 'found', item: sent(requestId) }));
    fireEvent.click(button);
    await screen.findByText('Completed was in the marketplace after all: nothing was sent again.');

    // A refused status is sent again as the order page does it.
    fireEvent.click(screen.getByRole('button', { name: 'Send again: Failed for order-b' }));
    await waitFor(() =>
      expect(bridge.callsOf('retryDelivery')).toEqual([{ requestId: REFUSED, account: EU }]),
    );
  });

  it('marks the items kept aside as seen, up to the newest shown, and opens an order', async () => {
    const { bridge, opened } = renderView(SOME);
    fireEvent.click(await screen.findByRole('button', { name: 'Mark the unreadable items as seen' }));
    await waitFor(() => expect(bridge.callsOf('markAsideSeen')).toEqual([{ upToId: 9, account: EU }]));
    fireEvent.click(screen.getByRole('button', { name: 'Kestrel Foods Oy' }));
    expect(opened).toEqual([`${EU}/order-c`]);
  });

  it('snoozes a new order’s urgent announcement on this laptop, and says until when', async () => {
    const snoozed = new Date(Date.now() + 3 * HOUR).toISOString();
    const { bridge } = renderView({
      ...SOME,
      notStarted: SOME.notStarted.map((r) => (r.orderId === 'order-a' ? { ...r, snoozedUntil: snoozed } : r)),
    });
    const section = await screen.findByRole('region', { name: 'New orders not started' });
    expect(section.textContent).toContain('urgent announcement snoozed until');
    const before = Date.now();
    fireEvent.click(within(section).getByRole('button', { name: 'Snooze for 1 hour: Kestrel Foods Oy' }));
    await waitFor(() => expect(bridge.callsOf('snoozeOrder')).toHaveLength(1));
    const [{ orderId, until }] = bridge.callsOf('snoozeOrder') as [{ orderId: string; until: string }];
    expect(orderId).toBe('order-c');
    expect(Date.parse(until) - before).toBeGreaterThanOrEqual(HOUR);
    expect(Date.parse(until) - before).toBeLessThan(HOUR + 60_000);
    await screen.findByText(/^Kestrel Foods Oy: not announced as urgent on this laptop before /);
    expect(
      within(section).getByRole('button', { name: 'Snooze until tomorrow 08:00: Kestrel Foods Oy' }),
    ).toBeTruthy();
  });

  it('offers no snooze while escalation is off', async () => {
    renderView({ ...SOME, escalateAfterMinutes: 0 });
    await screen.findByRole('region', { name: 'New orders not started' });
    expect(screen.queryAllByRole('button', { name: /^Snooze/ })).toEqual([]);
  });

  it('names each item’s account with two served, and sends each action to the item’s own account', async () => {
    const TWO: Attention = {
      ...SOME,
      notStarted: [
        row('order-a', { buyer: 'Kestrel Foods Oy' }),
        row('order-a', { account: US, buyer: 'Kestrel Foods Inc' }),
      ],
      unconfirmed: [{ account: US, item: sent(UNCONFIRMED), buyer: 'Fjord Health Inc' }],
      keptAside: [
        ...SOME.keptAside,
        { ...(SOME.keptAside[0] as Attention['keptAside'][number]), account: US, id: 4 },
      ],
    };
    const { bridge, opened } = renderView(TWO, [accountState('EU'), accountState('US')]);
    const notStarted = await screen.findByRole('region', { name: 'New orders not started' });
    const [eu, us] = within(notStarted).getAllByRole('listitem');
    expect(eu?.textContent).toMatch(/^Account EU: Kestrel Foods Oy/);
    expect(us?.textContent).toMatch(/^Account US: Kestrel Foods Inc/);
    const aside = screen.getByRole('region', { name: 'Unreadable items kept aside' });
    expect(
      within(aside)
        .getAllByRole('listitem')
        .map((li) => li.textContent?.slice(0, 11)),
    ).toEqual(['Account EU:', 'Account EU:', 'Account US:']);

    fireEvent.click(
      within(notStarted).getByRole('button', { name: 'Snooze for 1 hour: Kestrel Foods Inc in US' }),
    );
    await waitFor(() => expect(bridge.callsOf('snoozeOrder')).toHaveLength(1));
    expect(bridge.callsOf('snoozeOrder')[0]).toMatchObject({ orderId: 'order-a', account: US });
    fireEvent.click(screen.getByRole('button', { name: 'Send again: Completed for Fjord Health Inc in US' }));
    await waitFor(() =>
      expect(bridge.callsOf('resendStatus')).toEqual([{ requestId: UNCONFIRMED, account: US }]),
    );
    // Each account's items are its own store's: each marked up to its own newest.
    fireEvent.click(screen.getByRole('button', { name: 'Mark the unreadable items as seen' }));
    await waitFor(() =>
      expect(bridge.callsOf('markAsideSeen')).toEqual([
        { upToId: 9, account: EU },
        { upToId: 4, account: US },
      ]),
    );
    fireEvent.click(within(us as HTMLElement).getByRole('button', { name: /^Account US/ }));
    expect(opened).toEqual([`${US}/order-a`]);
  });

  it('names no account while one is served', async () => {
    renderView(SOME, [accountState('EU'), accountState('US', { open: false })]);
    const notStarted = await screen.findByRole('region', { name: 'New orders not started' });
    expect(notStarted.textContent).not.toContain('Account');
  });

  it('reads the store again on the app’s events, and asks nothing else of the bridge', async () => {
    const { bridge } = renderView(SOME);
    await screen.findByRole('region', { name: 'New orders not started' });
    act(() => bridge.emit({ type: 'orders-updated', orderIds: ['order-a'], moved: true }));
    await waitFor(() => expect(bridge.callsOf('getAttention').length).toBeGreaterThanOrEqual(2));
    expect(new Set(bridge.calls.map((c) => c.channel))).toEqual(new Set(['getAttention']));
  });
});
