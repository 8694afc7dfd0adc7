// A failed marketplace call as the service answers it over the bridge or keeps it on an outbox
// item (its words from main/core/failure-words.ts), and the check that a view shows it as people
// should see it: the plain message, the technical lines behind a collapsed "Details", and a
// Copy of them all.
import { fireEvent, within } from '@testing-library/react';
import { expect, vi } from 'vitest';
import { SellerApiError } from '../../../main/core/api/errors';
import { explainFailure } from '../../../main/core/failure-words';
import type { Explained } from '../../../preload/model';
import { FakeBridgeError } from './fake-bridge';

/** The request id of `apiProblem`'s and `apiFailure`'s call. */
export const FAILED_REQUEST_ID = '5d0c7a9e-2b41-4e8f-9c3a-7f1e2d3c4b5a';

/** The answers these failures are: one the marketplace could not give, and one refusing the call. */
const ANSWERS = {
  503: { errorCode: 'ServiceUnavailable', description: 'Down for maintenance' },
  400: { errorCode: 'BadRequest', description: 'field statusCode: invalid' },
} as const;
export type FailedStatus = keyof typeof ANSWERS;

/** A failed call of `operation` answered `status`, in the service's words (an outbox item keeps these). */
export function apiProblem(operation: string, status: FailedStatus = 503): Explained {
  const { errorCode, description } = ANSWERS[status];
  return explainFailure(
    new SellerApiError(
      { kind: 'http', operation, status, errorCode, description, requestId: FAILED_REQUEST_ID },
      `HTTP ${status} ${errorCode}`,
    ),
  );
}

/** A 503 of `operation`, as the service's bridge answer carries it. */
export function apiFailure(operation: string): FakeBridgeError {
  const { message, details } = apiProblem(operation);
  return new FakeBridgeError('api-http', message, details);
}

/**
 * `alert` says `failure` in plain words; the operation, HTTP status and request id are behind a
 * collapsed "Details" that opens, and whose Copy puts the message and every line on the clipboard.
 */
export async function expectDetailsOneClickAway(
  alert: HTMLElement,
  failure: Pick<Explained, 'message'>,
  operation: string,
  status: FailedStatus = 503,
): Promise<void> {
  const writeText = vi.fn().mockResolvedValue(undefined);
  vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
  const lines = [
    `Operation: ${operation}`,
    `HTTP status: ${status} ${ANSWERS[status].errorCode}`,
    `Request id: ${FAILED_REQUEST_ID}`,
  ];

  const toggle = within(alert).getByRole('button', { name: 'Details' });
  const disclosure = document.getElementById(toggle.getAttribute('aria-controls') ?? '');
  const visible = alert.textContent?.replace(disclosure?.textContent ?? '', '');
  expect(visible).toContain(failure.message);
  expect(visible).not.toMatch(new RegExp(`HTTP|${status}|request id`, 'i'));
  expect(toggle.getAttribute('aria-expanded')).toBe('false');
  expect(disclosure?.hidden).toBe(true);

  fireEvent.click(toggle);
  await vi.waitFor(() => expect(toggle.getAttribute('aria-expanded')).toBe('true'));
  expect(disclosure?.hidden).toBe(false);
  const shown = within(disclosure as HTMLElement)
    .getAllByRole('listitem')
    .map((item) => item.textContent);
  expect(shown).toEqual(expect.arrayContaining(lines));

  fireEvent.click(within(disclosure as HTMLElement).getByRole('button', { name: 'Copy the details' }));
  await vi.waitFor(() => expect(writeText).toHaveBeenCalledOnce());
  const copied = String(writeText.mock.calls[0]?.[0]).split('\n');
  expect(copied[0]).toContain(failure.message);
  expect(copied).toEqual(expect.arrayContaining(lines));
}
