/**
 * Free and busy times: get_availability's busy intervals on a bar per day, and
 * find_meeting_times' slots to pick. A slot picked, given a title, asks the host to call
 * create_event (the host may ask the person first); the event is made in a calendar the tool
 * was asked about, at the slot's times in the zone it was asked in, with an idempotency key per
 * request so the same request repeated never makes a second event.
 */

const minutesOf = (time) => Number(time.slice(11, 13)) * 60 + Number(time.slice(14, 16));

/** "10:00 – 11:00", with the end's day when it is another one. */
function span(start, end, locale) {
  const endDay = dayOf(end) === dayOf(start) ? '' : `${dayHeading(dayOf(end), locale)} `;
  return `${clockOf(start)} – ${endDay}${clockOf(end)}`;
}

/** A day's 24 hours with its busy intervals marked (to the day's end when one goes on). */
function dayBar(day, intervals) {
  return el(
    'div',
    { class: 'bar', 'aria-hidden': 'true' },
    intervals.map(({ start, end }) => {
      const from = minutesOf(start);
      const to = dayOf(end) === day ? minutesOf(end) : 1440;
      return el('span', {
        style: `left:${(from / 14.4).toFixed(2)}%;width:${((to - from) / 14.4).toFixed(2)}%`,
      });
    }),
  );
}

function busyDays(answer, view) {
  const locale = view.locale();
  const days = [...byDay(answer.busy, (b) => b.start)].map(([day, intervals]) =>
    el(
      'section',
      { class: 'day' },
      el('h2', {}, dayHeading(day, locale)),
      dayBar(day, intervals),
      el(
        'p',
        { class: 'hours', 'aria-hidden': 'true' },
        ['00:00', '06:00', '12:00', '18:00', '24:00'].map((h) => el('span', {}, h)),
      ),
      el(
        'ul',
        { class: 'times' },
        intervals.map((b) => el('li', {}, `Busy ${span(b.start, b.end, locale)}`)),
      ),
    ),
  );
  const unknown = (answer.attendees ?? []).filter((a) => a.availability === 'unknown').map((a) => a.email);
  return [
    el(
      'header',
      {},
      el('h1', {}, 'Busy times'),
      el('p', { class: 'quiet' }, 'Free outside these times. To pick a time, ask for meeting times.'),
    ),
    days.length > 0 ? days : el('p', { class: 'quiet' }, 'Free for the whole window.'),
    unknown.length > 0 ? el('p', { class: 'quiet' }, `Not known: ${unknown.join(', ')}.`) : undefined,
  ];
}

/** An idempotency key create_event takes (letters, digits and a dash). */
const newKey = () =>
  `slot-${Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('')}`;

/**
 * The form under the slots: title, calendar (when several were asked about), and the request.
 * Not a <form>: a host's sandbox may leave out allow-forms, which stops a submission outright.
 */
