// A failed marketplace call as the service answers it over the bridge (its words from
// main/core/failure-words.ts), and the check that a view shows it as people should see it: the
// plain message, the technical lines behind a collapsed "Details", and a Copy of them all.
import { fireEvent, within } from '@testing-library/react';
import { expect, vi } from 'vitest';
import { SellerApiError } from '../../../main/core/api/errors';
import { explainFailure } from '../../../main/core/failure-words';
import { FakeBridgeError } from './fake-bridge';

/** The request id of `apiFailure`'s call. */
export const FAILED_REQUEST_ID = '5d0c7a9e-2b41-4e8f-9c3a-7f1e2d3c4b5a';

/** A 503 of `operation`, as the service's bridge answer carries it. */
export function apiFailure(operation: string): FakeBridgeError {
  const error = new SellerApiError(
    {
      kind: 'http',
      operation,
      status: 503,
      errorCode: 'ServiceUnavailable',
      description: 'Down for maintenance',
      requestId: FAILED_REQUEST_ID,
    },
    'HTTP 503 ServiceUnavailable',
  );
  const { message, details } = explainFailure(error);
  return new FakeBridgeError('api-http', message, details);
}

/**
 * `alert` says `failure` in plain words; the operation, HTTP status and request id are behind a
 * collapsed "Details" that opens, and whose Copy puts the message and every line on the clipboard.
 */
export async function expectDetailsOneClickAway(
  alert: HTMLElement,
  failure: FakeBridgeError,
  operation: string,
): Promise<void> {
  const writeText = vi.fn().mockResolvedValue(undefined);
  vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
  const lines = [
    `Operation: ${operation}`,
    'HTTP status: 503 ServiceUnavailable',
    `Request id: ${FAILED_REQUEST_ID}`,
  ];

  const toggle = within(alert).getByRole('button', { name: 'Details' });
  const disclosure = document.getElementById(toggle.getAttribute('aria-controls') ?? '');
  const visible = alert.textContent?.replace(disclosure?.textContent ?? '', '');
  expect(visible).toContain(failure.message);
  expect(visible).not.toMatch(/HTTP|503|request id/i);
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
