/**
 * Writes end to end through a real MCP client, against a real Radicale and the Google and Graph
 * fakes: the same calendar in each (a weekly standup across the 2026-03-29 Berlin DST change and
 * an invitation from someone else), the same calls, the same answers, each checked on what the
 * read tools (search_events, list_events) show afterwards — expanded occurrences included, of
 * weekly, monthly and yearly series alike.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Event } from '../../src/domain/event.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { eventWritesOf } from '../../src/store/eventWrites.ts';
import type { TestApp } from '../helpers/app.ts';
import { TestDeadline } from '../helpers/deadline.ts';
import { assertValidEvent } from '../helpers/eventSchema.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { callToolRaw, structured, toolError } from '../helpers/mcpSession.ts';
import { radicaleMissing } from '../helpers/radicale.ts';
import { type RoundTripWorld, roundTripSuite } from '../helpers/roundTrip.ts';
import { seenOf } from '../helpers/seen.ts';
import {
  berlin,
  berlinTime,
  berlinZone,
  googleTeam,
  graphTeam,
  me,
  radicaleTeam,
} from '../helpers/teamCalendars.ts';

const window = { start: '2026-03-23T00:00:00+01:00', end: '2026-04-20T00:00:00+02:00' };

/**
 * A fault for the next write request of this method: a status answer, or the request held before
 * or after applying it until the client times out (the test's deadline passes as the hold begins).
 */
type WriteFault =
  | { method: string; status: number; retryAfter?: string }
  | { method: string; held: 'before' | 'after' };

interface World extends RoundTripWorld {
  inject(fault: WriteFault): void;
  /** Resolves once every delayed request has been handled (or dropped). */
  settled(): Promise<void>;
  /** Write requests the provider received so far. */
  writes(): number;
}

/** Provider requests time out when a fault holds one, and only then. */
const deadline = new TestDeadline();
const http = () => new ProviderHttp({ deadline: deadline.signal, sleep: async () => {} });
const holding = (fault: WriteFault) =>
  'held' in fault ? { method: fault.method, phase: fault.held, ...deadline.held() } : fault;

const worlds: Record<string, { skip?: string; open(): Promise<World> }> = {
  caldav: {
    skip: radicaleMissing(),
    async open() {
      const standup = [
        'UID:standup',
        'DTSTART;TZID=Europe/Berlin:20260323T090000',
        'DTEND;TZID=Europe/Berlin:20260323T091500',
        'RRULE:FREQ=WEEKLY;COUNT=4',
        'SUMMARY:Standup',
      ];
      const team = await radicaleTeam(http(), me, standup);
      return {
        ...team,
        inject: (fault) => team.proxy.inject(holding(fault)),
        settled: () => team.proxy.settled(),
      };
    },
  },
  google: {
    async open() {
      const team = await googleTeam(http(), [
        {
          id: 'standup',
          summary: 'Standup',
          start: berlinTime('2026-03-23T09:00:00'),
          end: berlinTime('2026-03-23T09:15:00'),
          recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
        },
      ]);
      return {
        ...team,
        inject: (fault) => team.google.inject(holding(fault)),
        settled: () => team.google.settled(),
      };
    },
  },
  microsoft: {
    async open() {
      const team = await graphTeam(http(), [
        {
          id: 'standup',
          ...berlinZone,
          subject: 'Standup',
          start: '2026-03-23T09:00:00',
          end: '2026-03-23T09:15:00',
          repeats: { count: 4 },
        },
      ]);
      return {
        ...team,
        inject: (fault) => team.graph.failNext(1, holding(fault)),
        settled: () => team.graph.settled(),
      };
    },
  },
};

type Termine = Array<Event>;

