/**
 * update_event, delete_event and respond_to_event: the event named by the client, read fresh
 * from the provider with the calendar's current rights; a recurring event only with an explicit
 * scope (an occurrence edit never touches the series); the write conditional on the version
 * just read, so a change made in between is a `conflict` (with the event as it now is), never
 * a lost update; update and delete also compare what the caller read of the event (`seen`) with
 * the event now, so a change made since an earlier tool call is a `conflict` too; and a timed-out
 * write settled by reading, never by repeating it.
 */

import { respondBlockedReason } from '../../domain/editRights.ts';
import type { Event } from '../../domain/event.ts';
import type {
  EventFields,
  FollowingSeries,
  GuestNotice,
  RsvpResponse,
  WriteTarget,
} from '../../domain/eventChanges.ts';
import type { RecurrenceInput } from '../../domain/eventRecurrence.ts';
import { parseTiming, type TimingInput } from '../../domain/eventTiming.ts';
import type { GuestsAnswer } from '../../domain/guests.ts';
import { toEvent } from '../../domain/occurrences.ts';
import type { ProviderOccurrence } from '../../domain/providerFacts.ts';
import { changedSince, requireSeen, type SeenValues } from '../../domain/seenValues.ts';
import { exceptionsRefusal, planSeriesChange } from '../../domain/seriesChanges.ts';
import { exceptionsFrom, untilBefore } from '../../domain/seriesSplit.ts';
import { checkWriteLimits } from '../../domain/writeAlerts.ts';
import { showsChanges, showsResponse } from '../../domain/writeChecks.ts';
import { AppError, invalidField, isAppError } from '../../errors.ts';
import { newProviderUid } from '../../lib/ids.ts';
import { narrowRights } from '../../policy/eventRights.ts';
import type { Principal } from '../../policy/principal.ts';
import { providerFor } from '../../providers/registry.ts';
import type { CalendarDeps } from '../calendarDeps.ts';
import { withConnection } from '../connections/connections.ts';
import { type EventRef, resolveEvent } from '../eventRefs.ts';
import { audited, type WriteSubject } from './audited.ts';
import {
  checkEditable,
  type FreshCalendar,
  freshCalendar,
  maskedFor,
  refusal,
  requireScope,
} from './freshCalendar.ts';
import { type GuestChoice, guestPlan } from './guestWrites.ts';
import { type Attempt, attempt, type Settled } from './settle.ts';

/** "following": the named occurrence and every later one, split off the series (update and delete). */
export type WriteScope = 'occurrence' | 'series' | 'following';

export interface EventAddress {
  eventId: string;
  occurrenceId?: string;
  scope?: WriteScope;
}

export interface ChangedEvent {
  outcome: 'applied';
  event: Event;
  /** The provider did not confirm; a fresh read showed the change made. */
  confirmedByRead: boolean;
  /** The guests the change concerns, and whether the calendar told them. */
  guests?: GuestsAnswer;
}

export interface DeletedEvent {
  outcome: 'applied';
  /** "series" where "following" named the first occurrence, so the whole series went. */
  scope?: WriteScope;
  confirmedByRead: boolean;
  guests?: GuestsAnswer;
}

export interface Changes extends Omit<EventFields, 'timing' | 'recurrence'> {
  timing?: TimingInput;
  /** A series' new rule (scope "series"), checked against its first occurrence as create checks it. */
  recurrence?: RecurrenceInput;
}

/** What the write addresses, as just read. */
interface Addressed {
  target: WriteTarget;
  occurrence: ProviderOccurrence;
  /** The occurrence the client named (the series' own when it named none): what its `seen` describes. */
  named: ProviderOccurrence;
  /** A series addressed without occurrenceId: `named` is its first occurrence, taken as the one read. */
  firstAssumed: boolean;
}

