/**
 * The write tools over real MCP (raw JSON-RPC against the listening service) on in-memory
 * calendars whose facts and failures the tests set: scopes and policy, the fresh rights check
 * with each editBlockedReason, recurring scopes, version conflicts, idempotency, writes that
 * time out before or after the provider applied them, and the audit of every attempt.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { AppError } from '../../src/errors.ts';
import { defaultPolicy, type Scope } from '../../src/policy/workspacePolicy.ts';
import type { CalendarProvider } from '../../src/providers/port.ts';
import { eventWritesOf } from '../../src/store/eventWrites.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import {
  assertMatchesSchema,
  callToolRaw,
  listToolsRaw,
  structured,
  toolError,
} from '../helpers/mcpSession.ts';
import {
  type MemoryCalendar,
  memoryProvider,
  occurrence,
  ownFacts,
  seedMemoryAccount,
  weeklyOccurrence,
} from '../helpers/memoryCalendars.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';
import { seenOf } from '../helpers/seen.ts';

const berlin = 'Europe/Berlin';
const window = { start: '2026-03-23T00:00:00+01:00', end: '2026-04-06T00:00:00+02:00' };
const allScopes: Scope[] = ['calendar:read', 'calendar:write', 'calendar:rsvp'];
const writeTools = ['create_event', 'update_event', 'delete_event', 'respond_to_event'];

const weekly = (index: number) => weeklyOccurrence(index, 'Standup');

/** Fresh calendars for every test: the writes change them. */
function seedCalendars(): Map<string, MemoryCalendar> {
  return new Map<string, MemoryCalendar>([
    [
      'work',
      {
        name: 'Work',
        timeZone: berlin,
        occurrences: [
          occurrence({
            providerEventId: 'own',
            start: '2026-03-24T10:00:00',
            timeZone: berlin,
            title: 'Planning',
          }),
          occurrence({
            providerEventId: 'invite',
            start: '2026-03-25T14:00:00',
            timeZone: berlin,
            title: 'Review',
            responseStatus: 'needs-action',
            facts: { ...ownFacts, organizer: 'other', attendees: true, userIsAttendee: true },
          }),
          occurrence({
            providerEventId: 'guests',
            start: '2026-03-26T10:00:00',
            timeZone: berlin,
            title: 'Team lunch',
            organizer: { email: 'ana@example.org', self: true },
            attendees: [
              { email: 'ana@example.org', optional: false, response: 'accepted', self: true },
              { email: 'Bo@example.org', name: 'Bo', optional: false, response: 'accepted', self: false },
              { email: 'cy@example.org', optional: true, response: 'needs-action', self: false },
            ],
            facts: { ...ownFacts, organizer: 'self', attendees: true },
          }),
          occurrence({
            providerEventId: 'meet',
            start: '2026-03-26T15:00:00',
            timeZone: berlin,
            title: 'Call',
            facts: { ...ownFacts, conference: true },
          }),
          occurrence({
            providerEventId: 'private',
            start: '2026-03-27T09:00:00',
            timeZone: berlin,
            title: 'Doctor',
            privacy: 'private',
          }),
          weekly(0),
          weekly(1),
        ],
      },
    ],
    ['shared', { name: 'Shared', timeZone: berlin, access: 'reader', occurrences: [] }],
  ]);
}

