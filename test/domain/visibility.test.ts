/**
 * What each detail level shows of an event, field by field, as DESIGN.md's table of detail
 * levels says (written out here, apart from the code's table), and what a copy keeps of it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DetailLevel } from '../../src/domain/detailLevels.ts';
import type { Event } from '../../src/domain/event.ts';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { forCopy, mask } from '../../src/domain/visibility.ts';

/** An event with every field of the closed Event set. */
const everything: Required<Event> = {
  eventId: 'evt',
  calendarId: 'cal',
  occurrenceId: 'occ',
  title: 'Dentist',
  description: 'Bring the referral',
  locations: [{ name: 'Hauptstraße 5, Berlin' }],
  virtualLocations: [{ uri: 'https://meet.example/x' }],
  links: [{ href: 'https://example.org/referral' }],
  categories: ['health'],
  keywords: ['teeth'],
  color: '#ff0000',
  start: '2026-12-01T10:00:00',
  timeZone: 'Europe/Berlin',
  duration: 'PT1H',
  showWithoutTime: false,
  status: 'confirmed',
  freeBusyStatus: 'busy',
  canRespond: false,
  canEdit: false,
  editBlockedReason: 'access_denied',
  responseStatus: 'accepted',
  privacy: 'public',
  alerts: [{ offset: '-PT15M' }],
  workingLocation: { type: 'office' },
};

// DESIGN.md: "time fields, status, freeBusyStatus, edit/respond fields" at every level.
const everyLevel = [
  'eventId',
  'calendarId',
  'occurrenceId',
  'start',
  'timeZone',
  'duration',
  'showWithoutTime',
  'status',
  'freeBusyStatus',
  'canEdit',
  'canRespond',
  'editBlockedReason',
];
const design: Record<DetailLevel, string[]> = {
  busy: [...everyLevel, 'title'],
  titles: [...everyLevel, 'title', 'locations', 'workingLocation', 'responseStatus'],
  full: Object.keys(everything),
};

describe('detail levels', () => {
  for (const level of ['busy', 'titles', 'full'] as const) {
    it(`${level} shows exactly the fields of its row`, () => {
      const shown = mask(everything, level);
      assert.deepEqual(Object.keys(shown).sort(), [...design[level]].sort());
      for (const field of design[level].filter((f) => f !== 'title')) {
        assert.deepEqual(shown[field as keyof Event], everything[field as keyof Event], field);
      }
      assert.equal(shown.title, level === 'busy' ? 'Busy' : 'Dentist');
    });
  }

  it('a copy keeps no text its level does not show, but the privacy reads mask by', () => {
    const {
      eventId: _e,
      calendarId: _c,
      occurrenceId: _o,
      canEdit: _ce,
      canRespond: _cr,
      editBlockedReason: _b,
      ...rest
    } = everything;
    const occurrence: ProviderOccurrence = {
      ...rest,
      providerEventId: 'p',
      facts: {} as ProviderOccurrence['facts'],
    };
    const text = [
      'title',
      'description',
      'locations',
      'virtualLocations',
      'links',
      'categories',
      'keywords',
      'color',
      'alerts',
      'workingLocation',
      'responseStatus',
    ];
    const keptText = (level: DetailLevel) =>
      Object.keys(forCopy(occurrence, { level, privateDetails: false }))
        .filter((k) => text.includes(k))
        .sort();
    assert.deepEqual(keptText('busy'), []);
    assert.deepEqual(keptText('titles'), ['locations', 'responseStatus', 'title', 'workingLocation']);
    assert.deepEqual(keptText('full'), [...text].sort());
    assert.equal(forCopy(occurrence, { level: 'busy', privateDetails: false }).privacy, 'public');
  });
});
