/**
 * The account page's record of what apps changed in the person's calendars: when, which app,
 * what kind of change, in which calendar, and what came of it. Never the event's content.
 */
import { writeUnderWayAtMostMs } from '../../calendars/writes/audited.ts';
import type { AppContext } from '../../context.ts';
import { epochMs } from '../../lib/clock.ts';
import { type EventWriteRow, eventWritesOf, type ListedState } from '../../store/eventWrites.ts';
import type { User } from '../../store/users.ts';
import { type Html, html } from '../html.ts';
import { type ReaderTime, timeTag } from '../when.ts';

const actions: Record<EventWriteRow['action'], string> = {
  create: 'Created an event',
  update: 'Changed an event',
  delete: 'Deleted an event',
  respond: 'Answered an invitation',
};

const scopes: Record<string, string> = {
  occurrence: ' (one occurrence)',
  series: ' (whole series)',
  following: ' (this and following occurrences)',
};

const outcomes: Record<ListedState, string> = {
  pending: 'Under way',
  interrupted: 'Unknown: the service stopped during the change; check the calendar',
  applied: 'Done',
  already_applied: 'Done before (repeated request)',
  not_applied: 'Not done',
  unknown: 'Unknown: check the calendar',
  conflict: 'Not done: the event had changed',
  refused: 'Refused',
};

/** No calendar recorded: the app named one it was not given (or, unsettled, not yet checked). */
function calendarCell(w: EventWriteRow): Html | string {
  if (w.calendarName !== null) return w.calendarName;
  const unsettled = w.outcome === 'pending' || w.outcome === 'interrupted';
  const missing = unsettled ? 'not known' : 'not one shared with the app';
  return html`<span class="muted">${w.calendarId === null ? missing : 'a removed calendar'}</span>`;
}

export async function appWritesSection(ctx: AppContext, user: User, time: ReaderTime): Promise<Html> {
  const writes = await eventWritesOf(ctx.db, user.id, {
    unsettledBefore: epochMs(ctx.clock) - writeUnderWayAtMostMs(ctx.config.providerTimeoutMs),
  });
  if (writes.length === 0) return html`<p>No app has changed your calendars.</p>`;
  return html`<table class="stack"><thead><tr><th>When</th><th>App</th><th>Change</th><th>Calendar</th><th>Result</th></tr></thead><tbody>
${writes.map(
  (
    w,
  ) => html`<tr><td data-label="When">${timeTag(w.at, time)}</td><td data-label="App">${w.clientName ?? w.clientId}</td>
<td data-label="Change">${actions[w.action]}${scopes[w.scope ?? ''] ?? ''}${w.newEventId === null ? '' : ', now a series of their own'}</td>
<td data-label="Calendar">${calendarCell(w)}</td>
<td data-label="Result">${outcomes[w.outcome]}${w.errorCode === null ? '' : html` <code>${w.errorCode}</code>`}</td></tr>`,
)}
</tbody></table>`;
}