describe('write tools over MCP', () => {
  let t: TestApp;
  let mcp: string;
  let calendars = seedCalendars();
  // One provider for the whole suite; each test swaps in fresh calendars behind it.
  const provider = memoryProvider('google', {
    get: (id: string) => calendars.get(id),
    entries: () => calendars.entries(),
  } as Map<string, MemoryCalendar>);
  let ana: { userId: string; workspaceId: string; work: string; shared: string };
  let bob: { userId: string; workspaceId: string; work: string; shared: string };
  let token: string;
  let icsProvider: CalendarProvider<'ics'>;

  const work = () => calendars.get('work')!;
  const tokenFor = async (
    who: typeof ana,
    scopes: Scope[],
    level: 'full' | 'titles' | 'busy' = 'full',
    privateDetails = false,
  ) =>
    (
      await grantToken(t.ctx, {
        userId: who.userId,
        workspaceId: who.workspaceId,
        calendars: [who.work, who.shared].map((calendarId) => ({ calendarId, detailLevel: level })),
        scopes,
        privateDetails,
      })
    ).token;
  const call = (name: string, args: Record<string, unknown>, as = token) => callToolRaw(mcp, as, name, args);
  const listed = async (as = token) => {
    const result = structured(
      await call('list_events', { calendarIds: [ana.work], ...window, limit: 250 }, as),
    );
    return result.termine as Array<Record<string, string>>;
  };
  const find = async (title: string) => (await listed()).filter((e) => e.title === title);

  before(async () => {
    // An ICS subscription: the adapter has no writer, whatever the feed says about access.
    const feed = {
      ...memoryProvider('caldav', new Map([['feed', { name: 'Feed', timeZone: berlin, occurrences: [] }]])),
    };
    delete feed.writer;
    icsProvider = { ...feed, kind: 'ics' } as unknown as CalendarProvider<'ics'>;
    t = await startTestApp({ listen: true, providers: { google: provider, ics: icsProvider } });
    mcp = `${t.ctx.config.baseUrl}/mcp`;
    const anaId = await seedUser(t.ctx.db, 'ana@example.org');
    const bobId = await seedUser(t.ctx.db, 'bob@example.org');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Writers', [
      [anaId, 'owner'],
      [bobId, 'admin'],
    ]);
    await savePolicy(t.ctx.db, workspaceId, { ...defaultPolicy, allowedScopes: allScopes }, 0);
    const seed = async (userId: string) => {
      const [workId, sharedId] = await seedMemoryAccount(t.ctx, { userId, workspaceId }, provider);
      return { userId, workspaceId, work: workId!, shared: sharedId! };
    };
    ana = await seed(anaId);
    bob = await seed(bobId);
    token = await tokenFor(ana, allScopes);
  });
  beforeEach(() => {
    calendars = seedCalendars();
  });
  after(() => t?.close());

  describe('offered by scope and policy', () => {
    it('lists the write tools only with their scopes, with closed schemas', async () => {
      const tools = await listToolsRaw(mcp, token);
      assert.deepEqual(
        tools.map((tool) => tool.name).filter((name) => writeTools.includes(name)),
        writeTools,
      );
      for (const tool of tools) assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
      const readOnly = await tokenFor(ana, ['calendar:read']);
      assert.equal(
        (await listToolsRaw(mcp, readOnly)).some((tool) => writeTools.includes(tool.name)),
        false,
      );
      const rsvpOnly = await tokenFor(ana, ['calendar:read', 'calendar:rsvp']);
      assert.deepEqual(
        (await listToolsRaw(mcp, rsvpOnly))
          .map((tool) => tool.name)
          .filter((name) => writeTools.includes(name)),
        ['respond_to_event'],
      );
    });

    it('works with a 2025-era client (v1 SDK), which validates results against the listed output schemas', async () => {
      const client = new V1Client({ name: 'v1-writer', version: '1' });
      await client.connect(
        new V1Transport(new URL(mcp), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      try {
        const { tools } = await client.listTools();
        assert.ok(writeTools.every((name) => tools.some((tool) => tool.name === name)));
        const created = await client.callTool({
          name: 'create_event',
          arguments: {
            calendarId: ana.work,
            title: 'From v1',
            start: '2026-03-24T08:00:00Z',
            end: '2026-03-24T09:00:00Z',
          },
        });
        assert.notEqual(created.isError, true);
        const event = (created.structuredContent as { event: Record<string, string> }).event;
        const updated = await client.callTool({
          name: 'update_event',
          arguments: { eventId: event.eventId, seen: seenOf(event), location: 'Room 1', description: null },
        });
        assert.deepEqual((updated.structuredContent as { event: Record<string, unknown> }).event.locations, [
          { name: 'Room 1' },
        ]);
        const now = (updated.structuredContent as { event: Record<string, unknown> }).event;
        const deleted = await client.callTool({
          name: 'delete_event',
          arguments: { eventId: event.eventId, seen: seenOf(now) },
        });
        assert.deepEqual(deleted.structuredContent, {
          ok: true,
          outcome: 'applied',
          deleted: { eventId: event.eventId },
        });
      } finally {
        await client.close();
      }
    });

    it('refuses write tools when the workspace policy does not allow writing, even with the scope granted', async () => {
      const userId = await seedUser(t.ctx.db, 'cleo@example.org');
      const workspaceId = await seedWorkspace(t.ctx.db, 'Readers', [[userId, 'owner']]);
      const [workId, sharedId] = await seedMemoryAccount(t.ctx, { userId, workspaceId }, provider);
      const cleo = { userId, workspaceId, work: workId!, shared: sharedId! };
      const cleoToken = await tokenFor(cleo, allScopes);
      assert.equal(
        (await listToolsRaw(mcp, cleoToken)).some((tool) => writeTools.includes(tool.name)),
        false,
      );
      const reply = await call(
        'create_event',
        { calendarId: cleo.work, title: 'x', start: '2026-03-24', end: '2026-03-25' },
        cleoToken,
      ).catch((error: unknown) => error);
      assert.match(String(reply), /Unknown tool: create_event/);
      assert.equal(work().occurrences.length, 7, 'nothing created');
    });
  });

  describe('create_event', () => {
    it('creates a timed event in the zone given, returned in the Event shape and visible to reads', async () => {
      const tools = await listToolsRaw(mcp, token);
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
      const [feed] = await seedMemoryAccount(t.ctx, ana, icsProvider as never);
      const withFeed = (
        await grantToken(t.ctx, {
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
        await grantToken(t.ctx, {
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

  describe('delete_event and respond_to_event', () => {
    it('deletes one occurrence, then the series', async () => {
      const [first, second] = await find('Standup');
      const gone = structured(
        await call('delete_event', {
          eventId: second!.eventId,
          occurrenceId: second!.occurrenceId,
          seen: seenOf(second!),
          scope: 'occurrence',
        }),
      );
      assert.deepEqual(gone.deleted, {
        eventId: second!.eventId,
        occurrenceId: second!.occurrenceId,
        scope: 'occurrence',
      });
      assert.deepEqual(
        (await find('Standup')).map((e) => e.occurrenceId),
        [first!.occurrenceId],
      );
      structured(
        await call('delete_event', { eventId: first!.eventId, seen: seenOf(first!), scope: 'series' }),
      );
      assert.equal((await find('Standup')).length, 0);
      assert.equal(
        toolError(
          await call('delete_event', { eventId: first!.eventId, seen: seenOf(first!), scope: 'series' }),
        ).code,
        'not_found',
      );
    });

    it('answers an invitation, and refuses to answer for the organizer', async () => {
      const review = (await find('Review'))[0]!;
      assert.equal(review.canRespond, true);
      const answered = structured(
        await call('respond_to_event', {
          eventId: review.eventId,
          response: 'accepted',
          comment: 'See you there',
        }),
      ).event as Record<string, unknown>;
      assert.equal(answered.responseStatus, 'accepted');
      const planning = (await find('Planning'))[0]!;
      assert.equal(
        toolError(await call('respond_to_event', { eventId: planning.eventId, response: 'declined' })).code,
        'access_denied',
      );
      const noRsvp = await tokenFor(ana, ['calendar:read', 'calendar:write']);
      const hidden = await call(
        'respond_to_event',
        { eventId: review.eventId, response: 'declined' },
        noRsvp,
      ).catch((error: unknown) => error);
      assert.match(String(hidden), /Unknown tool: respond_to_event/);
    });
  });

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

  describe('get_event', () => {
    const get = (calendarId: string, event: Record<string, string>, as = token) =>
      call('get_event', { calendarId, eventId: event.eventId!, occurrenceId: event.occurrenceId! }, as);

    it('answers each event as list_events does, at each level and with the rights of the token', async () => {
      for (const [level, scopes] of [
        ['busy', allScopes],
        ['titles', allScopes],
        ['full', allScopes],
        ['full', ['calendar:read']],
      ] as const) {
        const as = await tokenFor(ana, [...scopes], level);
        const events = await listed(as);
        for (const event of events) {
          const answer = structured(await get(ana.work, event, as));
          assert.deepEqual(answer, { ok: true, event }, `${level} ${scopes.join()}: ${event.start}`);
        }
        // Every kind is among them: a private event without its details, a series' second occurrence.
        const doctor = events.find((e) => e.start?.startsWith('2026-03-27T09:00:00'));
        assert.deepEqual([doctor?.title, doctor?.canEdit], ['Busy', false]);
        assert.equal(events.filter((e) => e.eventId === events.at(-1)!.eventId).length, 2);
      }
      const tools = await listToolsRaw(mcp, token);
      const [planning] = await find('Planning');
      assertMatchesSchema(
        tools.find((tool) => tool.name === 'get_event')!.outputSchema,
        structured(await get(ana.work, planning!)),
      );
    });

    it("gives one not_found for an id of another calendar, a made-up id, another person's event and a deleted one", async () => {
      const [planning] = await find('Planning');
      const [standup] = await find('Standup');
      const made = toolError(await get(ana.work, { eventId: `evt_${'A'.repeat(40)}` }));
      assert.equal(made.code, 'not_found');
      const both = await tokenFor(ana, ['calendar:read']);
      assert.deepEqual(toolError(await get(ana.shared, planning!, both)), made, 'another calendar');
      const bobToken = await tokenFor(bob, ['calendar:read']);
      const bobs = (
        structured(await call('list_events', { calendarIds: [bob.work], ...window }, bobToken))
          .termine as Array<Record<string, string>>
      )[0]!;
      assert.deepEqual(toolError(await get(ana.work, bobs)), made, "another person's");
      assert.deepEqual(
        toolError(await get(ana.work, { eventId: planning!.eventId!, occurrenceId: standup!.occurrenceId! })),
        made,
        'an occurrence of another event',
      );
      work().occurrences = work().occurrences.filter((o) => o.providerEventId !== 'own');
      assert.deepEqual(toolError(await get(ana.work, planning!)), made, 'deleted at the provider');
      assert.equal(toolError(await get(bob.work, bobs)).code, 'calendar_not_permitted');
    });
  });

  describe('audit', () => {
    it('records every attempt with app, calendar, event and outcome — never content', async () => {
      const bobId = bob.userId;
      const [latest] = await eventWritesOf(t.ctx.db, ana.userId);
      const created = structured(
        await call('create_event', {
          calendarId: ana.work,
          title: 'Secret title',
          start: '2026-03-24',
          end: '2026-03-25',
        }),
      ).event as Record<string, string>;
      toolError(
        await call('create_event', {
          calendarId: ana.shared,
          title: 'x',
          start: '2026-03-24',
          end: '2026-03-25',
        }),
      );
      // Naming what the grant does not reach is recorded too, without a calendar.
      const forged = `evt_${'B'.repeat(40)}`;
      toolError(await call('delete_event', { eventId: forged, seen: seenOf(created) }));
      const bobToken = await tokenFor(bob, allScopes);
      const bobsProbe = await call(
        'update_event',
        { eventId: created.eventId, seen: seenOf(created), title: 'x' },
        bobToken,
      );
      assert.equal(toolError(bobsProbe).code, 'calendar_not_permitted');
      const rows = (await eventWritesOf(t.ctx.db, ana.userId)).filter((r) => r.id > (latest?.id ?? 0));
      assert.deepEqual(
        rows.map((r) => [r.action, r.calendarId, r.eventId, r.outcome, r.errorCode, r.clientName]),
        [
          ['delete', null, forged, 'refused', 'calendar_not_permitted', 'Test client'],
          ['create', ana.shared, null, 'refused', 'calendar_read_only', 'Test client'],
          ['create', ana.work, created.eventId, 'applied', null, 'Test client'],
        ],
      );
      assert.doesNotMatch(JSON.stringify(rows), /Secret title/);
      // While the provider is asked, the attempt is on record with its calendar: a crash then
      // leaves it pending, and the account page can say where.
      const planning = (await find('Planning'))[0]!;
      let whileAsked: Awaited<ReturnType<typeof eventWritesOf>> = [];
      work().beforeWrite = async () => {
        whileAsked = await eventWritesOf(t.ctx.db, ana.userId);
      };
      await call('update_event', { eventId: planning.eventId, seen: seenOf(planning), title: 'Planning' });
      assert.deepEqual(
        whileAsked[0] && [whileAsked[0].action, whileAsked[0].calendarId, whileAsked[0].outcome],
        ['update', ana.work, 'pending'],
      );
      // Bob's attempts are his own record, and name none of Ana's calendars.
      const bobs = await eventWritesOf(t.ctx.db, bobId);
      assert.deepEqual(bobs[0] && [bobs[0].action, bobs[0].eventId, bobs[0].errorCode], [
        'update',
        created.eventId,
        'calendar_not_permitted',
      ]);
      assert.deepEqual(
        bobs.map((r) => [r.calendarId, r.calendarName]),
        bobs.map(() => [null, null]),
      );

      // Ana sees them on her account page; Bob, her workspace's admin, does not.
      const page = new PageClient(t.app);
      await page.signIn('ana@example.org', testPassword);
      const body = (await page.get('/account')).body;
      assert.match(body, /<h2>Changes made by apps<\/h2>/);
      assert.match(
        body,
        /<td>Test client<\/td>\s*<td>Created an event<\/td>\s*<td>Work<\/td>\s*<td>Done<\/td>/,
      );
      assert.match(body, /<td>Shared<\/td>\s*<td>Refused <code>calendar_read_only<\/code><\/td>/);
      assert.match(
        body,
        /<td>Deleted an event<\/td>\s*<td><span class="muted">not one shared with the app<\/span><\/td>\s*<td>Refused <code>calendar_not_permitted<\/code><\/td>/,
      );
      assert.doesNotMatch(body, /Secret title/);
      const bobPage = new PageClient(t.app);
      await bobPage.signIn('bob@example.org', testPassword);
      const bobsBody = (await bobPage.get('/account')).body;
      assert.match(
        bobsBody,
        /<td>Changed an event<\/td>\s*<td><span class="muted">not one shared with the app/,
      );
      assert.doesNotMatch(bobsBody, /<td>(Work|Shared)<\/td>|Secret title/);
    });
  });
});
