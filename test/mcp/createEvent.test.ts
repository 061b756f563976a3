/**
 * create_event over real MCP on in-memory calendars whose facts and failures the tests set: the Event
 * shape, idempotency, writes that time out before or after the provider made them, times and
 * repeats it would have to guess refused naming the field, calendars it may not write.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { assertMatchesSchema, listToolsRaw, structured, toolError } from '../helpers/mcpSession.ts';
import { seedMemoryAccount } from '../helpers/memoryCalendars.ts';
import { seenOf } from '../helpers/seen.ts';
import { allScopes, berlin, writeToolsSuite } from '../helpers/writeToolsSuite.ts';

describe('write tools over MCP', () => {
  const { app, ana, bob, provider, work, tokenFor, call, find } = writeToolsSuite();

  describe('create_event', () => {
    it('creates a timed event in the zone given, returned in the Event shape and visible to reads', async () => {
      const tools = await listToolsRaw(app.mcp, app.token);
      const result = await call('create_event', {
        calendarId: ana.work,
        title: 'Dentist',
        start: '2026-03-28T23:30:00',
        end: '2026-03-29T03:30:00',
        timeZone: berlin,
        location: 'Main St 1',
      });
      const body = structured(result);
      assertMatchesSchema(tools.find((tool) => tool.name === 'create_event')!.outputSchema, body);
      const event = body.event as Record<string, unknown>;
      assert.equal(body.outcome, 'applied');
      // Across the spring-forward night: four hours on the clock are three elapsed.
      assert.deepEqual(
        { start: event.start, timeZone: event.timeZone, duration: event.duration, title: event.title },
        { start: '2026-03-28T23:30:00+01:00', timeZone: berlin, duration: 'PT3H', title: 'Dentist' },
      );
      assert.equal(event.canEdit, true);
      const [seen] = await find('Dentist');
      assert.equal(seen?.eventId, event.eventId);
      assert.deepEqual(seen?.locations, [{ name: 'Main St 1' }]);

      // A private event is busy-only to an assistant without private details, even its own.
      const hidden = structured(
        await call('create_event', {
          calendarId: ana.work,
          title: 'Therapy',
          start: '2026-03-24T08:00:00Z',
          end: '2026-03-24T09:00:00Z',
          privacy: 'private',
        }),
      ).event as Record<string, unknown>;
      assert.deepEqual(
        [hidden.title, hidden.timeZone, hidden.start],
        ['Busy', berlin, '2026-03-24T09:00:00+01:00'],
      );
      assert.equal(work().occurrences.find((o) => o.title === 'Therapy')?.privacy, 'private');
    });

    it('with an idempotencyKey makes one event however often it is repeated', async () => {
      const args = {
        calendarId: ana.work,
        title: 'Offsite',
        start: '2026-03-30',
        end: '2026-04-01',
        idempotencyKey: 'offsite-2026',
      };
      const first = structured(await call('create_event', args));
      const second = structured(await call('create_event', args));
      assert.equal(first.outcome, 'applied');
      assert.equal(second.outcome, 'already_applied');
      assert.deepEqual(second.event, first.event);
      assert.equal((await find('Offsite')).length, 1);
      assert.deepEqual((first.event as Record<string, unknown>).showWithoutTime, true);
      assert.equal(
        (first.event as Record<string, unknown>).start,
        '2026-03-30',
        'an all-day event starts on a date',
      );

      const reused = toolError(await call('create_event', { ...args, title: 'Something else' }));
      assert.equal(reused.code, 'conflict');
      assert.equal(reused.reason, 'idempotency_key_reused');
      assert.equal((await find('Something else')).length, 0);
    });

    it('after a timeout once the provider made it: answers with the event, made once', async () => {
      work().writeFailure = {
        applied: true,
        error: new AppError('provider_unavailable', 'Google Calendar did not answer in time.', {
          details: { reason: 'timeout' },
        }),
      };
      const result = await call('create_event', {
        calendarId: ana.work,
        title: 'Late answer',
        start: '2026-03-24T12:00:00+01:00',
        end: '2026-03-24T13:00:00+01:00',
        idempotencyKey: 'late-1',
      });
      assert.equal(structured(result).outcome, 'applied');
      assert.match(result.content[1]?.text ?? '', /fresh read shows the change was made/);
      assert.equal((await find('Late answer')).length, 1);
      // Repeating the request is safe.
      const again = structured(
        await call('create_event', {
          calendarId: ana.work,
          title: 'Late answer',
          start: '2026-03-24T12:00:00+01:00',
          end: '2026-03-24T13:00:00+01:00',
          idempotencyKey: 'late-1',
        }),
      );
      assert.equal(again.outcome, 'already_applied');
      assert.equal((await find('Late answer')).length, 1);
    });

    it('after a timeout before the provider made it: says it was not made', async () => {
      work().writeFailure = {
        applied: false,
        error: new AppError('provider_unavailable', 'timeout', { details: { reason: 'timeout' } }),
      };
      const error = toolError(
        await call('create_event', {
          calendarId: ana.work,
          title: 'Never',
          start: '2026-03-24',
          end: '2026-03-25',
          idempotencyKey: 'never-1',
        }),
      );
      assert.equal(error.code, 'provider_unavailable');
      assert.equal(error.applied, false);
      assert.match(String(error.message), /not made.*same idempotencyKey is safe/);
      assert.equal((await find('Never')).length, 0);
    });

    it('when neither the write nor a read answers: write_outcome_unknown naming what to check', async () => {
      const failure = new AppError('provider_unavailable', 'unreachable', { details: { reason: 'network' } });
      work().writeFailure = { applied: true, error: failure };
      const stored = work();
      const originalFind = provider.writer!.findCreated;
      provider.writer!.findCreated = async () => {
        throw failure;
      };
      try {
        const error = toolError(
          await call('create_event', {
            calendarId: ana.work,
            title: 'Unknown',
            start: '2026-03-24',
            end: '2026-03-25',
          }),
        );
        assert.equal(error.code, 'write_outcome_unknown');
        assert.deepEqual(error.check, {
          calendarId: ana.work,
          title: 'Unknown',
          timing: { allDay: true, startDate: '2026-03-24', endDate: '2026-03-25' },
        });
      } finally {
        provider.writer!.findCreated = originalFind;
      }
      assert.equal(
        stored.occurrences.filter((o) => o.title === 'Unknown').length,
        1,
        'made once, never twice',
      );
    });

    it('refuses times it would have to guess, naming the field', async () => {
      const base = { calendarId: ana.work, title: 'x' };
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ start: '2026-03-24T09:00:00', end: '2026-03-24T10:00:00' }, 'time_zone_required', 'timeZone'],
        [
          { start: '2026-03-29T02:30:00', end: '2026-03-29T04:00:00', timeZone: berlin },
          'invalid_request',
          'start',
        ],
        [
          { start: '2026-10-25T02:30:00', end: '2026-10-25T04:00:00', timeZone: berlin },
          'invalid_request',
          'start',
        ],
        [
          { start: '2026-03-30T09:00:00+01:00', end: '2026-03-30T10:00:00+01:00', timeZone: berlin },
          'invalid_request',
          'start',
        ],
        [{ start: '2026-03-24', end: '2026-03-24' }, 'invalid_request', 'end'],
        [{ start: '2026-03-24', end: '2026-03-24T10:00:00Z' }, 'invalid_request', 'end'],
        [{ start: '2026-02-30', end: '2026-03-01' }, 'invalid_request', 'start'],
        [
          { start: '2026-03-24', end: '2026-03-25', timeZone: 'Mars/Olympus' },
          'invalid_time_zone',
          'timeZone',
        ],
        [{ start: 'tomorrow', end: '2026-03-25' }, 'invalid_request', 'start'],
      ];
      for (const [times, code, field] of cases) {
        const error = toolError(await call('create_event', { ...base, ...times }));
        assert.deepEqual([error.code, error.field], [code, field], JSON.stringify(times));
      }
      const extra = toolError(
        await call('create_event', { ...base, start: '2026-03-24', end: '2026-03-25', color: 'red' }),
      );
      assert.deepEqual([extra.code, extra.field], ['invalid_request', 'color']);
      assert.equal(work().occurrences.length, 7, 'nothing created');
    });

    it('refuses repeats it cannot make exactly, on both sides of every bound, naming the field', async () => {
      // Tuesday 24 March, 09:00–10:00 in Berlin.
      const base = {
        calendarId: ana.work,
        title: 'x',
        start: '2026-03-24T09:00:00',
        end: '2026-03-24T10:00:00',
        timeZone: berlin,
      };
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ frequency: 'hourly' }, 'recurrence.frequency'],
        [{}, 'recurrence.frequency'],
        [{ frequency: 'daily', hourly: true }, 'recurrence.hourly'],
        [{ frequency: 'daily', interval: 0 }, 'recurrence.interval'],
        [{ frequency: 'daily', interval: 100 }, 'recurrence.interval'],
        [{ frequency: 'daily', interval: 1.5 }, 'recurrence.interval'],
        [{ frequency: 'daily', count: 0 }, 'recurrence.count'],
        [{ frequency: 'daily', count: 731 }, 'recurrence.count'],
        [{ frequency: 'weekly', daysOfWeek: [] }, 'recurrence.daysOfWeek'],
        [{ frequency: 'weekly', daysOfWeek: ['tuesday', 'tuesday'] }, 'recurrence.daysOfWeek'],
        [{ frequency: 'weekly', daysOfWeek: ['tue'] }, 'recurrence.daysOfWeek.0'],
        [{ frequency: 'weekly', daysOfWeek: ['monday'] }, 'recurrence.daysOfWeek'],
        [{ frequency: 'daily', daysOfWeek: ['tuesday'] }, 'recurrence.daysOfWeek'],
        [{ frequency: 'daily', count: 2, until: '2026-04-30' }, 'recurrence.until'],
        [{ frequency: 'daily', until: '2026-03-23' }, 'recurrence.until'],
        [{ frequency: 'daily', until: '2026-4-30' }, 'recurrence.until'],
        [{ frequency: 'daily', until: '2026-04-31' }, 'recurrence.until'],
        // 24 March is the fourth Tuesday of its month; the last is the 31st.
        [
          { frequency: 'monthly', weekdayPosition: { position: 'last', day: 'tuesday' } },
          'recurrence.weekdayPosition.position',
        ],
        [
          { frequency: 'monthly', weekdayPosition: { position: 'fifth', day: 'tuesday' } },
          'recurrence.weekdayPosition.position',
        ],
        [
          { frequency: 'monthly', weekdayPosition: { position: 'fourth', day: 'monday' } },
          'recurrence.weekdayPosition.day',
        ],
        [{ frequency: 'monthly', weekdayPosition: { position: 'fourth' } }, 'recurrence.weekdayPosition.day'],
        [
          { frequency: 'weekly', weekdayPosition: { position: 'fourth', day: 'tuesday' } },
          'recurrence.weekdayPosition',
        ],
        [{ frequency: 'monthly', daysOfWeek: ['tuesday'] }, 'recurrence.daysOfWeek'],
        [{ frequency: 'yearly', daysOfWeek: ['tuesday'] }, 'recurrence.daysOfWeek'],
        [{ frequency: 'yearly', interval: 100 }, 'recurrence.interval'],
        // The last occurrence must start before 2200, as until must.
        [
          { frequency: 'weekly', interval: 99, daysOfWeek: ['tuesday', 'sunday'], count: 185 },
          'recurrence.count',
        ],
        [{ frequency: 'yearly', interval: 99, count: 3 }, 'recurrence.count'],
      ];
      for (const [recurrence, field] of cases) {
        const error = toolError(await call('create_event', { ...base, recurrence }));
        assert.deepEqual([error.code, error.field], ['invalid_request', field], JSON.stringify(recurrence));
      }
      const overlapping = toolError(
        await call('create_event', {
          ...base,
          end: '2026-03-25T09:30:00',
          recurrence: { frequency: 'daily' },
        }),
      );
      assert.deepEqual([overlapping.code, overlapping.field], ['invalid_request', 'end']);
      // A day some months (or years) lack: calendars disagree on those months, so it is refused.
      for (const [start, frequency] of [
        ['2026-03-31T09:00:00', 'monthly'],
        ['2028-02-29T09:00:00', 'yearly'],
      ] as const) {
        const error = toolError(
          await call('create_event', {
            ...base,
            start,
            end: `${start.slice(0, 10)}T10:00:00`,
            recurrence: { frequency },
          }),
        );
        assert.deepEqual(
          [error.code, error.field, error.reason],
          ['invalid_request', 'start', 'day_not_in_every_month'],
        );
      }
      assert.equal(work().occurrences.length, 7, 'nothing created');

      // The bounds themselves are accepted (99 weeks apart until 2198, 730 times); the answer is the first occurrence.
      for (const recurrence of [
        { frequency: 'weekly', interval: 99, daysOfWeek: ['tuesday', 'sunday'], count: 184 },
        { frequency: 'daily', count: 730 },
        {
          frequency: 'monthly',
          interval: 99,
          weekdayPosition: { position: 'fourth', day: 'tuesday' },
          count: 2,
        },
      ]) {
        const made = structured(await call('create_event', { ...base, title: 'Bounds', recurrence }));
        assert.equal((made.event as Record<string, string>).start, '2026-03-24T09:00:00+01:00');
        await call('delete_event', {
          eventId: (made.event as Record<string, string>).eventId,
          seen: seenOf(made.event as object),
          scope: 'series',
        });
      }
    });

    it('refuses a read-only calendar, a busy-only grant and calendars outside the grant', async () => {
      const times = { title: 'x', start: '2026-03-24', end: '2026-03-25' };
      const [feed] = await seedMemoryAccount(app.t.ctx, ana, app.icsProvider as never);
      const withFeed = (
        await grantToken(app.t.ctx, {
          userId: ana.userId,
          workspaceId: ana.workspaceId,
          calendars: [{ calendarId: feed!, detailLevel: 'full' }],
          scopes: allScopes,
        })
      ).token;
      const icsRefusal = toolError(await call('create_event', { calendarId: feed, ...times }, withFeed));
      assert.deepEqual(
        [icsRefusal.code, icsRefusal.message],
        ['calendar_read_only', 'Calendars of this kind are read-only.'],
      );
      assert.equal(
        toolError(await call('create_event', { calendarId: ana.shared, ...times })).code,
        'calendar_read_only',
      );
      const busyOnly = await tokenFor(ana, allScopes, 'busy');
      assert.equal(
        toolError(await call('create_event', { calendarId: ana.work, ...times }, busyOnly)).code,
        'access_denied',
      );
      // Bob administers the workspace: Ana's calendars are still not his.
      const bobToken = await tokenFor(bob, allScopes);
      assert.equal(
        toolError(await call('create_event', { calendarId: ana.work, ...times }, bobToken)).code,
        'calendar_not_permitted',
      );
      assert.equal(
        toolError(await call('create_event', { calendarId: 'cal_AAAAAAAAAAAAAAAAAAAAAA', ...times })).code,
        'calendar_not_permitted',
      );
      assert.equal(work().occurrences.length, 7);
    });
  });
});
