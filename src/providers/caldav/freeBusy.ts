/**
 * Other people's busy time through CalDAV scheduling (RFC 6638 §5): a VFREEBUSY request POSTed
 * to the principal's schedule outbox, answered per recipient with a request-status and a
 * VFREEBUSY reply. Only the FREEBUSY periods are read (every FBTYPE but FREE is busy, RFC 5545
 * §3.2.9); a recipient the server cannot answer for, or whose periods are not in UTC, is left
 * out. A server without an outbox (Radicale) is not asked: it cannot tell.
 */
import ICAL from 'ical.js';
import type { BusySpan } from '../../domain/availability.ts';
import type { TimeWindow } from '../../domain/window.ts';
import { type DavSession, davRequest, unexpectedAnswer } from './client.ts';
import { parseScheduleResponse } from './wire.ts';

export interface FreeBusyQuery {
  outboxUrl: URL;
  /** The asking user's own address: the request's ORGANIZER (§5: the outbox owner's). */
  organizer: string;
  emails: readonly string[];
  window: TimeWindow;
  now: Temporal.Instant;
}

export async function caldavFreeBusy(
  session: DavSession,
  query: FreeBusyQuery,
): Promise<Map<string, BusySpan[]>> {
  const known = new Map<string, BusySpan[]>();
  if (query.emails.length === 0) return known;
  const answer = await davRequest(session, {
    method: 'POST',
    url: query.outboxUrl,
    body: requestBody(query),
    contentType: 'text/calendar; charset=utf-8',
    // Asks, changes nothing: it may be sent again.
    idempotent: true,
    what: 'the schedule outbox',
  });
  if (answer.status !== 200) throw unexpectedAnswer(session, answer, 'the schedule outbox');
  let replies: ReturnType<typeof parseScheduleResponse>;
  try {
    replies = parseScheduleResponse(answer.body);
  } catch {
    throw unexpectedAnswer(session, answer, 'the schedule outbox');
  }
  for (const reply of replies) {
    if (!/^mailto:/i.test(reply.recipient) || !reply.requestStatus.startsWith('2.')) continue;
    const busy = busyIn(reply.calendarData);
    if (busy !== undefined) known.set(reply.recipient.slice('mailto:'.length).toLowerCase(), busy);
  }
  return known;
}

function requestBody({ organizer, emails, window, now }: FreeBusyQuery): string {
  const utc = (instant: Temporal.Instant) =>
    ICAL.Time.fromDateTimeString(instant.toString({ smallestUnit: 'second' }));
  const calendar = new ICAL.Component('vcalendar');
  calendar.addPropertyWithValue('version', '2.0');
  calendar.addPropertyWithValue('prodid', '-//Calendar Access Service//EN');
  calendar.addPropertyWithValue('method', 'REQUEST');
  const request = new ICAL.Component('vfreebusy');
  request.addPropertyWithValue('uid', crypto.randomUUID());
  request.addPropertyWithValue('dtstamp', utc(now));
  request.addPropertyWithValue('dtstart', utc(window.start));
  request.addPropertyWithValue('dtend', utc(window.end));
  request.addPropertyWithValue('organizer', `mailto:${organizer}`);
  for (const email of emails) request.addPropertyWithValue('attendee', `mailto:${email}`);
  calendar.addSubcomponent(request);
  return `${calendar.toString()}\r\n`;
}

/** The busy periods of a VFREEBUSY reply; undefined when it cannot be read as one. */
function busyIn(calendarData: string): BusySpan[] | undefined {
  try {
    const reply = new ICAL.Component(ICAL.parse(calendarData)).getFirstSubcomponent('vfreebusy');
    if (reply === null) return undefined;
    const spans: BusySpan[] = [];
    for (const property of reply.getAllProperties('freebusy')) {
      if (String(property.getParameter('fbtype') ?? 'BUSY').toUpperCase() === 'FREE') continue;
      for (const period of property.getValues() as InstanceType<typeof ICAL.Period>[]) {
        const start = Temporal.Instant.from(utcText(period.start));
        const end = Temporal.Instant.from(utcText(period.getEnd()));
        if (Temporal.Instant.compare(start, end) < 0)
          spans.push({ startNs: start.epochNanoseconds, endNs: end.epochNanoseconds });
      }
    }
    return spans;
  } catch {
    return undefined;
  }
}

/** FREEBUSY periods are in UTC (RFC 5545 §3.8.2.6); any other is not read as a time. */
function utcText(time: InstanceType<typeof ICAL.Time>): string {
  const text = time.toString();
  if (!text.endsWith('Z')) throw new Error('a FREEBUSY period not in UTC');
  return text;
}
