// Who marked a status: written into the description, read back from it, and nothing else read as a name.
import { describe, expect, it } from 'vitest';
import { actorNameProblem, describeMark, parseMark } from './marked-by';

describe('who marked a status', () => {
  it.each([
    ['ProvisioningInProgress', 'Anna Virtanen', '', 'Provisioning started by Anna Virtanen.'],
    ['ProvisioningCompleted', 'Dr. Bo Berg Jr.', '', 'Provisioning completed by Dr. Bo Berg Jr..'],
    [
      'ProvisioningFailed',
      'Anna Virtanen',
      'Quota exceeded: eu-central',
      'Provisioning failed, reported by Anna Virtanen: Quota exceeded: eu-central',
    ],
  ] as const)('%s by %s is written, and read back', (status, actor, text, description) => {
    expect(describeMark(status, actor, text)).toBe(description);
    expect(parseMark(description)).toEqual({ actor, text });
  });

  it('without a name, says the status alone, and no one is read from it', () => {
    expect(describeMark('ProvisioningInProgress', '')).toBe('Provisioning started.');
    expect(parseMark('Provisioning started.')).toBeUndefined();
  });

  it.each([
    'Service purchased',
    'Provisioning has started.',
    'Shipped by courier',
    'Provisioning started by',
    undefined,
  ])('reads no name from %j', (description) => {
    expect(parseMark(description)).toBeUndefined();
  });

  it('refuses names that would not read back whole', () => {
    expect(actorNameProblem('Anna Virtanen')).toBeUndefined();
    expect(actorNameProblem('Anna: ops')).toContain('colon');
    expect(actorNameProblem('Anna\nVirtanen')).toContain('control');
    expect(actorNameProblem('x'.repeat(101))).toContain('at most 100');
  });
});
