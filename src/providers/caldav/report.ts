/**
 * A REPORT answer that carries calendar objects (calendar-query, calendar-multiget), read whole
 * in one expansion-pool job: the WebDAV XML parsed, the objects picked, expanded within the
 * job's budget and kept near the window. Megabytes of object text never reach the request
 * thread; only occurrences do.
 */
import type { Budget } from '../../domain/budget.ts';
import { contentVersion } from '../contentVersion.ts';
import { expandWithin } from '../expandWithin.ts';
import type { ReportAnswer, ReportObject, ReportRequest } from '../expansionJobs.ts';
import { nearWindow } from '../nearWindow.ts';
import { memberKey, memberUrl } from './hrefs.ts';
import { eventIdOf, readObjects } from './objects.ts';
import { type DavResponse, parseMultistatus } from './wire.ts';

export function readReport(xml: string, request: ReportRequest, budget: Budget): ReportAnswer {
  let responses: DavResponse[];
  try {
    responses = parseMultistatus(xml);
  } catch (error) {
    return { error: (error as Error).message };
  }
  const calendarUrl = new URL(request.calendarUrl);
  const base = new URL(request.base);
  const asked = request.asked && new Map(request.asked.map((member) => [member.key, member.version]));
  const removals: string[] = [];
  if (asked !== undefined) {
    responses = responses.filter((response) => {
      const url = memberUrl(calendarUrl, base, response.href);
      // Only what was asked for: anything else the server adds is no member this sync knows.
      if (url === undefined || url === 'self' || !asked.has(memberKey(url))) return false;
      if (response.status === 404) removals.push(memberKey(url));
      return response.status !== 404;
    });
  }
  const read = readObjects(calendarUrl, base, responses);
  const answer = expandWithin(
    read.objects.map(({ ics, version }) => ({ ics, options: { ...(version !== undefined && { version }) } })),
    { selfAddresses: request.selfAddresses },
    request.window,
    budget,
  );
  const objects: ReportObject[] = [];
  const skipped = read.skipped;
  for (const [index, result] of answer.results.entries()) {
    const object = read.objects[index]!;
    const key = memberKey(object.url);
    const version = object.version ?? asked?.get(key) ?? contentVersion(object.ics);
    const idOf = (uid: string | undefined) => eventIdOf(calendarUrl, object.url, uid);
    if ('error' in result) {
      skipped.push({
        providerEventId: idOf(undefined),
        reason: `unreadable iCalendar object: ${result.error}`,
      });
      objects.push({ key, version, occurrences: [] });
      continue;
    }
    const occurrences = result.occurrences
      .filter((occurrence) => nearWindow(occurrence, request.window))
      .map((occurrence) => ({ ...occurrence, providerEventId: idOf(occurrence.providerEventId) }));
    objects.push({ key, version, occurrences });
    for (const item of result.skipped) skipped.push({ ...item, providerEventId: idOf(item.providerEventId) });
  }
  if (answer.over !== undefined) {
    const left = read.objects.length - answer.results.length;
    skipped.push({ reason: `${answer.over} (${left} object${left === 1 ? '' : 's'} not read)` });
  }
  return { objects, removals, skipped };
}
