/**
 * The record of writes apps attempted on people's calendars: metadata only, never event content.
 * An attempt is recorded `pending` before the provider is asked and settled after; one whose
 * process died in the middle stays pending, and is listed as interrupted (its outcome unknown)
 * once it is too old to be under way.
 */
import type { Kysely } from 'kysely';
import { withoutStrayControlCharacters } from '../lib/text.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export type WriteAction = 'create' | 'update' | 'delete' | 'respond';
/** applied; already_applied (an idempotent repeat); not_applied; unknown; conflict; refused. */
export type WriteOutcome = 'applied' | 'already_applied' | 'not_applied' | 'unknown' | 'conflict' | 'refused';
/** A record's outcome, or pending while the write is under way. */
export type WriteState = WriteOutcome | 'pending';
/** As listed: a record still pending long after any write could take, its process gone, is interrupted. */
export type ListedState = WriteState | 'interrupted';

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
  scope: 'occurrence' | 'series' | 'following' | null;
  outcome: WriteState;
  errorCode: string | null;
  at: number;
}

/** What an attempt turned out to be, and what the run learned of it (its calendar, a new event's id). */
export interface EventWriteSettled {
  calendarId: string | null;
  eventId: string | null;
  outcome: WriteState;
  errorCode: string | null;
  /** create_event's idempotency key (hashed), named before the provider is asked. */
  keyHash?: string;
  /** "This and following": the new series the split made. */
  newEventId?: string;
}

export interface EventWriteRow extends Omit<EventWriteEntry, 'outcome'> {
  id: number;
  outcome: ListedState;
  /** The app's name as the person saw it at consent. */
  clientName: string | null;
  /** The calendar's name, while the calendar is still connected. */
  calendarName: string | null;
  /** "This and following": the new series the split made. */
  newEventId: string | null;
}

/** The ids a client sent are recorded as sent, refused ones too, less what PostgreSQL cannot store. */
const asSent = (id: string | null) => id && withoutStrayControlCharacters(id);

/** Records an attempt; its id settles it. */
export async function recordEventWrite(db: Db, entry: EventWriteEntry): Promise<number> {
  const row = await db
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
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function settleEventWrite(db: Db, id: number, settled: EventWriteSettled): Promise<void> {
  await db
    .updateTable('event_writes')
    .set({
      calendar_id: asSent(settled.calendarId),
      event_id: asSent(settled.eventId),
      outcome: settled.outcome,
      error_code: settled.errorCode,
      ...(settled.keyHash === undefined ? {} : { key_hash: settled.keyHash }),
      ...(settled.newEventId === undefined ? {} : { new_event_id: settled.newEventId }),
    })
    .where('id', '=', id)
    .execute();
}

/**
 * Settles the attempts a client made with this idempotency key that are still pending (their
 * process died before their outcome was recorded), from what the provider now shows.
 */
export async function settleEarlierAttempts(
  db: Db,
  owner: { userId: string; clientId: string },
  keyHash: string,
  settled: { outcome: 'applied' | 'not_applied'; eventId: string | null },
): Promise<void> {
  await db
    .updateTable('event_writes')
    .set({
      outcome: settled.outcome,
      ...(settled.eventId === null ? {} : { event_id: settled.eventId }),
    })
    .where('user_id', '=', owner.userId)
    .where('client_id', '=', owner.clientId)
    .where('key_hash', '=', keyHash)
    .where('outcome', '=', 'pending')
    .execute();
}

/** A person's most recent writes, newest first; those still pending from before `unsettledBefore` interrupted. */
export async function eventWritesOf(
  db: Db,
  userId: string,
  { unsettledBefore = Number.NEGATIVE_INFINITY, limit = 50 } = {},
): Promise<EventWriteRow[]> {
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
    newEventId: r.new_event_id,
    occurrenceId: r.occurrence_id,
    action: r.action as WriteAction,
    scope: r.scope as EventWriteEntry['scope'],
    outcome:
      r.outcome === 'pending' && Number(r.created_at) < unsettledBefore
        ? 'interrupted'
        : (r.outcome as WriteState),
    errorCode: r.error_code,
    at: Number(r.created_at),
    clientName: r.client_name,
    calendarName: r.calendar_name,
  }));
}
