/**
 * update_event over real MCP on in-memory calendars whose facts and failures the tests set: only the
 * fields given, version conflicts and stale reads, recurring scopes, each editBlockedReason,
 * calendars outside the grant, timeouts, and "this and following" when half of it fails.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { AppError } from '../../src/errors.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { structured, toolError } from '../helpers/mcpSession.ts';
import { occurrence, ownFacts } from '../helpers/memoryCalendars.ts';
import { seenOf } from '../helpers/seen.ts';
import { allScopes, berlin, writeToolsSuite } from '../helpers/writeToolsSuite.ts';

describe('write tools over MCP', () => {
  const { app, ana, bob, work, tokenFor, call, listed, find } = writeToolsSuite();

  describe('update_event', () => {
    const idOf = async (title: string) => (await find(title))[0]!;

    it('changes only the fields given and returns the event as it now is', async () => {
      const planning = await idOf('Planning');
      const result = structured(
        await call('update_event', {
          eventId: planning.eventId,
          seen: seenOf(planning),
          title: 'Planning (moved)',
          description: 'Room 2',
        }),
      );
      const event = result.event as Record<string, unknown>;
      assert.equal(event.title, 'Planning (moved)');
      assert.equal(event.description, 'Room 2');
      assert.equal(event.start, planning.start, 'time untouched');
      const moved = structured(
        await call('update_event', {
          eventId: planning.eventId,
          seen: seenOf(event),
          start: '2026-03-24T15:00:00',
          end: '2026-03-24T15:45:00',
          timeZone: berlin,
          description: null,
        }),
      ).event as Record<string, unknown>;
      assert.deepEqual(
        [moved.start, moved.duration, moved.description],
        ['2026-03-24T15:00:00+01:00', 'PT45M', undefined],
      );
      assert.equal(
        toolError(await call('update_event', { eventId: planning.eventId, seen: {} })).code,
        'invalid_request',
      );
      assert.equal(
        toolError(
          await call('update_event', { eventId: planning.eventId, seen: {}, start: '2026-03-24T15:00:00Z' }),
        ).field,
        'end',
      );
    });

    it('answers a change made in between with conflict and the event as it now is, changing nothing', async () => {
      const planning = await idOf('Planning');
      work().beforeWrite = () => {
        const index = work().occurrences.findIndex((o) => o.providerEventId === 'own');
        const current = work().occurrences[index]!;
        work().occurrences[index] = {
          ...current,
          title: 'Planning (by Ben)',
          facts: { ...current.facts, version: '"ben"' },
        };
      };
      const error = toolError(
        await call('update_event', {
          eventId: planning.eventId,
          seen: seenOf(planning),
          title: 'Planning (by Ana)',
        }),
      );
      assert.equal(error.code, 'conflict');
      assert.equal(error.reason, 'version');
      assert.equal((error.current as Record<string, unknown>).title, 'Planning (by Ben)');
      assert.equal((await find('Planning (by Ana)')).length, 0, 'no lost update');
    });

    it('refuses a write based on a stale read (changed between tool calls), unless the changes touch nothing in common', async () => {
      const planning = await idOf('Planning');
      // The person edits the event at the provider after the assistant read it.
      let edits = 0;
      const editAtProvider = (edit: Partial<ProviderOccurrence>) => {
        const index = work().occurrences.findIndex((o) => o.providerEventId === 'own');
        const current = work().occurrences[index]!;
        edits += 1;
        work().occurrences[index] = {
          ...current,
          ...edit,
          facts: { ...current.facts, version: `"edit-${edits}"` },
        };
      };
      editAtProvider({ title: 'Planning (renamed by Ana)' });
      const stale = toolError(
        await call('update_event', {
          eventId: planning.eventId,
          seen: seenOf(planning),
          title: 'Planning v2',
        }),
      );
      assert.deepEqual(
        [stale.code, stale.reason, stale.fields],
        ['conflict', 'changed_since_read', ['title']],
      );
      assert.equal((stale.current as Record<string, unknown>).title, 'Planning (renamed by Ana)');
      assert.equal((await find('Planning v2')).length, 0, 'the rename made in between is kept');

      // A change elsewhere (the notes) and a write of the title have nothing in common.
      const renamed = await idOf('Planning (renamed by Ana)');
      editAtProvider({ description: 'Notes written at the provider' });
      const applied = structured(
        await call('update_event', {
          eventId: renamed.eventId,
          seen: { title: renamed.title },
          title: 'Planning v2',
        }),
      ).event as Record<string, unknown>;
      assert.deepEqual(
        [applied.title, applied.description],
        ['Planning v2', 'Notes written at the provider'],
      );

      // What the write changes must have been seen; nothing is written without it.
      const unseen = toolError(
        await call('update_event', {
          eventId: renamed.eventId,
          seen: { title: 'Planning v2' },
          description: 'x',
        }),
      );
      assert.deepEqual([unseen.code, unseen.field], ['invalid_request', 'seen.description']);
      const noTitle = toolError(
        await call('delete_event', { eventId: renamed.eventId, seen: { start: applied.start } }),
      );
      assert.deepEqual([noTitle.code, noTitle.field], ['invalid_request', 'seen.title']);

      // A deletion of an event moved since it was read is refused too.
      editAtProvider({ start: '2026-03-24T16:00:00' });
      const moved = toolError(
        await call('delete_event', {
          eventId: renamed.eventId,
          seen: { title: 'Planning v2', start: applied.start },
        }),
      );
      assert.deepEqual([moved.code, moved.fields], ['conflict', ['start']]);
      assert.equal((await find('Planning v2')).length, 1, 'not deleted');
    });

    it('needs a scope for a recurring event, and an occurrence edit never changes the series', async () => {
      const [first, second] = await find('Standup');
      assert.ok(first && second && first.eventId === second.eventId);
      assert.equal(
        toolError(await call('update_event', { eventId: first.eventId, seen: seenOf(first), title: 'x' }))
          .code,
        'recurring_event',
      );
      assert.equal(
        toolError(
          await call('update_event', {
            eventId: first.eventId,
            seen: seenOf(first),
            scope: 'occurrence',
            title: 'x',
          }),
        ).field,
        'occurrenceId',
      );
      const moved = structured(
        await call('update_event', {
          eventId: second.eventId,
          occurrenceId: second.occurrenceId,
          seen: seenOf(second),
          scope: 'occurrence',
          title: 'Standup (late)',
          start: '2026-03-30T11:00:00',
          end: '2026-03-30T11:15:00',
          timeZone: berlin,
        }),
      ).event as Record<string, unknown>;
      assert.equal(moved.occurrenceId, second.occurrenceId);
      const after = await listed();
      assert.deepEqual(
        after.filter((e) => e.eventId === first.eventId).map((e) => [e.title, e.start]),
        [
          ['Standup', '2026-03-23T09:00:00+01:00'],
          ['Standup (late)', '2026-03-30T11:00:00+02:00'],
        ],
      );
      // The occurrence changed alone stands apart from the rule: the series no longer moves.
      const refused = toolError(
        await call('update_event', {
          eventId: first.eventId,
          seen: seenOf(first),
          scope: 'series',
          start: '2026-03-23T10:00:00',
          end: '2026-03-23T10:15:00',
          timeZone: berlin,
        }),
      );
      assert.equal(refused.code, 'series_has_exceptions');
      assert.deepEqual(
        (refused.exceptions as Array<{ occurrenceId: string; kind: string }>).map((e) => [
          e.occurrenceId,
          e.kind,
        ]),
        [[second.occurrenceId, 'changed']],
      );
      // A rule belongs to a whole series: one occurrence has none to change.
      const ruleOnOne = toolError(
        await call('update_event', {
          eventId: second.eventId,
          occurrenceId: second.occurrenceId,
          seen: seenOf(moved),
          scope: 'occurrence',
          recurrence: { frequency: 'daily', count: 2 },
        }),
      );
      assert.deepEqual([ruleOnOne.code, ruleOnOne.field], ['invalid_request', 'recurrence']);
      structured(
        await call('update_event', {
          eventId: first.eventId,
          seen: seenOf(first),
          scope: 'series',
          title: 'Daily',
        }),
      );
      assert.equal((await find('Daily')).length, 2);
    });

    it('refuses with the editBlockedReason: not organizer, guests, conference, private details, read scope', async () => {
      // Guests, and no organizer the calendar names as the user.
      work().occurrences.push(
        occurrence({
          start: '2026-03-26T12:00:00',
          timeZone: berlin,
          title: 'Board',
          facts: { ...ownFacts, organizer: 'unknown', attendees: true },
        }),
      );
      const cases: Array<[string, string]> = [
        ['Review', 'not_organizer'],
        ['Board', 'guests_or_scheduling'],
        ['Call', 'conference'],
      ];
      for (const [title, code] of cases) {
        const event = await idOf(title);
        assert.equal(event.editBlockedReason, code, title);
        assert.equal(
          toolError(await call('update_event', { eventId: event.eventId, seen: seenOf(event), title: 'x' }))
            .code,
          code,
          title,
        );
      }
      // A private event without private details is busy-only to the assistant.
      const doctor = (await listed()).find((e) => e.start === '2026-03-27T09:00:00+01:00')!;
      assert.equal(doctor.title, 'Busy');
      assert.equal(
        toolError(await call('update_event', { eventId: doctor.eventId, seen: seenOf(doctor), title: 'x' }))
          .code,
        'access_denied',
      );
      const busyOnly = await tokenFor(ana, allScopes, 'busy');
      const planning = await idOf('Planning');
      assert.equal(
        toolError(
          await call(
            'update_event',
            { eventId: planning.eventId, seen: seenOf(planning), title: 'x' },
            busyOnly,
          ),
        ).code,
        'access_denied',
      );
      assert.equal((await find('x')).length, 0);
    });

    it('answers an event of a calendar outside the grant, or a forged id, with calendar_not_permitted', async () => {
      const planning = await idOf('Planning');
      const bobToken = await tokenFor(bob, allScopes);
      assert.equal(
        toolError(
          await call(
            'update_event',
            { eventId: planning.eventId, seen: seenOf(planning), title: 'x' },
            bobToken,
          ),
        ).code,
        'calendar_not_permitted',
      );
      const onlyShared = (
        await grantToken(app.t.ctx, {
          userId: ana.userId,
          workspaceId: ana.workspaceId,
          calendars: [{ calendarId: ana.shared, detailLevel: 'full' }],
          scopes: allScopes,
        })
      ).token;
      assert.equal(
        toolError(
          await call(
            'update_event',
            { eventId: planning.eventId, seen: seenOf(planning), title: 'x' },
            onlyShared,
          ),
        ).code,
        'calendar_not_permitted',
      );
      assert.equal(
        toolError(
          await call('update_event', {
            eventId: `evt_${'A'.repeat(40)}`,
            seen: seenOf(planning),
            title: 'x',
          }),
        ).code,
        'calendar_not_permitted',
      );
      const [standup] = await find('Standup');
      assert.equal(
        toolError(
          await call('update_event', {
            eventId: planning.eventId,
            occurrenceId: standup!.occurrenceId,
            seen: seenOf(planning),
            scope: 'occurrence',
            title: 'x',
          }),
        ).field,
        'occurrenceId',
      );
    });

    it('after a timeout: the change made is reported made; not made is reported not made', async () => {
      const planning = await idOf('Planning');
      const timeout = new AppError('provider_unavailable', 'timeout', { details: { reason: 'timeout' } });
      work().writeFailure = { applied: true, error: timeout };
      const made = await call('update_event', {
        eventId: planning.eventId,
        seen: seenOf(planning),
        title: 'Planning v2',
      });
      assert.equal((structured(made).event as Record<string, unknown>).title, 'Planning v2');
      work().writeFailure = { applied: false, error: timeout };
      const notMade = toolError(
        await call('update_event', {
          eventId: planning.eventId,
          seen: { title: 'Planning v2' },
          title: 'Planning v3',
        }),
      );
      assert.deepEqual([notMade.code, notMade.applied], ['provider_unavailable', false]);
      assert.equal((await find('Planning v3')).length, 0);
      const limited = new AppError('provider_unavailable', 'Google Calendar is unavailable (HTTP 429).', {
        details: { reason: 'rate_limited', status: 429 },
        retryAfter: 7,
      });
      work().writeFailure = { applied: false, error: limited };
      const refused = toolError(
        await call('update_event', {
          eventId: planning.eventId,
          seen: { title: 'Planning v2' },
          title: 'Planning v4',
        }),
      );
      assert.deepEqual(
        [refused.code, refused.reason, refused.applied],
        ['provider_unavailable', 'rate_limited', false],
      );
    });
  });

  describe('update_event with scope "following"', () => {
    const rateLimited = () =>
      new AppError('provider_unavailable', 'Google Calendar is unavailable (HTTP 429).', {
        details: { reason: 'rate_limited', status: 429 },
      });
    /** Fails the write after the next one (the new series made, the old one then not ended), and `more` after that. */
    const failSecondWrite = (more?: () => void) => {
      work().beforeWrite = () => {
        work().beforeWrite = () => {
          work().writeFailure = { applied: false, error: rateLimited() };
          if (more !== undefined) work().beforeWrite = more;
        };
      };
    };
    const split = async () => {
      const [, second] = await find('Standup');
      return toolError(
        await call('update_event', {
          eventId: second!.eventId,
          occurrenceId: second!.occurrenceId,
          seen: seenOf(second!),
          scope: 'following',
          title: 'Standup (new)',
        }),
      );
    };

    it('from the first occurrence changes the whole series, no new one made', async () => {
      const before = await find('Standup');
      const renamed = structured(
        await call('update_event', {
          eventId: before[0]!.eventId,
          occurrenceId: before[0]!.occurrenceId,
          seen: seenOf(before[0]!),
          scope: 'following',
          title: 'Standup (all)',
        }),
      ).event as Record<string, string>;
      assert.equal(renamed.eventId, before[0]!.eventId);
      assert.deepEqual(
        (await find('Standup (all)')).map((e) => e.occurrenceId),
        before.map((e) => e.occurrenceId),
      );
    });

    it('removes the new series again when the old one could not be ended: nothing changed', async () => {
      const before = work().occurrences.length;
      failSecondWrite();
      const error = await split();
      assert.deepEqual(
        [error.code, error.reason, error.split],
        ['provider_unavailable', 'rate_limited', undefined],
      );
      assert.equal(work().occurrences.length, before, 'no new series left');
      assert.equal((await find('Standup (new)')).length, 0);
    });

    it('says which half was done when the new series cannot be removed again either', async () => {
      failSecondWrite(() => {
        work().writeFailure = { applied: false, error: rateLimited() };
      });
      const error = await split();
      assert.equal(error.code, 'provider_unavailable');
      const { newEventId, ...halves } = error.split as Record<string, string>;
      assert.deepEqual(halves, { newSeries: 'created', earlierSeries: 'not_ended' });
      assert.equal((await find('Standup (new)'))[0]?.eventId, newEventId);
      assert.match(error.message as string, /both now hold these occurrences/);
    });
  });
});
