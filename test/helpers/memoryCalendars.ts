/**
 * An in-memory calendar provider behind the real read and write paths (accounts, sealed
 * credentials, ids, masking, versions): for tests of the surfaces that need exact occurrences or
 * injected failures.
 * The adapters themselves are tested against Radicale and the Google/Graph fakes.
 */

import type { AppContext } from '../../src/context.ts';
import type {
  EventFields,
  GuestNotice,
  SeriesException,
  WriteTarget,
} from '../../src/domain/eventChanges.ts';
import type { GuestScheduling } from '../../src/domain/guests.ts';
import type {
  CalendarAccess,
  EditFacts,
  ProviderCalendar,
  ProviderOccurrence,
  SkippedItem,
} from '../../src/domain/providerFacts.ts';
import { AppError } from '../../src/errors.ts';
import { newId } from '../../src/lib/ids.ts';
import type { CalendarProvider, EventWriter } from '../../src/providers/port.ts';
import { insertAccount, syncCalendars } from '../../src/store/connectedAccounts.ts';

export interface MemoryCalendar {
  name: string;
  timeZone?: string;
  access?: CalendarAccess;
  occurrences: ProviderOccurrence[];
  /** Thrown by listEvents instead of answering. */
  failure?: Error;
  /** Thrown by the next write; with `applied` the write is made first (a timeout after the provider applied it). */
  writeFailure?: { error: Error; applied: boolean };
  /** Thrown by getEvent while set (a provider that cannot be read). */
  readFailure?: Error;
  /** Runs once at the start of the next write: someone else's change between the fresh read and the write. */
  beforeWrite?: () => void | Promise<void>;
  /** What the calendar does with guests; default `memoryScheduling`. */
  scheduling?: GuestScheduling;
  /** The notice each update and delete was given (absent: the write concerned no guests). */
  notices?: Array<{ action: 'update' | 'delete'; notice: GuestNotice | undefined }>;
  skipped?: SkippedItem[];
  /** Occurrences changed or deleted alone, by series: what the series holds apart from its rule. */
  exceptions?: Map<string, SeriesException[]>;
}

export const ownFacts: EditFacts = {
  recurring: false,
  organizer: 'none',
  attendees: false,
  conference: false,
  managedCopy: false,
  version: '"1"',
  userIsAttendee: false,
};

/** A calendar that tells guests of everything, each notice withheld on request; the user is ana@example.org. */
export const memoryScheduling: GuestScheduling = {
  delivers: true,
  quiet: { update: true, delete: true },
  selfAddresses: ['ana@example.org'],
};

let counter = 0;

/** A timed occurrence with defaults: confirmed, busy, one hour, editable by its owner. */
export function occurrence(fields: Partial<ProviderOccurrence> & { start: string }): ProviderOccurrence {
  counter += 1;
  return {
    providerEventId: `event-${counter}`,
    duration: 'PT1H',
    showWithoutTime: false,
    status: 'confirmed',
    freeBusyStatus: 'busy',
    facts: ownFacts,
    ...fields,
  };
}

/** The index-th occurrence of a weekly series (Mondays 09:00 Berlin from 23 March 2026) the user owns. */
export function weeklyOccurrence(index: number, title: string): ProviderOccurrence {
  const start = Temporal.PlainDate.from('2026-03-23').add({ days: 7 * index });
  return occurrence({
    providerEventId: 'standup',
    recurrenceId: `${start}T08:00:00Z`,
    start: `${start}T09:00:00`,
    timeZone: 'Europe/Berlin',
    title,
    facts: { ...ownFacts, recurring: true, version: '"s1"' },
  });
}

/** One provider kind whose calendars live in the map given (keyed by provider calendar id). */
export function memoryProvider<K extends 'caldav' | 'google'>(
  kind: K,
  calendars: Map<string, MemoryCalendar>,
): CalendarProvider<K> {
  const find = (calendar: ProviderCalendar) => {
    const found = calendars.get(calendar.providerCalendarId);
    if (found === undefined) throw new Error(`no memory calendar ${calendar.providerCalendarId}`);
    return found;
  };
  return {
    kind,
    listCalendars: async () =>
      [...calendars.entries()].map(([id, c]) => ({
        providerCalendarId: id,
        name: c.name,
        primary: false,
        access: c.access ?? 'owner',
        ...(c.timeZone === undefined ? {} : { timeZone: c.timeZone }),
      })),
    async listEvents(_account, calendar) {
      const found = find(calendar);
      if (found.failure !== undefined) throw found.failure;
      return { occurrences: found.occurrences, skipped: found.skipped ?? [] };
    },
    async getEvent(_account, calendar, id, recurrenceId) {
      const found = find(calendar);
      if (found.readFailure !== undefined) throw found.readFailure;
      return found.occurrences.find(
        (o) => o.providerEventId === id && (recurrenceId === undefined || o.recurrenceId === recurrenceId),
      );
    },
    writer: memoryWriter(find) as unknown as EventWriter<K>,
  };
}

