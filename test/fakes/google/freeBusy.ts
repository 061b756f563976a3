/**
 * The fake's freeBusy.query (`POST /freeBusy`): the busy spans of the people whose calendars
 * the account may see, set by the test (`google.freeBusy.set(email, busy)`), cut to
 * [timeMin, timeMax); any other id answers with `errors: [{reason: 'notFound'}]`, as Google
 * does for a calendar it cannot show. A body without timeMin, timeMax or items is a 400, and
 * more than 50 items is `tooManyCalendarsRequested` (calendarExpansionMax).
 */
import { type FakeRequest, type FakeResponse, googleError, json } from './http.ts';

interface Span {
  start: string;
  end: string;
}

const maxItems = 50;

export class FakeFreeBusy {
  readonly #people = new Map<string, Span[]>();

  /** Makes this person's busy time visible to the account (e.g. a colleague in its organisation). */
  set(email: string, busy: Span[]): void {
    this.#people.set(email.toLowerCase(), busy);
  }

  handle(request: FakeRequest): FakeResponse {
    let body: { timeMin?: unknown; timeMax?: unknown; items?: unknown };
    try {
      body = JSON.parse(request.body) as typeof body;
    } catch {
      return googleError(400, { reason: 'parseError', message: 'Parse Error' });
    }
    const { timeMin, timeMax, items } = body;
    if (typeof timeMin !== 'string' || typeof timeMax !== 'string' || !Array.isArray(items))
      return googleError(400, { reason: 'required', message: 'Missing time range or items.' });
    if (items.length > maxItems)
      return googleError(400, {
        reason: 'tooManyCalendarsRequested',
        message: 'Too many calendars requested.',
      });
    let min: Temporal.Instant;
    let max: Temporal.Instant;
    try {
      min = Temporal.Instant.from(timeMin);
      max = Temporal.Instant.from(timeMax);
    } catch {
      return googleError(400, { reason: 'invalid', message: 'Bad Request' });
    }
    const calendars: Record<string, unknown> = {};
    for (const item of items as Array<{ id?: string }>) {
      const id = item.id ?? '';
      const busy = this.#people.get(id.toLowerCase());
      calendars[id] =
        busy === undefined
          ? { errors: [{ domain: 'global', reason: 'notFound' }], busy: [] }
          : { busy: cut(busy, min, max) };
    }
    return json({ kind: 'calendar#freeBusy', timeMin, timeMax, calendars });
  }
}

function cut(busy: Span[], min: Temporal.Instant, max: Temporal.Instant): Span[] {
  const later = (a: Temporal.Instant, b: Temporal.Instant) => (Temporal.Instant.compare(a, b) > 0 ? a : b);
  const earlier = (a: Temporal.Instant, b: Temporal.Instant) => (Temporal.Instant.compare(a, b) < 0 ? a : b);
  return busy.flatMap(({ start, end }) => {
    const from = later(Temporal.Instant.from(start), min);
    const to = earlier(Temporal.Instant.from(end), max);
    return Temporal.Instant.compare(from, to) < 0 ? [{ start: from.toString(), end: to.toString() }] : [];
  });
}
