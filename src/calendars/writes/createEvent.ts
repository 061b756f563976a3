/**
 * create_event: an event (or the first of a series) in a calendar the grant reaches, with a provider-side identity
 * (uid) the service chooses before sending, so that neither a timed-out attempt nor a repeated
 * request can make a second event. With the client's idempotencyKey the same key always
 * answers with the same event, and settles the record of an attempt a crash left pending.
 */
import { createHash } from 'node:crypto';
import type { Event } from '../../domain/event.ts';
import type { EventFields, Guest, NewEvent } from '../../domain/eventChanges.ts';
import { parseRecurrence, type RecurrenceInput } from '../../domain/eventRecurrence.ts';
import { parseTiming, type TimingInput } from '../../domain/eventTiming.ts';
import type { GuestsAnswer } from '../../domain/guests.ts';
import { toEvent } from '../../domain/occurrences.ts';
import { checkWriteLimits } from '../../domain/writeAlerts.ts';
import { AppError, isAppError } from '../../errors.ts';
import { epochMs } from '../../lib/clock.ts';
import { newProviderUid } from '../../lib/ids.ts';
import { narrowRights } from '../../policy/eventRights.ts';
import type { Principal } from '../../policy/principal.ts';
import { providerFor } from '../../providers/registry.ts';
import { settleEarlierAttempts } from '../../store/eventWrites.ts';
import { despiteStorageOutage } from '../../store/storageFull.ts';
import { claimWriteKey, confirmWriteKey, findWriteKey, type WriteKey } from '../../store/writeKeys.ts';
import type { CalendarDeps } from '../calendarDeps.ts';
import { withConnection } from '../connections/connections.ts';
import { permittedCalendars } from '../permittedCalendars.ts';
import { audited, type WriteSubject } from './audited.ts';
import { type FreshCalendar, freshCalendar, refusal, requireScope } from './freshCalendar.ts';
import { invitations } from './guestWrites.ts';
import { attempt } from './settle.ts';

export interface CreateInput extends Omit<EventFields, 'timing' | 'title' | 'guests' | 'recurrence'> {
  calendarId: string;
  title: string;
  timing: TimingInput;
  recurrence?: RecurrenceInput;
  /** Invited; the calendar sends the invitations where it delivers them. */
  attendees?: Guest[];
  idempotencyKey?: string;
}

