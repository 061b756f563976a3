/**
 * Expansion of the simple series the fake supports: one `RRULE` with FREQ=DAILY, WEEKLY (BYDAY,
 * WKST=MO), MONTHLY (one BYMONTHDAY, or one BYDAY with its ordinal such as 2TU or -1FR) or
 * YEARLY (BYMONTH with BYMONTHDAY), optional INTERVAL, COUNT or UNTIL (no EXDATE — cancel an
 * instance with an exception event instead). Months without the day are skipped, as RFC 5545
 * says. The fake expands only rules whose first date is the event's own start. Instances keep
 * the master's wall-clock time in its zone across DST changes and its exact duration, and get
 * Google's instance ids (`{id}_{start}`) and etags of their own that change with the master's.
 */
import { createHash } from 'node:crypto';
import type { GoogleEvent, GoogleEventDateTime } from '../../../src/providers/google/wire.ts';
import { type SimpleSeries, seriesDates } from '../seriesDates.ts';

/** Unbounded series stop after this many instances. */
const horizon = 1000;

interface Rule extends SimpleSeries {
  count?: number;
  until?: string;
}

const byDay = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const units = { DAILY: 'days', WEEKLY: 'weeks', MONTHLY: 'months', YEARLY: 'years' } as const;
/** The parts each frequency may have besides FREQ, INTERVAL, COUNT and UNTIL. */
const byParts: Record<keyof typeof units, string[]> = {
  DAILY: [],
  WEEKLY: ['BYDAY', 'WKST'],
  MONTHLY: ['BYDAY', 'BYMONTHDAY'],
  YEARLY: ['BYMONTH', 'BYMONTHDAY'],
};

/** A whole number from `min` to `max`, else a reason to refuse the rule. */
function whole(text: string | undefined, min: number, max: number): number {
  const value = Number(text);
  if (!/^-?\d+$/.test(text ?? '') || value < min || value > max) throw new Error(`bad number ${text}`);
  return value;
}

function parseRule(lines: string[]): Rule {
  const line = lines.find((candidate) => candidate.startsWith('RRULE:'));
  if (line === undefined) throw new Error('a recurring event needs an RRULE');
  const parts = new Map(
    line
      .slice(6)
      .split(';')
      .map((part) => part.split('=') as [string, string]),
  );
  const freq = parts.get('FREQ') as keyof typeof units;
  if (!(freq in units)) throw new Error(`the fake cannot expand FREQ=${freq}`);
  const unknown = [...parts.keys()].filter(
    (name) => !['FREQ', 'INTERVAL', 'COUNT', 'UNTIL', ...byParts[freq]].includes(name),
  );
  if (unknown.length > 0 || (parts.has('WKST') && parts.get('WKST') !== 'MO'))
    throw new Error(`the fake cannot expand ${line}`);
  const rule: Rule = {
    unit: units[freq],
    interval: parts.has('INTERVAL') ? whole(parts.get('INTERVAL'), 1, 1000) : 1,
    ...(parts.has('COUNT') ? { count: whole(parts.get('COUNT'), 1, 100000) } : {}),
    ...(parts.has('UNTIL') ? { until: parts.get('UNTIL')! } : {}),
    ...(parts.has('BYMONTHDAY') ? { dayOfMonth: whole(parts.get('BYMONTHDAY'), 1, 31) } : {}),
    ...(parts.has('BYMONTH') ? { month: whole(parts.get('BYMONTH'), 1, 12) } : {}),
  };
  const days = parts.get('BYDAY')?.split(',');
  if (days === undefined) return rule;
  if (freq === 'WEEKLY') {
    if (days.some((day) => !byDay.includes(day))) throw new Error(`the fake cannot expand ${line}`);
    return { ...rule, weekdays: days.map((day) => byDay.indexOf(day) + 1) };
  }
  const ordinal = /^([+-]?[1-5])([A-Z]{2})$/.exec(days.length === 1 ? days[0]! : '');
  if (ordinal === null || !byDay.includes(ordinal[2]!) || rule.dayOfMonth !== undefined)
    throw new Error(`the fake cannot expand ${line}`);
  return { ...rule, position: Number(ordinal[1]), weekdays: [byDay.indexOf(ordinal[2]!) + 1] };
}

/** The rule of a series whose first date is `first`, or why the fake cannot expand it. */
function ruleStartingOn(lines: string[], first: Temporal.PlainDate): Rule {
  const rule = parseRule(lines);
  const [date] = seriesDates(first, rule);
  if (date === undefined || !date.equals(first)) throw new Error("the start is not the rule's first date");
  return rule;
}

/** `20261231` or `20261231T235959Z` as an ISO date or instant string. */
const isoFromBasic = (basic: string) =>
  basic.length === 8
    ? `${basic.slice(0, 4)}-${basic.slice(4, 6)}-${basic.slice(6, 8)}`
    : `${basic.slice(0, 4)}-${basic.slice(4, 6)}-${basic.slice(6, 8)}T${basic.slice(9, 11)}:${basic.slice(11, 13)}:${basic.slice(13, 15)}Z`;

