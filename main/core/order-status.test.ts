import { describe, expect, it } from 'vitest';
import type { MarketplaceEvent, StatusCode } from './api/wire';
import { isUsualTransition, latestStatus } from './order-status';

const event = (statusCode: string, eventTime: string, eventId = statusCode): MarketplaceEvent => ({
  eventId,
  eventTypeCode: 'ServicePurchased',
  statusCode,
  eventTime,
  description: statusCode,
});

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

describe('latest status', () => {
  it('is the status of the latest event by time, whatever the listing order', () => {
    const events = [
      event('ProvisioningCompleted', '2026-11-21T10:00:00.000002+00:00'),
      event('ProvisioningStarted', '2026-11-20T10:00:00.000000+00:00'),
      event('ProvisioningInProgress', '2026-11-21T10:00:00.000001+00:00'),
    ];
    expect(latestStatus(events)).toBe('ProvisioningCompleted');
  });

  it('compares times across offsets', () => {
    const events = [
      event('ProvisioningInProgress', '2026-11-21T12:00:00+02:00'),
      event('ProvisioningFailed', '2026-11-21T10:30:00Z'),
    ];
    expect(latestStatus(events)).toBe('ProvisioningFailed');
  });

  it('is undefined without events', () => {
    expect(latestStatus([])).toBeUndefined();
  });
});