function pickForm(view) {
  const calendarIds = view.input()?.calendarIds ?? [];
  const status = el('p', { class: 'status', role: 'status' });
  const title = el('input', {
    id: 'title',
    name: 'title',
    required: true,
    maxlength: '1024',
    autocomplete: 'off',
  });
  const calendar = el(
    'select',
    { id: 'calendar', name: 'calendar' },
    calendarIds.map((id) => el('option', { value: id }, id)),
  );
  const submit = el('button', { type: 'button', class: 'primary' }, 'Create event');
  const chosen = el('p', { class: 'chosen' });
  const form = el(
    'section',
    { class: 'pick', hidden: true, 'aria-label': 'Create an event in the chosen slot' },
    chosen,
    el('label', { for: 'title' }, 'Title'),
    title,
    calendarIds.length > 1 ? [el('label', { for: 'calendar' }, 'Calendar'), calendar] : undefined,
    submit,
    status,
  );
  let slot;
  /** One key per distinct request: a repeat is the same event, a changed request another. */
  const keys = new Map();
  const withKey = (args) => {
    const request = JSON.stringify(args);
    if (!keys.has(request)) keys.set(request, newKey());
    return { ...args, idempotencyKey: keys.get(request) };
  };
  let named = false;
  /**
   * The calendars' names instead of their ids, asked of list_calendars once; those the event
   * cannot be written to (read-only, or shared as busy times only) cannot be chosen.
   */
  const nameCalendars = async () => {
    named = true;
    const listed = (await view.callTool('list_calendars', {}))?.structuredContent?.calendars ?? [];
    for (const option of [...calendar.options]) {
      const found = listed.find((c) => c.id === option.value);
      if (found === undefined) continue;
      option.textContent = found.name;
      option.disabled = found.readOnly === true || found.detailLevel === 'busy';
    }
    calendar.selectedIndex = [...calendar.options].findIndex((o) => !o.disabled);
  };
  title.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') submit.click();
  });
  submit.addEventListener('click', async () => {
    if (title.value.trim() === '') {
      status.textContent = 'Give the event a title.';
      title.focus();
      return;
    }
    submit.disabled = true;
    status.textContent = 'Asking to create the event…';
    const input = view.input() ?? {};
    try {
      const result = await view.callTool(
        'create_event',
        withKey({
          calendarId: calendar.value || calendarIds[0],
          title: title.value.trim(),
          start: slot.start,
          end: slot.end,
          ...(input.timeZone === undefined ? {} : { timeZone: input.timeZone }),
        }),
      );
      if (result?.isError) {
        status.textContent = errorMessage(result, 'The event was not created.');
      } else {
        const made = result?.structuredContent?.event ?? {};
        status.textContent = `Created “${made.title ?? title.value}”, ${dayHeading(dayOf(slot.start), view.locale())} ${span(slot.start, slot.end, view.locale())}.`;
        form.classList.add('done');
        return;
      }
    } catch (error) {
      status.textContent = `The event was not created: ${error.message}`;
    }
    submit.disabled = false;
  });
  return {
    form,
    choose(picked) {
      slot = picked;
      form.hidden = false;
      form.classList.remove('done');
      submit.disabled = false;
      status.textContent = '';
      chosen.textContent = `${dayHeading(dayOf(slot.start), view.locale())}, ${span(slot.start, slot.end, view.locale())}`;
      title.focus();
      if (!named && calendarIds.length > 1) nameCalendars().catch(() => {});
    },
  };
}

function slotDays(answer, view) {
  const locale = view.locale();
  const picking = view.canCallTools();
  const picker = picking ? pickForm(view) : undefined;
  const buttons = [];
  const slotItem = (slot) => {
    const text = span(slot.start, slot.end, locale);
    if (!picking) return el('li', {}, text);
    const button = el('button', { type: 'button', class: 'slot', 'aria-pressed': 'false' }, text);
    button.addEventListener('click', () => {
      for (const b of buttons) b.setAttribute('aria-pressed', String(b === button));
      picker.choose(slot);
    });
    buttons.push(button);
    return el('li', {}, button);
  };
  const days = [...byDay(answer.slots, (s) => s.start)].map(([day, slots]) =>
    el(
      'section',
      { class: 'day' },
      el('h2', {}, dayHeading(day, locale)),
      el('ul', { class: 'slots' }, slots.map(slotItem)),
    ),
  );
  const first = answer.slots[0] ?? {};
  const who = [
    first.free?.length > 0 ? `Free for ${first.free.join(', ')}.` : undefined,
    first.unknown?.length > 0 ? `Not known for ${first.unknown.join(', ')}.` : undefined,
  ].filter(Boolean);
  return [
    el(
      'header',
      {},
      el('h1', {}, 'Free slots'),
      el(
        'p',
        { class: 'quiet' },
        picking ? 'Pick a slot to create an event.' : 'This host cannot create events from here.',
      ),
      who.length > 0 ? el('p', { class: 'quiet' }, who.join(' ')) : undefined,
    ),
    days.length > 0 ? days : el('p', { class: 'quiet' }, 'No free slot in this window.'),
    picker?.form,
  ];
}

startView('calendar-free-times', (result, view) => {
  const read = answerOf(result);
  if (read === undefined) return;
  const { answer, notes } = read;
  show(
    ...(answer.slots === undefined ? busyDays(answer, view) : slotDays(answer, view)),
    answer.truncated
      ? el('p', { class: 'quiet' }, 'A calendar was not read completely: check before relying on this.')
      : undefined,
    notesList(notes),
  );
});
