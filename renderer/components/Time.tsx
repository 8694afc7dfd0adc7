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