/** The occurrence or series a write addresses, read fresh; a recurring event needs a scope. */
async function address(
  fresh: FreshCalendar,
  ref: EventRef,
  scope: WriteScope | undefined,
): Promise<Addressed> {
  const read = (recurrenceId?: string) =>
    fresh.provider.getEvent(fresh.access, fresh.calendar, ref.providerEventId, recurrenceId);
  const named = ref.occurrence?.recurrenceId;
  const first = await read(named);
  if (first === undefined) throw new AppError('not_found', 'This event no longer exists.');
  if (!first.facts.recurring) {
    return { occurrence: first, named: first, firstAssumed: false, target: targetOf(first, undefined) };
  }
  if (scope === undefined) {
    throw refusal(
      'recurring_event',
      'This event repeats: say scope "occurrence" (only the occurrence named by occurrenceId) or "series" (every occurrence).',
    );
  }
  if (scope === 'following' && named === undefined) {
    throw invalidField(
      'occurrenceId',
      'scope "following" needs the occurrenceId of the first occurrence to go.',
    );
  }
  if (scope === 'occurrence') {
    if (named === undefined) {
      throw invalidField(
        'occurrenceId',
        'scope "occurrence" needs the occurrenceId of the occurrence to change.',
      );
    }
    return { occurrence: first, named: first, firstAssumed: false, target: targetOf(first, named) };
  }
  // The series: its own version, which an occurrence's read need not carry.
  const series = named === undefined ? first : await read();
  if (series === undefined) throw new AppError('not_found', 'This event no longer exists.');
  return {
    occurrence: series,
    named: first,
    firstAssumed: named === undefined,
    target: targetOf(series, undefined),
  };
}

function targetOf(occurrence: ProviderOccurrence, recurrenceId: string | undefined): WriteTarget {
  const version = occurrence.facts.version;
  if (version === undefined) throw refusal('version_unavailable');
  return {
    providerEventId: occurrence.providerEventId,
    version,
    ...(recurrenceId === undefined ? {} : { recurrenceId }),
  };
}

const readTarget = (fresh: FreshCalendar, target: WriteTarget) =>
  fresh.provider.getEvent(fresh.access, fresh.calendar, target.providerEventId, target.recurrenceId);

function clientEvent(
  deps: CalendarDeps,
  principal: Principal,
  fresh: FreshCalendar,
  occurrence: ProviderOccurrence,
) {
  return narrowRights(toEvent(occurrence, fresh.view, deps.ids), principal.scopes);
}

/** A version conflict: nothing was written; the client gets the event as it now is. */
async function conflict(deps: CalendarDeps, principal: Principal, fresh: FreshCalendar, target: WriteTarget) {
  const current = await readTarget(fresh, target).catch(() => undefined);
  return new AppError(
    'conflict',
    current === undefined
      ? 'The event changed or was deleted since it was read; nothing was changed.'
      : 'The event changed since it was read; nothing was changed. Here it is as it is now: check that the change still makes sense, then try again.',
    {
      details: {
        reason: 'version',
        ...(current === undefined ? {} : { current: clientEvent(deps, principal, fresh, current) }),
      },
    },
  );
}

/**
 * Refuses a write when the event no longer shows what the client read of it; nothing is written.
 * `seen` is compared with the occurrence the client named: every occurrence of a series shares
 * its eventId, so a series addressed without occurrenceId whose only difference is the start was
 * most likely read from another occurrence — said as such, not as a change made since.
 */
function checkSeen(
  deps: CalendarDeps,
  principal: Principal,
  fresh: FreshCalendar,
  { named, firstAssumed }: Pick<Addressed, 'named' | 'firstAssumed'>,
  seen: SeenValues,
): void {
  const current = clientEvent(deps, principal, fresh, named);
  const fields = changedSince(current, seen);
  if (fields.length === 0) return;
  if (firstAssumed && fields.every((field) => field === 'start')) {
    throw invalidField(
      'occurrenceId',
      `seen.start is not the start of the series' first occurrence (${current.start}): give the occurrenceId of the occurrence you read, so that seen is compared with it (and new times move the series as they move it).`,
    );
  }
  throw new AppError(
    'conflict',
    `The event changed since it was read (${fields.join(', ')}); nothing was changed. Here it is as it is now: check with the user that the change still makes sense, then try again with these values as seen.`,
    { details: { reason: 'changed_since_read', fields, current } },
  );
}

