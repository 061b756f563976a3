/** What every adapter must hand the core: only ProviderOccurrence members, each in its documented form. */
import assert from 'node:assert/strict';
import {
  alertActions,
  eventStatuses,
  freeBusyStatuses,
  privacies,
  responseStatuses,
  workingLocationTypes,
} from '../../src/domain/event.ts';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { isIanaZone } from '../../src/domain/time/zones.ts';

const occurrenceKeys = [
  'providerEventId',
  'recurrenceId',
  'start',
  'timeZone',
  'duration',
  'showWithoutTime',
  'title',
  'description',
  'locations',
  'virtualLocations',
  'links',
  'categories',
  'keywords',
  'color',
  'status',
  'freeBusyStatus',
  'privacy',
  'alerts',
  'workingLocation',
  'responseStatus',
  'organizer',
  'attendees',
  'facts',
];
const requiredKeys = [
  'providerEventId',
  'start',
  'duration',
  'showWithoutTime',
  'status',
  'freeBusyStatus',
  'facts',
];
const factKeys = [
  'recurring',
  'organizer',
  'attendees',
  'conference',
  'managedCopy',
  'version',
  'userIsAttendee',
];
const durationPattern = /^P(?!$)(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$/;

export function assertOccurrenceShape(o: ProviderOccurrence, label = ''): void {
  const where = `${label} ${o.providerEventId} ${o.start}`.trim();
  const only = (value: object, keys: string[], required: string[], path: string) => {
    for (const [key, member] of Object.entries(value)) {
      assert.ok(keys.includes(key), `${where}: unexpected member ${path}${key}`);
      assert.notEqual(member, undefined, `${where}: ${path}${key} is present but undefined`);
      assert.notEqual(member, '', `${where}: ${path}${key} is empty`);
      if (Array.isArray(member)) assert.ok(member.length > 0, `${where}: ${path}${key} is an empty list`);
    }
    for (const key of required) assert.ok(key in value, `${where}: missing ${path}${key}`);
  };
  only(o, occurrenceKeys, requiredKeys, '');
  only(
    o.facts,
    factKeys,
    factKeys.filter((k) => k !== 'version'),
    'facts.',
  );
  assert.match(o.start, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/, where);
  assert.match(o.duration, durationPattern, where);
  if (o.timeZone !== undefined) assert.ok(isIanaZone(o.timeZone), `${where}: zone ${o.timeZone}`);
  if (o.showWithoutTime) {
    assert.equal(o.timeZone, undefined, where);
    assert.match(o.start, /T00:00:00$/, where);
    assert.match(o.duration, /^P\d+D$/, where);
  }
  if (o.recurrenceId !== undefined)
    assert.match(o.recurrenceId, /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z?)?$/, where);
  assert.ok(eventStatuses.includes(o.status), where);
  assert.ok(freeBusyStatuses.includes(o.freeBusyStatus), where);
  if (o.privacy) assert.ok(privacies.includes(o.privacy), where);
  if (o.responseStatus) assert.ok(responseStatuses.includes(o.responseStatus), where);
  for (const location of o.locations ?? [])
    only(location, ['name', 'description', 'coordinates'], ['name'], 'locations.');
  for (const location of o.virtualLocations ?? [])
    only(location, ['name', 'uri'], ['uri'], 'virtualLocations.');
  for (const link of o.links ?? []) only(link, ['href', 'title', 'rel'], ['href'], 'links.');
  for (const alert of o.alerts ?? []) {
    only(alert, ['offset', 'action'], ['offset'], 'alerts.');
    assert.ok(Temporal.Duration.from(alert.offset), where);
    if (alert.action) assert.ok(alertActions.includes(alert.action), where);
  }
  const people = [...(o.organizer ? [o.organizer] : []), ...(o.attendees ?? [])];
  if (o.organizer) only(o.organizer, ['email', 'name', 'self'], ['email', 'self'], 'organizer.');
  for (const attendee of o.attendees ?? []) {
    only(
      attendee,
      ['email', 'name', 'self', 'optional', 'response'],
      ['email', 'self', 'optional', 'response'],
      'attendees.',
    );
    assert.ok(responseStatuses.includes(attendee.response), where);
  }
  for (const person of people) assert.match(person.email, /^[^\s@]+@[^\s@]+\.[^\s@]+$/, where);
  if (o.workingLocation) {
    only(o.workingLocation, ['type', 'label'], ['type'], 'workingLocation.');
    assert.ok(workingLocationTypes.includes(o.workingLocation.type), where);
  }
}