let version = 100;
const nextVersion = () => `"${++version}"`;

/** Applies fields to an occurrence as a provider would store them. */
function applied(o: ProviderOccurrence, fields: EventFields): ProviderOccurrence {
  const next: ProviderOccurrence = { ...o, facts: { ...o.facts, version: nextVersion() } };
  if (fields.title !== undefined) next.title = fields.title;
  if (fields.description === null) delete next.description;
  else if (fields.description !== undefined) next.description = fields.description;
  if (fields.location === null) delete next.locations;
  else if (fields.location !== undefined) next.locations = [{ name: fields.location }];
  if (fields.freeBusyStatus !== undefined) next.freeBusyStatus = fields.freeBusyStatus;
  if (fields.privacy !== undefined) next.privacy = fields.privacy;
  if (fields.guests !== undefined) {
    const removed = new Set(fields.guests.remove.map((email) => email.toLowerCase()));
    next.attendees = [
      ...(o.attendees ?? []).filter((attendee) => !removed.has(attendee.email.toLowerCase())),
      ...fields.guests.add.map((guest) => ({
        ...guest,
        response: 'needs-action' as const,
        self: false,
      })),
    ];
    next.facts.attendees = next.attendees.some((attendee) => !attendee.self);
  }
  const timing = fields.timing;
  if (timing?.allDay === true) {
    const start = Temporal.PlainDate.from(timing.startDate);
    Object.assign(next, {
      start: `${timing.startDate}T00:00:00`,
      duration: start.until(Temporal.PlainDate.from(timing.endDate)).toString(),
      showWithoutTime: true,
    });
    delete next.timeZone;
  } else if (timing !== undefined) {
    const start = Temporal.PlainDateTime.from(timing.start).toZonedDateTime(timing.timeZone);
    const end = Temporal.PlainDateTime.from(timing.end).toZonedDateTime(timing.timeZone);
    Object.assign(next, {
      start: timing.start,
      timeZone: timing.timeZone,
      duration: start.until(end, { largestUnit: 'hours' }).toString(),
      showWithoutTime: false,
    });
  }
  return next;
}

/** One occurrence written alone now stands apart from its series' rule. */
function standsApart(calendar: MemoryCalendar, target: WriteTarget, kind: SeriesException['kind']): void {
  if (target.recurrenceId === undefined) return;
  calendar.exceptions ??= new Map();
  const held = (calendar.exceptions.get(target.providerEventId) ?? []).filter(
    (exception) => exception.recurrenceId !== target.recurrenceId,
  );
  calendar.exceptions.set(target.providerEventId, [...held, { recurrenceId: target.recurrenceId, kind }]);
}

