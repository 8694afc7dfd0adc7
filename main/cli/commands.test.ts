// The CLI's words for a refused mark: each of the app's refusals in the command line's terms.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { requests } from '../core/bridge-requests';
import { markProblem } from './commands';

/** The issues a schema raises for `value`. */
const issuesOf = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error?.issues ?? [];

describe('why a mark was refused', () => {
  it('names both flags for a failure without its words and reason, as the app asks for them', () => {
    const issues = issuesOf(requests.markStatus, {
      orderId: 'x',
      statusCode: 'ProvisioningFailed',
      description: 'Stuck',
    });
    expect(markProblem(issues)).toMatch(/^status Failed needs --description TEXT and --detail TEXT/);
  });

  it('gives any other check its own words, under the flag it concerns', () => {
    // A check of the same kind (a refinement) on another field is not a failure without its reason.
    const stricter = z.object({ description: z.string().refine((d) => !d.includes('#'), 'no # in it') });
    expect(markProblem(issuesOf(stricter, { description: 'a # b' }))).toBe('--description: no # in it');
    const tooLong = issuesOf(requests.markStatus, {
      orderId: 'x',
      statusCode: 'ProvisioningCompleted',
      detailedDescription: 'd'.repeat(5000),
    });
    expect(markProblem(tooLong)).toMatch(/^--detail must be at most \d+ characters, as in the app$/);
  });
});
