/**
 * Meetings with guests end to end through a real MCP client, against a real Radicale (a server
 * that does not schedule: nothing is sent; logged in by e-mail address or by a plain user name) and the Google and Graph fakes (which record what the
 * real services would have sent): invite on create, change with and without notifyAttendees,
 * add and remove guests, delete, an invitation the user only attends, and who may read the guests.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Event } from '../../src/domain/event.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import type { TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { callToolRaw, toolError } from '../helpers/mcpSession.ts';
import { radicaleMissing } from '../helpers/radicale.ts';
import { type RoundTripWorld, roundTripSuite } from '../helpers/roundTrip.ts';
import { seenOf } from '../helpers/seen.ts';
import { berlin, boss, googleTeam, graphTeam, me, radicaleTeam } from '../helpers/teamCalendars.ts';

const window = { start: '2026-03-23T00:00:00+01:00', end: '2026-04-20T00:00:00+02:00' };

interface World extends RoundTripWorld {
  /** Whether the calendar itself delivers invitations, updates and cancellations. */
  delivers: boolean;
  /** Whether notifyAttendees false can be honoured for a change. */
  quietChanges: boolean;
  /** What the provider would have sent since the last call, as [kind, address]. */
  takeNotices(): string[][];
  /** Write requests the provider received so far. */
  writes(): number;
}

const http = () => new ProviderHttp({ sleep: async () => {} });

/**
 * Radicale, which names no address of the user's (its calendar-user-address-set is the principal
 * URL): the address is the login when it is an e-mail address, else the person's sign-in address.
 */
const radicaleWorld = (login: string) => ({
  skip: radicaleMissing(),
  async open(): Promise<World> {
    const team = await radicaleTeam(http(), login);
    return { ...team, delivers: false, quietChanges: true, takeNotices: () => [] };
  },
});

const worlds: Record<string, { skip?: string; open(): Promise<World> }> = {
  caldav: radicaleWorld(me),
  'caldav-login-jdoe': radicaleWorld('jdoe'),
  google: {
    async open() {
      const team = await googleTeam(http());
      return {
        ...team,
        delivers: true,
        quietChanges: true,
        takeNotices: () => team.google.calendars.notices.splice(0).map((n) => [n.kind, n.to]),
      };
    },
  },
  microsoft: {
    async open() {
      const team = await graphTeam(http());
      return {
        ...team,
        delivers: true,
        quietChanges: false,
        takeNotices: () => team.graph.notices.splice(0).map((n) => [n.kind, n.to]),
      };
    },
  },
};

