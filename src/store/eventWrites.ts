/** The record of writes apps attempted on people's calendars: metadata only, never event content. */
import type { Kysely } from 'kysely';
import { withoutStrayControlCharacters } from '../lib/text.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export type WriteAction = 'create' | 'update' | 'delete' | 'respond';
/** applied; already_applied (an idempotent repeat); not_applied; unknown; conflict; refused. */
export type WriteOutcome = 'applied' | 'already_applied' | 'not_applied' | 'unknown' | 'conflict' | 'refused';

export interface EventWriteEntry {
  userId: string;
  workspaceId: string;
  grantId: string;
  clientId: string;
  /** null: the app named an event or calendar that is not shared with it. */
  calendarId: string | null;
  eventId: string | null;
  occurrenceId: string | null;
  action: WriteAction;
  scope: 'occurrence' | 'series' | null;
  outcome: WriteOutcome;
  errorCode: string | null;
  at: number;
}

export interface EventWriteRow extends EventWriteEntry {
  id: number;
  /** The app's name as the person saw it at consent. */
  clientName: string | null;
  /** The calendar's name, while the calendar is still connected. */
  calendarName: string | null;
}

/** The ids a client sent are recorded as sent, refused ones too, less what PostgreSQL cannot store. */
const asSent = (id: string | null) => id && withoutStrayControlCharacters(id);

export async function recordEventWrite(db: Db, entry: EventWriteEntry): Promise<void> {
  await db
    .insertInto('event_writes')
    .values({
      user_id: entry.userId,
      workspace_id: entry.workspaceId,
      grant_id: entry.grantId,
      client_id: entry.clientId,
      calendar_id: asSent(entry.calendarId),
      event_id: asSent(entry.eventId),
      occurrence_id: asSent(entry.occurrenceId),
      action: entry.action,
      scope: entry.scope,
      outcome: entry.outcome,
      error_code: entry.errorCode,
      created_at: entry.at,
    })
    .execute();
}

/** A person's most recent writes, newest first. */
export async function eventWritesOf(db: Db, userId: string, limit = 50): Promise<EventWriteRow[]> {
  const rows = await db
    .selectFrom('event_writes')
    .leftJoin('access_grants', 'access_grants.id', 'event_writes.grant_id')
    .leftJoin('calendars', 'calendars.id', 'event_writes.calendar_id')
    .selectAll('event_writes')
    .select(['access_grants.client_name', 'calendars.name as calendar_name'])
    .where('event_writes.user_id', '=', userId)
    .orderBy('event_writes.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    userId: r.user_id,
    workspaceId: r.workspace_id,
    grantId: r.grant_id,
    clientId: r.client_id,
    calendarId: r.calendar_id,
    eventId: r.event_id,
    occurrenceId: r.occurrence_id,
    action: r.action as WriteAction,
    scope: r.scope as EventWriteEntry['scope'],
    outcome: r.outcome as WriteOutcome,
    errorCode: r.error_code,
    at: Number(r.created_at),
    clientName: r.client_name,
    calendarName: r.calendar_name,
  }));
}
