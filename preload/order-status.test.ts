import { describe, expect, it } from 'vitest';
import { describeMark } from './marked-by';
import type { MarketplaceEvent, StatusCode } from './marketplace';
import { causalOrder, currentReversal, isUsualTransition, reversalText } from './order-status';

describe('transitions', () => {
  it.each<[string | undefined, StatusCode, boolean]>([
    ['ProvisioningStarted', 'ProvisioningInProgress', true],
    ['ProvisioningInProgress', 'ProvisioningCompleted', true],
    ['ProvisioningInProgress', 'ProvisioningFailed', true],
    ['ProvisioningFailed', 'ProvisioningInProgress', true],
    ['ProvisioningStarted', 'ProvisioningCompleted', false],
    ['ProvisioningCompleted', 'ProvisioningInProgress', false],
    ['ProvisioningFailed', 'ProvisioningCompleted', false],
    ['SomethingNew', 'ProvisioningInProgress', false],
    [undefined, 'ProvisioningInProgress', false],
  ])('%s → %s is usual: %s', (from, to, usual) => {
    expect(isUsualTransition(from, to)).toBe(usual);
  });
});

/** An event of one order: its status, its time (or none), and a name to follow it by. */
const event = (
  eventId: string,
  statusCode: string,
  eventTime?: string,
  description = '',
): MarketplaceEvent => ({
  eventId,
  eventTypeCode: 'ServicePurchased',
  statusCode,
  description,
  ...(eventTime === undefined ? {} : { eventTime }),
});
const ids = (events: MarketplaceEvent[]) => events.map((e) => e.eventId);

describe('causal order', () => {
  it('puts the purchase first whatever its clock says, then the statuses by their own time', () => {
    const listed = [
      event('done', 'ProvisioningCompleted', '2026-11-20T10:05:00Z'),
      event('started', 'ProvisioningInProgress', '2026-11-20T10:01:00Z'),
      event('purchase', 'ProvisioningStarted', '2026-11-20T11:00:00Z'), // a clock an hour ahead
    ];
    expect(ids(causalOrder(listed))).toEqual(['purchase', 'started', 'done']);
  });

  it('keeps the listing order for ties and for a time that could not be read', () => {
    const listed = [
      event('purchase', 'ProvisioningStarted', '2026-11-20T10:00:00Z'),
      event('a', 'ProvisioningInProgress', '2026-11-20T10:01:00Z'),
      event('b', 'ProvisioningFailed', '2026-11-20T10:01:00Z'),
      event('c', 'ProvisioningInProgress'), // no time: right after the one before it
      event('d', 'ProvisioningCompleted', '2026-11-20T10:00:30Z'),
    ];
    expect(ids(causalOrder(listed))).toEqual(['purchase', 'd', 'a', 'b', 'c']);
  });
});

describe('a status moved back', () => {
  const purchase = event('p', 'ProvisioningStarted', '2026-11-20T10:00:00Z');
  const mark = (
    id: string,
    status: 'ProvisioningInProgress' | 'ProvisioningCompleted',
    minute: number,
    who: string,
  ) => event(id, status, `2026-11-20T10:0${minute}:00Z`, describeMark(status, who));

  it('is told while the order shows the status it went back to, with who moved it', () => {
    const history = [
      purchase,
      mark('a', 'ProvisioningInProgress', 1, 'Anna Virtanen'),
      mark('b', 'ProvisioningCompleted', 2, 'Anna Virtanen'),
      mark('c', 'ProvisioningInProgress', 3, 'Bo Berg'),
      mark('d', 'ProvisioningInProgress', 4, 'Anna Virtanen'), // again: still the move back
    ];
    const reversal = currentReversal(history);
    expect(reversal && reversalText(reversal)).toBe('Marked In progress by Bo Berg after it was Completed');
    expect(currentReversal([...history, mark('e', 'ProvisioningCompleted', 5, 'Bo Berg')])).toBeUndefined();
  });

  it('is no move back for a retry after a failure, nor for the usual way forward', () => {
    const failed = event('f', 'ProvisioningFailed', '2026-11-20T10:02:00Z');
    expect(currentReversal([purchase, failed, mark('r', 'ProvisioningInProgress', 3, 'Bo')])).toBeUndefined();
    expect(currentReversal([purchase, mark('a', 'ProvisioningInProgress', 1, 'Bo')])).toBeUndefined();
  });
});
