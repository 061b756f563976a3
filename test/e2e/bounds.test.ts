/**
 * Every bound of the specification on both sides, and bad input of every kind, on both
 * surfaces: the MCP read tools through the real MCP client (v2) over HTTP, and GET /v1/events.
 * Each case names the answer it must get; none may be a server failure.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ErrorCode } from '../../src/errors.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import {
  type MemoryCalendar,
  memoryProvider,
  occurrence,
  seedMemoryAccount,
} from '../helpers/memoryCalendars.ts';
import { getEvents, type QueryPairs } from '../helpers/restClient.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const start = '2026-03-02T00:00:00Z';
const end = '2026-03-09T00:00:00Z';
const plus744h = '2026-04-02T00:00:00Z';
const plus744h1s = '2026-04-02T00:00:01Z';

/** One answer: success, or the error code (and, when it matters, the field it names). */
type Expect = 'ok' | ErrorCode | { code: ErrorCode; field: string };

type Args = Record<string, unknown>;
type ToolName = 'search_events' | 'list_events' | 'get_availability';
const readTools: ToolName[] = ['search_events', 'list_events', 'get_availability'];

const x = (n: number) => 'x'.repeat(n);

const google = new Map<string, MemoryCalendar>(
  Array.from({ length: 21 }, (_, i) => [
    `c${i + 1}`,
    {
      name: `Calendar ${String(i + 1).padStart(2, '0')}`,
      timeZone: 'Europe/Berlin',
      occurrences:
        i === 0
          ? [
              occurrence({
                start: '2026-03-02T09:00:00',
                timeZone: 'Europe/Berlin',
                title: 'Quarterly review',
              }),
            ]
          : [],
    },
  ]),
);
const dav = new Map<string, MemoryCalendar>([
  [
    'zoneless',
    {
      name: 'Zoneless',
      occurrences: [occurrence({ start: '2026-03-02T09:00:00', title: 'Floating review' })],
    },
  ],
]);

