/**
 * The fake's mailbox data: seeds (local times in a real zone, like a person types them) and
 * their rendering in Graph's documented event shape, with weekly series expanded into
 * `occurrence` and `exception` instances.
 */

export interface FakeGraphUserSeed {
  email: string;
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
 * Graph event property and is returned as given (subject, body, locations, attendees, …).
 */
export interface FakeGraphEventSeed {
  id: string;
  start: string;
  end: string;
  zone?: string;
  originalStartTimeZone?: string;
  isAllDay?: boolean;
  /** Makes this a series master repeating every 7 days, `count` times. */
  weekly?: FakeWeeklySeries;
  [graphProperty: string]: unknown;
}

export interface FakeWeeklySeries {
  count: number;
  /** Instances moved or changed: by index (0 = first), new local start/end and other properties. */
  exceptions?: Array<{ index: number; start?: string; end?: string; [graphProperty: string]: unknown }>;
  /** Indexes of deleted instances. */
  cancelled?: number[];
}

/** An event or instance placed in time, ready to render. */
export interface StoredItem {
  id: string;
  type: 'singleInstance' | 'seriesMaster' | 'occurrence' | 'exception';
  start: Temporal.ZonedDateTime;
  end: Temporal.ZonedDateTime;
  allDay: boolean;
  seed: FakeGraphEventSeed;
  seriesMasterId?: string;
  originalStart?: Temporal.Instant;
  overrides?: Record<string, unknown>;
}

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
    type: seed.weekly ? 'seriesMaster' : 'singleInstance',
    start: place(seed.start, zone, allDay),
    end: place(seed.end, zone, allDay),
    allDay,
    seed,
  };
}

/** A series' instances: wall-clock times repeat across DST changes, as in Outlook. */
export function seriesInstances(master: StoredItem): StoredItem[] {
  const series = master.seed.weekly;
  if (series === undefined) return [];
  const zone = master.start.timeZoneId;
  const instances: StoredItem[] = [];
  for (let index = 0; index < series.count; index++) {
    if (series.cancelled?.includes(index)) continue;
    const start = master.start.add({ weeks: index });
    const end = master.end.add({ weeks: index });
    const exception = series.exceptions?.find((candidate) => candidate.index === index);
    const { index: _index, start: movedStart, end: movedEnd, ...overrides } = exception ?? {};
    const localDate = start.toPlainDate().toString().replaceAll('-', '');
    instances.push({
      id: `${master.id}_${localDate}`,
      type: exception ? 'exception' : 'occurrence',
      start: typeof movedStart === 'string' ? place(movedStart, zone, master.allDay) : start,
      end: typeof movedEnd === 'string' ? place(movedEnd, zone, master.allDay) : end,
      allDay: master.allDay,
      seed: master.seed,
      seriesMasterId: master.id,
      originalStart: start.toInstant(),
      overrides,
    });
  }
  return instances;
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
  const {
    id: _id,
    start: _start,
    end: _end,
    zone: _zone,
    weekly,
    isAllDay: _allDay,
    ...properties
  } = item.seed;
  const originalZone = item.seed.originalStartTimeZone ?? item.start.timeZoneId;
  const moment = (value: Temporal.ZonedDateTime) =>
    item.allDay
      ? { dateTime: graphDateTime(value), timeZone: originalZone }
      : { dateTime: graphDateTime(value.withTimeZone(preferred.zone)), timeZone: preferred.name };
  const changeKey = `ck-${item.id}`;
  return {
    '@odata.etag': `W/"${changeKey}"`,
    id: item.id,
    createdDateTime: '2026-01-05T08:00:00.0000000Z',
    lastModifiedDateTime: '2026-01-05T08:00:00.0000000Z',
    changeKey,
    categories: [],
    transactionId: null,
    originalStartTimeZone: originalZone,
    originalEndTimeZone: originalZone,
    iCalUId: `040000008200E00074C5B7101A82E008-${item.seriesMasterId ?? item.id}`,
    reminderMinutesBeforeStart: 15,
    isReminderOn: true,
    hasAttachments: false,
    subject: '',
    bodyPreview: '',
    importance: 'normal',
    sensitivity: 'normal',
    isAllDay: item.allDay,
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
    recurrence: item.type === 'seriesMaster' && weekly ? recurrence(item, weekly, originalZone) : null,
    attendees: [],
    organizer: { emailAddress: { name: owner.name ?? owner.address, address: owner.address } },
    onlineMeeting: null,
    ...(item.originalStart ? { originalStart: item.originalStart.toString() } : {}),
    ...properties,
    ...item.overrides,
    start: moment(item.start),
    end: moment(item.end),
  };
}

function recurrence(item: StoredItem, weekly: FakeWeeklySeries, zone: string): Record<string, unknown> {
  const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
  return {
    pattern: {
      type: 'weekly',
      interval: 1,
      month: 0,
      dayOfMonth: 0,
      daysOfWeek: [days[item.start.dayOfWeek - 1]],
      firstDayOfWeek: 'sunday',
      index: 'first',
    },
    range: {
      type: 'numbered',
      startDate: item.start.toPlainDate().toString(),
      endDate: '0001-01-01',
      recurrenceTimeZone: zone,
      numberOfOccurrences: weekly.count,
    },
  };
}
