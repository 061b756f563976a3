/**
 * Instants as people read them on the pages: in their own zone, near ones in words ("5 min ago",
 * "yesterday 14:00", "Tue 14:00"), the exact instant only in a tooltip. Days are the zone's
 * calendar days, so a day of 23 or 25 hours (a DST change) is still one day.
 */
import { type Html, html } from './html.ts';

const weekdays = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const two = (n: number) => String(n).padStart(2, '0');

/** "14:05": the 24-hour clock of a local time. */
export const clockTime = (t: Temporal.ZonedDateTime | Temporal.PlainTime): string =>
  `${two(t.hour)}:${two(t.minute)}`;

/** "Tue 3 Mar": a day as the consent preview heads it. */
export const dayName = (d: Temporal.PlainDate): string =>
  `${weekdays[d.dayOfWeek - 1]} ${d.day} ${months[d.month - 1]}`;

/** How an instant reads to someone in `zone` at `now`. */
export function whenWords(then: Temporal.Instant, now: Temporal.Instant, zone: string): string {
  const minutes = Math.round(now.since(then).total('minutes'));
  if (Math.abs(minutes) < 1) return 'just now';
  if (minutes > 0 && minutes < 60) return `${minutes} min ago`;
  if (minutes < 0 && minutes > -60) return `in ${-minutes} min`;
  const local = then.toZonedDateTimeISO(zone);
  const days = local.toPlainDate().since(now.toZonedDateTimeISO(zone).toPlainDate()).days;
  const time = clockTime(local);
  if (days === 0) return `today ${time}`;
  if (days === -1) return `yesterday ${time}`;
  if (days === 1) return `tomorrow ${time}`;
  if (Math.abs(days) < 7) return `${weekdays[local.dayOfWeek - 1]} ${time}`;
  const date = `${local.day} ${months[local.month - 1]}`;
  return local.year === now.toZonedDateTimeISO(zone).year ? `${date} ${time}` : `${date} ${local.year}`;
}

/** Where a page's reader is in time: the moment the page is made, and their zone. */
export interface ReaderTime {
  now: Temporal.Instant;
  zone: string;
}

/** The instant in words, its ISO form (with the zone's offset) in the tooltip and `datetime`. */
export function timeTag(epochMs: number, { now, zone }: ReaderTime): Html {
  const then = Temporal.Instant.fromEpochMilliseconds(epochMs);
  const exact = then.toZonedDateTimeISO(zone).toString({ smallestUnit: 'minute', timeZoneName: 'never' });
  return html`<time datetime="${then.toString()}" title="${exact}">${whenWords(then, now, zone)}</time>`;
}