/** Runs one change: resolve, audit, fresh check, write with settling, read back. */
async function change<T extends { outcome: 'applied' }>(
  deps: CalendarDeps,
  principal: Principal,
  action: WriteSubject['action'],
  input: EventAddress,
  work: (fresh: FreshCalendar, ref: EventRef, subject: WriteSubject) => Promise<T>,
): Promise<T> {
  // Resolved first (the database only), so the attempt goes on record with its calendar in one
  // statement, before the provider is asked: a crash after shows where.
  const resolved = await resolveEvent(deps, principal, input.eventId, input.occurrenceId).then(
    (ref) => ({ ref }),
    (error: unknown) => ({ error }),
  );
  const subject: WriteSubject = {
    action,
    calendarId: 'ref' in resolved ? resolved.ref.permitted.calendar.id : null,
    eventId: input.eventId,
    occurrenceId: input.occurrenceId ?? null,
    scope: input.scope ?? null,
  };
  return audited(deps, principal, subject, async () => {
    // An event no calendar of the grant's holds is refused on record, without a calendar.
    if ('error' in resolved) throw resolved.error;
    const { ref } = resolved;
    const { calendar, account } = ref.permitted;
    return withConnection(deps, account, async (access) => {
      subject.connection = { calendar, account, access };
      const provider = providerFor(deps.providers, account.provider);
      return work(await freshCalendar(provider, access, principal, ref.permitted), ref, subject);
    });
  });
}

/** One write under way: who writes, where, and what the fresh read addressed. */
interface Step {
  deps: CalendarDeps;
  principal: Principal;
  fresh: FreshCalendar;
  target: WriteTarget;
  input: EventAddress;
}

/** Writes, settling an unconfirmed write by reading; a version conflict answers with the current event. */
async function conditionalWrite(step: Step, write: () => Promise<void>, verify: () => Promise<Settled>) {
  const { deps, principal, fresh, target, input } = step;
  const check = { calendarId: fresh.calendar.id, eventId: input.eventId, occurrenceId: input.occurrenceId };
  try {
    return await attempt(write, { verify, check, retry: 'It is safe to try again.' });
  } catch (error) {
    if (isAppError(error) && error.code === 'conflict') throw await conflict(deps, principal, fresh, target);
    throw error;
  }
}

/** Made: the event shows the change at a new version. Not made: still at the version written against. */
function judged(
  now: ProviderOccurrence | undefined,
  target: WriteTarget,
  shows: (o: ProviderOccurrence) => boolean,
) {
  if (now !== undefined && now.facts.version !== target.version && shows(now)) return 'applied';
  if (now !== undefined && now.facts.version === target.version) return 'not_applied';
  return 'unknown';
}

/** The answer of a change that was made: the event read back as it now is. */
async function changed(step: Step, attempted: Attempt<void>): Promise<ChangedEvent> {
  const { deps, principal, fresh, target } = step;
  const now = await readTarget(fresh, target);
  if (now === undefined) {
    throw new AppError(
      'not_found',
      'The change was made, but the event could not be read back; read it again later.',
      {
        details: { applied: true },
      },
    );
  }
  return {
    outcome: 'applied',
    event: clientEvent(deps, principal, fresh, now),
    confirmedByRead: attempted.confirmedByRead,
  };
}

/**
 * A series' new times or rule: refused, naming them, while occurrences stand apart from the
 * rule; else the series moves as the named occurrence moves (domain/seriesChanges.ts).
 */
async function seriesChange(
  deps: CalendarDeps,
  fresh: FreshCalendar,
  { occurrence, named, target }: Addressed,
  timingInput: TimingInput | undefined,
  rule: RecurrenceInput | undefined,
) {
  const exceptions = await fresh.writer.seriesExceptions(
    fresh.access,
    fresh.calendar,
    target.providerEventId,
  );
  if (exceptions.length > 0) {
    throw exceptionsRefusal(exceptions, (recurrenceId) =>
      deps.ids.occurrenceId(fresh.view.calendarId, target.providerEventId, recurrenceId),
    );
  }
  const zone = occurrence.timeZone ?? fresh.calendar.timeZone ?? 'Etc/UTC';
  const moved = timingInput === undefined ? undefined : parseTiming(timingInput, zone);
  return planSeriesChange(occurrence, named, moved, rule);
}

