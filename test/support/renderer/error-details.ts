// A failed call as the service answers it over the bridge or keeps it on an outbox item (its
// words from main/core/failure-words.ts): a marketplace call, a keychain out of reach, a file
// that could not be written. And the check that a view shows it as people should see it: the
// plain message, the technical lines behind a collapsed "Details", and a Copy of them all.
import { fireEvent, within } from '@testing-library/react';
import { expect, vi } from 'vitest';
import { adviceFor } from '../../../main/core/advice';
import { SellerApiError } from '../../../main/core/api/errors';
import { explainFailure as explainWith } from '../../../main/core/failure-words';
import { KeychainUnavailableError } from '../../../main/core/secrets';
import { CodedError } from '../../../preload/coded-error';
import type { Explained } from '../../../preload/model';

/** The request id of `apiProblem`'s and `apiFailure`'s call. */
/** As the service words it: for the app. */
const explainFailure = (error: unknown): Explained => explainWith(error, adviceFor('app'));

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
export function apiFailure(operation: string): CodedError {
  return bridgeFailure('api-http', apiProblem(operation));
}

/** The keychain's own words when Secret Service cannot be reached (what D-Bus says without a session). */
export const KEYCHAIN_ERROR = 'Cannot autolaunch D-Bus without X11 $DISPLAY';

/** Storing a secret on Linux without a keychain, in the service's words. */
export function keychainProblem(): Explained {
  return explainFailure(new KeychainUnavailableError(new Error(KEYCHAIN_ERROR), 'linux'));
}

/** A settings file that could not be written: a failure with no words of its own, as the service words it. */
export function settingsWriteProblem(): Explained {
  const error = Object.assign(
    new Error("EACCES: permission denied, open '/home/anna/.config/Seller Tray/config.json'"),
    { code: 'EACCES' },
  );
  return explainFailure(error);
}

/** `problem` as the service's bridge answer carries it, under `code`. */
export function bridgeFailure(code: string, { message, details }: Explained): CodedError {
  return new CodedError(code, message, { details: details ?? [] });
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
  const lines = [
    `Operation: ${operation}`,
    `HTTP status: ${status} ${ANSWERS[status].errorCode}`,
    `Request id: ${FAILED_REQUEST_ID}`,
  ];
  await expectBehindDetails(alert, failure.message, lines, new RegExp(`HTTP|${status}|request id`, 'i'));
}

/**
 * `alert` says `problem` in plain words, and every one of its detail lines is behind a collapsed
 * "Details" that opens, and whose Copy puts the message and every line on the clipboard: for a
 * failure with no HTTP status, whose lines are its own (a keychain's error, a file's).
 */
export async function expectExplainedOneClickAway(alert: HTMLElement, problem: Explained): Promise<void> {
  expect(problem.details.length).toBeGreaterThan(0);
  await expectBehindDetails(alert, problem.message, problem.details);
}

async function expectBehindDetails(
  alert: HTMLElement,
  message: string,
  lines: string[],
  notShown?: RegExp,
): Promise<void> {
  const writeText = vi.fn().mockResolvedValue(undefined);
  vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });

  const toggle = within(alert).getByRole('button', { name: 'Details' });
  const disclosure = document.getElementById(toggle.getAttribute('aria-controls') ?? '');
  const visible = alert.textContent?.replace(disclosure?.textContent ?? '', '');
  expect(visible).toContain(message);
  for (const line of lines) expect(visible).not.toContain(line);
  if (notShown) expect(visible).not.toMatch(notShown);
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
  expect(copied[0]).toContain(message);
  expect(copied).toEqual(expect.arrayContaining(lines));
}