for (const [name, world] of Object.entries(worlds)) {
  describe(`writes end to end: ${name}`, { skip: world.skip }, () => {
    const suite = roundTripSuite(world.open, { email: me, name, policy: { privateDetailsAllowed: true } });
    const { call, ok, failed } = suite;
    let w: World;
    let t: TestApp;
    let team: string;
    let person: { userId: string; workspaceId: string };
    before(() => {
      ({ w, t, team, person } = suite.started());
    });

    const search = async (query: string) =>
      (await ok('search_events', { calendarIds: [team], query, ...window })).termine as Termine;
    const list = async () =>
      ((await ok('list_events', { calendarIds: [team], ...window, limit: 250 })).termine as Termine).map(
        (e) => {
          assertValidEvent(e);
          return e;
        },
      );
    const standups = async () =>
      (await list()).filter((e) => /standup|sync/i.test(e.title)).map((e) => [e.title, e.start, e.duration]);

    it('creates an event across the DST night, once per idempotency key, visible to search', async () => {
      const args = {
        calendarId: team,
        title: 'Quarterly review',
        start: '2026-03-28T23:30:00',
        end: '2026-03-29T03:30:00',
        timeZone: berlin,
        description: 'Numbers',
        idempotencyKey: `${name}-quarterly`,
      };
      const created = await ok('create_event', args);
      assert.equal(created.outcome, 'applied');
      const event = created.event as Event;
      assert.deepEqual(
        [event.start, event.timeZone, event.duration],
        ['2026-03-28T23:30:00+01:00', berlin, 'PT3H'],
      );
      const repeated = await ok('create_event', args);
      assert.equal(repeated.outcome, 'already_applied');
      assert.equal((repeated.event as Event).eventId, event.eventId);
      const found = await search('quarterly');
      assert.deepEqual(
        found.map((e) => [e.eventId, e.title, e.start, e.duration, e.description, e.canEdit]),
        [[event.eventId, 'Quarterly review', '2026-03-28T23:30:00+01:00', 'PT3H', 'Numbers', true]],
      );
    });

    it('moves and renames the single event; search shows the change', async () => {
      const [event] = await search('quarterly');
      const updated = await ok('update_event', {
        eventId: event!.eventId,
        seen: seenOf(event!),
        title: 'Quarterly review (moved)',
        start: '2026-03-30T10:00:00+02:00',
        end: '2026-03-30T11:30:00+02:00',
        description: null,
      });
      assert.equal((updated.event as Event).title, 'Quarterly review (moved)');
      const [moved] = await search('quarterly moved');
      assert.deepEqual(
        [moved?.eventId, moved?.start, moved?.timeZone, moved?.duration, moved?.description],
        [event!.eventId, '2026-03-30T10:00:00+02:00', berlin, 'PT1H30M', undefined],
      );
    });

    it('refuses a change based on a stale read (changed between tool calls); a change elsewhere lets it through', async () => {
      const [read] = await search('quarterly moved');
      // The person renames it after the assistant read it.
      await ok('update_event', {
        eventId: read!.eventId,
        seen: seenOf(read!),
        title: 'Quarterly review (by the person)',
      });
      const stale = await failed('update_event', {
        eventId: read!.eventId,
        seen: seenOf(read!),
        title: 'Quarterly (assistant)',
      });
      assert.deepEqual(
        [stale.code, stale.reason, stale.fields],
        ['conflict', 'changed_since_read', ['title']],
      );
      assert.equal((stale.current as Event).title, 'Quarterly review (by the person)');
      assert.deepEqual(
        (await search('quarterly')).map((e) => e.title),
        ['Quarterly review (by the person)'],
      );
      // Notes written by the person and a rename by the assistant touch nothing in common.
      const [now] = await search('quarterly');
      await ok('update_event', { eventId: now!.eventId, seen: { description: null }, description: 'Agenda' });
      const renamed = await ok('update_event', {
        eventId: now!.eventId,
        seen: { title: now!.title },
        title: 'Quarterly review (moved)',
      });
      assert.deepEqual(
        [(renamed.event as Event).title, (renamed.event as Event).description],
        ['Quarterly review (moved)', 'Agenda'],
      );
    });

    it('changes one occurrence of the series alone, then the series', async () => {
      const before = await search('standup');
      assert.deepEqual(
        before.map((e) => e.start),
        [
          '2026-03-23T09:00:00+01:00',
          '2026-03-30T09:00:00+02:00',
          '2026-04-06T09:00:00+02:00',
          '2026-04-13T09:00:00+02:00',
        ],
        'the series keeps 09:00 local across the DST change',
      );
      assert.equal(new Set(before.map((e) => e.eventId)).size, 1);
      const second = before[1]!;
      assert.equal(
        (await failed('update_event', { eventId: second.eventId, seen: seenOf(second), title: 'x' })).code,
        'recurring_event',
      );
      await ok('update_event', {
        eventId: second.eventId,
        occurrenceId: second.occurrenceId,
        seen: seenOf(second),
        scope: 'occurrence',
        title: 'Standup (late)',
        start: '2026-03-30T11:00:00',
        end: '2026-03-30T11:15:00',
        timeZone: berlin,
      });
      assert.deepEqual(await standups(), [
        ['Standup', '2026-03-23T09:00:00+01:00', 'PT15M'],
        ['Standup (late)', '2026-03-30T11:00:00+02:00', 'PT15M'],
        ['Standup', '2026-04-06T09:00:00+02:00', 'PT15M'],
        ['Standup', '2026-04-13T09:00:00+02:00', 'PT15M'],
      ]);
      // seen read from the third occurrence, and no occurrenceId to say so: told to name it, not
      // answered with a change that never happened; seen: {} still names what it must hold.
      const third = before[2]!;
      const rename = { eventId: third.eventId, seen: seenOf(third), scope: 'series', title: 'Team sync' };
      const unnamed = await failed('update_event', rename);
      assert.deepEqual([unnamed.code, unnamed.field], ['invalid_request', 'occurrenceId']);
      const named = { ...rename, occurrenceId: third.occurrenceId };
      const empty = await failed('update_event', { ...named, seen: {} });
      assert.deepEqual([empty.code, empty.field], ['invalid_request', 'seen.title']);
      const renamedElsewhere = await failed('update_event', { ...named, seen: { title: 'Standup (old)' } });
      assert.deepEqual([renamedElsewhere.code, renamedElsewhere.reason], ['conflict', 'changed_since_read']);
      await ok('update_event', named);
      const after = await list();
      const sync = after.filter((e) => e.eventId === second.eventId);
      assert.equal(sync.length, 4);
      assert.deepEqual(
        sync.map((e) => e.start),
        [
          '2026-03-23T09:00:00+01:00',
          '2026-03-30T11:00:00+02:00',
          '2026-04-06T09:00:00+02:00',
          '2026-04-13T09:00:00+02:00',
        ],
      );
      for (const e of [sync[0]!, sync[2]!, sync[3]!]) assert.equal(e.title, 'Team sync');
    });

    it('deletes one occurrence alone', async () => {
      const sync = (await list()).filter((e) => e.title === 'Team sync');
      const third = sync.find((e) => e.start === '2026-04-06T09:00:00+02:00')!;
      const deleted = await ok('delete_event', {
        eventId: third.eventId,
        occurrenceId: third.occurrenceId,
        seen: seenOf(third),
        scope: 'occurrence',
      });
      assert.equal(deleted.outcome, 'applied');
      const left = (await list()).filter((e) => e.eventId === third.eventId).map((e) => e.start);
      assert.deepEqual(left, [
        '2026-03-23T09:00:00+01:00',
        '2026-03-30T11:00:00+02:00',
        '2026-04-13T09:00:00+02:00',
      ]);
    });

    it('answers the invitation, which the assistant may not edit', async () => {
      const [review] = await search('design review');
      assert.deepEqual(
        [review?.canEdit, review?.editBlockedReason, review?.canRespond, review?.responseStatus],
        [false, 'not_organizer', true, 'needs-action'],
      );
      assert.equal(
        (await failed('update_event', { eventId: review!.eventId, seen: seenOf(review!), title: 'x' })).code,
        'not_organizer',
      );
      const answered = await ok('respond_to_event', {
        eventId: review!.eventId,
        response: 'tentative',
        comment: 'Might be late',
      });
      assert.equal((answered.event as Event).responseStatus, 'tentative');
      const [after] = await search('design review');
      assert.equal(after?.responseStatus, 'tentative');
      assert.equal(after?.title, 'Design review', 'an answer changes nothing else');
    });

    describe('when the provider fails during a write', () => {
      const createMethod = name === 'caldav' ? 'PUT' : 'POST';
      const changeMethod = name === 'caldav' ? 'PUT' : 'PATCH';

      it('a create that times out after the provider made it: made once, reported made', async () => {
        w.inject({ method: createMethod, held: 'after' });
        const args = {
          calendarId: team,
          title: 'Late lunch',
          start: '2026-04-01T12:00:00',
          end: '2026-04-01T13:00:00',
          timeZone: berlin,
          idempotencyKey: `${name}-late-lunch`,
        };
        const result = await call('create_event', args);
        assert.notEqual(result.isError, true, JSON.stringify(result.content));
        assert.equal(result.structuredContent?.outcome, 'applied');
        assert.match(
          result.content[1]?.text ?? '',
          /did not confirm in time; a fresh read shows the change was made/,
        );
        await w.settled();
        assert.equal((await ok('create_event', args)).outcome, 'already_applied', 'a repeat is safe');
        assert.equal((await search('late lunch')).length, 1, 'no duplicate');
      });

      it('an update that times out before the provider applied it: reported not made, nothing changed', async () => {
        const [lunch] = await search('late lunch');
        w.inject({ method: changeMethod, held: 'before' });
        const error = await failed('update_event', {
          eventId: lunch!.eventId,
          seen: seenOf(lunch!),
          title: 'Early lunch',
        });
        assert.deepEqual([error.code, error.applied], ['provider_unavailable', false]);
        await w.settled();
        assert.deepEqual(
          (await search('lunch')).map((e) => e.title),
          ['Late lunch'],
        );
        // And then it works.
        await ok('update_event', { eventId: lunch!.eventId, seen: seenOf(lunch!), title: 'Early lunch' });
        assert.deepEqual(
          (await search('lunch')).map((e) => e.title),
          ['Early lunch'],
        );
      });

      it('a version conflict (412): conflict with the event as it now is, nothing changed', async () => {
        const [lunch] = await search('lunch');
        w.inject({ method: changeMethod, status: 412 });
        const error = await failed('update_event', {
          eventId: lunch!.eventId,
          seen: seenOf(lunch!),
          title: 'Brunch',
        });
        assert.deepEqual([error.code, error.reason], ['conflict', 'version']);
        assert.equal((error.current as Event).title, 'Early lunch');
        assert.equal((await search('brunch')).length, 0, 'no lost update, no blind overwrite');
      });

      it('a 429: not made, said so, sent once', async () => {
        const [lunch] = await search('lunch');
        const before = w.writes();
        w.inject({ method: 'DELETE', status: 429, retryAfter: '7' });
        const error = await failed('delete_event', { eventId: lunch!.eventId, seen: seenOf(lunch!) });
        assert.deepEqual(
          [error.code, error.reason, error.applied],
          ['provider_unavailable', 'rate_limited', false],
        );
        assert.equal(w.writes() - before, 1, 'the write was not repeated');
        assert.equal((await search('lunch')).length, 1);
        await ok('delete_event', { eventId: lunch!.eventId, seen: seenOf(lunch!) });
        assert.equal((await search('lunch')).length, 0);
      });
    });

    it('creates a series on two weekdays across the DST change; one occurrence then changes alone', async () => {
      const created = await ok('create_event', {
        calendarId: team,
        title: 'Planning',
        start: '2026-03-26T10:00:00',
        end: '2026-03-26T10:45:00',
        timeZone: berlin,
        recurrence: { frequency: 'weekly', daysOfWeek: ['thursday', 'monday'], count: 4 },
        idempotencyKey: `${name}-planning`,
      });
      const first = created.event as Event;
      assert.deepEqual([first.start, first.duration], ['2026-03-26T10:00:00+01:00', 'PT45M']);
      const planning = async () =>
        (await list())
          .filter((e) => e.title.startsWith('Planning'))
          .map((e) => [e.title, e.start, e.duration]);
      // 10:00 in Berlin before and after the clocks go forward on 29 March.
      assert.deepEqual(await planning(), [
        ['Planning', '2026-03-26T10:00:00+01:00', 'PT45M'],
        ['Planning', '2026-03-30T10:00:00+02:00', 'PT45M'],
        ['Planning', '2026-04-02T10:00:00+02:00', 'PT45M'],
        ['Planning', '2026-04-06T10:00:00+02:00', 'PT45M'],
      ]);
      const occurrences = (await list()).filter((e) => e.title === 'Planning');
      assert.equal(new Set(occurrences.map((e) => e.eventId)).size, 1, 'one series');
      await ok('update_event', {
        eventId: first.eventId,
        occurrenceId: occurrences[1]!.occurrenceId,
        seen: seenOf(occurrences[1]!),
        scope: 'occurrence',
        title: 'Planning (short)',
        start: '2026-03-30T10:00:00',
        end: '2026-03-30T10:15:00',
        timeZone: berlin,
      });
      assert.deepEqual(await planning(), [
        ['Planning', '2026-03-26T10:00:00+01:00', 'PT45M'],
        ['Planning (short)', '2026-03-30T10:00:00+02:00', 'PT15M'],
        ['Planning', '2026-04-02T10:00:00+02:00', 'PT45M'],
        ['Planning', '2026-04-06T10:00:00+02:00', 'PT45M'],
      ]);
      await ok('delete_event', { eventId: first.eventId, seen: seenOf(first), scope: 'series' });
      assert.deepEqual(await planning(), []);
    });

    it('creates monthly and yearly series that every provider expands alike, across DST changes', async () => {
      const series = [
        {
          title: 'Board meeting',
          start: '2026-03-26T16:00:00',
          end: '2026-03-26T17:00:00',
          shown: '2026-03-26T16:00:00+01:00',
          recurrence: {
            frequency: 'monthly',
            weekdayPosition: { position: 'last', day: 'thursday' },
            count: 8,
          },
        },
        {
          title: 'Payroll',
          start: '2026-04-15T08:00:00',
          end: '2026-04-15T08:30:00',
          shown: '2026-04-15T08:00:00+02:00',
          recurrence: { frequency: 'monthly', interval: 2, until: '2026-12-31' },
        },
        {
          title: 'Anniversary',
          start: '2026-03-28T09:00:00',
          end: '2026-03-28T10:00:00',
          shown: '2026-03-28T09:00:00+01:00',
          recurrence: { frequency: 'yearly', count: 3 },
        },
      ];
      const made: Event[] = [];
      for (const { recurrence, shown, ...times } of series) {
        const created = await ok('create_event', {
          calendarId: team,
          ...times,
          timeZone: berlin,
          recurrence,
        });
        assert.equal((created.event as Event).start, shown, 'the answer is the first occurrence');
        made.push(created.event as Event);
      }
      // list_events takes at most 744 hours at a time: 30-day windows from March 2026 to January
      // 2027, and the Marches of 2027 and 2028.
      const windows = [
        ...Array.from({ length: 10 }, (_, i) =>
          Temporal.Instant.from('2026-03-20T00:00:00Z').add({ hours: 720 * i }),
        ),
        Temporal.Instant.from('2027-03-01T00:00:00Z'),
        Temporal.Instant.from('2028-03-01T00:00:00Z'),
      ];
      const seen = new Map<string, [string, string, string]>();
      for (const from of windows) {
        const page = await ok('list_events', {
          calendarIds: [team],
          start: from.toString(),
          end: from.add({ hours: 720 }).toString(),
          limit: 250,
        });
        for (const e of page.termine as Termine) {
          if (!made.some((first) => first.eventId === e.eventId)) continue;
          const instant = Temporal.Instant.from(e.start);
          seen.set(e.occurrenceId, [e.title, e.start, instant.toString()]);
        }
      }
      const occurrences = [...seen.values()].sort((a, b) => a[2].localeCompare(b[2]));
      // 16:00 and 08:00 in Berlin: an hour earlier in UTC from 29 March to 25 October.
      assert.deepEqual(occurrences, [
        ['Board meeting', '2026-03-26T16:00:00+01:00', '2026-03-26T15:00:00Z'],
        ['Anniversary', '2026-03-28T09:00:00+01:00', '2026-03-28T08:00:00Z'],
        ['Payroll', '2026-04-15T08:00:00+02:00', '2026-04-15T06:00:00Z'],
        ['Board meeting', '2026-04-30T16:00:00+02:00', '2026-04-30T14:00:00Z'],
        ['Board meeting', '2026-05-28T16:00:00+02:00', '2026-05-28T14:00:00Z'],
        ['Payroll', '2026-06-15T08:00:00+02:00', '2026-06-15T06:00:00Z'],
        ['Board meeting', '2026-06-25T16:00:00+02:00', '2026-06-25T14:00:00Z'],
        ['Board meeting', '2026-07-30T16:00:00+02:00', '2026-07-30T14:00:00Z'],
        ['Payroll', '2026-08-15T08:00:00+02:00', '2026-08-15T06:00:00Z'],
        ['Board meeting', '2026-08-27T16:00:00+02:00', '2026-08-27T14:00:00Z'],
        ['Board meeting', '2026-09-24T16:00:00+02:00', '2026-09-24T14:00:00Z'],
        ['Payroll', '2026-10-15T08:00:00+02:00', '2026-10-15T06:00:00Z'],
        ['Board meeting', '2026-10-29T16:00:00+01:00', '2026-10-29T15:00:00Z'],
        ['Payroll', '2026-12-15T08:00:00+01:00', '2026-12-15T07:00:00Z'],
        // Summer time begins on 28 March 2027 and 26 March 2028, before the anniversary.
        ['Anniversary', '2027-03-28T09:00:00+02:00', '2027-03-28T07:00:00Z'],
        ['Anniversary', '2028-03-28T09:00:00+02:00', '2028-03-28T07:00:00Z'],
      ]);
      for (const first of made)
        await ok('delete_event', { eventId: first.eventId, seen: seenOf(first), scope: 'series' });
      assert.deepEqual(
        (await list()).filter((e) => made.some((first) => first.eventId === e.eventId)),
        [],
      );
    });

    it('moves a whole series and changes its rule; refuses, naming them, while occurrences stand apart', async () => {
      const created = await ok('create_event', {
        calendarId: team,
        title: 'Retro',
        start: '2026-03-24T16:00:00',
        end: '2026-03-24T17:00:00',
        timeZone: berlin,
        recurrence: { frequency: 'weekly', until: '2026-04-14' },
        idempotencyKey: `${name}-retro`,
      });
      const { eventId } = created.event as Event;
      const retros = async () => (await list()).filter((e) => e.eventId === eventId);
      const retro = async () => (await retros()).map((e) => [e.start, e.duration]);
      const third = (await retros())[2]!;
      // The third occurrence moves to 17:30 for 30 minutes, and every other one with it.
      const move = {
        eventId,
        occurrenceId: third.occurrenceId,
        seen: seenOf(third),
        scope: 'series',
        start: '2026-04-07T17:30:00',
        end: '2026-04-07T18:00:00',
        timeZone: berlin,
      };
      if (name === 'microsoft') {
        const refused = await failed('update_event', move);
        assert.deepEqual([refused.code, refused.field], ['unsupported_by_provider', 'scope']);
        assert.equal((await retros()).length, 4, 'nothing changed');
        await ok('delete_event', { eventId, seen: seenOf((await retros())[0]!), scope: 'series' });
        return;
      }
      await ok('update_event', move);
      // Across the DST change, and the last one (14 April) kept: UNTIL moved with the series.
      assert.deepEqual(await retro(), [
        ['2026-03-24T17:30:00+01:00', 'PT30M'],
        ['2026-03-31T17:30:00+02:00', 'PT30M'],
        ['2026-04-07T17:30:00+02:00', 'PT30M'],
        ['2026-04-14T17:30:00+02:00', 'PT30M'],
      ]);
      const [first] = await retros();
      const toWednesday = {
        eventId,
        seen: seenOf(first!),
        scope: 'series',
        start: '2026-03-25T08:00:00',
        end: '2026-03-25T08:30:00',
        timeZone: berlin,
      };
      const dayChange = await failed('update_event', toWednesday);
      assert.deepEqual(
        [dayChange.code, dayChange.field, dayChange.reason],
        ['invalid_request', 'recurrence', 'series_date_change'],
      );
      await ok('update_event', { ...toWednesday, recurrence: { frequency: 'daily', count: 3 } });
      const daily = await retros();
      assert.deepEqual(
        daily.map((e) => [e.start, e.duration]),
        [
          ['2026-03-25T08:00:00+01:00', 'PT30M'],
          ['2026-03-26T08:00:00+01:00', 'PT30M'],
          ['2026-03-27T08:00:00+01:00', 'PT30M'],
        ],
      );
      // One occurrence cancelled on its own: the series no longer moves, and the refusal names it.
      await ok('delete_event', {
        eventId,
        occurrenceId: daily[1]!.occurrenceId,
        seen: seenOf(daily[1]!),
        scope: 'occurrence',
      });
      const refused = await failed('update_event', {
        ...toWednesday,
        seen: seenOf(daily[0]!),
        start: '2026-03-25T07:00:00',
        end: '2026-03-25T07:30:00',
      });
      assert.equal(refused.code, 'series_has_exceptions');
      assert.deepEqual(
        (refused.exceptions as Array<{ occurrenceId: string; kind: string }>).map((e) => [
          e.occurrenceId,
          e.kind,
        ]),
        [[daily[1]!.occurrenceId, 'cancelled']],
      );
      assert.deepEqual(await retro(), [
        ['2026-03-25T08:00:00+01:00', 'PT30M'],
        ['2026-03-27T08:00:00+01:00', 'PT30M'],
      ]);
      await ok('delete_event', { eventId, seen: seenOf(daily[0]!), scope: 'series' });
      assert.deepEqual(await retros(), []);
    });

    it('deletes an occurrence and the following ones: the series ends before it, across DST; refused while a later one stands apart', async () => {
      const created = await ok('create_event', {
        calendarId: team,
        title: 'Review',
        start: '2026-03-26T09:00:00',
        end: '2026-03-26T09:30:00',
        timeZone: berlin,
        recurrence: { frequency: 'daily', count: 8 },
        idempotencyKey: `${name}-review-following`,
      });
      const { eventId } = created.event as Event;
      const reviews = async () => (await list()).filter((e) => e.eventId === eventId);
      const all = await reviews();
      assert.equal(all.length, 8);
      const following = (occurrence: Event) => ({
        eventId,
        occurrenceId: occurrence.occurrenceId,
        seen: seenOf(occurrence),
        scope: 'following',
      });
      if (name === 'microsoft') {
        const refused = await failed('delete_event', following(all[4]!));
        assert.deepEqual([refused.code, refused.field], ['unsupported_by_provider', 'scope']);
        assert.equal((await reviews()).length, 8, 'nothing changed');
        await ok('delete_event', { eventId, seen: seenOf(all[0]!), scope: 'series' });
        return;
      }
      const noOccurrence = await failed('delete_event', {
        eventId,
        seen: seenOf(all[4]!),
        scope: 'following',
      });
      assert.deepEqual([noOccurrence.code, noOccurrence.field], ['invalid_request', 'occurrenceId']);
      // 27 March and 1 April cancelled on their own.
      for (const cancelled of [all[1]!, all[6]!]) {
        await ok('delete_event', { ...following(cancelled), scope: 'occurrence' });
      }
      // From 30 March on would drop 1 April, held apart: refused, naming only it.
      const refused = await failed('delete_event', following(all[4]!));
      assert.equal(refused.code, 'series_has_exceptions');
      assert.deepEqual(
        (refused.exceptions as Array<{ occurrenceId: string; kind: string }>).map((e) => [
          e.occurrenceId,
          e.kind,
        ]),
        [[all[6]!.occurrenceId, 'cancelled']],
      );
      assert.equal((await reviews()).length, 6, 'nothing changed');
      // From 2 April (after the DST change) on: the occurrences before it stay, the cancelled ones too.
      const ended = await ok('delete_event', following(all[7]!));
      assert.deepEqual(ended.deleted, { eventId, occurrenceId: all[7]!.occurrenceId, scope: 'following' });
      assert.deepEqual(
        (await reviews()).map((e) => e.start),
        [
          '2026-03-26T09:00:00+01:00',
          '2026-03-28T09:00:00+01:00',
          '2026-03-29T09:00:00+02:00',
          '2026-03-30T09:00:00+02:00',
          '2026-03-31T09:00:00+02:00',
        ],
      );
      const [audit] = await eventWritesOf(t.ctx.db, person.userId, { limit: 1 });
      assert.deepEqual(
        [audit!.action, audit!.scope, audit!.occurrenceId, audit!.outcome],
        ['delete', 'following', all[7]!.occurrenceId, 'applied'],
      );
      // From the first occurrence on: the whole series.
      const first = (await reviews())[0]!;
      const whole = await ok('delete_event', following(first));
      assert.equal((whole.deleted as { scope: string }).scope, 'series');
      assert.deepEqual(await reviews(), []);
    });

    it('changes an occurrence and the following ones: a new series from it, the old one ending before it', async () => {
      const created = await ok('create_event', {
        calendarId: team,
        title: 'Planning',
        start: '2026-03-27T10:00:00',
        end: '2026-03-27T10:30:00',
        timeZone: berlin,
        recurrence: { frequency: 'daily', count: 6 },
        alerts: [{ offset: '-PT10M' }],
        idempotencyKey: `${name}-planning-following`,
      });
      const old = (created.event as Event).eventId;
      const plannings = async () =>
        (await list())
          .filter((e) => e.title.startsWith('Planning'))
          .map((e) => [e.eventId === old, e.title, e.start]);
      const all = (await list()).filter((e) => e.eventId === old);
      const fromMonday = {
        eventId: old,
        occurrenceId: all[3]!.occurrenceId,
        seen: seenOf(all[3]!),
        scope: 'following',
        title: 'Planning (later)',
        start: '2026-03-30T11:00:00',
        end: '2026-03-30T11:30:00',
        timeZone: berlin,
      };
      if (name === 'microsoft') {
        const refused = await failed('update_event', fromMonday);
        assert.deepEqual([refused.code, refused.field], ['unsupported_by_provider', 'scope']);
        assert.equal((await plannings()).length, 6, 'nothing changed');
        await ok('delete_event', { eventId: old, seen: seenOf(all[0]!), scope: 'series' });
        return;
      }
      const split = (await ok('update_event', fromMonday)).event as Event;
      assert.notEqual(split.eventId, old);
      assert.deepEqual(
        [split.title, split.start, split.alerts],
        ['Planning (later)', '2026-03-30T11:00:00+02:00', all[0]!.alerts],
      );
      // The old series up to Sunday (across the DST change), the new one the three left of COUNT=6.
      assert.deepEqual(await plannings(), [
        [true, 'Planning', '2026-03-27T10:00:00+01:00'],
        [true, 'Planning', '2026-03-28T10:00:00+01:00'],
        [true, 'Planning', '2026-03-29T10:00:00+02:00'],
        [false, 'Planning (later)', '2026-03-30T11:00:00+02:00'],
        [false, 'Planning (later)', '2026-03-31T11:00:00+02:00'],
        [false, 'Planning (later)', '2026-04-01T11:00:00+02:00'],
      ]);
      const [audit] = await eventWritesOf(t.ctx.db, person.userId, { limit: 1 });
      assert.deepEqual(
        [audit!.action, audit!.scope, audit!.eventId, audit!.occurrenceId, audit!.newEventId, audit!.outcome],
        ['update', 'following', old, all[3]!.occurrenceId, split.eventId, 'applied'],
      );
      // A later occurrence of the new series cancelled alone: splitting before it is refused, naming it.
      const later = (await list()).filter((e) => e.eventId === split.eventId);
      await ok('delete_event', {
        eventId: split.eventId,
        occurrenceId: later[2]!.occurrenceId,
        seen: seenOf(later[2]!),
        scope: 'occurrence',
      });
      const refused = await failed('update_event', {
        eventId: split.eventId,
        occurrenceId: later[1]!.occurrenceId,
        seen: seenOf(later[1]!),
        scope: 'following',
        title: 'Planning (last)',
      });
      assert.equal(refused.code, 'series_has_exceptions');
      assert.deepEqual(
        (refused.exceptions as Array<{ occurrenceId: string }>).map((e) => e.occurrenceId),
        [later[2]!.occurrenceId],
      );
      assert.equal((await plannings()).length, 5, 'nothing changed');
      await ok('delete_event', { eventId: split.eventId, seen: seenOf(later[0]!), scope: 'series' });
      await ok('delete_event', { eventId: old, seen: seenOf(all[0]!), scope: 'series' });
      assert.deepEqual(await plannings(), []);
    });

    it('get_event: every event as list_events shows it, at each level; a seen taken from it lets update_event apply', async () => {
      const mcp = `${t.ctx.config.baseUrl}/mcp`;
      const times = { start: '2026-04-08T08:00:00', end: '2026-04-08T09:00:00', timeZone: berlin };
      const args = { calendarId: team, title: 'Therapy', ...times, privacy: 'private' };
      const therapy = (await ok('create_event', args)).event as Event;
      const tokenAt = async (detailLevel: 'busy' | 'titles' | 'full', privateDetails: boolean) =>
        (
          await grantToken(t.ctx, {
            ...person,
            calendars: [{ calendarId: team, detailLevel }],
            scopes: ['calendar:read', 'calendar:write'],
            privateDetails,
          })
        ).token;
      const get = (token: string, event: Pick<Event, 'eventId' | 'occurrenceId'>) =>
        callToolRaw(mcp, token, 'get_event', {
          calendarId: team,
          eventId: event.eventId,
          occurrenceId: event.occurrenceId,
        });
      for (const [level, privateDetails] of [
        ['busy', false],
        ['titles', false],
        ['full', false],
        ['full', true],
      ] as const) {
        const token = await tokenAt(level, privateDetails);
        const listed = structured(
          await callToolRaw(mcp, token, 'list_events', { calendarIds: [team], ...window, limit: 250 }),
        ).termine as Termine;
        // Occurrences of a series other than its first are among them, each named by its occurrenceId.
        assert.ok(listed.some((e, i) => listed.findIndex((o) => o.eventId === e.eventId) < i));
        for (const event of listed) {
          assert.deepEqual(
            structured(await get(token, event)),
            { ok: true, event },
            `${level}: ${event.start}`,
          );
        }
        const shown = listed.find((e) => e.eventId === therapy.eventId)?.title;
        assert.equal(shown, level !== 'busy' && privateDetails ? 'Therapy' : 'Busy', level);
      }
      const token = await tokenAt('full', true);
      const read = structured(await get(token, therapy)).event as Event;
      const moved = structured(
        await callToolRaw(mcp, token, 'update_event', {
          eventId: therapy.eventId,
          seen: seenOf(read),
          title: 'Therapy (moved)',
          start: '2026-04-08T10:00:00',
          end: '2026-04-08T11:00:00',
          timeZone: berlin,
        }),
      );
      assert.equal(moved.outcome, 'applied');
      const now = structured(await get(token, therapy)).event as Event;
      assert.deepEqual([now.title, now.start], ['Therapy (moved)', '2026-04-08T10:00:00+02:00']);
      structured(
        await callToolRaw(mcp, token, 'delete_event', { eventId: therapy.eventId, seen: seenOf(now) }),
      );
      // Deleted at the provider, made up, or an occurrence of another event: one answer.
      const madeUp = toolError(
        await get(token, { eventId: `evt_${'A'.repeat(40)}`, occurrenceId: therapy.occurrenceId }),
      );
      assert.equal(madeUp.code, 'not_found');
      assert.deepEqual(toolError(await get(token, therapy)), madeUp);
      const [other] = await list();
      assert.deepEqual(
        toolError(await get(token, { eventId: therapy.eventId, occurrenceId: other!.occurrenceId })),
        madeUp,
      );
      const unknown = toolError(
        await callToolRaw(mcp, token, 'get_event', { calendarId: 'cal_unknown', eventId: therapy.eventId }),
      );
      assert.equal(unknown.code, 'calendar_not_permitted');
    });

    it('deletes the series and the event; a stale id then finds nothing', async () => {
      const [sync] = (await list()).filter((e) => e.title === 'Team sync');
      await ok('delete_event', { eventId: sync!.eventId, seen: seenOf(sync!), scope: 'series' });
      const [quarterly] = await search('quarterly');
      await ok('delete_event', { eventId: quarterly!.eventId, seen: seenOf(quarterly!) });
      assert.deepEqual(
        (await list()).map((e) => e.title),
        ['Design review'],
      );
      assert.equal(
        (await failed('delete_event', { eventId: quarterly!.eventId, seen: seenOf(quarterly!) })).code,
        'not_found',
      );
    });

    it('sets, changes and removes reminders; refuses what the provider cannot hold, writing nothing', async () => {
      const times = { start: '2026-04-08T10:00:00', end: '2026-04-08T11:00:00', timeZone: berlin };
      const created = await ok('create_event', {
        calendarId: team,
        title: 'Dentist',
        ...times,
        alerts: [{ offset: '-PT30M' }],
      });
      const dentist = created.event as Event;
      assert.deepEqual(dentist.alerts, [{ offset: '-PT30M', action: 'display' }]);
      const [found] = await search('dentist');
      assert.deepEqual(found?.alerts, [{ offset: '-PT30M', action: 'display' }], 'read back the same');
      const later = await ok('update_event', {
        eventId: dentist.eventId,
        seen: { alerts: dentist.alerts! },
        alerts: [{ offset: '-P1D', action: 'display' }],
      });
      assert.deepEqual((later.event as Event).alerts, [{ offset: '-P1D', action: 'display' }]);
      const none = await ok('update_event', {
        eventId: dentist.eventId,
        seen: { alerts: (later.event as Event).alerts! },
        alerts: [],
      });
      assert.equal((none.event as Event).alerts, undefined);

      const two = [{ offset: '-PT10M' }, { offset: '-PT2H', action: 'email' }];
      if (name === 'google') {
        const both = await ok('update_event', {
          eventId: dentist.eventId,
          seen: { alerts: null },
          alerts: two,
        });
        assert.deepEqual((both.event as Event).alerts, [
          { offset: '-PT10M', action: 'display' },
          { offset: '-PT2H', action: 'email' },
        ]);
      } else {
        const refused = await failed('update_event', {
          eventId: dentist.eventId,
          seen: { alerts: null },
          alerts: two,
        });
        assert.deepEqual(
          [refused.code, refused.field],
          ['unsupported_by_provider', name === 'microsoft' ? 'alerts' : 'alerts[1].action'],
        );
      }
      const badOffsets: Array<[string, string]> = [
        ['PT15M', 'alerts[0].offset'],
        ['-P29D', 'alerts[0].offset'],
        ['-PT30S', 'alerts[0].offset'],
        ['-P1M', 'alerts[0].offset'],
        ['soon', 'alerts[0].offset'],
      ];
      for (const [offset, field] of badOffsets) {
        const bad = await failed('update_event', {
          eventId: dentist.eventId,
          seen: { alerts: null },
          alerts: [{ offset }],
        });
        assert.deepEqual([bad.code, bad.field], ['invalid_request', field], offset);
      }
      const six = Array.from({ length: 6 }, () => ({ offset: '-PT5M' }));
      assert.equal(
        (await failed('create_event', { calendarId: team, title: 'x', ...times, alerts: six })).code,
        'invalid_request',
      );
      await ok('delete_event', {
        eventId: dentist.eventId,
        seen: { title: 'Dentist', start: dentist.start },
      });
    });

    it("adds the provider's own online meeting, or refuses where there is none", async () => {
      const args = {
        calendarId: team,
        title: 'Kick-off call',
        start: '2026-04-09T15:00:00',
        end: '2026-04-09T15:30:00',
        timeZone: berlin,
        conference: true,
      };
      if (name === 'caldav') {
        const refused = await failed('create_event', args);
        assert.deepEqual([refused.code, refused.field], ['unsupported_by_provider', 'conference']);
        assert.equal((await search('kick-off')).length, 0, 'nothing created');
        return;
      }
      const call = (await ok('create_event', args)).event as Event;
      const link = call.virtualLocations?.[0]?.uri ?? '';
      assert.match(
        link,
        name === 'google' ? /^https:\/\/meet\.google\.com\// : /^https:\/\/teams\.microsoft\.com\//,
      );
      const [found] = await search('kick-off');
      assert.equal(found?.virtualLocations?.[0]?.uri, link);
      assert.deepEqual([found?.canEdit, found?.editBlockedReason], [false, 'conference']);
    });
  });
}
