// A timestamp in the user's locale; the exact value stays in the element for tools and tooltips.
import { formatDateTime } from '../format';

export function Time({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={iso}>
      {formatDateTime(iso)}
    </time>
  );
}

/**
 * A calendar date (YYYY-MM-DD), such as the start of a validity period: shown as it is, the
 * one way of writing a date that no reader in any locale misreads.
 */
export function CalendarDate({ date }: { date: string }) {
  return <time dateTime={date}>{date}</time>;
}
