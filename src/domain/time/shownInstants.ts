/**
 * An instant as shown with a zone's offset, written out by arithmetic: the string Temporal's
 * `Instant#toString({ smallestUnit: 'second', timeZone })` gives, at a tenth of its cost (a
 * page of 250 events shows 500 of them). Temporal still says which offset holds when: each
 * zone's last stretch between two offset changes is remembered (a page's events mostly share a
 * zone and an offset), one per zone, for a bounded number of zones. Pure but for that memo of
 * zone rules, which no input can grow past its bound.
 */

interface OffsetStretch {
  /** Instants (epoch ms) in [fromMs, untilMs) have this offset. */
  fromMs: number;
  untilMs: number;
  offsetMs: number;
  /** The offset as shown: rounded to the minute, as Temporal shows it. */
  shown: string;
}

/** Zones remembered at once: a deployment shows a few; past this the memo starts again. */
const zonesKept = 64;
const stretches = new Map<string, OffsetStretch>();

const two = (n: number) => (n < 10 ? `0${n}` : String(n));

function offsetShown(offsetMs: number): string {
  // Half away from zero, to the minute, as Temporal rounds an offset it shows.
  const minutes = Math.sign(offsetMs) * Math.floor(Math.abs(offsetMs) / 60_000 + 0.5);
  const sign = minutes < 0 ? '-' : '+';
  const whole = Math.abs(minutes);
  return `${sign}${two(Math.floor(whole / 60))}:${two(whole % 60)}`;
}

function stretchAt(at: Temporal.Instant, zone: string): OffsetStretch {
  const zoned = at.toZonedDateTimeISO(zone);
  const offsetMs = zoned.offsetNanoseconds / 1_000_000;
  const next = zoned.getTimeZoneTransition('next');
  // The last change at or before this instant (asked from just after it: 'previous' is strictly before).
  const last = Temporal.Instant.fromEpochNanoseconds(at.epochNanoseconds + 1n)
    .toZonedDateTimeISO(zone)
    .getTimeZoneTransition('previous');
  return {
    fromMs: last === null ? Number.NEGATIVE_INFINITY : last.epochMilliseconds,
    untilMs: next === null ? Number.POSITIVE_INFINITY : next.epochMilliseconds,
    offsetMs,
    shown: offsetShown(offsetMs),
  };
}

/** Days since 1970-01-01 as a proleptic Gregorian date (the civil-from-days algorithm). */
function civil(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shifted = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shifted + 2) / 5) + 1;
  const month = shifted < 10 ? shifted + 3 : shifted - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** `at` to the second with the offset `zone` has then (`2026-03-29T03:00:00+02:00`). */
export function instantInZone(at: Temporal.Instant, zone: string): string {
  const ms = at.epochMilliseconds;
  let stretch = stretches.get(zone);
  if (stretch === undefined || ms < stretch.fromMs || ms >= stretch.untilMs) {
    stretch = stretchAt(at, zone);
    if (stretches.size >= zonesKept && !stretches.has(zone)) stretches.clear();
    stretches.set(zone, stretch);
  }
  // Seconds rounded down, as Temporal truncates an instant (before 1970 too), then the offset.
  const local = Math.floor(ms / 1000) + stretch.offsetMs / 1000;
  const days = Math.floor(local / 86_400);
  const { year, month, day } = civil(days);
  // Four-digit years alone: others are written with six digits and a sign, left to Temporal.
  if (year < 0 || year > 9999) return at.toString({ smallestUnit: 'second', timeZone: zone });
  const second = local - days * 86_400;
  const y = year < 1000 ? String(year).padStart(4, '0') : String(year);
  return `${y}-${two(month)}-${two(day)}T${two(Math.floor(second / 3600))}:${two(Math.floor(second / 60) % 60)}:${two(second % 60)}${stretch.shown}`;
}