for (const [name, world] of Object.entries(worlds)) {
  describe(`meetings with guests end to end: ${name}`, { skip: world.skip }, () => {
    const suite = roundTripSuite(world.open, { email: me, name });
    const { ok, failed } = suite;
    let w: World;
    let t: TestApp;
    let team: string;
    let owner: { userId: string; workspaceId: string };
    before(() => {
      ({ w, t, team, person: owner } = suite.started());
    });

    const find = async (title: string) =>
      ((await ok('list_events', { calendarIds: [team], ...window, limit: 250 })).termine as Event[]).filter(
        (e) => e.title === title,
      );
    const guestsOf = async (eventId: string) => {
      const { attendees } = (await ok('get_event_guests', { eventId })) as {
        attendees: Array<{ email: string; self: boolean }>;
      };
      return attendees.filter((a) => !a.self).map((a) => a.email.toLowerCase());
    };
    /** Whether each of the addresses was told, by a calendar that delivers. */
    const told = (kind: string, ...emails: string[]) => (w.delivers ? emails.map((to) => [kind, to]) : []);

    it('creates a meeting with guests: the answer names them and says whether they were invited', async () => {
      const created = await ok('create_event', {
        calendarId: team,
        title: 'Kick-off',
        start: '2026-03-30T10:00:00',
        end: '2026-03-30T11:00:00',
        timeZone: berlin,
        attendees: [
          { email: 'ann@example.org', name: 'Ann' },
          { email: 'ben@example.org', optional: true },
        ],
        idempotencyKey: `${name}-kick-off`,
      });
      assert.deepEqual(created.guests, {
        notified: w.delivers,
        emails: ['ann@example.org', 'ben@example.org'],
      });
      assert.deepEqual(w.takeNotices(), told('invitation', 'ann@example.org', 'ben@example.org'));
      const [kickOff] = await find('Kick-off');
      assert.deepEqual([kickOff?.canEdit, kickOff?.editBlockedReason], [true, undefined]);
      const guests = (await ok('get_event_guests', { eventId: kickOff!.eventId })) as {
        organizer: { self: boolean };
        attendees: Array<{ email: string; name?: string; optional: boolean; response: string }>;
      };
      assert.equal(guests.organizer.self, true);
      assert.deepEqual(
        guests.attendees.map((a) => [a.email.toLowerCase(), a.name, a.optional, a.response]),
        [
          ['ann@example.org', 'Ann', false, 'needs-action'],
          ['ben@example.org', undefined, true, 'needs-action'],
        ],
      );
      // The user's own address is never a guest; nothing is made.
      const before = w.writes();
      const own = await failed('create_event', {
        calendarId: team,
        title: 'Self',
        start: '2026-03-31T10:00:00',
        end: '2026-03-31T11:00:00',
        timeZone: berlin,
        attendees: [{ email: me.toUpperCase() }],
      });
      assert.deepEqual([own.code, own.field], ['invalid_request', 'attendees']);
      assert.equal(w.writes(), before);
    });

    it('refuses a change without notifyAttendees, writing nothing', async () => {
      const [kickOff] = await find('Kick-off');
      const before = w.writes();
      const error = await failed('update_event', {
        eventId: kickOff!.eventId,
        seen: seenOf(kickOff!),
        title: 'Kick-off (moved)',
      });
      assert.deepEqual([error.code, error.field], ['invalid_request', 'notifyAttendees']);
      assert.equal(w.writes(), before, 'nothing was sent to the calendar');
      assert.equal((await find('Kick-off')).length, 1);
      assert.deepEqual(w.takeNotices(), []);
    });

    it('keeps a change from the guests where the calendar can, and refuses where it cannot', async () => {
      const [kickOff] = await find('Kick-off');
      const before = w.writes();
      const args = {
        eventId: kickOff!.eventId,
        seen: seenOf(kickOff!),
        description: 'Agenda',
        notifyAttendees: false,
      };
      if (!w.quietChanges) {
        const error = await failed('update_event', args);
        assert.deepEqual([error.code, error.field], ['invalid_request', 'notifyAttendees']);
        assert.equal(w.writes(), before, 'nothing was sent to the calendar');
        return;
      }
      const changed = await ok('update_event', args);
      assert.deepEqual(changed.guests, { notified: false, emails: ['ann@example.org', 'ben@example.org'] });
      assert.equal((changed.event as Event).description, 'Agenda');
      assert.deepEqual(w.takeNotices(), [], 'nobody was told');
    });

    it('tells the guests of a change when asked to', async () => {
      const [kickOff] = await find('Kick-off');
      const changed = await ok('update_event', {
        eventId: kickOff!.eventId,
        seen: seenOf(kickOff!),
        title: 'Kick-off (moved)',
        notifyAttendees: true,
      });
      assert.deepEqual(changed.guests, {
        notified: w.delivers,
        emails: ['ann@example.org', 'ben@example.org'],
      });
      assert.deepEqual(w.takeNotices(), told('update', 'ann@example.org', 'ben@example.org'));
    });

    it('removes one guest and invites another', async () => {
      const [kickOff] = await find('Kick-off (moved)');
      const changed = await ok('update_event', {
        eventId: kickOff!.eventId,
        seen: seenOf(kickOff!),
        addAttendees: [{ email: 'cat@example.org' }],
        removeAttendees: ['ANN@example.org'],
        notifyAttendees: true,
      });
      assert.deepEqual(changed.guests, {
        notified: w.delivers,
        emails: ['ben@example.org', 'cat@example.org', 'ann@example.org'],
      });
      assert.deepEqual(await guestsOf(kickOff!.eventId), ['ben@example.org', 'cat@example.org']);
      assert.deepEqual(w.takeNotices(), [
        ...told('update', 'ben@example.org'),
        ...told('invitation', 'cat@example.org'),
        ...told('cancellation', 'ann@example.org'),
      ]);
      const stranger = await failed('update_event', {
        eventId: kickOff!.eventId,
        seen: seenOf(kickOff!),
        removeAttendees: ['zed@example.org'],
        notifyAttendees: true,
      });
      assert.deepEqual([stranger.code, stranger.field], ['invalid_request', 'removeAttendees']);
    });

    it('answers an invitation the user is listed on', async () => {
      const [review] = await find('Design review');
      assert.deepEqual([review?.canRespond, review?.responseStatus], [true, 'needs-action']);
      const answered = await ok('respond_to_event', { eventId: review!.eventId, response: 'accepted' });
      assert.equal((answered.event as Event).responseStatus, 'accepted');
      assert.deepEqual(
        w.takeNotices(),
        told('reply', boss),
        'the organizer hears of it where the calendar tells',
      );
      const [after] = await find('Design review');
      assert.equal(after?.responseStatus, 'accepted');
    });

    it('leaves an invitation the user only attends to its organizer, whose guests it shows', async () => {
      const [review] = await find('Design review');
      assert.deepEqual([review?.canEdit, review?.editBlockedReason], [false, 'not_organizer']);
      const error = await failed('update_event', {
        eventId: review!.eventId,
        seen: seenOf(review!),
        title: 'Mine now',
        notifyAttendees: true,
      });
      assert.equal(error.code, 'not_organizer');
      const guests = (await ok('get_event_guests', { eventId: review!.eventId })) as {
        organizer: { email: string; name?: string; self: boolean };
        attendees: Array<{ email: string; self: boolean }>;
      };
      assert.deepEqual(guests.organizer, { email: boss, name: 'Boss', self: false });
      assert.ok(guests.attendees.some((a) => a.self && a.email.toLowerCase() === me));
    });

    it('shows the guests at full detail only', async () => {
      const [kickOff] = await find('Kick-off (moved)');
      const { token } = await grantToken(t.ctx, {
        ...owner,
        calendars: [{ calendarId: team, detailLevel: 'titles' }],
        scopes: ['calendar:read'],
      });
      const error = toolError(
        await callToolRaw(`${t.ctx.config.baseUrl}/mcp`, token, 'get_event_guests', {
          eventId: kickOff!.eventId,
        }),
      );
      assert.equal(error.code, 'access_denied');
    });

    it('deletes with notifyAttendees: the guests hear of it where the calendar tells them', async () => {
      const [kickOff] = await find('Kick-off (moved)');
      const refused = await failed('delete_event', { eventId: kickOff!.eventId, seen: seenOf(kickOff!) });
      assert.deepEqual([refused.code, refused.field], ['invalid_request', 'notifyAttendees']);
      assert.equal((await find('Kick-off (moved)')).length, 1, 'nothing was deleted');
      const deleted = await ok('delete_event', {
        eventId: kickOff!.eventId,
        seen: seenOf(kickOff!),
        notifyAttendees: true,
      });
      assert.deepEqual(deleted.guests, {
        notified: w.delivers,
        emails: ['ben@example.org', 'cat@example.org'],
      });
      assert.equal((await find('Kick-off (moved)')).length, 0);
      assert.deepEqual(w.takeNotices(), told('cancellation', 'ben@example.org', 'cat@example.org'));
    });
  });
}
