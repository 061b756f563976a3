/**
 * CalDAV writes (RFC 4791 §5.3.2, RFC 7232): a new event is PUT as `<uid>.ics` with
 * `If-None-Match: *`, so the same uid can never make a second object; every other write reads
 * the object, checks its ETag is the version the service read, edits it, and PUTs or DELETEs
 * it with `If-Match` — a change in between is a 412, answered as a version conflict.
 */

import type { GuestNotice, WriteTarget } from '../../domain/eventChanges.ts';
import type { GuestScheduling } from '../../domain/guests.ts';
import type { IcalScheduling } from '../../domain/ical/guestLines.ts';
import {
  editObject,
  followingObject,
  newEventObject,
  type ObjectEdit,
  seriesExceptionsOf,
} from '../../domain/ical/objectEdits.ts';
import type { ProviderCalendar } from '../../domain/providerFacts.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ExpansionPool } from '../expansionPool.ts';
import type { AccountAccess, CredentialsOf, EventWriter } from '../port.ts';
import { type DavAnswer, type DavSession, davRequest, unexpectedAnswer } from './client.ts';
import { parseEventId } from './objects.ts';

type Account = AccountAccess<CredentialsOf<'caldav'>>;

export interface CaldavWriterDeps {
  clock: Clock;
  /** Expands the object off the request thread, within a calendar's budget, as reads do. */
  pool: ExpansionPool;
  sessionOf(account: Account): DavSession;
  selfAddresses(account: Account, session: DavSession, calendarUrl: URL): Promise<string[]>;
  scheduling(account: Account, session: DavSession, calendarUrl: URL): Promise<GuestScheduling>;
}

const calendarType = 'text/calendar; charset=utf-8';

const versionConflict = () =>
  new AppError('conflict', 'The event changed on the CalDAV server since it was read.', {
    details: { reason: 'version' },
  });

/** The answer to a write: done, or the error it means. */
function written(session: DavSession, answer: DavAnswer, what: string): void {
  if (answer.status >= 200 && answer.status < 300) return;
  if (answer.status === 412) throw versionConflict();
  if (answer.status === 403) {
    throw new AppError('calendar_read_only', 'The CalDAV server does not allow changing this calendar.');
  }
  throw unexpectedAnswer(session, answer, what);
}

