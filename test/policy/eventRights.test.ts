/**
 * canEdit and canRespond narrowed by the token's effective scopes: a right needs both the
 * provider (already on the event) and the scope; a client that may not write learns why.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Event } from '../../src/domain/event.ts';
import { narrowRights } from '../../src/policy/eventRights.ts';
import type { Scope } from '../../src/policy/workspacePolicy.ts';

const base: Event = {
  eventId: 'evt_1',
  calendarId: 'cal_1',
  occurrenceId: 'occ_1',
  title: 'Review',
  start: '2026-03-02T09:00:00',
  timeZone: 'Europe/Berlin',
  duration: 'PT1H',
  showWithoutTime: false,
  status: 'confirmed',
  freeBusyStatus: 'busy',
  canRespond: false,
  canEdit: false,
};

type Rights = Pick<Event, 'canEdit' | 'canRespond' | 'editBlockedReason'>;

const withRights = (rights: Rights): Event => ({ ...base, ...rights });
const rightsOf = (e: Event): Rights => ({
  canEdit: e.canEdit,
  canRespond: e.canRespond,
  ...(e.editBlockedReason === undefined ? {} : { editBlockedReason: e.editBlockedReason }),
});

const withoutRights = ({ canEdit, canRespond, editBlockedReason, ...rest }: Event) => rest;

const read: Scope[] = ['calendar:read'];
const write: Scope[] = ['calendar:read', 'calendar:write'];
const rsvp: Scope[] = ['calendar:read', 'calendar:rsvp'];
const all: Scope[] = ['calendar:read', 'calendar:write', 'calendar:rsvp'];

describe('narrowRights', () => {
  const cases: Array<[string, Rights, Scope[], Rights]> = [
    [
      'read only: edit and respond taken away, access_denied',
      { canEdit: true, canRespond: true },
      read,
      { canEdit: false, canRespond: false, editBlockedReason: 'access_denied' },
    ],
    [
      'read only: editable event gets access_denied',
      { canEdit: true, canRespond: false },
      read,
      { canEdit: false, canRespond: false, editBlockedReason: 'access_denied' },
    ],
    [
      'read only: the provider’s own reason is kept',
      { canEdit: false, canRespond: true, editBlockedReason: 'not_organizer' },
      read,
      { canEdit: false, canRespond: false, editBlockedReason: 'not_organizer' },
    ],
    [
      'read only: calendar_read_only is kept',
      { canEdit: false, canRespond: false, editBlockedReason: 'calendar_read_only' },
      read,
      { canEdit: false, canRespond: false, editBlockedReason: 'calendar_read_only' },
    ],
    [
      'no scopes at all behave like read only',
      { canEdit: true, canRespond: true },
      [],
      { canEdit: false, canRespond: false, editBlockedReason: 'access_denied' },
    ],
    [
      'write without rsvp: edit stays, respond goes, no reason added',
      { canEdit: true, canRespond: true },
      write,
      { canEdit: true, canRespond: false },
    ],
    [
      'write without rsvp: a provider refusal stays with its reason',
      { canEdit: false, canRespond: true, editBlockedReason: 'guests_or_scheduling' },
      write,
      { canEdit: false, canRespond: false, editBlockedReason: 'guests_or_scheduling' },
    ],
    [
      'rsvp without write: respond stays, edit goes with access_denied',
      { canEdit: true, canRespond: true },
      rsvp,
      { canEdit: false, canRespond: true, editBlockedReason: 'access_denied' },
    ],
    [
      'rsvp without write: the provider reason wins over access_denied',
      { canEdit: false, canRespond: true, editBlockedReason: 'not_organizer' },
      rsvp,
      { canEdit: false, canRespond: true, editBlockedReason: 'not_organizer' },
    ],
    [
      'write and rsvp: the provider’s answer unchanged',
      { canEdit: true, canRespond: true },
      all,
      { canEdit: true, canRespond: true },
    ],
    [
      'scopes never grant what the provider refused',
      { canEdit: false, canRespond: false, editBlockedReason: 'recurring_event' },
      all,
      { canEdit: false, canRespond: false, editBlockedReason: 'recurring_event' },
    ],
  ];
  for (const [what, rights, scopes, expected] of cases) {
    it(what, () => {
      const input = withRights(rights);
      const snapshot = structuredClone(input);
      const result = narrowRights(input, scopes);
      assert.deepEqual(rightsOf(result), expected);
      // Everything else is the event as it was, and the input is not changed.
      assert.deepEqual(withoutRights(result), withoutRights(input));
      assert.deepEqual(input, snapshot);
    });
  }

  it('returns the same object when nothing narrows', () => {
    const editable = withRights({ canEdit: true, canRespond: true });
    assert.equal(narrowRights(editable, all), editable);
    const blocked = withRights({ canEdit: false, canRespond: false, editBlockedReason: 'managed_copy' });
    assert.equal(narrowRights(blocked, read), blocked);
  });

  it('keeps the key set closed: editBlockedReason appears only when editing is unavailable', () => {
    const narrowed = narrowRights(withRights({ canEdit: true, canRespond: true }), write);
    assert.equal(Object.hasOwn(narrowed, 'editBlockedReason'), false);
    const denied = narrowRights(withRights({ canEdit: true, canRespond: false }), read);
    assert.deepEqual(Object.keys(denied).sort(), [...Object.keys(base), 'editBlockedReason'].sort());
  });
});
