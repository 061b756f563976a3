/**
 * Events of one CalDAV calendar: a calendar-query REPORT for the window (Radicale ignores
 * `expand`, so the server returns whole objects and the expansion pool expands them, off the
 * request thread and within one budget for the calendar), and a GET for one object.
 */
import { unplacedSlackMs } from '../../domain/ical/window.ts';
import type { EventsResult, ProviderOccurrence } from '../../domain/providerFacts.ts';
import type { TimeWindow } from '../../domain/window.ts';
import type { ExpansionPool } from '../expansionPool.ts';
import { type DavSession, davRequest, readReportInPool, unexpectedAnswer } from './client.ts';
import { parseEventId } from './objects.ts';
import { calendarQueryBody } from './wire.ts';

export async function listEventsIn(
  session: DavSession,
  calendarUrl: URL,
  window: TimeWindow,
  selfAddresses: string[],
  pool: ExpansionPool,
): Promise<EventsResult> {
  // Floating and all-day events are placed later, in a zone not known yet: ask as wide as expandIcs keeps them.
  const slack = { milliseconds: unplacedSlackMs };
  const body = calendarQueryBody(window.start.subtract(slack), window.end.add(slack));
  const answer = await davRequest(session, {
    method: 'REPORT',
    url: calendarUrl,
    depth: '1',
    body,
    what: 'the calendar',
  });
  const read = await readReportInPool(pool, session, answer, 'the calendar', {
    calendarUrl: calendarUrl.href,
    window,
    selfAddresses,
  });
  return { occurrences: read.objects.flatMap((object) => object.occurrences), skipped: read.skipped };
}

export async function getEventIn(
  session: DavSession,
  calendarUrl: URL,
  providerEventId: string,
  recurrenceId: string | undefined,
  selfAddresses: string[],
  pool: ExpansionPool,
): Promise<ProviderOccurrence | undefined> {
  const target = parseEventId(calendarUrl, providerEventId);
  if (target === undefined) return undefined;
  const answer = await davRequest(session, {
    method: 'GET',
    url: target.url,
    accept: 'text/calendar',
    what: 'the event',
  });
  if ([403, 404, 410].includes(answer.status)) return undefined;
  if (answer.status !== 200) throw unexpectedAnswer(session, answer, 'the event');
  const version = answer.headers.get('etag') ?? undefined;
  const occurrence = await pool.find(session.accountKey, answer.body, target.uid, recurrenceId, {
    ...(version !== undefined && { version }),
    selfAddresses,
  });
  return occurrence && { ...occurrence, providerEventId };
}
