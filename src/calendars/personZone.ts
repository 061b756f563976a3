/**
 * The zone a person's pages show times in: their default calendar's, else the first of their
 * calendars that names one, else UTC (said on the page, so never a silent guess).
 */
import type { Kysely } from 'kysely';
import { accountsOf, calendarsOfAccount } from '../store/connectedAccounts.ts';
import type { Database } from '../store/schema.ts';
import { defaultCalendarId } from './defaultCalendar.ts';

export async function personZone(db: Kysely<Database>, userId: string): Promise<string> {
  const accounts = await accountsOf(db, userId);
  const calendars = await Promise.all(accounts.map((a) => calendarsOfAccount(db, a.id)));
  const all = calendars.flat();
  const primary = all.find((c) => c.id === defaultCalendarId(calendars));
  return primary?.timeZone ?? all.find((c) => c.timeZone !== undefined)?.timeZone ?? 'UTC';
}
