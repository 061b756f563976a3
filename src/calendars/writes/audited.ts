/**
 * Every write attempt is recorded with what came of it — never event content — including those
 * that name an event or calendar not shared with the app (no calendar is recorded for those).
 */
import { type AppError, isAppError } from '../../errors.ts';
import { epochMs } from '../../lib/clock.ts';
import type { Principal } from '../../policy/principal.ts';
import { recordEventWrite, type WriteAction, type WriteOutcome } from '../../store/eventWrites.ts';
import type { CalendarDeps } from '../calendarDeps.ts';

export interface WriteSubject {
  action: WriteAction;
  /** Set by the run once the named calendar is known to be shared with the app. */
  calendarId: string | null;
  eventId: string | null;
  occurrenceId: string | null;
  scope: 'occurrence' | 'series' | null;
}

function outcomeOf(error: AppError): WriteOutcome {
  if (error.code === 'conflict') return 'conflict';
  if (error.code === 'write_outcome_unknown') return 'unknown';
  // A provider failure before or during the write that did not make it.
  if (error.code === 'provider_unavailable' || error.code === 'reconnect_required') return 'not_applied';
  return 'refused';
}

/** Runs the write and records its outcome; the run completes `subject` (its calendar, a new event's id). */
export async function audited<T extends { outcome: WriteOutcome }>(
  deps: CalendarDeps,
  principal: Principal,
  subject: WriteSubject,
  run: () => Promise<T>,
): Promise<T> {
  const record = async (outcome: WriteOutcome, errorCode: string | null) =>
    recordEventWrite(deps.db, {
      userId: principal.userId,
      workspaceId: principal.workspaceId,
      grantId: principal.grantId,
      clientId: principal.clientId,
      ...subject,
      outcome,
      errorCode,
      at: epochMs(deps.clock),
    });
  // The copy shows what the provider now holds before the caller is answered (read-your-writes).
  const refreshCopy = async () => {
    if (subject.calendarId !== null) await deps.copies?.afterWrite(subject.calendarId);
  };
  let result: T;
  try {
    result = await run();
  } catch (error) {
    if (isAppError(error) && error.code === 'write_outcome_unknown') await refreshCopy();
    await record(
      isAppError(error) ? outcomeOf(error) : 'unknown',
      isAppError(error) ? error.code : 'internal_error',
    );
    throw error;
  }
  await refreshCopy();
  await record(result.outcome, null);
  return result;
}
