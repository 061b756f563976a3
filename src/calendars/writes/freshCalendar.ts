/**
 * The fresh provider check before every write: the calendar's rights as the provider states
 * them now (not as they were when the account was connected), the level the client sees the
 * calendar at with those rights, and the reasons a write must be refused.
 */
import { editRights } from '../../domain/editRights.ts';
import type { EditBlockedReason } from '../../domain/event.ts';
import type { CalendarView } from '../../domain/occurrences.ts';
import type { ProviderOccurrence } from '../../domain/providerFacts.ts';
import { visibleLevel } from '../../domain/visibility.ts';
import { AppError } from '../../errors.ts';
import { effectiveDetailLevel } from '../../policy/consent.ts';
import type { Principal } from '../../policy/principal.ts';
import type { Scope } from '../../policy/workspacePolicy.ts';
import type { AccountAccess, CalendarProvider, EventWriter } from '../../providers/port.ts';
import type { CalendarRecord } from '../../store/connectedAccounts.ts';
import type { PermittedCalendar } from '../permittedCalendars.ts';
import { calendarView } from '../reads/calendarEvents.ts';

export interface FreshCalendar {
  provider: CalendarProvider;
  writer: EventWriter;
  access: AccountAccess;
  /** The stored calendar with the provider's current rights and zone. */
  calendar: CalendarRecord;
  view: CalendarView;
}

/** A write refused for the event's editBlockedReason: the reason is the code (its message from the catalogue). */
export const refusal = (reason: EditBlockedReason, message?: string) =>
  new AppError(reason, message, { details: { editBlockedReason: reason } });

/** The scope a write needs; tools are listed by it too, this keeps the service safe on its own. */
export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) {
    throw refusal('access_denied', `This assistant was not given ${scope}.`);
  }
}

export async function freshCalendar(
  provider: CalendarProvider,
  access: AccountAccess,
  principal: Principal,
  permitted: PermittedCalendar,
): Promise<FreshCalendar> {
  const writer = provider.writer;
  if (writer === undefined) throw refusal('calendar_read_only', 'Calendars of this kind are read-only.');
  const stored = permitted.calendar;
  const listed = (await provider.listCalendars(access)).find(
    (c) => c.providerCalendarId === stored.providerCalendarId,
  );
  if (listed === undefined)
    throw new AppError('not_found', 'This calendar no longer exists at the provider.');
  const calendar: CalendarRecord = {
    ...stored,
    access: listed.access,
    ...(listed.timeZone === undefined ? {} : { timeZone: listed.timeZone }),
  };
  if (calendar.access !== 'owner' && calendar.access !== 'writer') throw refusal('calendar_read_only');
  const granted = principal.calendars.find((c) => c.calendarId === stored.id)?.detailLevel ?? 'busy';
  const view = calendarView(calendar, {
    detailLevel: effectiveDetailLevel(granted, principal.policy, calendar.access),
    privateDetails: principal.privateDetails,
  });
  return { provider, writer, access, calendar, view };
}

/** Whether the client sees this occurrence as busy only (level or privacy). */
export const maskedFor = (fresh: FreshCalendar, occurrence: ProviderOccurrence): boolean =>
  visibleLevel(fresh.view.detailLevel, occurrence.privacy, fresh.view.privateDetails) === 'busy';

/** Refuses an edit or delete with the event's editBlockedReason. */
export function checkEditable(fresh: FreshCalendar, occurrence: ProviderOccurrence): void {
  const rights = editRights({
    access: fresh.calendar.access,
    masked: maskedFor(fresh, occurrence),
    status: occurrence.status,
    facts: occurrence.facts,
  });
  if (!rights.canEdit) throw refusal(rights.editBlockedReason ?? 'unknown');
}
