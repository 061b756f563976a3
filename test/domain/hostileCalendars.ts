/** iCalendar texts that once stalled or crashed the service: the sizes and shapes of issue 13. */

const header = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//hostile//test//EN\r\nX-WR-TIMEZONE:Etc/UTC\r\n';
const footer = 'END:VCALENDAR\r\n';

const event = (uid: string, lines: string[]) =>
  ['BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20260101T000000Z', ...lines, 'END:VEVENT', ''].join('\r\n');

export const calendarOf = (body: string) => `${header}${body}${footer}`;

/** A zone whose STANDARD and DAYLIGHT parts change every second from `since` (ical.js expands it without end). */
export function secondlyZone(tzid: string, since: '1600' | '2026'): string {
  return [
    'BEGIN:VTIMEZONE',
    `TZID:${tzid}`,
    'BEGIN:STANDARD',
    `DTSTART:${since}0101T000000`,
    'RRULE:FREQ=SECONDLY',
    'TZOFFSETFROM:+0100',
    'TZOFFSETTO:+0000',
    'END:STANDARD',
    'BEGIN:DAYLIGHT',
    `DTSTART:${since}0101T000001`,
    'RRULE:FREQ=SECONDLY',
    'TZOFFSETFROM:+0000',
    'TZOFFSETTO:+0100',
    'END:DAYLIGHT',
    'END:VTIMEZONE',
    '',
  ].join('\r\n');
}

/** One event in the hostile zone and one plain UTC event beside it. */
export function hostileZoneCalendar(since: '1600' | '2026', tzid = 'Hostile/Seconds'): string {
  return calendarOf(
    secondlyZone(tzid, since) +
      event('in-hostile-zone', [`DTSTART;TZID=${tzid}:20260310T090000`, 'DURATION:PT1H', 'SUMMARY:Zoned']) +
      event('plain', ['DTSTART:20260310T100000Z', 'DURATION:PT1H', 'SUMMARY:Plain']),
  );
}

/** `count` events repeating every second since 1970. */
export function secondlyEvents(count: number): string {
  return calendarOf(
    Array.from({ length: count }, (_, i) =>
      event(`secondly-${i}`, ['DTSTART:19700101T000000Z', 'DURATION:PT1S', 'RRULE:FREQ=SECONDLY']),
    ).join(''),
  );
}

/** `count` rules that can never produce an instance (30 February). */
export function impossibleRules(count: number): string {
  return calendarOf(
    Array.from({ length: count }, (_, i) =>
      event(`impossible-${i}`, [
        'DTSTART:20260101T090000Z',
        'DURATION:PT1H',
        'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
      ]),
    ).join(''),
  );
}

/** `count` single events, one a minute from 1 March 2026. */
export function ordinaryEvents(count: number): string {
  const start = Temporal.Instant.from('2026-03-01T00:00:00Z');
  const stamp = (instant: Temporal.Instant) => instant.toString().replaceAll(/[-:]/g, '');
  return calendarOf(
    Array.from({ length: count }, (_, i) =>
      event(`ordinary-${i}`, [
        `DTSTART:${stamp(start.add({ minutes: i }))}`,
        'DURATION:PT30M',
        `SUMMARY:Event ${i}`,
      ]),
    ).join(''),
  );
}

/** One event with `count` RDATEs, one an hour from 1 January 2020. */
export function manyRdates(count: number): string {
  const start = Temporal.Instant.from('2020-01-01T00:00:00Z');
  const stamp = (instant: Temporal.Instant) => instant.toString().replaceAll(/[-:]/g, '');
  const dates = Array.from({ length: count }, (_, i) => `RDATE:${stamp(start.add({ hours: i }))}`);
  return calendarOf(event('rdates', ['DTSTART:20200101T000000Z', 'DURATION:PT30M', ...dates]));
}
