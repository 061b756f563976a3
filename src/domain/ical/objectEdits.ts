/**
 * Writing iCalendar objects: a new event, and edits of an existing object that keep everything
 * they do not change (other properties, other events, other overrides). One occurrence of a
 * series is changed through an override (RECURRENCE-ID in the form of the master's DTSTART) or
 * removed with an EXDATE, never by touching the series. Pure.
 */
import ICAL from 'ical.js';
import { AppError } from '../../errors.ts';
import type {
  EventFields,
  FollowingSeries,
  NewEvent,
  RsvpResponse,
  SeriesException,
} from '../eventChanges.ts';
import { seriesEndBound } from '../eventRecurrence.ts';
import type { EventTiming } from '../eventTiming.ts';
import { rruleOf, ruleMovedInDay } from '../recurrenceRule.ts';
import { ruleEndingAt, ruleFollowing } from '../seriesSplit.ts';
import { calendarText } from './calendarText.ts';
import { declaredSpan, defaultSpan } from './durations.ts';
import { applyFields, setText, timeProperty, touch, utcStamp } from './eventFields.ts';
import { defaultZoneOf } from './expand.ts';
import { applyGuests, type IcalScheduling } from './guestLines.ts';
import { addSpan, type Slot, slotOf, slotValue } from './occurrenceSlot.ts';
import { readOverrides } from './overrides.ts';
import type { Component } from './parse.ts';
import { placeInSeries } from './recurrence.ts';
import { keyOf, readTime, readTimes, type ZoneLookup, zoneLookup } from './times.ts';
import { latest } from './versions.ts';
import { zoneDefinition } from './zoneDefinition.ts';

export type ObjectEdit =
  /** Fields of a single event (or of a series' master), or with `recurrenceId` of one occurrence. */
  | { kind: 'fields'; fields: EventFields; recurrenceId?: string; scheduling?: IcalScheduling }
  /** Text fields and guests of every part of a series: the master and each override. */
  | { kind: 'series'; fields: Omit<EventFields, 'timing'>; scheduling?: IcalScheduling }
  | { kind: 'delete-occurrence'; recurrenceId: string }
  /** The series' rules end at `until` (an RRULE UNTIL value): later occurrences go. */
  | { kind: 'end-series'; until: string; scheduling?: IcalScheduling }
  /** The user's PARTSTAT: of one occurrence, or of every part of the event that invites them. */
  | {
      kind: 'respond';
      response: RsvpResponse;
      comment?: string;
      selfAddresses: readonly string[];
      recurrenceId?: string;
    };

const productId = '-//Calendar Access Service//EN';
const partstat: Record<RsvpResponse, string> = {
  accepted: 'ACCEPTED',
  declined: 'DECLINED',
  tentative: 'TENTATIVE',
};

/** A VCALENDAR holding one new VEVENT (and the VTIMEZONE its times need); guests name the user as ORGANIZER. */
export function newEventObject(
  event: NewEvent,
  uid: string,
  now: Temporal.Instant,
  scheduling: IcalScheduling = {},
): string {
  const calendar = new ICAL.Component('vcalendar');
  calendar.addPropertyWithValue('version', '2.0');
  calendar.addPropertyWithValue('prodid', productId);
  const vevent = new ICAL.Component('vevent');
  vevent.addPropertyWithValue('uid', uid);
  vevent.addPropertyWithValue('dtstamp', utcStamp(now));
  vevent.addPropertyWithValue('created', utcStamp(now));
  vevent.addPropertyWithValue('sequence', 0);
  applyFields(calendar, vevent, event);
  applyGuests(vevent, event.guests, scheduling);
  const { recurrence, timing } = event;
  if (recurrence !== undefined) {
    vevent.addPropertyWithValue('rrule', ICAL.Recur.fromString(rruleOf(recurrence, timing)));
    // The zone's changes are listed for as long as the series runs, not only around its start.
    const [definition] = calendar.getAllSubcomponents('vtimezone');
    if (definition !== undefined && !timing.allDay) {
      calendar.removeSubcomponent(definition);
      const first = Temporal.PlainDateTime.from(timing.start).toPlainDate();
      calendar.addSubcomponent(zoneDefinition(timing.timeZone, first, seriesEndBound(recurrence, timing)));
    }
  }
  calendar.addSubcomponent(vevent);
  return calendarText(calendar);
}

/** The event's parts in the object, and how expansion reads their times. */
interface Parts {
  calendar: Component;
  master: Component | undefined;
  overrides: Component[];
  zones: ZoneLookup;
  defaultZone: string | undefined;
}

function partsOf(ics: string, uid: string): Parts {
  const calendar = new ICAL.Component(ICAL.parse(ics));
  const withUid = calendar
    .getAllSubcomponents('vevent')
    .filter((event) => event.getFirstPropertyValue('uid') === uid);
  if (withUid.length === 0) throw new AppError('not_found', 'The event is no longer in its calendar object.');
  const declared = calendar.getFirstPropertyValue('x-wr-timezone');
  const vtimezones = calendar.getAllSubcomponents('vtimezone');
  return {
    calendar,
    // As expansion chooses among duplicates: the highest SEQUENCE.
    master: latest(withUid.filter((event) => !event.hasProperty('recurrence-id'))),
    overrides: withUid.filter((event) => event.hasProperty('recurrence-id')),
    zones: zoneLookup(vtimezones),
    defaultZone: defaultZoneOf(
      new Map(typeof declared === 'string' ? [['x-wr-timezone', declared]] : []),
      vtimezones,
    ),
  };
}

