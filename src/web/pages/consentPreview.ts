/**
 * "What <app> will see" beside the consent form: the person's next seven days read through the
 * one read service as a grant of the chosen calendars and levels would be read, masking and all.
 */
import type { WorkspaceOffer } from '../../auth/grants.ts';
import type { CalendarDeps } from '../../calendars/calendarDeps.ts';
import { type EventsRead, exclusionMeanings, readEvents } from '../../calendars/reads/readEvents.ts';
import type { DetailLevel } from '../../domain/detailLevels.ts';
import type { PlacedEvent } from '../../domain/occurrences.ts';
import type { Principal } from '../../policy/principal.ts';
import { type Html, html } from '../html.ts';
import { clockTime, dayName, type ReaderTime } from '../when.ts';

/** More than a week usually holds is cut, with a count of the rest. */
const shownAtMost = 60;

export interface PreviewRequest {
  userId: string;
  clientId: string;
  clientName: string;
  offer: WorkspaceOffer;
  /** A checked choice (policy/consent.ts#checkConsent); empty before any calendar is ticked. */
  calendars: Array<{ calendarId: string; detailLevel: DetailLevel }>;
  privateDetails: boolean;
}

/** The grant this choice would make, as the read service sees its caller. */
const principalOf = (r: PreviewRequest): Principal => ({
  userId: r.userId,
  workspaceId: r.offer.workspace.id,
  clientId: r.clientId,
  grantId: '',
  scopes: r.offer.scopes,
  calendars: r.calendars,
  privateDetails: r.privateDetails,
  policy: r.offer.policy,
});

/** The next seven days in the reader's zone: the rest of today and the six after it. */
function nextWeek({ now, zone }: ReaderTime) {
  const end = now.toZonedDateTimeISO(zone).toPlainDate().add({ days: 7 }).toZonedDateTime(zone).toInstant();
  return { start: now, end };
}

/** A description's first line, cut to what fits a line of the panel. */
const excerpt = (text: string): string => {
  const line = text.trim().split('\n')[0]!;
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
};

/** Names the calendar of each line when several are chosen. */
type CalendarNames = Map<string, string> | undefined;

function eventLine(placed: PlacedEvent, read: EventsRead, names: CalendarNames, zone: string): Html {
  const { event } = placed;
  const level = read.levels.get(event.calendarId);
  const start = Temporal.Instant.fromEpochNanoseconds(placed.startNs).toZonedDateTimeISO(zone);
  const end = Temporal.Instant.fromEpochNanoseconds(placed.endNs).toZonedDateTimeISO(zone);
  const slot = event.showWithoutTime ? 'All day' : `${clockTime(start)}–${clockTime(end)}`;
  // What each level adds, as far as one line shows it: a place (titles), a description and call links (full).
  const more = [
    event.locations?.[0]?.name,
    event.description === undefined ? undefined : excerpt(event.description),
    event.virtualLocations === undefined ? undefined : 'video call link',
  ].filter((part) => part !== undefined && part !== '');
  return html`<li><span class="slot">${slot}</span> <span${level === 'busy' ? html` class="busy"` : ''}>${event.title}</span>${more.map((part) => html` <span class="muted">· ${part}</span>`)}${names === undefined ? '' : html` <span class="muted">(${names.get(event.calendarId)})</span>`}</li>`;
}

function days(read: EventsRead, names: CalendarNames, zone: string): Html {
  if (read.events.length === 0) return html`<p>Nothing in the next seven days.</p>`;
  const byDay = new Map<string, PlacedEvent[]>();
  for (const placed of read.events.slice(0, shownAtMost)) {
    const day = Temporal.Instant.fromEpochNanoseconds(placed.startNs).toZonedDateTimeISO(zone).toPlainDate();
    const key = day.toString();
    byDay.set(key, [...(byDay.get(key) ?? []), placed]);
  }
  const rest = read.events.length - shownAtMost;
  return html`${[...byDay].map(
    ([day, events]) =>
      html`<h3>${dayName(Temporal.PlainDate.from(day))}</h3><ol>${events.map((e) => eventLine(e, read, names, zone))}</ol>`,
  )}${rest > 0 ? html`<p class="muted">and ${rest} more</p>` : ''}`;
}

/** The preview panel: one read of the chosen calendars, or what to do before there is one. */
export async function consentPreview(
  deps: CalendarDeps,
  request: PreviewRequest,
  time: ReaderTime,
): Promise<Html> {
  const heading = html`<h2 id="preview-title">What ${request.clientName} will see</h2>`;
  const frame = (content: Html) =>
    html`<section class="preview" id="preview" aria-labelledby="preview-title" aria-live="polite">${heading}${content}</section>`;
  if (request.calendars.length === 0)
    return frame(
      html`<p>Tick a calendar and choose its detail level: your next seven days appear here as ${request.clientName} would see them.</p>`,
    );
  const calendarIds = request.calendars.map((c) => c.calendarId);
  const read = await readEvents(deps, principalOf(request), {
    calendarIds,
    window: nextWeek(time),
    timeZone: time.zone,
  });
  const names = new Map(request.offer.accounts.flatMap((a) => a.calendars.map((c) => [c.id, c.name])));
  return frame(html`<p class="muted">Your next seven days at the levels chosen, times in ${time.zone}.</p>
${days(read, calendarIds.length > 1 ? names : undefined, time.zone)}
${read.excluded.map((x) => html`<p class="muted">${names.get(x.calendarId)} could not be read now: ${exclusionMeanings[x.reason]}.</p>`)}`);
}
