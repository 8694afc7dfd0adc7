// An account whose store could not be opened (a newer version's database, a disk error, a folder
// that cannot be written) is tried again by whoever runs all day, by itself: the trouble may pass
// (space freed, the folder mended, the newer version's file moved away) with nobody to press Check
// now. Seldom, as a failed open costs a file check and a line in the log, not a marketplace call.

/** The first wait before an unopened store is tried again: a minute. */
const FIRST_WAIT_MS = 60_000;
/** The longest: an hour. */
const LONGEST_WAIT_MS = 60 * 60_000;

/** The wait after `tries` failed opens in a row (1 for the first): a minute, doubling, at most an hour. */
export function reopenWaitMs(tries: number): number {
  return Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.max(0, tries - 1));
}

/** The schedule in words, for the message telling that an account could not be served. */
export const REOPEN_SCHEDULE = 'in 1 minute, the wait doubling to an hour';