export interface CreatedEvent {
  /** already_applied: this idempotencyKey made the event before; it was not made again. */
  outcome: 'applied' | 'already_applied';
  event: Event;
  confirmedByRead: boolean;
  /** The guests invited, and whether the calendar sent them invitations. */
  guests?: GuestsAnswer;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

/** The key's record, claimed for this request, or the one an earlier request left. */
async function keyRecord(
  deps: CalendarDeps,
  principal: Principal,
  key: string,
  calendarId: string,
  draft: NewEvent,
): Promise<WriteKey> {
  const owner = { userId: principal.userId, clientId: principal.clientId };
  const keyHash = sha256(key);
  const requestHash = sha256(JSON.stringify([calendarId, draft]));
  let record = await findWriteKey(deps.db, owner, keyHash);
  if (record === undefined) {
    const fresh: WriteKey = {
      ...owner,
      keyHash,
      requestHash,
      calendarId,
      uid: newProviderUid(),
      providerEventId: null,
      createdAt: epochMs(deps.clock),
    };
    // A concurrent request with the same key may claim it first; then its record is the one.
    if (await claimWriteKey(deps.db, fresh)) return fresh;
    record = await findWriteKey(deps.db, owner, keyHash);
  }
  if (record === undefined || record.requestHash !== requestHash) {
    throw new AppError(
      'conflict',
      'This idempotencyKey was already used for a different event. Use a new key for a new event; repeat a request only with exactly the same arguments.',
      { details: { reason: 'idempotency_key_reused', field: 'idempotencyKey' } },
    );
  }
  return record;
}

async function readCreated(
  deps: CalendarDeps,
  principal: Principal,
  fresh: FreshCalendar,
  providerEventId: string,
) {
  const created = await fresh.provider.getEvent(fresh.access, fresh.calendar, providerEventId);
  if (created === undefined) {
    throw new AppError(
      'not_found',
      'The event was created, but could not be read back; read the calendar again later.',
      {
        details: { applied: true },
      },
    );
  }
  return narrowRights(toEvent(created, fresh.view, deps.ids), principal.scopes);
}

export async function createEvent(
  deps: CalendarDeps,
  principal: Principal,
  input: CreateInput,
): Promise<CreatedEvent> {
  const subject: WriteSubject = {
    action: 'create',
    calendarId: null,
    eventId: null,
    occurrenceId: null,
    scope: null,
  };
  return audited(deps, principal, subject, async (intend) => {
    const [permitted] = await permittedCalendars(deps.db, principal, [input.calendarId]);
    const { calendar, account } = permitted!;
    subject.calendarId = calendar.id;
    return withConnection(deps, account, async (access) => {
      subject.connection = { calendar, account, access };
      requireScope(principal, 'calendar:write');
      const provider = providerFor(deps.providers, account.provider);
      const fresh = await freshCalendar(provider, access, principal, permitted!);
      if (fresh.view.detailLevel === 'busy') {
        throw refusal(
          'access_denied',
          'The assistant sees this calendar as busy times only, so it may not add events to it.',
        );
      }
      const { calendarId: _, timing: timingInput, recurrence, attendees, idempotencyKey, ...fields } = input;
      const timing = parseTiming(timingInput, fresh.calendar.timeZone ?? 'Etc/UTC');
      const guests = await invitations(fresh, attendees);
      const draft: NewEvent = {
        ...fields,
        timing,
        ...(recurrence === undefined ? {} : { recurrence: parseRecurrence(recurrence, timing) }),
        ...(guests === undefined ? {} : { guests: { add: attendees!, remove: [] } }),
      };
      checkWriteLimits(account.provider, draft);
      const key =
        idempotencyKey === undefined
          ? undefined
          : await keyRecord(deps, principal, idempotencyKey, calendar.id, draft);
      if (key !== undefined) subject.keyHash = key.keyHash;
      const uid = key?.uid ?? newProviderUid();
      const done = async (
        providerEventId: string,
        outcome: CreatedEvent['outcome'],
        confirmedByRead: boolean,
      ) => {
        // Unconfirmed (the database full or away), a repeat still finds the event by its uid.
        if (key !== undefined && key.providerEventId === null)
          await confirmWriteKey(deps.db, key, providerEventId).catch(despiteStorageOutage);
        subject.eventId = deps.ids.eventId(calendar.id, providerEventId);
        return {
          outcome,
          event: await readCreated(deps, principal, fresh, providerEventId),
          confirmedByRead,
          ...(guests === undefined ? {} : { guests }),
        };
      };

      // A key used before: the event it made, never a second one. What the provider shows also
      // settles the records of earlier attempts with this key that a crash left pending.
      if (key !== undefined) {
        const owner = { userId: principal.userId, clientId: principal.clientId };
        const earlier =
          key.providerEventId ?? (await fresh.writer.findCreated(fresh.access, fresh.calendar, uid));
        if (
          earlier !== undefined &&
          (await provider.getEvent(fresh.access, fresh.calendar, earlier)) !== undefined
        ) {
          await settleEarlierAttempts(deps.db, owner, key.keyHash, {
            outcome: 'applied',
            eventId: deps.ids.eventId(calendar.id, earlier),
          });
          return done(earlier, 'already_applied', false);
        }
        if (key.providerEventId !== null) {
          throw new AppError(
            'not_found',
            'The event this idempotencyKey created has since been deleted; use a new key to create it again.',
            { details: { field: 'idempotencyKey' } },
          );
        }
        await settleEarlierAttempts(deps.db, owner, key.keyHash, { outcome: 'not_applied', eventId: null });
      }

      await intend();
      const findCreated = () => fresh.writer.findCreated(fresh.access, fresh.calendar, uid);
      try {
        const attempted = await attempt(
          () => fresh.writer.createEvent(fresh.access, fresh.calendar, draft, uid),
          {
            verify: async () => ((await findCreated()) === undefined ? 'not_applied' : 'applied'),
            check: { calendarId: calendar.id, title: draft.title, timing: draft.timing },
            retry:
              idempotencyKey === undefined
                ? 'Trying again is safe now; pass an idempotencyKey to make any repeat safe.'
                : 'Trying again with the same idempotencyKey is safe.',
          },
        );
        const providerEventId = attempted.value ?? (await findCreated());
        if (providerEventId === undefined)
          throw new AppError('not_found', 'The created event could not be found.');
        return done(providerEventId, 'applied', attempted.confirmedByRead);
      } catch (error) {
        // The uid is taken: an earlier attempt with this key made the event after all.
        if (isAppError(error) && error.code === 'conflict' && error.details?.reason === 'exists') {
          const existing = await findCreated();
          if (existing !== undefined && key !== undefined) return done(existing, 'already_applied', false);
        }
        throw error;
      }
    });
  });
}
