/**
 * The agenda of list_events and search_events: the events of the result, day by day, each with
 * its time, length, title and places as the result holds them (a busy-only calendar's events
 * stay "Busy": masking happened before the result was made).
 */

/** "1 h 30 min", "2 days" of an ISO 8601 duration (P1DT2H, PT90M, P1W). */
function lengthInWords(duration) {
  const [, weeks, days, hours, minutes] =
    /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?/.exec(duration ?? '') ?? [];
  const allDays = Number(weeks ?? 0) * 7 + Number(days ?? 0);
  const allMinutes = Number(hours ?? 0) * 60 + Number(minutes ?? 0);
  return [
    allDays > 0 ? `${allDays} ${allDays === 1 ? 'day' : 'days'}` : undefined,
    allMinutes >= 60 ? `${Math.floor(allMinutes / 60)} h` : undefined,
    allMinutes % 60 > 0 ? `${allMinutes % 60} min` : undefined,
  ]
    .filter(Boolean)
    .join(' ');
}

function eventRow(event) {
  const clock = clockOf(event.start);
  const length = lengthInWords(event.duration);
  const places = (event.locations ?? []).map((l) => l.name).filter(Boolean);
  const marks = [
    event.status === 'tentative' ? 'tentative' : undefined,
    event.status === 'cancelled' ? 'cancelled' : undefined,
    event.freeBusyStatus === 'free' ? 'free' : undefined,
    event.responseStatus === 'needs-action' ? 'not answered' : undefined,
  ].filter(Boolean);
  return el(
    'li',
    { class: event.status === 'cancelled' ? 'event cancelled' : 'event' },
    el('span', { class: 'when' }, clock ?? 'All day', el('small', {}, length)),
    el(
      'span',
      { class: 'what' },
      el('strong', {}, event.title ?? ''),
      places.length > 0 ? el('small', {}, places.join(' · ')) : undefined,
      marks.length > 0 ? el('small', { class: 'marks' }, marks.join(', ')) : undefined,
    ),
  );
}

startView('calendar-agenda', (result, view) => {
  const read = answerOf(result);
  if (read === undefined) return;
  const { answer, notes } = read;
  const events = answer.termine ?? [];
  const query = view.input()?.query;
  const heading = query === undefined ? 'Agenda' : `Events matching “${query}”`;
  const count =
    answer.matched === undefined
      ? `${events.length} ${events.length === 1 ? 'event' : 'events'}`
      : `${answer.matched} found${answer.matched > events.length ? `, the first ${events.length} shown` : ''}`;
  const days = [...byDay(events, (e) => e.start)].map(([day, dayEvents]) =>
    el(
      'section',
      { class: 'day', 'aria-label': dayHeading(day, view.locale()) },
      el('h2', {}, dayHeading(day, view.locale())),
      el('ul', { class: 'events' }, dayEvents.map(eventRow)),
    ),
  );
  show(
    el('header', {}, el('h1', {}, heading), el('p', { class: 'quiet' }, count)),
    days.length > 0 ? days : el('p', { class: 'quiet' }, 'Nothing in this window.'),
    answer.truncated && answer.nextCursor !== undefined
      ? el('p', { class: 'quiet' }, 'More events follow: the assistant can ask for the next page.')
      : undefined,
    notesList(notes),
  );
});