/** Whether the occurrence named is the series' first (`series` as a series read answers it). */
const isFirst = (series: ProviderOccurrence, named: ProviderOccurrence) =>
  series.recurrenceId === undefined
    ? series.start === named.start
    : series.recurrenceId === named.recurrenceId;

/** Refuses a split while occurrences from it on stand apart from the rule, naming them. */
async function guardSplit(
  deps: CalendarDeps,
  fresh: FreshCalendar,
  target: WriteTarget,
  recurrenceId: string,
) {
  const lost = exceptionsFrom(
    await fresh.writer.seriesExceptions(fresh.access, fresh.calendar, target.providerEventId),
    recurrenceId,
  );
  if (lost.length > 0) {
    throw exceptionsRefusal(lost, (id) =>
      deps.ids.occurrenceId(fresh.view.calendarId, target.providerEventId, id),
    );
  }
}

/** Settles an unconfirmed end of a series: the series gone, or no longer holding the named occurrence. */
const seriesEnded =
  (fresh: FreshCalendar, target: WriteTarget, recurrenceId: string) => async (): Promise<Settled> => {
    const now = await readTarget(fresh, target);
    if (now === undefined) return 'applied';
    if (now.facts.version === target.version) return 'not_applied';
    return (await readTarget(fresh, { ...target, recurrenceId })) === undefined ? 'applied' : 'unknown';
  };

/**
 * update_event with scope "following" from an occurrence after the first: a new series from it
 * on (the old one copied, its rule going on, the changes made), then the old one ended before
 * it. In that order, so a failure in between never leaves occurrences lost: a new series whose
 * old one could not be ended is removed again, and where that fails too the error says so.
 */
async function splitSeries(
  step: Step,
  { named }: Addressed,
  changes: EventFields,
  timingInput: TimingInput | undefined,
  rule: RecurrenceInput | undefined,
  notice: GuestNotice | undefined,
): Promise<ChangedEvent> {
  const { deps, principal, fresh, target } = step;
  const recurrenceId = named.recurrenceId;
  if (recurrenceId === undefined)
    throw new AppError('not_found', 'This occurrence is no longer in the series.');
  await guardSplit(deps, fresh, target, recurrenceId);
  const zone = named.timeZone ?? fresh.calendar.timeZone ?? 'Etc/UTC';
  // The new series' first occurrence is the named one, moved as asked: as a series from it moves.
  const plan = planSeriesChange(
    named,
    named,
    timingInput === undefined ? undefined : parseTiming(timingInput, zone),
    rule,
  );
  const following: FollowingSeries = { from: named.start, fields: { ...changes, ...plan } };
  const uid = newProviderUid();
  const findCreated = () => fresh.writer.findCreated(fresh.access, fresh.calendar, uid);
  let created: string | undefined;
  const made = await conditionalWrite(
    step,
    async () => {
      created = await fresh.writer.createFollowing(
        fresh.access,
        fresh.calendar,
        target,
        following,
        uid,
        notice,
      );
    },
    async () => ((await findCreated()) === undefined ? 'not_applied' : 'applied'),
  );
  const newSeries = created ?? (await findCreated());
  if (newSeries === undefined) throw new AppError('not_found', 'The new series could not be found.');
  const newEventId = deps.ids.eventId(fresh.view.calendarId, newSeries);
  try {
    await conditionalWrite(
      step,
      () => fresh.writer.endSeries(fresh.access, fresh.calendar, target, untilBefore(named), notice),
      seriesEnded(fresh, target, recurrenceId),
    );
  } catch (error) {
    throw await undoFollowing(fresh, newSeries, newEventId, error, notice);
  }
  const now = await fresh.provider.getEvent(fresh.access, fresh.calendar, newSeries);
  if (now === undefined) {
    throw new AppError(
      'not_found',
      'The series was split, but the new one could not be read back; read it again later.',
      {
        details: { applied: true, newEventId },
      },
    );
  }
  return {
    outcome: 'applied',
    event: clientEvent(deps, principal, fresh, now),
    confirmedByRead: made.confirmedByRead,
  };
}

