/**
 * What both views share: elements built with text only (calendar text is never markup), the
 * result's parts (structured answer, notes, error), and times in words. Times are read from the
 * strings the result holds (RFC 3339 in the zone asked for, or a date), never moved to another zone.
 */

/** An element with attributes and children (strings become text nodes). */
function el(tag, attributes, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes ?? {}))
    if (value !== undefined && value !== false) element.setAttribute(key, value === true ? '' : value);
  element.append(...present(children));
  return element;
}

/** Children as given: nested lists flattened, absent ones (undefined) left out. */
const present = (children) =>
  children.flat(Number.POSITIVE_INFINITY).filter((c) => c !== undefined && c !== null);

const viewRoot = () => document.getElementById('view');

function show(...children) {
  viewRoot().replaceChildren(...present(children));
}

function showProblem(text) {
  show(el('p', { class: 'problem', role: 'alert' }, text));
}

/**
 * The structured answer of a tool result, and its notes (the text parts after the JSON one);
 * an error result is shown as its message and gives undefined.
 */
function answerOf(result) {
  if (result?.isError) {
    showProblem(errorMessage(result, 'The request failed.'));
    return undefined;
  }
  const notes = (result?.content ?? []).slice(1).flatMap((c) => (c.type === 'text' ? [c.text] : []));
  return { answer: result?.structuredContent ?? {}, notes };
}

/** The message of an error result (`{"error":{"code","message"}}` in its first text part). */
function errorMessage(result, otherwise) {
  try {
    return JSON.parse(result.content[0].text).error.message ?? otherwise;
  } catch {
    return otherwise;
  }
}

const notesList = (notes) =>
  notes.length === 0
    ? undefined
    : el(
        'ul',
        { class: 'notes' },
        notes.map((n) => el('li', {}, n)),
      );

/** "2026-03-02" of a time or date string. */
const dayOf = (time) => time.slice(0, 10);

/** "10:00" of a time string; undefined for a date. */
const clockOf = (time) => (time.length > 10 ? time.slice(11, 16) : undefined);

/** "Mon 2 Mar" for a date, in the host's language (the date alone: no zone involved). */
function dayHeading(day, locale) {
  const [year, month, date] = day.split('-').map(Number);
  return new Intl.DateTimeFormat(locale, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  }).format(new Date(Date.UTC(year, month - 1, date)));
}

/** Items grouped by the day their start falls on, days in order of first appearance. */
function byDay(items, startOf) {
  const days = new Map();
  for (const item of items) {
    const day = dayOf(startOf(item));
    if (!days.has(day)) days.set(day, []);
    days.get(day).push(item);
  }
  return days;
}
