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
import {
  type CalendarRecord,
  type ConnectedAccount,
  findAccount,
  findCalendars,
} from '../store/connectedAccounts.ts';
import type { Database } from '../store/schema.ts';

export interface PermittedCalendar {
  calendar: CalendarRecord;
  account: ConnectedAccount;
  level: DetailLevel;
}

/** The requested calendars, each granted and still the person's; otherwise calendar_not_permitted. */
export async function permittedCalendars(
  db: Kysely<Database>,
  principal: Principal,
  calendarIds: readonly string[],
): Promise<PermittedCalendar[]> {
  const granted = new Map(principal.calendars.map((c) => [c.calendarId, c.detailLevel]));
  const records = new Map((await findCalendars(db, calendarIds)).map((c) => [c.id, c]));
  const accounts = new Map<string, ConnectedAccount | undefined>();
  const result: PermittedCalendar[] = [];
  const refused: string[] = [];
  for (const id of calendarIds) {
    const calendar = records.get(id);
    const level = granted.get(id);
    if (calendar !== undefined && !accounts.has(calendar.accountId)) {
      accounts.set(calendar.accountId, await findAccount(db, calendar.accountId));
    }
    const account = calendar && accounts.get(calendar.accountId);
    if (
      calendar === undefined ||
      level === undefined ||
      account === undefined ||
      account.userId !== principal.userId ||
      account.workspaceId !== principal.workspaceId
    ) {
      refused.push(id);
      continue;
    }
    result.push({ calendar, account, level: effectiveDetailLevel(level, principal.policy, calendar.access) });
  }
  // Unknown and forbidden ids get the same answer: no existence oracle.
  if (refused.length > 0) {
    throw new AppError('calendar_not_permitted', 'These calendars are not part of this grant.', {
      details: { calendarIds: refused },
    });
  }
  return result;
}
