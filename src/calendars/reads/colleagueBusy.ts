/**
 * Colleagues' busy time for availability and meeting times: an attendee who is a member of the
 * caller's workspace, where the policy shares free/busy, gives the busy time of the calendars
 * they let count, read from their synced copies — times only, never an event — and the working
 * hours they set, if any (to the same callers only, with their busy time). Anyone else is
 * asked of the providers of the caller's own accounts (outsiderBusy.ts); whoever is not told
 * about is `unknown`, with the reason.
 */
import type { BusySpan } from '../../domain/availability.ts';
import type { TimeWindow } from '../../domain/window.ts';
import type { WorkingHours } from '../../domain/workingHours.ts';
import type { Principal } from '../../policy/principal.ts';
import { defaultPolicy } from '../../policy/workspacePolicy.ts';
import { countingCalendarsOf } from '../../store/connectedAccounts.ts';
import { workingHoursOf } from '../../store/workingHours.ts';
import { findPolicy, membersByEmailKey } from '../../store/workspaces.ts';
import type { CalendarDeps } from '../calendarDeps.ts';
import { calendarView } from './calendarEvents.ts';
import { readCopiesBusy } from './copyEvents.ts';
import { outsidersBusy, type ProviderSource } from './outsiderBusy.ts';

/**
 * Why an attendee's availability is not known (a closed list: the tools' schemas enumerate it).
 * `outside_workspace`: no account of the caller could be asked; `provider_cannot_tell`: those
 * asked could not say (another organisation, a failure, no such lookup).
 */
export const unknownReasons = [
  'outside_workspace',
  'not_shared',
  'not_synced',
  'provider_cannot_tell',
] as const;
export type UnknownReason = (typeof unknownReasons)[number];

/** Where known busy time came from (a closed list as well). */
export const busySources = ['workspace', 'google', 'microsoft', 'caldav'] as const;
export type BusySource = 'workspace' | ProviderSource;

export interface AttendeeAddress {
  email: string;
  /** The case-insensitive key sign-in addresses are stored by. */
  key: string;
}

/** Working hours, where known: a member's own setting, or what the provider told (Graph). */
export type AttendeeAvailability = { workingHours?: WorkingHours } & (
  | { email: string; availability: 'known'; source: BusySource; busy: BusySpan[] }
  | { email: string; availability: 'unknown'; reason: UnknownReason }
);

export async function attendeesBusy(
  deps: CalendarDeps,
  principal: Principal,
  attendees: readonly AttendeeAddress[],
  request: { window: TimeWindow; timeZone?: string; tentativeIsBusy: boolean },
): Promise<AttendeeAvailability[]> {
  const members = await membersByEmailKey(
    deps.db,
    principal.workspaceId,
    attendees.map((a) => a.key),
  );
  const unknown = (email: string, reason: UnknownReason): AttendeeAvailability => ({
    email,
    availability: 'unknown',
    reason,
  });
  // Read now, not from the grant's cached principal: turned off, it is off for the next answer.
  const shared =
    attendees.length > 0 &&
    ((await findPolicy(deps.db, principal.workspaceId)) ?? defaultPolicy).colleagueAvailability;
  const hours = shared
    ? await workingHoursOf(deps.db, [...members.values()])
    : new Map<string, WorkingHours>();
  const outsiders = attendees.filter((a) => !members.has(a.key));
  const outside = outsidersBusy(
    deps,
    principal,
    outsiders.map((a) => a.key),
    request.window,
  );
  outside.catch(() => {}); // awaited below, at the first outsider: not left unhandled meanwhile
  const answers: AttendeeAvailability[] = [];
  for (const { email, key } of attendees) {
    const userId = members.get(key);
    if (userId === undefined) {
      const { known, asked } = await outside;
      const told = known.get(key);
      if (told !== undefined) answers.push({ email, availability: 'known', ...told });
      else answers.push(unknown(email, asked ? 'provider_cannot_tell' : 'outside_workspace'));
      continue;
    }
    if (!shared) {
      answers.push(unknown(email, 'not_shared'));
      continue;
    }
    const calendars = await countingCalendarsOf(deps.db, userId, principal.workspaceId);
    // A person who lets no calendar count shares no availability.
    if (calendars.length === 0) {
      answers.push(unknown(email, 'not_shared'));
      continue;
    }
    const copies =
      deps.copies === undefined
        ? new Map()
        : await deps.copies.forRead(
            calendars.map((c) => c.id),
            request.window,
          );
    const own = hours.get(userId);
    const workingHours = own === undefined ? {} : { workingHours: own };
    // Every counting calendar must answer: one missing would show busy time as free.
    if (calendars.some((c) => !copies.has(c.id))) {
      answers.push({ ...unknown(email, 'not_synced'), ...workingHours });
      continue;
    }
    const parts = calendars.map((calendar) => ({
      view: calendarView(calendar, {
        detailLevel: 'busy',
        privateDetails: false,
        ...(request.timeZone === undefined ? {} : { timeZone: request.timeZone }),
      }),
      copy: copies.get(calendar.id)!,
    }));
    const { busy, refused } = await readCopiesBusy(deps, parts, request.window, request.tentativeIsBusy);
    if (refused.length > 0) throw refused[0]!.error;
    answers.push({ email, availability: 'known', source: 'workspace', busy, ...workingHours });
  }
  return answers;
}
