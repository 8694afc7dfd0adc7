import { describe, expect, it } from 'vitest';
import { describeMark } from './marked-by';
import type { MarketplaceEvent, StatusCode } from './marketplace';
import { causalOrder, currentReversal, isUsualTransition, reversalText } from './order-status';
import { postReference } from './post-reference';

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

/** A status Seller Tray posted under request `requestId`, marked after the step `after` names. */
const posted = (
  eventId: string,
  statusCode: string,
  eventTime: string,
  requestId: string,
  after?: string,
) => ({
  ...event(eventId, statusCode, eventTime),
  additionalProperties: [{ name: 'orderId', value: 'o', description: postReference(requestId, after) }],
});

describe('causal order of statuses that name the step they were marked after', () => {
  const purchase = event('purchase', 'ProvisioningStarted', '2026-11-20T10:00:00Z');

  it('puts a status after the one it names, by its event id or its request id, whatever the stamps', () => {
    const listed = [
      purchase,
      posted('started', 'ProvisioningInProgress', '2026-11-20T13:00:00Z', 'r1', 'purchase'), // hours ahead
      posted('done', 'ProvisioningCompleted', '2026-11-20T10:05:00Z', 'r2', 'started'),
      posted('again', 'ProvisioningInProgress', '2026-11-20T10:04:00Z', 'r3', 'r2'),
      event('console', 'ProvisioningFailed', '2026-11-20T12:00:00Z'), // names nothing: by its time
    ];
    expect(ids(causalOrder(listed))).toEqual(['purchase', 'console', 'started', 'done', 'again']);
  });

  it('is not lifted by a purchase stamped ahead, nor by a name it cannot find, nor by a loop of names', () => {
    const ahead = event('purchase', 'ProvisioningStarted', '2026-11-20T11:00:00Z');
    const listed = [
      ahead,
      posted('a', 'ProvisioningInProgress', '2026-11-20T10:01:00Z', 'r1', 'purchase'),
      event('b', 'ProvisioningCompleted', '2026-11-20T10:30:00Z'),
      posted('c', 'ProvisioningFailed', '2026-11-20T10:02:00Z', 'r3', 'gone'),
      posted('x', 'ProvisioningInProgress', '2026-11-20T10:40:00Z', 'rx', 'y'),
      posted('y', 'ProvisioningCompleted', '2026-11-20T10:41:00Z', 'ry', 'x'),
    ];
    expect(ids(causalOrder(listed))).toEqual(['purchase', 'a', 'c', 'b', 'x', 'y']);
  });

  it('names no step whose id is long or holds a space: the post counts by its time', () => {
    expect(postReference('r1', 'x'.repeat(65))).toBe('Seller Tray request r1');
    expect(postReference('r1', 'step 2 after 1')).toBe('Seller Tray request r1');
    expect(postReference('r1', '7')).toBe('Seller Tray request r1 after 7');
  });

  it('follows a long chain of names without running out of stack', () => {
    const chain = Array.from({ length: 50_000 }, (_, i) =>
      posted(
        `s${i}`,
        'ProvisioningInProgress',
        '2026-11-20T10:01:00Z',
        `r${i}`,
        i > 0 ? `s${i - 1}` : 'purchase',
      ),
    );
    expect(ids(causalOrder([purchase, ...chain.reverse()])).at(-1)).toBe('s49999');
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