/** The series' start and the span every instance has, as expansion reads them. */
function seriesOf(parts: Parts): { start: ReturnType<typeof readTime>; span: Temporal.Duration } | undefined {
  const dtstart = parts.master?.getFirstProperty('dtstart');
  if (parts.master === undefined || !dtstart) return undefined;
  const start = readTime(dtstart, parts.zones);
  return {
    start,
    span: declaredSpan(parts.master, start, parts.zones, parts.defaultZone) ?? defaultSpan(start),
  };
}

/** The override for `recurrenceId`, if the object has one (matched as expansion matches them). */
function overrideFor(parts: Parts, recurrenceId: string): Component | undefined {
  return readOverrides(parts.overrides, seriesOf(parts), parts.zones, parts.defaultZone).get(recurrenceId)
    ?.component;
}

const addSlot = (event: Component, name: string, slot: Slot) => {
  const { value, tzid } = slotValue(slot);
  event.addProperty(timeProperty(name, value, tzid));
};

/** The override for the occurrence, made from the master when there is none yet. */
function occurrenceOf(parts: Parts, recurrenceId: string): Component {
  const existing = overrideFor(parts, recurrenceId);
  if (existing !== undefined) return existing;
  const { master, calendar } = parts;
  const series = seriesOf(parts);
  if (master === undefined || series === undefined) {
    throw new AppError('not_found', 'This occurrence is not in the series.');
  }
  // A copy of the master (alarms, attendees, unknown properties) for this one slot.
  const override = new ICAL.Component(structuredClone(master.toJSON()));
  for (const name of ['rrule', 'rdate', 'exdate', 'exrule', 'dtstart', 'dtend'])
    override.removeAllProperties(name);
  const slot = slotOf(master, recurrenceId);
  addSlot(override, 'recurrence-id', slot);
  addSlot(override, 'dtstart', slot);
  // Where the series would have ended it (a DURATION, if the master has one, was copied).
  if (master.hasProperty('dtend')) addSlot(override, 'dtend', addSpan(slot, series.span));
  calendar.addSubcomponent(override);
  return override;
}

function answer(target: Component, edit: Extract<ObjectEdit, { kind: 'respond' }>): boolean {
  const mine = new Set(edit.selfAddresses.map((address) => `mailto:${address.toLowerCase()}`));
  const attendees = target
    .getAllProperties('attendee')
    .filter((attendee) => mine.has(String(attendee.getFirstValue()).toLowerCase()));
  for (const attendee of attendees) {
    attendee.setParameter('partstat', partstat[edit.response]);
    attendee.removeParameter('rsvp');
  }
  if (attendees.length > 0) setText(target, 'comment', edit.comment);
  return attendees.length > 0;
}

const notInvited = () => new AppError('access_denied', 'The user is not invited to this event.');

/** The occurrences of the series `uid` held apart from its rule: overrides, EXDATEs, RDATEs. */
function exceptionsOf(parts: Parts): SeriesException[] {
  const series = seriesOf(parts);
  const found: SeriesException[] = [
    ...readOverrides(parts.overrides, series, parts.zones, parts.defaultZone).keys(),
  ].map((recurrenceId) => ({ recurrenceId, kind: 'changed' }));
  if (parts.master === undefined || series === undefined) return found;
  for (const [name, kind] of [
    ['exdate', 'cancelled'],
    ['rdate', 'added'],
  ] as const) {
    for (const property of parts.master.getAllProperties(name)) {
      let times: string[];
      try {
        times = readTimes(property, parts.zones).map((time) =>
          keyOf(placeInSeries(time, series.start, parts.defaultZone)),
        );
      } catch {
        // A value the reader cannot place (an RDATE period) still stands apart from the rule.
        times = [String(property.getFirstValue())];
      }
      for (const recurrenceId of times) found.push({ recurrenceId, kind });
    }
  }
  return found;
}

/** The master's rule as its series moves to `timing` on the same days: a UTC UNTIL moves along. */
function movedRule(parts: Parts, rule: string, timing: EventTiming | undefined): string {
  const start = seriesOf(parts)?.start;
  if (timing === undefined || timing.allDay || start?.kind !== 'dateTime') return rule;
  return ruleMovedInDay(
    rule,
    timing.timeZone,
    start.local.toPlainTime(),
    Temporal.PlainDateTime.from(timing.start).toPlainTime(),
  );
}

/**
 * A new object for the series `uid` going on from one occurrence as `newUid`: a copy of its
 * master (alarms, guests, unknown properties) without the old series' own exceptions, starting
 * at that occurrence with the rule going on from there, and the fields changed.
 */
