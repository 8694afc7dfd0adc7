// What the request-budget tests share (design notes §3: a screen held open costs only the polls):
// how long a screen is held, at which poll interval, how many polls fit, and the calls counted.
import type { Operation } from '../../main/core/api/routes';
import { SETTINGS } from '../../preload/settings-declaration';

export const HOLD_MS = 60_000;
/** The shortest interval the settings allow, so that the minute holds more than one poll. */
export const INTERVAL_SECONDS = SETTINGS.pollIntervalSeconds.min;
/** Polls that can start within the hold: one per interval, and one more as the hold's edges fall. */
export const POLLS_IN_HOLD = Math.floor(HOLD_MS / (INTERVAL_SECONDS * 1000)) + 1;

export type Counts = Readonly<Record<Operation, number>>;

/** The calls per operation between two counts at a simulator, those that happened only. */
export const since = (before: Counts, after: Counts): Partial<Record<Operation, number>> =>
  Object.fromEntries(
    Object.entries(after)
      .map(([operation, n]) => [operation, n - (before[operation as Operation] ?? 0)])
      .filter(([, n]) => n !== 0),
  );