const basicFromIso = (iso: string) => iso.replaceAll('-', '').replaceAll(':', '');

export const formatDateTime = (zdt: Temporal.ZonedDateTime): string =>
  zdt.toString({ smallestUnit: 'second', timeZoneName: 'never' });

/** Where an event date-time falls, as an instant (all-day dates at midnight in `zone`). */
export function instantOf(value: GoogleEventDateTime, zone: string): Temporal.Instant {
  if (value.date !== undefined) return Temporal.PlainDate.from(value.date).toZonedDateTime(zone).toInstant();
  const dateTime = value.dateTime ?? '';
  return /(?:Z|[+-]\d{2}:\d{2})$/.test(dateTime)
    ? Temporal.Instant.from(dateTime)
    : Temporal.PlainDateTime.from(dateTime)
        .toZonedDateTime(value.timeZone ?? zone)
        .toInstant();
}

/** An instance's etag: its own, and a new one whenever the master changes. */
const instanceEtag = (masterEtag: string | undefined, id: string) =>
  `"${BigInt(`0x${createHash('sha256').update(`${masterEtag} ${id}`).digest('hex').slice(0, 13)}`)}"`;

/** Why Google would refuse this series on insert, if it would. */
export function recurrenceProblem(event: GoogleEvent): string | undefined {
  if (event.start?.dateTime !== undefined && event.start.timeZone === undefined)
    return 'Missing time zone definition for start time.';
  const start = event.start ?? {};
  // Without a start the event is refused for its times.
  if (start.date === undefined && start.dateTime === undefined) return undefined;
  try {
    const first =
      start.date !== undefined
        ? Temporal.PlainDate.from(start.date)
        : instantOf(start, 'UTC')
            .toZonedDateTimeISO(start.timeZone ?? 'UTC')
            .toPlainDate();
    ruleStartingOn(event.recurrence ?? [], first);
    return undefined;
  } catch {
    return 'Invalid recurrence rule.';
  }
}

/** Every instance of `master` (a stored event with `recurrence`), in order. */
export function expandSeries(master: GoogleEvent, calendarZone: string): GoogleEvent[] {
  const rule = parseRule(master.recurrence ?? []);
  const { recurrence: _, ...template } = master;
  const start = master.start ?? {};
  const end = master.end ?? {};
  const limit = Math.min(rule.count ?? horizon, horizon);
  const instances: GoogleEvent[] = [];

  if (start.date !== undefined) {
    const first = Temporal.PlainDate.from(start.date);
    const days = first.until(Temporal.PlainDate.from(end.date ?? start.date)).days;
    const until =
      rule.until === undefined ? undefined : Temporal.PlainDate.from(isoFromBasic(rule.until).slice(0, 10));
    for (const day of seriesDates(first, rule)) {
      if (instances.length >= limit) break;
      if (until !== undefined && Temporal.PlainDate.compare(day, until) > 0) break;
      const id = `${master.id}_${basicFromIso(day.toString())}`;
      instances.push({
        ...template,
        etag: instanceEtag(master.etag, id),
        id,
        recurringEventId: master.id,
        originalStartTime: { date: day.toString() },
        start: { date: day.toString() },
        end: { date: day.add({ days }).toString() },
      });
    }
    return instances;
  }

  const zone = start.timeZone ?? calendarZone;
  const first = instantOf(start, zone).toZonedDateTimeISO(zone);
  const length = instantOf(start, zone).until(instantOf(end, end.timeZone ?? zone));
  const until = rule.until === undefined ? undefined : Temporal.Instant.from(isoFromBasic(rule.until));
  for (const day of seriesDates(first.toPlainDate(), rule)) {
    if (instances.length >= limit) break;
    // The first start's wall-clock time on that day, as Google keeps it across DST changes.
    const at = day.toZonedDateTime({ timeZone: zone, plainTime: first.toPlainTime() });
    if (until !== undefined && Temporal.Instant.compare(at.toInstant(), until) > 0) break;
    const when = { dateTime: formatDateTime(at), timeZone: zone };
    const id = `${master.id}_${basicFromIso(at.toInstant().toString())}`;
    instances.push({
      ...template,
      etag: instanceEtag(master.etag, id),
      id,
      recurringEventId: master.id,
      originalStartTime: when,
      start: when,
      end: { dateTime: formatDateTime(at.add(length)), timeZone: end.timeZone ?? zone },
    });
  }
  return instances;
}

/** Whether an instance's originalStartTime is the one named (a date, or any RFC 3339 form). */
export function sameOriginalStart(original: GoogleEventDateTime | undefined, named: string, zone: string) {
  if (original === undefined) return false;
  if (/^\d{4}-\d{2}-\d{2}$/.test(named)) return original.date === named;
  return original.dateTime !== undefined && instantOf(original, zone).equals(Temporal.Instant.from(named));
}
