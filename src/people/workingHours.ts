/**
 * A person's own working hours, as they set them on their page: meeting times others look for
 * with them stay inside these (where their workspace shares availability). Checked whole before
 * anything is saved.
 */
import type { Kysely } from 'kysely';
import { parseWorkingHours, type WorkingHours } from '../domain/workingHours.ts';
import { type Clock, epochMs } from '../lib/clock.ts';
import type { Database } from '../store/schema.ts';
import { clearWorkingHours, saveWorkingHours, workingHoursOf } from '../store/workingHours.ts';

type Db = Kysely<Database>;

/** The fields as a form sends them: one day or many, text otherwise. */
export interface WorkingHoursForm {
  days?: unknown;
  start?: unknown;
  end?: unknown;
  timeZone?: unknown;
}

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/** The days a form sent: none, one, or many. */
export const formDays = (value: unknown): string[] =>
  [value ?? []].flat().filter((day): day is string => typeof day === 'string');

export async function ownWorkingHours(db: Db, userId: string): Promise<WorkingHours | undefined> {
  return (await workingHoursOf(db, [userId])).get(userId);
}

/** Sets the person's hours (`invalid_request` or `invalid_time_zone` naming the field: nothing saved). */
export async function setWorkingHours(
  db: Db,
  clock: Clock,
  userId: string,
  form: WorkingHoursForm,
): Promise<WorkingHours> {
  const hours = parseWorkingHours({
    days: formDays(form.days),
    start: text(form.start),
    end: text(form.end),
    timeZone: text(form.timeZone),
  });
  await saveWorkingHours(db, userId, hours, epochMs(clock));
  return hours;
}

/** Forgets the person's hours: none known to anyone again. */
export async function forgetWorkingHours(db: Db, userId: string): Promise<void> {
  await clearWorkingHours(db, userId);
}
