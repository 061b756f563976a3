/**
 * The calendars a request names, each checked against the grant and still the person's own
 * (in the grant's workspace), with the level the client sees it at now. Anything else —
 * unknown, someone else's, not shared — is `calendar_not_permitted`, the same answer for all.
 */
import type { Kysely } from 'kysely';
import type { DetailLevel } from '../domain/detailLevels.ts';
import { AppError } from '../errors.ts';
import { effectiveDetailLevel } from '../policy/consent.ts';
import type { Principal } from '../policy/principal.ts';
import { type CalendarRecord, type ConnectedAccount, ownCalendars } from '../store/connectedAccounts.ts';
import type { Database } from '../store/schema.ts';

export interface PermittedCalendar {
  calendar: CalendarRecord;
  account: ConnectedAccount;
  level: DetailLevel;
}

/**
 * The requested calendars, each granted and still the person's; otherwise calendar_not_permitted.
 * Only granted ids reach the database (an id with a NUL byte or another person's calendar never
 * does), and those always cost the same one query (the calendars joined with the person's
 * accounts): neither answer nor time tells whether a calendar exists.
 */
export async function permittedCalendars(
  db: Kysely<Database>,
  principal: Principal,
  calendarIds: readonly string[],
): Promise<PermittedCalendar[]> {
  const granted = new Map(principal.calendars.map((c) => [c.calendarId, c.detailLevel]));
  const lookups = [...new Set(calendarIds.filter((id) => granted.has(id)))];
  const own = new Map(
    (await ownCalendars(db, lookups, principal.userId, principal.workspaceId)).map((found) => [
      found.calendar.id,
      found,
    ]),
  );
  const result: PermittedCalendar[] = [];
  const refused: string[] = [];
  for (const id of calendarIds) {
    const found = own.get(id);
    const level = granted.get(id);
    if (found === undefined || level === undefined) {
      refused.push(id);
      continue;
    }
    const { calendar, account } = found;
    result.push({ calendar, account, level: effectiveDetailLevel(level, principal.policy, calendar.access) });
  }
  // Unknown and forbidden ids get the same answer (no existence oracle), one that says where ids
  // come from: a calendar's name passed as its id is the usual mistake.
  if (refused.length > 0) {
    throw new AppError(
      'calendar_not_permitted',
      'These calendar ids are unknown to this grant: use the ids list_calendars returns (GET /v1/calendars on REST), not calendar names.',
      {
        details: { calendarIds: refused },
      },
    );
  }
  return result;
}