/** Writes to the in-memory calendars with versions checked like If-Match, and injectable failures. */
function memoryWriter(find: (calendar: ProviderCalendar) => MemoryCalendar): EventWriter {
  /** Runs the write unless a failure is injected; an `applied` failure runs it and then fails. */
  const guarded = async (calendar: MemoryCalendar, write: () => void) => {
    const meanwhile = calendar.beforeWrite;
    calendar.beforeWrite = undefined;
    await meanwhile?.();
    const failure = calendar.writeFailure;
    calendar.writeFailure = undefined;
    if (failure?.applied) write();
    if (failure !== undefined) throw failure.error;
    write();
  };
  const matching = (calendar: MemoryCalendar, id: string, recurrenceId: string | undefined) =>
    calendar.occurrences.filter(
      (o) => o.providerEventId === id && (recurrenceId === undefined || o.recurrenceId === recurrenceId),
    );
  const checkVersion = (
    calendar: MemoryCalendar,
    id: string,
    recurrenceId: string | undefined,
    expected: string,
  ) => {
    const [first] = matching(calendar, id, recurrenceId);
    if (first === undefined) throw new AppError('not_found', 'No such event.');
    if (first.facts.version !== expected) {
      throw new AppError('conflict', 'Version changed.', { details: { reason: 'version' } });
    }
  };
  return {
    async createEvent(_account, calendar, event, uid) {
      const found = find(calendar);
      await guarded(found, () => {
        if (found.occurrences.some((o) => o.providerEventId === uid)) {
          throw new AppError('conflict', 'Exists.', { details: { reason: 'exists' } });
        }
        const base = occurrence({
          providerEventId: uid,
          start: '2000-01-01T00:00:00',
          facts: { ...ownFacts },
        });
        found.occurrences.push(applied(base, event));
      });
      return uid;
    },
    findCreated: async (_account, calendar, uid) =>
      find(calendar).occurrences.some((o) => o.providerEventId === uid) ? uid : undefined,
    async updateEvent(_account, calendar, target, changes, notice) {
      const found = find(calendar);
      await guarded(found, () => {
        checkVersion(found, target.providerEventId, target.recurrenceId, target.version);
        found.notices = [...(found.notices ?? []), { action: 'update', notice }];
        standsApart(found, target, 'changed');
        const hit = new Set(matching(found, target.providerEventId, target.recurrenceId));
        found.occurrences = found.occurrences.map((o) => (hit.has(o) ? applied(o, changes) : o));
      });
    },
    async deleteEvent(_account, calendar, target, notice) {
      const found = find(calendar);
      await guarded(found, () => {
        checkVersion(found, target.providerEventId, target.recurrenceId, target.version);
        found.notices = [...(found.notices ?? []), { action: 'delete', notice }];
        standsApart(found, target, 'cancelled');
        const hit = new Set(matching(found, target.providerEventId, target.recurrenceId));
        found.occurrences = found.occurrences.filter((o) => !hit.has(o));
      });
    },
    async createFollowing(_account, calendar, target, following, uid) {
      const found = find(calendar);
      await guarded(found, () => {
        checkVersion(found, target.providerEventId, undefined, target.version);
        const [series] = matching(found, target.providerEventId, undefined);
        found.occurrences.push(applied({ ...series!, providerEventId: uid }, following.fields));
      });
      return uid;
    },
    async endSeries(_account, calendar, target, until, notice) {
      const found = find(calendar);
      await guarded(found, () => {
        checkVersion(found, target.providerEventId, undefined, target.version);
        found.notices = [...(found.notices ?? []), { action: 'update', notice }];
        // Recurrence ids in the basic form of UNTIL compare as text (both UTC, or both dates).
        const basic = (id: string) => id.replaceAll('-', '').replaceAll(':', '').replace(/\.\d+/, '');
        found.occurrences = found.occurrences.filter(
          (o) =>
            o.providerEventId !== target.providerEventId ||
            o.recurrenceId === undefined ||
            basic(o.recurrenceId) <= until,
        );
      });
    },
    seriesExceptions: async (_account, calendar, providerEventId) =>
      find(calendar).exceptions?.get(providerEventId) ?? [],
    scheduling: async (_account, calendar) => find(calendar).scheduling ?? memoryScheduling,
    async respondToEvent(_account, calendar, target, answer) {
      const found = find(calendar);
      await guarded(found, () => {
        checkVersion(found, target.providerEventId, target.recurrenceId, target.version);
        const hit = new Set(matching(found, target.providerEventId, target.recurrenceId));
        found.occurrences = found.occurrences.map((o) =>
          hit.has(o) ? { ...applied(o, {}), responseStatus: answer.response } : o,
        );
      });
    },
  };
}

/**
 * A connected account of the provider's kind holding the calendars (only those named in `only`,
 * when given: each person their own); returns their opaque ids in order.
 */
export async function seedMemoryAccount<K extends 'caldav' | 'google'>(
  ctx: Pick<AppContext, 'db' | 'box'>,
  owner: { userId: string; workspaceId: string },
  provider: CalendarProvider<K>,
  only?: readonly string[],
): Promise<string[]> {
  const accountId = newId('acc');
  const credentials =
    provider.kind === 'google'
      ? { kind: 'google', accessToken: 'a', refreshToken: 'r', expiresAt: Number.MAX_SAFE_INTEGER }
      : { kind: 'caldav', serverUrl: 'https://dav.example.test/', username: 'u', password: 'p' };
  await insertAccount(
    ctx.db,
    { id: accountId, ...owner, provider: provider.kind, label: `${provider.kind} in memory`, createdAt: 0 },
    ctx.box.seal(JSON.stringify(credentials), accountId),
  );
  const listed = (
    await provider.listCalendars({
      accountKey: accountId,
      credentials,
      saveCredentials: async () => {},
    } as never)
  ).filter((c) => only === undefined || only.includes(c.providerCalendarId));
  const stored = await syncCalendars(ctx.db, accountId, listed, 0);
  return listed.map((l) => stored.find((s) => s.providerCalendarId === l.providerCalendarId)!.id);
}
