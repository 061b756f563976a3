/**
 * The fake's mailbox data: seeds (local times in a real zone, like a person types them) and
 * their rendering in Graph's documented event shape, with series expanded into
 * `occurrence` and `exception` instances. Writes change the seeds themselves (`writes.ts`).
 */
import { type SimpleSeries, seriesDates } from '../seriesDates.ts';

export interface FakeGraphUserSeed {
  email: string;
  /** Other addresses of the mailbox: a calendar's `owner` may name one. */
  aliases?: string[];
  displayName?: string;
  calendars: FakeGraphCalendarSeed[];
}

export interface FakeGraphCalendarSeed {
  id: string;
  name: string;
  hexColor?: string;
  isDefaultCalendar?: boolean;
  /** Default true. */
  canEdit?: boolean;
  /** Default: the user. */
  owner?: { name?: string; address: string };
  events?: FakeGraphEventSeed[];
}

/**
 * One event. `start`/`end` are local (`2026-06-10T09:30:00`, or dates for all-day events) in
 * `zone` (an IANA zone the fake computes with, default UTC); Graph reports the zone under the
 * name `originalStartTimeZone` (a Windows name, say; default `zone`). Any other member is a
 * Graph event property and is returned as given (subject, body, locations, attendees, …);
 * `changeKey` defaults to `ck-<id>`, `singleValueExtendedProperties` are kept but not returned.
 */
export interface FakeGraphEventSeed {
  id: string;
  start: string;
  end: string;
  zone?: string;
  originalStartTimeZone?: string;
  isAllDay?: boolean;
  /** Makes this a series master (by default weekly on the start's weekday). */
  repeats?: FakeSeries;
  [graphProperty: string]: unknown;
}

/**
 * A recurrencePattern as Graph names it: `daysOfWeek` for weekly and relativeMonthly (with its
 * `index`), `dayOfMonth` for absoluteMonthly and absoluteYearly (with its `month`).
 */
export interface FakePattern {
  type: 'daily' | 'weekly' | 'absoluteMonthly' | 'relativeMonthly' | 'absoluteYearly';
  interval: number;
  daysOfWeek?: string[];
  index?: WeekIndex;
  dayOfMonth?: number;
  month?: number;
}

export const weekIndexes = ['first', 'second', 'third', 'fourth', 'last'] as const;
export type WeekIndex = (typeof weekIndexes)[number];

export interface FakeSeries {
  /** Default: every week, on the start's weekday. */
  pattern?: FakePattern;
  /** Occurrences in all; with neither `count` nor `until` the series has no end. */
  count?: number;
  /** The last local date an occurrence may start on. */
  until?: string;
  /**
   * Instances moved or changed: by index (0 = first), new local start/end (in `zone`, default
   * the series' zone) and other properties, `changeKey` included.
   */
  exceptions?: FakeGraphException[];
  /** Indexes of deleted instances. */
  cancelled?: number[];
}

export interface FakeGraphException {
  index: number;
  start?: string;
  end?: string;
  zone?: string;
  [graphProperty: string]: unknown;
}

export const weekdays = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
/** Series without end are expanded this far. */
const openSeriesInstances = 500;

/** An event or instance placed in time, ready to render. */
export interface StoredItem {
  id: string;
  type: 'singleInstance' | 'seriesMaster' | 'occurrence' | 'exception';
  start: Temporal.ZonedDateTime;
  end: Temporal.ZonedDateTime;
  allDay: boolean;
  /** The zone's name as Graph reports it (`originalStartTimeZone`). */
  zoneName: string;
  changeKey: string;
  seed: FakeGraphEventSeed;
  seriesMasterId?: string;
  originalStart?: Temporal.Instant;
  /** An instance's position in its series (0 = first). */
  index?: number;
  overrides?: Record<string, unknown>;
}

/** A seed's changeKey, as written or derived from its id (`ck-<id>`). */
export const seedChangeKey = (seed: FakeGraphEventSeed): string =>
  typeof seed.changeKey === 'string' ? seed.changeKey : `ck-${seed.id}`;

const place = (local: string, zone: string, allDay: boolean): Temporal.ZonedDateTime =>
  allDay
    ? Temporal.PlainDate.from(local).toZonedDateTime({ timeZone: zone })
    : Temporal.PlainDateTime.from(local).toZonedDateTime(zone);

