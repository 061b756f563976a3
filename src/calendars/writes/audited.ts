/**
 * Every write attempt is recorded with what came of it — never event content — including those
 * that name an event or calendar not shared with the app (no calendar is recorded for those).
 * The attempt is on record before the provider is asked, and settled after: a crash in between
 * leaves it pending, listed as interrupted once no write could still be under way.
 */
import { type AppError, isAppError } from '../../errors.ts';
import { epochMs } from '../../lib/clock.ts';
import type { Principal } from '../../policy/principal.ts';
import {
  recordEventWrite,
  settleEventWrite,
  type WriteAction,
  type WriteOutcome,
  type WriteState,
} from '../../store/eventWrites.ts';
import { despiteStorageOutage } from '../../store/storageFull.ts';
import type { CalendarDeps } from '../calendarDeps.ts';
import type { OpenConnection } from '../copies.ts';

export interface WriteSubject {
  action: WriteAction;
  /** Once the named calendar is known to be shared with the app: given, or set by the run. */
  calendarId: string | null;
  eventId: string | null;
  occurrenceId: string | null;
  scope: 'occurrence' | 'series' | 'following' | null;
  /** create_event's idempotency key (hashed), set by the run once claimed. */
  keyHash?: string;
  /** "This and following": the new series, set by the run once made (the record names both halves). */
  newEventId?: string;
  /** The calendar's connection, set by the run once opened: the copy's refresh syncs through it. */
  connection?: OpenConnection;
}

/**
 * How long a write can be under way: it asks the provider a handful of times (calendars, the
 * event, the write, a settling read, the read back), each within the provider timeout, reads with
 * retries. A record pending for longer was left by a process that died.
 */
export const writeUnderWayAtMostMs = (providerTimeoutMs: number) => 40 * providerTimeoutMs;

function outcomeOf(error: AppError): WriteOutcome {
  if (error.code === 'conflict') return 'conflict';
  if (error.code === 'write_outcome_unknown') return 'unknown';
  // A provider failure before or during the write that did not make it.
  if (error.code === 'provider_unavailable' || error.code === 'reconnect_required') return 'not_applied';
  return 'refused';
}

/**
 * Runs the write and records its outcome; the run completes `subject` (its calendar, a new event's
 * id) and calls `intend` to put what it learned on record before it asks the provider.
 */
export async function audited<T extends { outcome: WriteOutcome }>(
  deps: CalendarDeps,
  principal: Principal,
  subject: WriteSubject,
  run: (intend: () => Promise<void>) => Promise<T>,
): Promise<T> {
  // A full disk refuses the write here, before anything is asked of the provider.
  const id = await recordEventWrite(deps.db, {
    userId: principal.userId,
    workspaceId: principal.workspaceId,
    grantId: principal.grantId,
    clientId: principal.clientId,
    action: subject.action,
    calendarId: subject.calendarId,
    eventId: subject.eventId,
    occurrenceId: subject.occurrenceId,
    scope: subject.scope,
    outcome: 'pending',
    errorCode: null,
    at: epochMs(deps.clock),
  });
  const settle = (outcome: WriteState, errorCode: string | null) =>
    settleEventWrite(deps.db, id, {
      calendarId: subject.calendarId,
      eventId: subject.eventId,
      outcome,
      errorCode,
      ...(subject.keyHash === undefined ? {} : { keyHash: subject.keyHash }),
      ...(subject.newEventId === undefined ? {} : { newEventId: subject.newEventId }),
    });
  // Once the provider was asked, a full or absent database does not turn its answer into an error: the record
  // stays pending (listed as interrupted), the copy is synced later.
  // The copy shows what the provider now holds before the caller is answered (read-your-writes).
  const refreshCopy = async () => {
    if (subject.calendarId !== null)
      await deps.copies?.afterWrite(subject.calendarId, subject.connection).catch(despiteStorageOutage);
  };
  let result: T;
  try {
    result = await run(() => settle('pending', null));
  } catch (error) {
    if (isAppError(error) && error.code === 'write_outcome_unknown') await refreshCopy();
    await settle(
      isAppError(error) ? outcomeOf(error) : 'unknown',
      isAppError(error) ? error.code : 'internal_error',
    ).catch(despiteStorageOutage);
    throw error;
  }
  await refreshCopy();
  await settle(result.outcome, null).catch(despiteStorageOutage);
  return result;
}
