import { dateTimeParts } from '../format';

// A time in a table cell: it reads as dateTime() does ("7 Dec 2026, 04:12:33") but may fold between
// the day and the time of day, never inside either, so a time column takes the width of a day.

export function When(props: { iso: string | null | undefined }) {
  const parts = props.iso ? dateTimeParts(props.iso) : undefined;
  if (!parts) return <>{props.iso || '—'}</>;
  return (
    <time dateTime={props.iso!}>
      <span class="nowrap">{parts[0]},</span> <span class="nowrap">{parts[1]}</span>
    </time>
  );
}
