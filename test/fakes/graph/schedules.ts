/**
 * The fake's `POST /me/calendar/getSchedule`: each address in `schedules` gets a
 * scheduleInformation — the items set by the test (`graph.schedules.set(email, items)`) that
 * overlap [startTime, endTime), with their subject and location as Graph sends them to someone
 * who may see them, times in UTC (`Prefer: outlook.timezone="UTC"`) — or, for an address the
 * mailbox cannot see, an `error` (freeBusyError); with the person's `workingHours` when the test
 * gives them, as Graph sends them (`08:00:00.0000000`, a Windows or IANA zone name). A body
 * without schedules, startTime or endTime is a 400.
 */
import { badRequest, json, type Reply } from './http.ts';

export interface FakeScheduleItem {
  status: 'free' | 'tentative' | 'busy' | 'oof' | 'workingElsewhere' | 'unknown';
  /** Instants (`2026-03-02T09:00:00Z`). */
  start: string;
  end: string;
  subject?: string;
  location?: string;
}

/** Graph's workingHours resource. */
export interface FakeWorkingHours {
  daysOfWeek: string[];
  startTime: string;
  endTime: string;
  timeZone: { name: string };
}

interface GraphTime {
  dateTime?: unknown;
  timeZone?: unknown;
}

export class FakeSchedules {
  readonly #people = new Map<string, FakeScheduleItem[]>();
  readonly #hours = new Map<string, FakeWorkingHours>();

  /** Makes this person's schedule visible to every mailbox (someone in the same organisation). */
  set(email: string, items: FakeScheduleItem[], workingHours?: FakeWorkingHours): void {
    this.#people.set(email.toLowerCase(), items);
    if (workingHours === undefined) this.#hours.delete(email.toLowerCase());
    else this.#hours.set(email.toLowerCase(), workingHours);
  }

  answer(body: unknown): Reply {
    const { schedules, startTime, endTime } = (body ?? {}) as {
      schedules?: unknown;
      startTime?: GraphTime;
      endTime?: GraphTime;
    };
    const start = instantOf(startTime);
    const end = instantOf(endTime);
    if (!Array.isArray(schedules) || start === undefined || end === undefined)
      return badRequest('Schedules, StartTime and EndTime are required.');
    const value = (schedules as string[]).map((scheduleId) => {
      const items = this.#people.get(String(scheduleId).toLowerCase());
      if (items === undefined)
        return {
          scheduleId,
          error: {
            message:
              'The specified object was not found in the store., The process failed to get the correct properties.',
            responseCode: 'ErrorMailRecipientNotFound',
          },
        };
      const overlapping = items.filter(
        (item) =>
          Temporal.Instant.compare(Temporal.Instant.from(item.start), end) < 0 &&
          Temporal.Instant.compare(Temporal.Instant.from(item.end), start) > 0,
      );
      const workingHours = this.#hours.get(String(scheduleId).toLowerCase());
      return {
        scheduleId,
        availabilityView: '',
        ...(workingHours === undefined ? {} : { workingHours }),
        scheduleItems: overlapping.map((item) => ({
          isPrivate: false,
          status: item.status,
          subject: item.subject ?? '',
          location: item.location ?? '',
          start: utc(item.start),
          end: utc(item.end),
        })),
      };
    });
    return json({
      '@odata.context':
        'https://graph.microsoft.com/v1.0/$metadata#Collection(microsoft.graph.scheduleInformation)',
      value,
    });
  }
}

function instantOf(time: GraphTime | undefined): Temporal.Instant | undefined {
  if (typeof time?.dateTime !== 'string' || typeof time.timeZone !== 'string') return undefined;
  try {
    return Temporal.PlainDateTime.from(time.dateTime).toZonedDateTime(time.timeZone).toInstant();
  } catch {
    return undefined;
  }
}

/** Graph's dateTimeTimeZone in UTC: seven fractional digits, no offset. */
const utc = (instant: string) => ({
  dateTime: `${Temporal.Instant.from(instant).toString({ smallestUnit: 'second' }).slice(0, 19)}.0000000`,
  timeZone: 'UTC',
});
