import { describe, expect, it } from 'vitest';
import type { StatusCode } from './marketplace';
import { isUsualTransition } from './order-status';

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
