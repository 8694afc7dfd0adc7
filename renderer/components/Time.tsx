// Times and calendar dates in the user's locale, one style for both (format.ts); the exact
// value stays in the element for tools and tooltips.
import { formatDate, formatDateTime } from '../format';

export function Time({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={iso}>
      {formatDateTime(iso)}
    </time>
  );
}

/** A calendar date (YYYY-MM-DD), such as the start of a validity period. */
export function CalendarDate({ date }: { date: string }) {
  return (
    <time dateTime={date} title={date}>
      {formatDate(date)}
    </time>
  );
}

/** Words with times in them: a time is a <time> on the page, and in the user's format where the words are copied. */
export type Worded = readonly (string | { iso: string })[];

export function WordedTimes({ words }: { words: Worded }) {
  return <>{words.map((w) => (typeof w === 'string' ? w : <Time key={w.iso} iso={w.iso} />))}</>;
}

export const wordedText = (words: Worded): string =>
  words.map((w) => (typeof w === 'string' ? w : formatDateTime(w.iso))).join('');

/** When Seller Tray tries a failed read again by itself. */
export const triesAgain = (iso: string): Worded => ['Seller Tray tries again at ', { iso }, '.'];