describe('bounds and bad input on both surfaces', () => {
  let t: TestApp;
  let client: Client;
  let token: string;
  /** 20 granted calendars (plus a 21st that is Ana's but not granted), and a zoneless one. */
  let ids: string[];
  let zoneless: string;

  before(async () => {
    const googleProvider = memoryProvider('google', google);
    const davProvider = memoryProvider('caldav', dav);
    t = await startTestApp({ listen: true, providers: { google: googleProvider, caldav: davProvider } });
    const userId = await seedUser(t.ctx.db, 'ana@example.org');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Acme', [[userId, 'owner']]);
    ids = await seedMemoryAccount(t.ctx, { userId, workspaceId }, googleProvider);
    [zoneless] = (await seedMemoryAccount(t.ctx, { userId, workspaceId }, davProvider)) as [string];
    const calendars = [...ids.slice(0, 20), zoneless].map((calendarId) => ({
      calendarId,
      detailLevel: 'full' as const,
    }));
    ({ token } = await grantToken(t.ctx, { userId, workspaceId, calendars, resource: 'mcp' }));
    client = new Client({ name: 'bounds-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.ctx.config.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
  });

  after(async () => {
    await client?.close();
    await t?.close();
  });

  const first = () => ids[0]!;
  const granted = (n: number) => ids.slice(0, n);

  describe('MCP tools', () => {
    async function call(
      name: ToolName,
      args: Args,
    ): Promise<{ ok: boolean; error?: Record<string, unknown>; structured?: Args }> {
      const result = await client.callTool({ name, arguments: args });
      const content = result.content as Array<{ type: string; text: string }>;
      if (result.isError === true) {
        assert.equal(content[0]?.type, 'text');
        const body = JSON.parse(content[0]!.text) as { error: Record<string, unknown> };
        assert.deepEqual(Object.keys(body), ['error']);
        return { ok: false, error: body.error };
      }
      return { ok: true, structured: result.structuredContent as Args };
    }

    function check(outcome: Awaited<ReturnType<typeof call>>, expect: Expect): void {
      if (expect === 'ok') {
        assert.equal(outcome.ok, true, `expected success, got ${JSON.stringify(outcome.error)}`);
        assert.equal(outcome.structured?.ok, true);
        return;
      }
      assert.equal(outcome.ok, false, 'expected an error result');
      const wanted = typeof expect === 'string' ? { code: expect } : expect;
      assert.equal(outcome.error?.code, wanted.code, JSON.stringify(outcome.error));
      assert.equal(typeof outcome.error?.message, 'string');
      if ('field' in wanted) assert.equal(outcome.error?.field, wanted.field, JSON.stringify(outcome.error));
    }

    const base = (tool: ToolName): Args => ({
      calendarIds: [first()],
      ...(tool === 'search_events' ? { query: 'review' } : {}),
      start,
      end,
    });

    const without = (args: Args, key: string) => {
      const { [key]: _, ...rest } = args;
      return rest;
    };

    /** [what, change to the tool's valid arguments, expected answer] for every read tool. */
    const shared: Array<[string, (args: Args) => Args, Expect]> = [
      ['the valid arguments', (a) => a, 'ok'],
      // calendarIds: 1 to 20
      [
        '0 calendarIds',
        (a) => ({ ...a, calendarIds: [] }),
        { code: 'invalid_request', field: 'calendarIds' },
      ],
      ['1 calendarId', (a) => ({ ...a, calendarIds: granted(1) }), 'ok'],
      ['20 calendarIds', (a) => ({ ...a, calendarIds: granted(20) }), 'ok'],
      ['21 calendarIds', (a) => ({ ...a, calendarIds: ids.slice(0, 21) }), 'too_many_calendars'],
      [
        '21 unknown calendarIds',
        (a) => ({ ...a, calendarIds: Array.from({ length: 21 }, (_, i) => `cal_${i}`) }),
        'too_many_calendars',
      ],
      [
        'an unknown calendar',
        (a) => ({ ...a, calendarIds: ['cal_AAAAAAAAAAAAAAAAAAAAAA'] }),
        'calendar_not_permitted',
      ],
      [
        'a calendar of the person not in the grant',
        (a) => ({ ...a, calendarIds: [ids[20]!] }),
        'calendar_not_permitted',
      ],
      [
        'a known and an unknown calendar',
        (a) => ({ ...a, calendarIds: [first(), 'nope'] }),
        'calendar_not_permitted',
      ],
      ['an empty calendar id', (a) => ({ ...a, calendarIds: [''] }), 'invalid_request'],
      ['a calendar id of 65 characters', (a) => ({ ...a, calendarIds: [x(65)] }), 'invalid_request'],
      [
        'calendarIds as an object',
        (a) => ({ ...a, calendarIds: { 0: first() } }),
        { code: 'invalid_request', field: 'calendarIds' },
      ],
      [
        'calendarIds as a string',
        (a) => ({ ...a, calendarIds: first() }),
        { code: 'invalid_request', field: 'calendarIds' },
      ],
      ['calendarIds with a number', (a) => ({ ...a, calendarIds: [1] }), 'invalid_request'],
      [
        'calendarIds null',
        (a) => ({ ...a, calendarIds: null }),
        { code: 'invalid_request', field: 'calendarIds' },
      ],
      // timeZone: 1 to 128 characters, an IANA zone (no IANA name has more than about 30).
      [
        'timeZone of 0 characters',
        (a) => ({ ...a, timeZone: '' }),
        { code: 'invalid_time_zone', field: 'timeZone' },
      ],
      [
        'timeZone of 1 character (not a zone)',
        (a) => ({ ...a, timeZone: 'X' }),
        { code: 'invalid_time_zone', field: 'timeZone' },
      ],
      ['timeZone UTC', (a) => ({ ...a, timeZone: 'UTC' }), 'ok'],
      ['timeZone Europe/Berlin', (a) => ({ ...a, timeZone: 'Europe/Berlin' }), 'ok'],
      [
        'timeZone of 128 characters (not a zone)',
        (a) => ({ ...a, timeZone: `Europe/${x(121)}` }),
        { code: 'invalid_time_zone', field: 'timeZone' },
      ],
      [
        'timeZone of 129 characters',
        (a) => ({ ...a, timeZone: `Europe/${x(122)}` }),
        { code: 'invalid_time_zone', field: 'timeZone' },
      ],
      [
        'timeZone not a zone',
        (a) => ({ ...a, timeZone: 'Mars/Olympus_Mons' }),
        { code: 'invalid_time_zone', field: 'timeZone' },
      ],
      [
        'timeZone an offset',
        (a) => ({ ...a, timeZone: '+01:00' }),
        { code: 'invalid_time_zone', field: 'timeZone' },
      ],
      ['timeZone a number', (a) => ({ ...a, timeZone: 1 }), { code: 'invalid_request', field: 'timeZone' }],
      // The window.
      [
        'start without offset',
        (a) => ({ ...a, start: '2026-03-02T00:00:00' }),
        { code: 'window_invalid', field: 'start' },
      ],
      [
        'end without offset',
        (a) => ({ ...a, end: '2026-03-09T00:00:00' }),
        { code: 'window_invalid', field: 'end' },
      ],
      [
        'start as a date only',
        (a) => ({ ...a, start: '2026-03-02' }),
        { code: 'window_invalid', field: 'start' },
      ],
      ['end as a date only', (a) => ({ ...a, end: '2026-03-09' }), { code: 'window_invalid', field: 'end' }],
      [
        'an impossible start date',
        (a) => ({ ...a, start: '2026-02-30T00:00:00Z' }),
        { code: 'window_invalid', field: 'start' },
      ],
      [
        'an impossible end time',
        (a) => ({ ...a, end: '2026-03-08T24:30:00Z' }),
        { code: 'window_invalid', field: 'end' },
      ],
      ['start in words', (a) => ({ ...a, start: 'tomorrow' }), { code: 'window_invalid', field: 'start' }],
      ['an empty start', (a) => ({ ...a, start: '' }), { code: 'invalid_request', field: 'start' }],
      [
        'a start of 65 characters',
        (a) => ({ ...a, start: `2026-03-02T00:00:00.${'0'.repeat(44)}Z` }),
        { code: 'invalid_request', field: 'start' },
      ],
      ['start a number', (a) => ({ ...a, start: 1772409600 }), { code: 'invalid_request', field: 'start' }],
      ['end equal to start', (a) => ({ ...a, end: start }), { code: 'window_invalid', field: 'end' }],
      [
        'end equal to start in another offset',
        (a) => ({ ...a, end: '2026-03-02T01:00:00+01:00' }),
        { code: 'window_invalid', field: 'end' },
      ],
      [
        'end before start',
        (a) => ({ ...a, end: '2026-03-01T23:59:59Z' }),
        { code: 'window_invalid', field: 'end' },
      ],
      ['end 1 s after start', (a) => ({ ...a, end: '2026-03-02T00:00:01Z' }), 'ok'],
      ['exactly 744 hours', (a) => ({ ...a, end: plus744h }), 'ok'],
      [
        '744 hours and 1 second',
        (a) => ({ ...a, end: plus744h1s }),
        { code: 'window_too_long', field: 'end' },
      ],
      [
        '744 elapsed hours over the spring DST change',
        (a) => ({ ...a, start: '2026-03-01T00:00:00+01:00', end: '2026-04-01T01:00:00+02:00' }),
        'ok',
      ],
      [
        '744 hours and 1 second over the spring DST change',
        (a) => ({ ...a, start: '2026-03-01T00:00:00+01:00', end: '2026-04-01T01:00:01+02:00' }),
        'window_too_long',
      ],
      [
        '31 local days over the autumn DST change (745 hours)',
        (a) => ({ ...a, start: '2026-10-01T00:00:00+02:00', end: '2026-11-01T00:00:00+01:00' }),
        'window_too_long',
      ],
      [
        '744 elapsed hours over the autumn DST change',
        (a) => ({ ...a, start: '2026-10-01T00:00:00+02:00', end: '2026-10-31T23:00:00+01:00' }),
        'ok',
      ],
      // Zones never guessed.
      [
        'a zoneless CalDAV calendar without timeZone',
        (a) => ({ ...a, calendarIds: [zoneless] }),
        'time_zone_required',
      ],
      [
        'a zoneless CalDAV calendar with timeZone',
        (a) => ({ ...a, calendarIds: [zoneless], timeZone: 'Europe/Paris' }),
        'ok',
      ],
      // Closed objects.
      [
        'an extra property',
        (a) => ({ ...a, calendarId: first() }),
        { code: 'invalid_request', field: 'calendarId' },
      ],
      [
        'an extra property named like a REST parameter',
        (a) => ({ ...a, time_zone: 'UTC' }),
        { code: 'invalid_request', field: 'time_zone' },
      ],
      ['no calendarIds', (a) => without(a, 'calendarIds'), { code: 'invalid_request', field: 'calendarIds' }],
      ['no start', (a) => without(a, 'start'), { code: 'invalid_request', field: 'start' }],
      ['no end', (a) => without(a, 'end'), { code: 'invalid_request', field: 'end' }],
    ];

    const only: Record<ToolName, Array<[string, (args: Args) => Args, Expect]>> = {
      search_events: [
        ['query of 0 characters', (a) => ({ ...a, query: '' }), { code: 'invalid_request', field: 'query' }],
        ['query of 1 character', (a) => ({ ...a, query: 'r' }), 'ok'],
        ['query of 200 characters', (a) => ({ ...a, query: x(200) }), 'ok'],
        [
          'query of 201 characters',
          (a) => ({ ...a, query: x(201) }),
          { code: 'invalid_request', field: 'query' },
        ],
        ['query of 200 characters outside the BMP', (a) => ({ ...a, query: '😀'.repeat(200) }), 'ok'],
        [
          'query of 201 characters outside the BMP',
          (a) => ({ ...a, query: '😀'.repeat(201) }),
          { code: 'invalid_request', field: 'query' },
        ],
        [
          'query of white space only',
          (a) => ({ ...a, query: ' \u3000\t' }),
          { code: 'invalid_request', field: 'query' },
        ],
        ['query a number', (a) => ({ ...a, query: 42 }), { code: 'invalid_request', field: 'query' }],
        ['query an array', (a) => ({ ...a, query: ['review'] }), { code: 'invalid_request', field: 'query' }],
        ['no query', (a) => without(a, 'query'), { code: 'invalid_request', field: 'query' }],
        ['limit 0', (a) => ({ ...a, limit: 0 }), { code: 'invalid_request', field: 'limit' }],
        ['limit 1', (a) => ({ ...a, limit: 1 }), 'ok'],
        ['limit 50', (a) => ({ ...a, limit: 50 }), 'ok'],
        ['limit 51', (a) => ({ ...a, limit: 51 }), { code: 'invalid_request', field: 'limit' }],
        ['limit -1', (a) => ({ ...a, limit: -1 }), { code: 'invalid_request', field: 'limit' }],
        ['limit 1.5', (a) => ({ ...a, limit: 1.5 }), { code: 'invalid_request', field: 'limit' }],
        ['limit a string', (a) => ({ ...a, limit: '10' }), { code: 'invalid_request', field: 'limit' }],
        ['limit a boolean', (a) => ({ ...a, limit: true }), { code: 'invalid_request', field: 'limit' }],
        [
          'a cursor (list_events only)',
          (a) => ({ ...a, cursor: 'abc' }),
          { code: 'invalid_request', field: 'cursor' },
        ],
      ],
      list_events: [
        ['limit 0', (a) => ({ ...a, limit: 0 }), { code: 'invalid_request', field: 'limit' }],
        ['limit 1', (a) => ({ ...a, limit: 1 }), 'ok'],
        ['limit 250', (a) => ({ ...a, limit: 250 }), 'ok'],
        ['limit 251', (a) => ({ ...a, limit: 251 }), { code: 'invalid_request', field: 'limit' }],
        ['limit a string', (a) => ({ ...a, limit: '10' }), { code: 'invalid_request', field: 'limit' }],
        ['limit null', (a) => ({ ...a, limit: null }), { code: 'invalid_request', field: 'limit' }],
        ['an empty cursor', (a) => ({ ...a, cursor: '' }), { code: 'invalid_request', field: 'cursor' }],
        [
          'a forged cursor',
          (a) => ({ ...a, cursor: 'eyJ4IjoxfQ.AAAAAAAAAAAAAAAAAAAAAA' }),
          { code: 'invalid_request', field: 'cursor' },
        ],
        [
          'a cursor of 1025 characters',
          (a) => ({ ...a, cursor: x(1025) }),
          { code: 'invalid_request', field: 'cursor' },
        ],
        ['a cursor as a number', (a) => ({ ...a, cursor: 1 }), { code: 'invalid_request', field: 'cursor' }],
        [
          'a query (search_events only)',
          (a) => ({ ...a, query: 'review' }),
          { code: 'invalid_request', field: 'query' },
        ],
      ],
      get_availability: [
        [
          'a query (search_events only)',
          (a) => ({ ...a, query: 'review' }),
          { code: 'invalid_request', field: 'query' },
        ],
        ['a limit', (a) => ({ ...a, limit: 10 }), { code: 'invalid_request', field: 'limit' }],
      ],
    };

    for (const tool of readTools) {
      describe(tool, () => {
        for (const [what, change, expect] of [...shared, ...only[tool]]) {
          const label = expect === 'ok' ? 'ok' : typeof expect === 'string' ? expect : expect.code;
          it(`${what} → ${label}`, async () => {
            check(await call(tool, change(base(tool))), expect);
          });
        }

        it('no arguments at all → invalid_request', async () => {
          const result = await client.callTool({ name: tool, arguments: {} });
          assert.equal(result.isError, true);
          const { error } = JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
          assert.equal(error.code, 'invalid_request');
        });
      });
    }

    it('search_events finds the event at the bounds it accepts', async () => {
      const outcome = await call('search_events', {
        calendarIds: granted(20),
        query: 'REVIEW quarterly',
        start,
        end: plus744h,
        limit: 1,
      });
      assert.equal(outcome.ok, true);
      assert.deepEqual(
        (outcome.structured!.termine as Array<{ title: string }>).map((e) => e.title),
        ['Quarterly review'],
      );
      assert.equal(outcome.structured!.matched, 1);
      assert.equal(outcome.structured!.truncated, false);
    });

    it('list_events pages at limit 1 and get_availability answers in the given zone', async () => {
      const list = await call('list_events', {
        calendarIds: [first(), zoneless],
        start,
        end,
        limit: 1,
        timeZone: 'Europe/Paris',
      });
      assert.equal(list.ok, true);
      assert.equal((list.structured!.termine as unknown[]).length, 1);
      assert.equal(list.structured!.truncated, true);
      assert.equal(typeof list.structured!.nextCursor, 'string');
      const busy = await call('get_availability', {
        calendarIds: [first()],
        start,
        end,
        timeZone: 'Asia/Tokyo',
      });
      assert.deepEqual(busy.structured, {
        ok: true,
        busy: [{ start: '2026-03-02T17:00:00+09:00', end: '2026-03-02T18:00:00+09:00' }],
        truncated: false,
      });
    });
  });

  describe('REST GET /v1/events', () => {
    let restToken: string;
    before(async () => {
      const [grant] = await t.ctx.db
        .selectFrom('access_grants')
        .select(['user_id', 'workspace_id'])
        .execute();
      ({ token: restToken } = await grantToken(t.ctx, {
        userId: grant!.user_id,
        workspaceId: grant!.workspace_id,
        calendars: [...ids.slice(0, 20), zoneless].map((calendarId) => ({ calendarId, detailLevel: 'full' })),
        resource: 'v1',
      }));
    });

    const valid = (): QueryPairs => [
      ['calendar_id', first()],
      ['start', start],
      ['end', end],
    ];
    const set = (query: QueryPairs, name: string, value: string): QueryPairs => [
      ...query.filter(([n]) => n !== name),
      [name, value],
    ];
    const drop = (query: QueryPairs, name: string): QueryPairs => query.filter(([n]) => n !== name);
    const ids20 = () => granted(20).join(',');

    const cases: Array<[string, () => QueryPairs, Expect]> = [
      ['the valid query', valid, 'ok'],
      // calendar_id: 1 to 20
      [
        'no calendar_id',
        () => drop(valid(), 'calendar_id'),
        { code: 'invalid_request', field: 'calendar_id' },
      ],
      [
        'an empty calendar_id',
        () => set(valid(), 'calendar_id', ''),
        { code: 'invalid_request', field: 'calendar_id' },
      ],
      ['1 calendar', () => set(valid(), 'calendar_id', granted(1).join(',')), 'ok'],
      ['20 calendars comma-separated', () => set(valid(), 'calendar_id', ids20()), 'ok'],
      [
        '20 calendars repeated',
        () => [
          ...drop(valid(), 'calendar_id'),
          ...granted(20).map((id): [string, string] => ['calendar_id', id]),
        ],
        'ok',
      ],
      [
        '21 calendars comma-separated',
        () => set(valid(), 'calendar_id', ids.slice(0, 21).join(',')),
        { code: 'too_many_calendars', field: 'calendar_id' },
      ],
      [
        '21 calendars, repeated and comma-separated',
        () => [...drop(valid(), 'calendar_id'), ['calendar_id', ids20()], ['calendar_id', ids[20]!]],
        { code: 'too_many_calendars', field: 'calendar_id' },
      ],
      [
        'an unknown calendar',
        () => set(valid(), 'calendar_id', 'cal_AAAAAAAAAAAAAAAAAAAAAA'),
        'calendar_not_permitted',
      ],
      [
        'a calendar of the person not in the grant',
        () => set(valid(), 'calendar_id', ids[20]!),
        'calendar_not_permitted',
      ],
      [
        'calendar_id as an object',
        () => [...drop(valid(), 'calendar_id'), ['calendar_id[a]', first()]],
        { code: 'invalid_request', field: 'calendar_id[a]' },
      ],
      [
        'calendar_id as an array',
        () => [...drop(valid(), 'calendar_id'), ['calendar_id[]', first()]],
        { code: 'invalid_request', field: 'calendar_id[]' },
      ],
      // limit: 1 to 1000
      ['limit 0', () => [...valid(), ['limit', '0']], { code: 'invalid_request', field: 'limit' }],
      ['limit 1', () => [...valid(), ['limit', '1']], 'ok'],
      ['limit 1000', () => [...valid(), ['limit', '1000']], 'ok'],
      ['limit 1001', () => [...valid(), ['limit', '1001']], { code: 'invalid_request', field: 'limit' }],
      ['limit 10000', () => [...valid(), ['limit', '10000']], { code: 'invalid_request', field: 'limit' }],
      ['limit -1', () => [...valid(), ['limit', '-1']], { code: 'invalid_request', field: 'limit' }],
      ['limit 1.5', () => [...valid(), ['limit', '1.5']], { code: 'invalid_request', field: 'limit' }],
      ['limit 1e3', () => [...valid(), ['limit', '1e3']], { code: 'invalid_request', field: 'limit' }],
      ['limit a word', () => [...valid(), ['limit', 'ten']], { code: 'invalid_request', field: 'limit' }],
      ['limit empty', () => [...valid(), ['limit', '']], { code: 'invalid_request', field: 'limit' }],
      // time_zone: 1 to 128 characters, an IANA zone
      [
        'time_zone of 0 characters',
        () => [...valid(), ['time_zone', '']],
        { code: 'invalid_time_zone', field: 'time_zone' },
      ],
      [
        'time_zone of 1 character (not a zone)',
        () => [...valid(), ['time_zone', 'X']],
        { code: 'invalid_time_zone', field: 'time_zone' },
      ],
      ['time_zone UTC', () => [...valid(), ['time_zone', 'UTC']], 'ok'],
      [
        'time_zone of 128 characters (not a zone)',
        () => [...valid(), ['time_zone', `Europe/${x(121)}`]],
        { code: 'invalid_time_zone', field: 'time_zone' },
      ],
      [
        'time_zone of 129 characters',
        () => [...valid(), ['time_zone', `Europe/${x(122)}`]],
        { code: 'invalid_time_zone', field: 'time_zone' },
      ],
      [
        'time_zone not a zone',
        () => [...valid(), ['time_zone', 'Mars/Olympus_Mons']],
        { code: 'invalid_time_zone', field: 'time_zone' },
      ],
      [
        'time_zone an offset',
        () => [...valid(), ['time_zone', '+01:00']],
        { code: 'invalid_time_zone', field: 'time_zone' },
      ],
      // The window.
      ['no start', () => drop(valid(), 'start'), { code: 'invalid_request', field: 'start' }],
      ['no end', () => drop(valid(), 'end'), { code: 'invalid_request', field: 'end' }],
      [
        'start without offset',
        () => set(valid(), 'start', '2026-03-02T00:00:00'),
        { code: 'window_invalid', field: 'start' },
      ],
      [
        'end without offset',
        () => set(valid(), 'end', '2026-03-09T00:00:00'),
        { code: 'window_invalid', field: 'end' },
      ],
      [
        'start as a date only',
        () => set(valid(), 'start', '2026-03-02'),
        { code: 'window_invalid', field: 'start' },
      ],
      [
        'an impossible start date',
        () => set(valid(), 'start', '2026-02-30T00:00:00Z'),
        { code: 'window_invalid', field: 'start' },
      ],
      [
        'an impossible end time',
        () => set(valid(), 'end', '2026-03-08T24:30:00Z'),
        { code: 'window_invalid', field: 'end' },
      ],
      [
        'a start of 2,000 characters',
        () => set(valid(), 'start', `2026-03-02T00:00:00.${'0'.repeat(1979)}Z`),
        { code: 'window_invalid', field: 'start' },
      ],
      ['end equal to start', () => set(valid(), 'end', start), { code: 'window_invalid', field: 'end' }],
      [
        'end before start',
        () => set(valid(), 'end', '2026-03-01T23:59:59Z'),
        { code: 'window_invalid', field: 'end' },
      ],
      ['exactly 744 hours', () => set(valid(), 'end', plus744h), 'ok'],
      [
        '744 hours and 1 second',
        () => set(valid(), 'end', plus744h1s),
        { code: 'window_too_long', field: 'end' },
      ],
      [
        '744 elapsed hours over the spring DST change',
        () => set(set(valid(), 'start', '2026-03-01T00:00:00+01:00'), 'end', '2026-04-01T01:00:00+02:00'),
        'ok',
      ],
      [
        '31 local days over the autumn DST change (745 hours)',
        () => set(set(valid(), 'start', '2026-10-01T00:00:00+02:00'), 'end', '2026-11-01T00:00:00+01:00'),
        { code: 'window_too_long', field: 'end' },
      ],
      // Zones never guessed.
      [
        'a zoneless CalDAV calendar without time_zone',
        () => set(valid(), 'calendar_id', zoneless),
        'time_zone_required',
      ],
      [
        'a zoneless CalDAV calendar with time_zone',
        () => [...set(valid(), 'calendar_id', zoneless), ['time_zone', 'Europe/Paris']],
        'ok',
      ],
      // Closed query.
      [
        'an unknown parameter',
        () => [...valid(), ['query', 'review']],
        { code: 'invalid_request', field: 'query' },
      ],
      [
        'the MCP spelling of a parameter',
        () => [...valid(), ['timeZone', 'UTC']],
        { code: 'invalid_request', field: 'timeZone' },
      ],
      [
        'start given twice',
        () => [...valid(), ['start', start]],
        { code: 'invalid_request', field: 'start' },
      ],
    ];

    const statusOf = (expect: Expect): number => {
      if (expect === 'ok') return 200;
      const code = typeof expect === 'string' ? expect : expect.code;
      return code === 'calendar_not_permitted' ? 403 : 400;
    };

    for (const [what, query, expect] of cases) {
      const label =
        expect === 'ok' ? '200' : `${statusOf(expect)} ${typeof expect === 'string' ? expect : expect.code}`;
      it(`${what} → ${label}`, async () => {
        const response = await getEvents(t.app, restToken, query());
        assert.equal(response.status, statusOf(expect), response.text);
        if (expect === 'ok') {
          assert.ok(Array.isArray(response.body.data));
          return;
        }
        assert.match(response.contentType, /^application\/problem\+json/);
        const wanted = typeof expect === 'string' ? { code: expect } : expect;
        assert.equal(response.body.code, wanted.code, response.text);
        assert.equal(response.body.status, statusOf(expect));
        if ('field' in wanted) assert.equal(response.body.field, wanted.field, response.text);
      });
    }

    it('returns the event at the widest bounds (20 calendars, 744 h, limit 1000)', async () => {
      const response = await getEvents(t.app, restToken, [
        ['calendar_id', ids20()],
        ['start', start],
        ['end', plus744h],
        ['limit', '1000'],
      ]);
      assert.equal(response.status, 200);
      assert.deepEqual(
        response.body.data.map((e: { title: string }) => e.title),
        ['Quarterly review'],
      );
    });
  });
});
