/**
 * The guests of the events the user organises, over real MCP on in-memory calendars: edited, added and
 * removed with notifyAttendees required, `false` refused where the calendar always tells them,
 * deletes that say who was told, and the guest list shown at full detail only.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { structured, toolError } from '../helpers/mcpSession.ts';
import { seenOf } from '../helpers/seen.ts';
import { berlin, writeToolsSuite } from '../helpers/writeToolsSuite.ts';

describe('write tools over MCP', () => {
  const { ana, work, tokenFor, call, listed, find } = writeToolsSuite();

  describe('guests of the events the user organises', () => {
    const lunch = async () => (await find('Team lunch'))[0]!;
    const lunchNow = () => work().occurrences.find((o) => o.providerEventId === 'guests')!;
    const refusedField = (result: Parameters<typeof toolError>[0]) => {
      const error = toolError(result);
      return [error.code, error.field];
    };

    it('can be edited; a change needs notifyAttendees, and without it nothing is written', async () => {
      const event = await lunch();
      assert.deepEqual([event.canEdit, event.editBlockedReason], [true, undefined]);
      assert.deepEqual(
        refusedField(
          await call('update_event', { eventId: event.eventId, seen: seenOf(event), title: 'Brunch' }),
        ),
        ['invalid_request', 'notifyAttendees'],
      );
      assert.equal(work().notices, undefined, 'nothing was written');
      assert.equal(lunchNow().title, 'Team lunch');

      const told = structured(
        await call('update_event', {
          eventId: event.eventId,
          seen: seenOf(event),
          title: 'Brunch',
          notifyAttendees: true,
        }),
      );
      assert.deepEqual(told.guests, { notified: true, emails: ['Bo@example.org', 'cy@example.org'] });
      const quiet = structured(
        await call('update_event', {
          eventId: event.eventId,
          seen: { title: 'Brunch' },
          title: 'Late brunch',
          notifyAttendees: false,
        }),
      );
      assert.deepEqual(quiet.guests, { notified: false, emails: ['Bo@example.org', 'cy@example.org'] });
      assert.deepEqual(work().notices, [
        { action: 'update', notice: 'send' },
        { action: 'update', notice: 'quiet' },
      ]);
      // An event without guests needs no choice, and its answer says nothing of guests.
      const planning = (await find('Planning'))[0]!;
      const plain = structured(
        await call('update_event', { eventId: planning.eventId, seen: seenOf(planning), title: 'Plan' }),
      );
      assert.equal(plain.guests, undefined);
      assert.deepEqual(work().notices?.at(-1), { action: 'update', notice: undefined });
    });

    it('adds and removes guests, checked against the event as it is', async () => {
      const { eventId } = await lunch();
      const changed = structured(
        await call('update_event', {
          eventId,
          seen: {},
          addAttendees: [{ email: 'dee@example.org', name: 'Dee', optional: true }],
          removeAttendees: ['bo@EXAMPLE.org'],
          notifyAttendees: true,
        }),
      );
      assert.deepEqual(changed.guests, {
        notified: true,
        emails: ['cy@example.org', 'dee@example.org', 'Bo@example.org'],
      });
      assert.deepEqual(
        lunchNow().attendees?.map((a) => [a.email, a.optional]),
        [
          ['ana@example.org', false],
          ['cy@example.org', true],
          ['dee@example.org', true],
        ],
      );
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ addAttendees: [{ email: 'ana@example.org' }] }, 'addAttendees'],
        [{ addAttendees: [{ email: 'CY@example.org' }] }, 'addAttendees'],
        [{ addAttendees: [{ email: 'x@example.org' }, { email: 'X@example.org' }] }, 'addAttendees'],
        [{ addAttendees: [{ email: 'not an address' }] }, 'addAttendees'],
        [{ removeAttendees: ['zed@example.org'] }, 'removeAttendees'],
        [{ removeAttendees: ['cy@example.org', 'Cy@example.org'] }, 'removeAttendees'],
        [
          { addAttendees: Array.from({ length: 99 }, (_, i) => ({ email: `g${i}@example.org` })) },
          'addAttendees',
        ],
        [{ addAttendees: [{ email: 'ab' }] }, 'addAttendees'],
        [{ addAttendees: [{ email: 'ok@example.org', name: 'n'.repeat(257) }] }, 'addAttendees'],
        [{ addAttendees: [{ email: 'ok@example.org', role: 'chair' }] }, 'addAttendees'],
        [
          { addAttendees: Array.from({ length: 101 }, (_, i) => ({ email: `h${i}@example.org` })) },
          'addAttendees',
        ],
      ];
      for (const [args, field] of cases) {
        const [code, named] = refusedField(
          await call('update_event', { eventId, seen: {}, ...args, notifyAttendees: true }),
        );
        assert.equal(code, 'invalid_request', JSON.stringify(args).slice(0, 80));
        assert.ok(String(named).startsWith(field), `${field}: ${named}`);
      }
      assert.equal(lunchNow().attendees?.length, 3, 'nothing was written');
    });

    it('refuses notifyAttendees false where the calendar always tells the guests, writing nothing', async () => {
      work().scheduling = {
        delivers: true,
        quiet: { update: false, delete: false },
        selfAddresses: ['ana@example.org'],
      };
      const event = await lunch();
      const { eventId } = event;
      for (const [tool, args] of [
        ['update_event', { title: 'Quietly' }],
        ['delete_event', {}],
      ] as const) {
        const error = toolError(
          await call(tool, { eventId, seen: seenOf(event), ...args, notifyAttendees: false }),
        );
        assert.deepEqual([error.code, error.field], ['invalid_request', 'notifyAttendees']);
        assert.match(String(error.message), /always tells the guests/);
      }
      assert.equal(work().notices, undefined);
      const deleted = structured(
        await call('delete_event', { eventId, seen: seenOf(event), notifyAttendees: true }),
      );
      assert.deepEqual(deleted.guests, { notified: true, emails: ['Bo@example.org', 'cy@example.org'] });
      assert.equal(lunchNow(), undefined);
    });

    it('deletes with the choice required, and says when nobody was told', async () => {
      work().scheduling = {
        delivers: false,
        quiet: { update: true, delete: true },
        selfAddresses: ['ana@example.org'],
      };
      const event = await lunch();
      const { eventId } = event;
      assert.deepEqual(refusedField(await call('delete_event', { eventId, seen: seenOf(event) })), [
        'invalid_request',
        'notifyAttendees',
      ]);
      assert.ok(lunchNow(), 'nothing was deleted');
      const deleted = structured(
        await call('delete_event', { eventId, seen: seenOf(event), notifyAttendees: true }),
      );
      assert.deepEqual(deleted.guests, { notified: false, emails: ['Bo@example.org', 'cy@example.org'] });
      assert.deepEqual(work().notices, [{ action: 'delete', notice: 'send' }]);
    });

    it('creates an event with guests; the answer names them', async () => {
      const created = structured(
        await call('create_event', {
          calendarId: ana.work,
          title: 'Kick-off',
          start: '2026-03-24T15:00:00',
          end: '2026-03-24T16:00:00',
          timeZone: berlin,
          attendees: [
            { email: 'eve@example.org', name: 'Eve' },
            { email: 'fay@example.org', optional: true },
          ],
        }),
      );
      assert.deepEqual(created.guests, { notified: true, emails: ['eve@example.org', 'fay@example.org'] });
      const made = work().occurrences.find((o) => o.title === 'Kick-off')!;
      assert.deepEqual(
        made.attendees?.map((a) => [a.email, a.name, a.optional]),
        [
          ['eve@example.org', 'Eve', false],
          ['fay@example.org', undefined, true],
        ],
      );
      const plain = structured(
        await call('create_event', {
          calendarId: ana.work,
          title: 'Alone',
          start: '2026-03-24',
          end: '2026-03-25',
        }),
      );
      assert.equal(plain.guests, undefined);

      const before = work().occurrences.length;
      const base = { calendarId: ana.work, title: 'x', start: '2026-03-24', end: '2026-03-25' };
      for (const attendees of [
        [{ email: 'ANA@example.org' }],
        [{ email: 'a@example.org' }, { email: 'A@example.org' }],
        [{ email: 'nobody' }],
        [{ name: 'No address' }],
      ]) {
        const [code, field] = refusedField(await call('create_event', { ...base, attendees }));
        assert.equal(code, 'invalid_request');
        assert.ok(String(field).startsWith('attendees'), String(field));
      }
      work().scheduling = { delivers: false, quiet: { update: true, delete: true }, selfAddresses: [] };
      assert.equal(
        toolError(await call('create_event', { ...base, attendees: [{ email: 'eve@example.org' }] })).code,
        'guests_or_scheduling',
      );
      assert.equal(work().occurrences.length, before, 'nothing was created');
    });

    it('shows who is invited at full detail only', async () => {
      const { eventId } = await lunch();
      const guests = structured(await call('get_event_guests', { eventId }));
      assert.deepEqual(guests, {
        ok: true,
        organizer: { email: 'ana@example.org', self: true },
        attendees: lunchNow().attendees,
      });
      const titles = await tokenFor(ana, ['calendar:read'], 'titles');
      assert.equal(toolError(await call('get_event_guests', { eventId }, titles)).code, 'access_denied');
      const doctor = (await listed()).find((e) => e.start === '2026-03-27T09:00:00+01:00')!;
      assert.equal(
        toolError(await call('get_event_guests', { eventId: doctor.eventId })).code,
        'access_denied',
      );
      const planning = (await find('Planning'))[0]!;
      assert.deepEqual(structured(await call('get_event_guests', { eventId: planning.eventId })), {
        ok: true,
        attendees: [],
      });
      assert.equal(
        toolError(await call('get_event_guests', { eventId: `evt_${'A'.repeat(40)}` })).code,
        'calendar_not_permitted',
      );
    });
  });
});