/** The seed itself: a single event, or a series master spanning its first instance. */
export function storedEvent(seed: FakeGraphEventSeed): StoredItem {
  const zone = seed.zone ?? 'UTC';
  const allDay = seed.isAllDay === true;
  return {
    id: seed.id,
    type: seed.repeats ? 'seriesMaster' : 'singleInstance',
    start: place(seed.start, zone, allDay),
    end: place(seed.end, zone, allDay),
    allDay,
    zoneName: seed.originalStartTimeZone ?? zone,
    changeKey: seedChangeKey(seed),
    seed,
  };
}

/**
 * A series' instances: wall-clock times repeat across DST changes, as in Outlook. An unchanged
 * occurrence shares the master's changeKey (it is the master's data); an exception has its own.
 */
export function seriesInstances(master: StoredItem): StoredItem[] {
  const series = master.seed.repeats;
  if (series === undefined) return [];
  const instances: StoredItem[] = [];
  const dates = seriesDates(master.start.toPlainDate(), simpleSeries(series.pattern));
  const until = series.until === undefined ? undefined : Temporal.PlainDate.from(series.until);
  let index = -1;
  for (const date of dates) {
    index++;
    if (index >= (series.count ?? openSeriesInstances)) break;
    if (until !== undefined && Temporal.PlainDate.compare(date, until) > 0) break;
    if (series.cancelled?.includes(index)) continue;
    // Wall-clock times repeat across DST changes, and so does the master's length in days.
    const start = date.toZonedDateTime({
      timeZone: master.start.timeZoneId,
      plainTime: master.start.toPlainTime(),
    });
    const end = start.add(master.start.until(master.end, { largestUnit: 'days' }));
    const exception = series.exceptions?.find((candidate) => candidate.index === index);
    const {
      index: _index,
      start: movedStart,
      end: movedEnd,
      zone: movedZone,
      ...overrides
    }: Partial<FakeGraphException> = exception ?? {};
    const zone = typeof movedZone === 'string' ? movedZone : master.start.timeZoneId;
    const allDay = typeof overrides.isAllDay === 'boolean' ? overrides.isAllDay : master.allDay;
    const localDate = start.toPlainDate().toString().replaceAll('-', '');
    instances.push({
      id: `${master.id}_${localDate}`,
      type: exception ? 'exception' : 'occurrence',
      start: typeof movedStart === 'string' ? place(movedStart, zone, allDay) : start,
      end: typeof movedEnd === 'string' ? place(movedEnd, zone, allDay) : end,
      allDay,
      zoneName:
        typeof overrides.originalStartTimeZone === 'string'
          ? overrides.originalStartTimeZone
          : master.zoneName,
      changeKey: typeof overrides.changeKey === 'string' ? overrides.changeKey : master.changeKey,
      seed: master.seed,
      seriesMasterId: master.id,
      originalStart: start.toInstant(),
      index,
      overrides,
    });
  }
  return instances;
}

const units = {
  daily: 'days',
  weekly: 'weeks',
  absoluteMonthly: 'months',
  relativeMonthly: 'months',
  absoluteYearly: 'years',
} as const;

/** A pattern's dates as Outlook counts them: a day some months lack moves to their last day. */
export function simpleSeries(pattern: FakePattern = { type: 'weekly', interval: 1 }): SimpleSeries {
  const { type, interval, daysOfWeek, index, dayOfMonth, month } = pattern;
  return {
    unit: units[type],
    interval,
    shortMonths: 'lastDay',
    ...(daysOfWeek === undefined ? {} : { weekdays: daysOfWeek.map((day) => weekdays.indexOf(day) + 1) }),
    ...(type === 'relativeMonthly'
      ? { position: index === 'last' ? -1 : weekIndexes.indexOf(index ?? 'first') + 1 }
      : {}),
    ...(dayOfMonth === undefined ? {} : { dayOfMonth }),
    ...(month === undefined ? {} : { month }),
  };
}

/** Overlap as calendarView defines it; a zero-length item counts when it starts inside. */
export function inWindow(item: StoredItem, from: Temporal.Instant, to: Temporal.Instant): boolean {
  const start = item.start.toInstant();
  const end = item.end.toInstant();
  if (Temporal.Instant.compare(start, to) >= 0) return false;
  return start.equals(end)
    ? Temporal.Instant.compare(start, from) >= 0
    : Temporal.Instant.compare(end, from) > 0;
}

const graphDateTime = (value: Temporal.ZonedDateTime): string =>
  `${value.toPlainDateTime().toString({ smallestUnit: 'second' })}.0000000`;