/**
 * The error of a split whose old series was not ended: the new series removed again (then the
 * error is the cut's own, nothing changed), or, where that fails or the cut's outcome is not
 * known, the error says the new series stands (`details.split`).
 */
async function undoFollowing(
  fresh: FreshCalendar,
  newSeries: string,
  newEventId: string,
  error: unknown,
  notice: GuestNotice | undefined,
): Promise<unknown> {
  if (!isAppError(error)) return error;
  const split = (earlier: 'not_ended' | 'unknown') => ({
    newEventId,
    newSeries: 'created',
    earlierSeries: earlier,
  });
  if (error.code === 'write_outcome_unknown') {
    return new AppError(
      'write_outcome_unknown',
      `The new series from this occurrence was made (${newEventId}); whether the earlier one now ends before it could not be told. Read both before doing anything else.`,
      { cause: error, details: { ...error.details, split: split('unknown') } },
    );
  }
  try {
    const made = await fresh.provider.getEvent(fresh.access, fresh.calendar, newSeries);
    const version = made?.facts.version;
    if (version !== undefined) {
      await fresh.writer.deleteEvent(
        fresh.access,
        fresh.calendar,
        { providerEventId: newSeries, version },
        notice,
      );
    }
    return error;
  } catch {
    return new AppError(
      error.code,
      `${error.message} The new series from this occurrence was made (${newEventId}) but the earlier one was not ended, and the new one could not be removed again: both now hold these occurrences; ask the user to delete one.`,
      { cause: error, details: { ...error.details, split: split('not_ended') } },
    );
  }
}

/**
 * delete_event with scope "following": the series ends just before the named occurrence (the
 * first named: the whole series goes). Refused, naming them, while occurrences from it on stand
 * apart from the rule, as series moves are: ending the rule would drop or strand them.
 */
async function endSeriesAt(
  step: Step,
  { occurrence, named }: Addressed,
  notice: GuestNotice | undefined,
): Promise<{ scope: WriteScope; attempted: Attempt<void> }> {
  const { deps, fresh, target } = step;
  const recurrenceId = named.recurrenceId;
  if (recurrenceId === undefined)
    throw new AppError('not_found', 'This occurrence is no longer in the series.');
  const settled = seriesEnded(fresh, target, recurrenceId);
  if (isFirst(occurrence, named)) {
    const deleteAll = () => fresh.writer.deleteEvent(fresh.access, fresh.calendar, target, notice);
    return { scope: 'series', attempted: await conditionalWrite(step, deleteAll, settled) };
  }
  await guardSplit(deps, fresh, target, recurrenceId);
  const until = untilBefore(named);
  const attempted = await conditionalWrite(
    step,
    () => fresh.writer.endSeries(fresh.access, fresh.calendar, target, until, notice),
    settled,
  );
  return { scope: 'following', attempted };
}