export function createCaldavWriter(deps: CaldavWriterDeps): EventWriter<'caldav'> {
  const target = (calendar: ProviderCalendar, providerEventId: string) => {
    const calendarUrl = new URL(calendar.providerCalendarId);
    const parsed = parseEventId(calendarUrl, providerEventId);
    if (parsed === undefined) throw new AppError('not_found', 'No such event on the CalDAV server.');
    return { calendarUrl, ...parsed };
  };

  /** The event's object as the server holds it now. */
  async function objectOf(session: DavSession, url: URL) {
    const current = await davRequest(session, {
      method: 'GET',
      url,
      accept: 'text/calendar',
      what: 'the event',
    });
    if ([404, 410].includes(current.status)) throw new AppError('not_found', 'The event no longer exists.');
    if (current.status !== 200) throw unexpectedAnswer(session, current, 'the event');
    return current;
  }

  /** GET, check the version, edit, PUT with If-Match. */
  async function rewrite(account: Account, calendar: ProviderCalendar, write: WriteTarget, edit: ObjectEdit) {
    const session = deps.sessionOf(account);
    const { url, uid } = target(calendar, write.providerEventId);
    const current = await objectOf(session, url);
    // The If-Match below guards the PUT; this check refuses early and keeps the edit on the text read.
    const etag = current.headers.get('etag');
    if (etag !== null && etag !== write.version) throw versionConflict();
    // The series must still have that occurrence: an edit must never make up a new one.
    if (
      write.recurrenceId !== undefined &&
      (await deps.pool.find(session.accountKey, current.body, uid, write.recurrenceId, {})) === undefined
    ) {
      throw new AppError('not_found', 'This occurrence is no longer in the series.');
    }
    const body = editObject(current.body, uid, edit, deps.clock.now());
    const answer = await davRequest(session, {
      method: 'PUT',
      url,
      body,
      contentType: calendarType,
      headers: { 'if-match': write.version },
      idempotent: false,
      what: 'the event',
    });
    written(session, answer, 'the event');
  }

  /**
   * How a write names the organizer and tells a scheduling server whether to deliver it:
   * SCHEDULE-AGENT=CLIENT for a change kept from the guests. Asked only for writes that concern guests.
   */
  async function icalScheduling(
    account: Account,
    calendar: ProviderCalendar,
    notice: GuestNotice,
  ): Promise<IcalScheduling> {
    const session = deps.sessionOf(account);
    const { delivers, selfAddresses } = await deps.scheduling(
      account,
      session,
      new URL(calendar.providerCalendarId),
    );
    const [organizer] = selfAddresses;
    return {
      ...(organizer === undefined ? {} : { organizer }),
      ...(delivers ? { agent: notice === 'quiet' ? 'CLIENT' : 'SERVER' } : {}),
    };
  }

  return {
    async createEvent(account, calendar, event, uid) {
      const session = deps.sessionOf(account);
      const url = new URL(`${uid}.ics`, new URL(calendar.providerCalendarId));
      const people = event.guests === undefined ? {} : await icalScheduling(account, calendar, 'send');
      const answer = await davRequest(session, {
        method: 'PUT',
        url,
        body: newEventObject(event, uid, deps.clock.now(), people),
        contentType: calendarType,
        headers: { 'if-none-match': '*' },
        idempotent: false,
        what: 'the new event',
      });
      if (answer.status === 412) {
        throw new AppError('conflict', 'An event with this identity exists already.', {
          details: { reason: 'exists' },
        });
      }
      written(session, answer, 'the new event');
      return `${uid}.ics#${uid}`;
    },

    async findCreated(account, calendar, uid) {
      const session = deps.sessionOf(account);
      const providerEventId = `${uid}.ics#${uid}`;
      const { url } = target(calendar, providerEventId);
      const answer = await davRequest(session, {
        method: 'GET',
        url,
        accept: 'text/calendar',
        what: 'the event',
      });
      if ([403, 404, 410].includes(answer.status)) return undefined;
      if (answer.status !== 200) throw unexpectedAnswer(session, answer, 'the event');
      return providerEventId;
    },

    async updateEvent(account, calendar, write, changes, notice) {
      const recurring = write.recurrenceId !== undefined;
      const { timing, ...text } = changes;
      const people =
        notice === undefined && changes.guests === undefined
          ? {}
          : { scheduling: await icalScheduling(account, calendar, notice ?? 'send') };
      // Without a recurrence id the whole object is meant: a single event, or every part of a series.
      const edit: ObjectEdit = recurring
        ? { kind: 'fields', fields: changes, recurrenceId: write.recurrenceId!, ...people }
        : timing === undefined
          ? { kind: 'series', fields: text, ...people }
          : { kind: 'fields', fields: changes, ...people };
      await rewrite(account, calendar, write, edit);
    },

    async seriesExceptions(account, calendar, providerEventId) {
      const { url, uid } = target(calendar, providerEventId);
      return seriesExceptionsOf((await objectOf(deps.sessionOf(account), url)).body, uid);
    },

    async createFollowing(account, calendar, write, following, uid, notice) {
      const session = deps.sessionOf(account);
      const { url, uid: seriesUid } = target(calendar, write.providerEventId);
      const current = await objectOf(session, url);
      // Copied as it was read: a change since is a conflict, as the If-Match of an edit would say.
      const etag = current.headers.get('etag');
      if (etag !== null && etag !== write.version) throw versionConflict();
      const scheduling = await icalScheduling(account, calendar, notice ?? 'send');
      const answer = await davRequest(session, {
        method: 'PUT',
        url: new URL(`${uid}.ics`, new URL(calendar.providerCalendarId)),
        body: followingObject(current.body, seriesUid, uid, following, deps.clock.now(), scheduling),
        contentType: calendarType,
        headers: { 'if-none-match': '*' },
        idempotent: false,
        what: 'the new series',
      });
      if (answer.status === 412) {
        throw new AppError('conflict', 'An event with this identity exists already.', {
          details: { reason: 'exists' },
        });
      }
      written(session, answer, 'the new series');
      return `${uid}.ics#${uid}`;
    },

    async endSeries(account, calendar, write, until, notice) {
      const people =
        notice === undefined ? {} : { scheduling: await icalScheduling(account, calendar, notice) };
      await rewrite(account, calendar, write, { kind: 'end-series', until, ...people });
    },

    scheduling: (account, calendar) =>
      deps.scheduling(account, deps.sessionOf(account), new URL(calendar.providerCalendarId)),

    async deleteEvent(account, calendar, write) {
      if (write.recurrenceId !== undefined) {
        await rewrite(account, calendar, write, {
          kind: 'delete-occurrence',
          recurrenceId: write.recurrenceId,
        });
        return;
      }
      const session = deps.sessionOf(account);
      const { url } = target(calendar, write.providerEventId);
      const answer = await davRequest(session, {
        method: 'DELETE',
        url,
        headers: { 'if-match': write.version },
        idempotent: false,
        what: 'the event',
      });
      if ([404, 410].includes(answer.status)) throw new AppError('not_found', 'The event no longer exists.');
      written(session, answer, 'the event');
    },

    async respondToEvent(account, calendar, write, answer) {
      const session = deps.sessionOf(account);
      const selfAddresses = await deps.selfAddresses(account, session, new URL(calendar.providerCalendarId));
      await rewrite(account, calendar, write, {
        kind: 'respond',
        response: answer.response,
        selfAddresses,
        ...(answer.comment === undefined ? {} : { comment: answer.comment }),
        ...(write.recurrenceId === undefined ? {} : { recurrenceId: write.recurrenceId }),
      });
    },
  };
}
