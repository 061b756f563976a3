/** People's own working hours, one setting per person. */
import type { Kysely } from 'kysely';
import type { Weekday } from '../domain/eventRecurrence.ts';
import type { WorkingHours } from '../domain/workingHours.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** The working hours of those of the users who set theirs, by user id. */
export async function workingHoursOf(db: Db, userIds: readonly string[]): Promise<Map<string, WorkingHours>> {
  const hours = new Map<string, WorkingHours>();
  if (userIds.length === 0) return hours;
  const rows = await db.selectFrom('working_hours').selectAll().where('user_id', 'in', userIds).execute();
  for (const row of rows) {
    hours.set(row.user_id, {
      days: row.days.split(',') as Weekday[],
      start: row.start_time,
      end: row.end_time,
      timeZone: row.time_zone,
    });
  }
  return hours;
}

/** Sets the person's working hours, replacing any before. */
export async function saveWorkingHours(
  db: Db,
  userId: string,
  hours: WorkingHours,
  now: number,
): Promise<void> {
  const values = {
    days: hours.days.join(','),
    start_time: hours.start,
    end_time: hours.end,
    time_zone: hours.timeZone,
    updated_at: now,
  };
  await db
    .insertInto('working_hours')
    .values({ user_id: userId, ...values })
    .onConflict((c) => c.column('user_id').doUpdateSet(values))
    .execute();
}

/** Forgets the person's working hours: none known again. */
export async function clearWorkingHours(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('working_hours').where('user_id', '=', userId).execute();
}