export function updateEvent(
  deps: CalendarDeps,
  principal: Principal,
  input: EventAddress & GuestChoice & { changes: Changes; seen?: SeenValues },
): Promise<ChangedEvent> {
  requireSeen(input.seen, Object.keys(input.changes));
  return change(deps, principal, 'update', input, async (fresh, ref, subject) => {
    requireScope(principal, 'calendar:write');
    const addressed = await address(fresh, ref, input.scope);
    const { occurrence, target } = addressed;
    checkEditable(fresh, occurrence);
    checkSeen(deps, principal, fresh, addressed, input.seen ?? {});
    const guests = await guestPlan(fresh, occurrence, 'update', input.changes.guests, input);
    const { timing: timingInput, recurrence: rule, ...rest } = input.changes;
    const recurringSeries = occurrence.facts.recurring && target.recurrenceId === undefined;
    if (rule !== undefined && !recurringSeries) {
      throw invalidField(
        'recurrence',
        'recurrence changes the rule of a repeating series (scope "series"); a single event or one occurrence has none.',
      );
    }
    checkWriteLimits(fresh.provider.kind, rest);
    const step = { deps, principal, fresh, target, input };
    if (input.scope === 'following' && !isFirst(occurrence, addressed.named)) {
      const split = await splitSeries(step, addressed, rest, timingInput, rule, guests?.notice);
      subject.newEventId = split.event.eventId;
      return { ...split, ...(guests && { guests: guests.answer }) };
    }
    const changes: EventFields =
      recurringSeries && (timingInput !== undefined || rule !== undefined)
        ? { ...rest, ...(await seriesChange(deps, fresh, addressed, timingInput, rule)) }
        : {
            ...rest,
            ...(timingInput === undefined
              ? {}
              : {
                  timing: parseTiming(
                    timingInput,
                    fresh.calendar.timeZone ?? occurrence.timeZone ?? 'Etc/UTC',
                  ),
                }),
          };
    const attempted = await conditionalWrite(
      step,
      () => fresh.writer.updateEvent(fresh.access, fresh.calendar, target, changes, guests?.notice),
      async () => judged(await readTarget(fresh, target), target, (now) => showsChanges(now, changes)),
    );
    return { ...(await changed(step, attempted)), ...(guests && { guests: guests.answer }) };
  });
}

export function deleteEvent(
  deps: CalendarDeps,
  principal: Principal,
  input: EventAddress & GuestChoice & { seen?: SeenValues },
): Promise<DeletedEvent> {
  requireSeen(input.seen, ['delete']);
  return change(deps, principal, 'delete', input, async (fresh, ref) => {
    requireScope(principal, 'calendar:write');
    const addressed = await address(fresh, ref, input.scope);
    const { occurrence, target } = addressed;
    checkEditable(fresh, occurrence);
    checkSeen(deps, principal, fresh, addressed, input.seen ?? {});
    const guests = await guestPlan(fresh, occurrence, 'delete', undefined, input);
    if (input.scope === 'following') {
      const ended = await endSeriesAt({ deps, principal, fresh, target, input }, addressed, guests?.notice);
      return {
        outcome: 'applied',
        scope: ended.scope,
        confirmedByRead: ended.attempted.confirmedByRead,
        ...(guests && { guests: guests.answer }),
      };
    }
    const attempted = await conditionalWrite(
      { deps, principal, fresh, target, input },
      () => fresh.writer.deleteEvent(fresh.access, fresh.calendar, target, guests?.notice),
      async () => {
        const now = await readTarget(fresh, target);
        if (now === undefined) return 'applied';
        return now.facts.version === target.version ? 'not_applied' : 'unknown';
      },
    );
    return {
      outcome: 'applied',
      confirmedByRead: attempted.confirmedByRead,
      ...(guests && { guests: guests.answer }),
    };
  });
}

export function respondToEvent(
  deps: CalendarDeps,
  principal: Principal,
  input: EventAddress & { response: RsvpResponse; comment?: string },
): Promise<ChangedEvent> {
  return change(deps, principal, 'respond', input, async (fresh, ref) => {
    requireScope(principal, 'calendar:rsvp');
    const { occurrence, target } = await address(fresh, ref, input.scope);
    const blocked = respondBlockedReason({
      access: fresh.calendar.access,
      masked: maskedFor(fresh, occurrence),
      status: occurrence.status,
      facts: occurrence.facts,
    });
    if (blocked !== undefined) throw refusal(blocked.code, blocked.message);
    const answer = {
      response: input.response,
      ...(input.comment === undefined ? {} : { comment: input.comment }),
    };
    const step = { deps, principal, fresh, target, input };
    const attempted = await conditionalWrite(
      step,
      () => fresh.writer.respondToEvent(fresh.access, fresh.calendar, target, answer),
      async () =>
        judged(await readTarget(fresh, target), target, (now) => showsResponse(now, input.response)),
    );
    return changed(step, attempted);
  });
}