/**
 * The Graph JSON of an item. Timed start/end are converted to the `Prefer: outlook.timezone`
 * zone (`preferredZone` as named in the header); all-day ones stay at midnight of their own zone.
 */
export function renderEvent(
  item: StoredItem,
  owner: { name?: string; address: string },
  preferred: { zone: string; name: string },
): Record<string, unknown> {
  const { repeats } = item.seed;
  const originalZone = item.zoneName;
  const moment = (value: Temporal.ZonedDateTime) =>
    item.allDay
      ? { dateTime: graphDateTime(value), timeZone: originalZone }
      : { dateTime: graphDateTime(value.withTimeZone(preferred.zone)), timeZone: preferred.name };
  return {
    id: item.id,
    createdDateTime: '2026-01-05T08:00:00.0000000Z',
    lastModifiedDateTime: '2026-01-05T08:00:00.0000000Z',
    categories: [],
    transactionId: null,
    iCalUId: `040000008200E00074C5B7101A82E008-${item.seriesMasterId ?? item.id}`,
    reminderMinutesBeforeStart: 15,
    isReminderOn: true,
    hasAttachments: false,
    subject: '',
    bodyPreview: '',
    importance: 'normal',
    sensitivity: 'normal',
    isCancelled: false,
    isOrganizer: true,
    responseRequested: true,
    seriesMasterId: item.seriesMasterId ?? null,
    showAs: 'busy',
    type: item.type,
    webLink: `https://outlook.office365.com/owa/?itemid=${encodeURIComponent(item.id)}&exvsurl=1&path=/calendar/item`,
    onlineMeetingUrl: null,
    isOnlineMeeting: false,
    onlineMeetingProvider: 'unknown',
    allowNewTimeProposals: true,
    isDraft: false,
    hideAttendees: false,
    responseStatus: { response: 'organizer', time: '0001-01-01T00:00:00Z' },
    body: { contentType: 'html', content: '' },
    location: {
      displayName: '',
      locationType: 'default',
      uniqueIdType: 'unknown',
      address: {},
      coordinates: {},
    },
    locations: [],
    recurrence: item.type === 'seriesMaster' && repeats ? recurrence(item, repeats, originalZone) : null,
    attendees: [],
    organizer: { emailAddress: { name: owner.name ?? owner.address, address: owner.address } },
    onlineMeeting: null,
    ...(item.originalStart ? { originalStart: item.originalStart.toString() } : {}),
    ...graphProperties(item.seed),
    ...graphProperties(item.overrides ?? {}),
    '@odata.etag': `W/"${item.changeKey}"`,
    changeKey: item.changeKey,
    originalStartTimeZone: originalZone,
    originalEndTimeZone: originalZone,
    isAllDay: item.allDay,
    start: moment(item.start),
    end: moment(item.end),
  };
}

// The fake's own keys, and extended properties (Graph returns those only when expanded).
const fakeKeys = new Set(['id', 'start', 'end', 'zone', 'repeats', 'index', 'singleValueExtendedProperties']);

/** The Graph properties a seed or exception holds, without the fake's own keys. */
function graphProperties(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([name]) => !fakeKeys.has(name)));
}

function recurrence(item: StoredItem, series: FakeSeries, zone: string): Record<string, unknown> {
  const pattern = series.pattern ?? { type: 'weekly', interval: 1 };
  const weekly = pattern.type === 'weekly';
  // Graph names every member of every pattern type, zero or empty where the type has none.
  return {
    pattern: {
      type: pattern.type,
      interval: pattern.interval,
      month: pattern.month ?? 0,
      dayOfMonth: pattern.dayOfMonth ?? 0,
      daysOfWeek: weekly
        ? (pattern.daysOfWeek ?? [weekdays[item.start.dayOfWeek - 1]])
        : (pattern.daysOfWeek ?? []),
      firstDayOfWeek: weekly && pattern.daysOfWeek !== undefined ? 'monday' : 'sunday',
      index: pattern.index ?? 'first',
    },
    range: {
      type: series.count !== undefined ? 'numbered' : series.until !== undefined ? 'endDate' : 'noEnd',
      startDate: item.start.toPlainDate().toString(),
      endDate: series.until ?? '0001-01-01',
      recurrenceTimeZone: zone,
      numberOfOccurrences: series.count ?? 0,
    },
  };
}
