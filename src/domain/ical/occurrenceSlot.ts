/**
 * Where one occurrence of a series was meant to be, written the way the master writes its
 * DTSTART (TZID, UTC or floating date-time, or date): the form RECURRENCE-ID and EXDATE must
 * take (RFC 5545 §3.8.4.4, §3.8.5.1). The occurrence is named by its recurrence id as
 * expansion reports it (an instant, a floating date-time or a date). Pure.
 */
import ICAL from 'ical.js';
import { AppError } from '../../errors.ts';
import { resolveTzid } from '../time/zones.ts';
import type { Component } from './parse.ts';
import { type IcalValue, icalValue } from './times.ts';

export type Slot =
  | { kind: 'date'; date: Temporal.PlainDate }
  | { kind: 'floating'; local: Temporal.PlainDateTime }
  | { kind: 'utc'; instant: Temporal.Instant }
  | { kind: 'zoned'; zdt: Temporal.ZonedDateTime; tzid: string };

const notAddressable = () =>
  new AppError(
    'recurring_event',
    'This series uses a time zone in which its occurrences cannot be addressed.',
  );

function parsed<T>(read: () => T): T {
  try {
    return read();
  } catch {
    throw new AppError('not_found', 'This occurrence is not in the series.');
  }
}

/** The occurrence `recurrenceId` of the series whose master is `master`, in the master's form. */
export function slotOf(master: Component, recurrenceId: string): Slot {
  const dtstart = master.getFirstProperty('dtstart');
  const value = dtstart?.getFirstValue();
  if (!(value instanceof ICAL.Time))
    throw new AppError('recurring_event', 'The series has no readable start.');
  if (value.isDate)
    return { kind: 'date', date: parsed(() => Temporal.PlainDate.from(recurrenceId.slice(0, 10))) };
  const tzid = dtstart!.getFirstParameter('tzid');
  if (typeof tzid !== 'string' || tzid === '') {
    return value.zone === ICAL.Timezone.utcTimezone
      ? { kind: 'utc', instant: parsed(() => Temporal.Instant.from(recurrenceId)) }
      : { kind: 'floating', local: parsed(() => Temporal.PlainDateTime.from(recurrenceId)) };
  }
  const zone = resolveTzid(tzid);
  if (zone === undefined) throw notAddressable();
  return {
    kind: 'zoned',
    zdt: parsed(() => Temporal.Instant.from(recurrenceId)).toZonedDateTimeISO(zone),
    tzid,
  };
}

/** The slot moved by a span that is nominal in its zone (as expansion measures spans). */
export function addSpan(slot: Slot, span: Temporal.Duration): Slot {
  switch (slot.kind) {
    case 'date':
      return { kind: 'date', date: slot.date.add({ days: span.weeks * 7 + span.days }) };
    case 'floating':
      return { kind: 'floating', local: slot.local.add(span) };
    case 'utc':
      return { kind: 'utc', instant: slot.instant.toZonedDateTimeISO('UTC').add(span).toInstant() };
    case 'zoned':
      return { ...slot, zdt: slot.zdt.add(span) };
  }
}

/** The slot as a property value and its TZID parameter. */
export function slotValue(slot: Slot): { value: IcalValue; tzid?: string } {
  switch (slot.kind) {
    case 'date':
      return { value: icalValue(slot.date) };
    case 'floating':
      return { value: icalValue(slot.local) };
    case 'utc':
      return { value: icalValue(slot.instant.toZonedDateTimeISO('UTC').toPlainDateTime(), true) };
    case 'zoned':
      return { value: icalValue(slot.zdt.toPlainDateTime()), tzid: slot.tzid };
  }
}