export function followingObject(
  ics: string,
  uid: string,
  newUid: string,
  following: FollowingSeries,
  now: Temporal.Instant,
  scheduling: IcalScheduling = {},
): string {
  const parts = partsOf(ics, uid);
  const start = seriesOf(parts)?.start;
  const { master } = parts;
  if (master === undefined || start === undefined || !master.hasProperty('rrule')) {
    throw new AppError('not_found', 'The event has no repeating rule to go on from.');
  }
  const calendar = new ICAL.Component('vcalendar');
  calendar.addPropertyWithValue('version', '2.0');
  calendar.addPropertyWithValue('prodid', productId);
  for (const zone of parts.calendar.getAllSubcomponents('vtimezone')) {
    calendar.addSubcomponent(new ICAL.Component(structuredClone(zone.toJSON())));
  }
  const copy = new ICAL.Component(structuredClone(master.toJSON()));
  for (const name of ['rrule', 'rdate', 'exdate', 'exrule', 'uid', 'created', 'sequence']) {
    copy.removeAllProperties(name);
  }
  copy.addPropertyWithValue('uid', newUid);
  copy.addPropertyWithValue('created', utcStamp(now));
  copy.addPropertyWithValue('sequence', 0);
  const { fields } = following;
  const first = start.kind === 'date' ? start.date.toString() : start.local.toString();
  const rules =
    fields.recurrence === undefined
      ? master
          .getAllProperties('rrule')
          .map((rule) => ruleFollowing(String(rule.getFirstValue()), first, following.from))
      : [rruleOf(fields.recurrence, fields.timing)];
  for (const rule of rules) copy.addPropertyWithValue('rrule', ICAL.Recur.fromString(rule));
  applyFields(calendar, copy, fields);
  applyGuests(copy, fields.guests, scheduling);
  touch(copy, now, false);
  calendar.addSubcomponent(copy);
  return calendarText(calendar);
}

export const seriesExceptionsOf = (ics: string, uid: string): SeriesException[] =>
  exceptionsOf(partsOf(ics, uid));

/** The object after the edit, as text. */
export function editObject(ics: string, uid: string, edit: ObjectEdit, now: Temporal.Instant): string {
  const parts = partsOf(ics, uid);
  const { calendar, master } = parts;
  const everyPart = [...(master ? [master] : []), ...parts.overrides];
  switch (edit.kind) {
    case 'fields': {
      const target = edit.recurrenceId === undefined ? master : occurrenceOf(parts, edit.recurrenceId);
      if (target === undefined) throw new AppError('not_found', 'The event has no main part to change.');
      const series = target === master && (master.hasProperty('rrule') || master.hasProperty('rdate'));
      if (series && (edit.fields.timing !== undefined || edit.fields.recurrence !== undefined)) {
        // Moving a master would strand its overrides and EXDATEs on times the series no longer has.
        if (exceptionsOf(parts).length > 0) throw new AppError('series_has_exceptions');
        const { timing, recurrence } = edit.fields;
        const rules =
          recurrence !== undefined && timing !== undefined
            ? [rruleOf(recurrence, timing)]
            : master
                .getAllProperties('rrule')
                .map((rule) => movedRule(parts, String(rule.getFirstValue()), timing));
        master.removeAllProperties('rrule');
        for (const rule of rules) master.addPropertyWithValue('rrule', ICAL.Recur.fromString(rule));
      }
      applyFields(calendar, target, edit.fields);
      applyGuests(target, edit.fields.guests, edit.scheduling ?? {});
      touch(target, now, true);
      break;
    }
    case 'series':
      // A renamed series renames its moved instances too.
      for (const part of everyPart) {
        applyFields(calendar, part, edit.fields);
        applyGuests(part, edit.fields.guests, edit.scheduling ?? {});
        touch(part, now, true);
      }
      break;
    case 'delete-occurrence': {
      if (master === undefined) throw new AppError('not_found', 'This occurrence is not in the series.');
      const override = overrideFor(parts, edit.recurrenceId);
      if (override !== undefined) calendar.removeSubcomponent(override);
      addSlot(master, 'exdate', slotOf(master, edit.recurrenceId));
      touch(master, now, true);
      break;
    }
    case 'end-series': {
      if (master === undefined || !master.hasProperty('rrule')) {
        throw new AppError('not_found', 'The event has no repeating rule to end.');
      }
      const rules = master.getAllProperties('rrule').map((rule) => String(rule.getFirstValue()));
      master.removeAllProperties('rrule');
      for (const rule of rules) {
        master.addPropertyWithValue('rrule', ICAL.Recur.fromString(ruleEndingAt(rule, edit.until)));
      }
      applyGuests(master, undefined, edit.scheduling ?? {});
      touch(master, now, true);
      break;
    }
    case 'respond': {
      // The answer to a series holds for its moved instances too, where they invite the user.
      const targets = edit.recurrenceId === undefined ? everyPart : [occurrenceOf(parts, edit.recurrenceId)];
      const answered = targets.filter((target) => answer(target, edit));
      if (answered.length === 0) throw notInvited();
      for (const target of answered) touch(target, now, false);
      break;
    }
  }
  return calendarText(calendar);
}
