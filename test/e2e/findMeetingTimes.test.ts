/**
 * find_meeting_times through the real MCP client (v2) over HTTP: free slots across calendars
 * in local working hours, a busy-only calendar counting fully without any of its details
 * leaving, tentative, buffer and notice, a calendar that cannot be read, and every bad argument
 * refused with a stable code naming it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { AppError, type ErrorCode } from '../../src/errors.ts';
import type { TestApp } from '../helpers/app.ts';
import { assertMatchesSchema, type ListedTool, structured, type ToolResult } from '../helpers/mcpSession.ts';
import type { MemoryCalendar } from '../helpers/memoryCalendars.ts';
import { berlin, berlinCalendar, mcpClient, mondayAt, startAnaAlone } from '../helpers/schedulingWorld.ts';

/** Monday and Tuesday, 2 and 3 March 2026; the clock stands on the Sunday before. */
const window = { start: '2026-03-02T00:00:00+01:00', end: '2026-03-04T00:00:00+01:00' };
const secretWords = ['Secret', 'interview', 'Acme', 'Room', 'salary'];

const calendars = new Map<string, MemoryCalendar>([
  [
    'work',
    berlinCalendar('Work', [
      mondayAt('09:00', 'Standup'),
      mondayAt('10:30', 'Maybe', { duration: 'PT30M', status: 'tentative' }),
      mondayAt('12:00', 'Focus', { freeBusyStatus: 'free' }),
      mondayAt('13:00', 'Gone', { status: 'cancelled' }),
    ]),
  ],
  [
    'private',
    berlinCalendar('Private', [
      mondayAt('14:00', 'Secret interview at Acme', {
        duration: 'PT90M',
        description: 'Talk about the salary',
        locations: [{ name: 'Room 7' }],
      }),
    ]),
  ],
  [
    'broken',
    berlinCalendar('Broken', [], {
      failure: new AppError('provider_unavailable', 'The provider did not answer.'),
    }),
  ],
  ['unshared', berlinCalendar('Unshared')],
]);

type Args = Record<string, unknown>;

describe('find_meeting_times', () => {
  let t: TestApp;
  let client: Client;
  let work: string;
  let secret: string;
  let broken: string;
  let unshared: string;
  let tool: ListedTool;

  before(async () => {
    const world = await startAnaAlone(calendars);
    t = world.t;
    [work, secret, broken, unshared] = world.calendarIds as [string, string, string, string];
    const { userId, workspaceId } = world;
    const calendarsGranted = [
      { calendarId: work, detailLevel: 'full' as const },
      { calendarId: secret, detailLevel: 'busy' as const },
      { calendarId: broken, detailLevel: 'full' as const },
    ];
    client = await mcpClient(t, { userId, workspaceId, calendars: calendarsGranted }, 'meeting-times-test');
    tool = (await client.listTools()).tools.find((x) => x.name === 'find_meeting_times') as ListedTool;
  });

  after(async () => {
    await client?.close();
    await t?.close();
  });

  const callRaw = async (args: Args) =>
    (await client.callTool({ name: 'find_meeting_times', arguments: args })) as unknown as ToolResult;

  /** A successful answer, checked against the listed output schema; its text parts besides. */
  async function call(args: Args): Promise<{ content: Args; notes: string[] }> {
    const result = await callRaw(args);
    const content = structured(result);
    assertMatchesSchema(tool.outputSchema, content);
    return { content, notes: result.content.slice(1).map((c) => c.text) };
  }

  const base = (changes: Args = {}): Args => ({
    calendarIds: [work, secret],
    ...window,
    timeZone: berlin,
    durationMinutes: 60,
    limit: 5,
    ...changes,
  });

  const slot = (start: string, end: string) => ({
    start: `2026-03-${start}:00+01:00`,
    end: `2026-03-${end}:00+01:00`,
  });

  it('is listed for calendar:read with closed schemas and read-only annotations', () => {
    assert.ok(tool, 'listed');
    assert.equal(tool.inputSchema.additionalProperties, false);
    assert.deepEqual(tool.inputSchema.required, [
      'calendarIds',
      'start',
      'end',
      'timeZone',
      'durationMinutes',
    ]);
    assert.equal(tool.outputSchema?.additionalProperties, false);
    assert.equal(tool.annotations?.readOnlyHint, true);
  });

  it('finds the earliest free hours across both calendars: busy, tentative and busy-only count; free and cancelled do not', async () => {
    const { content, notes } = await call(base());
    assert.deepEqual(content, {
      ok: true,
      slots: [
        slot('02T11:00', '02T12:00'),
        slot('02T12:00', '02T13:00'),
        slot('02T13:00', '02T14:00'),
        slot('02T15:30', '02T16:30'),
        slot('03T09:00', '03T10:00'),
      ],
      truncated: false,
    });
    assert.deepEqual(notes, []);
  });

  it('lets tentative time be free when asked', async () => {
    const { content } = await call(base({ tentativeIsBusy: false, limit: 1 }));
    assert.deepEqual(content.slots, [slot('02T10:00', '02T11:00')]);
  });

  it('keeps the buffer and the notice', async () => {
    const buffered = await call(base({ bufferMinutes: 15, durationMinutes: 30, limit: 3 }));
    // 10:15-10:45 would end 15 minutes before the tentative 10:30.
    assert.deepEqual(buffered.content.slots, [
      slot('02T11:15', '02T11:45'),
      slot('02T11:45', '02T12:15'),
      slot('02T12:15', '02T12:45'),
    ]);
    // Now is Sunday 13:00 in Berlin: 22 hours and 10 minutes later is Monday 11:10.
    const noticed = await call(base({ minimumNoticeMinutes: 22 * 60 + 10, limit: 1 }));
    assert.deepEqual(noticed.content.slots, [slot('02T11:15', '02T12:15')]);
  });

  it('counts a busy-only calendar fully and lets nothing of its events leave', async () => {
    const result = await callRaw(
      base({ calendarIds: [secret], start: '2026-03-02T13:30:00+01:00', limit: 2 }),
    );
    assert.deepEqual(result.structuredContent, {
      ok: true,
      slots: [slot('02T15:30', '02T16:30'), slot('03T09:00', '03T10:00')],
      truncated: false,
    });
    assert.equal(result.content.length, 1);
    const text = JSON.stringify(result);
    for (const word of secretWords) assert.ok(!text.includes(word), `"${word}" does not leave`);
  });

  it('says truncated and names a calendar that could not be read', async () => {
    const { content, notes } = await call(base({ calendarIds: [work, broken], limit: 1 }));
    assert.deepEqual(content, { ok: true, slots: [slot('02T11:00', '02T12:00')], truncated: true });
    assert.deepEqual(notes, [
      `Not every calendar could be read completely, so the result may miss events: ${broken} (the calendar service did not answer as expected; try again later).`,
    ]);
  });

  it('answers no slots when none fits', async () => {
    const { content } = await call(
      base({ end: '2026-03-02T09:45:00+01:00', start: '2026-03-02T09:00:00+01:00' }),
    );
    assert.deepEqual(content, { ok: true, slots: [], truncated: false });
  });

  it('refuses a calendar outside the grant', async () => {
    const result = await callRaw(base({ calendarIds: [work, unshared] }));
    assert.equal(result.isError, true);
    assert.equal(JSON.parse(result.content[0]!.text).error.code, 'calendar_not_permitted');
  });

  const refusals: Array<[string, Args, ErrorCode, string]> = [
    ['no durationMinutes', { durationMinutes: undefined }, 'invalid_request', 'durationMinutes'],
    ['durationMinutes 4', { durationMinutes: 4 }, 'invalid_request', 'durationMinutes'],
    ['durationMinutes 1441', { durationMinutes: 1441 }, 'invalid_request', 'durationMinutes'],
    ['durationMinutes 30.5', { durationMinutes: 30.5 }, 'invalid_request', 'durationMinutes'],
    ['no timeZone', { timeZone: undefined }, 'invalid_request', 'timeZone'],
    ['an unknown timeZone', { timeZone: 'Mars/Olympus' }, 'invalid_time_zone', 'timeZone'],
    ['no calendar', { calendarIds: [] }, 'invalid_request', 'calendarIds'],
    ['a start without offset', { start: '2026-03-02T00:00:00' }, 'window_invalid', 'start'],
    ['an end before the start', { end: '2026-03-01T00:00:00+01:00' }, 'window_invalid', 'end'],
    ['a window of 744 hours and a second', { end: '2026-04-02T01:00:01+02:00' }, 'window_too_long', 'end'],
    ['no working periods', { workingHours: [] }, 'invalid_request', 'workingHours'],
    [
      'eight working periods',
      { workingHours: Array.from({ length: 8 }, () => ({ days: ['monday'], start: '09:00', end: '10:00' })) },
      'invalid_request',
      'workingHours',
    ],
    [
      'a working period ending before it starts',
      { workingHours: [{ days: ['monday'], start: '17:00', end: '09:00' }] },
      'invalid_request',
      'workingHours.0.end',
    ],
    [
      'a start that is not HH:MM',
      { workingHours: [{ days: ['monday'], start: '9:00', end: '17:00' }] },
      'invalid_request',
      'workingHours.0.start',
    ],
    [
      'a day that is not a weekday',
      { workingHours: [{ days: ['funday'], start: '09:00', end: '17:00' }] },
      'invalid_request',
      'workingHours.0.days.0',
    ],
    [
      'a day named twice',
      { workingHours: [{ days: ['monday', 'monday'], start: '09:00', end: '17:00' }] },
      'invalid_request',
      'workingHours.0.days',
    ],
    [
      'no days',
      { workingHours: [{ days: [], start: '09:00', end: '17:00' }] },
      'invalid_request',
      'workingHours.0.days',
    ],
    [
      'overlapping periods on a day',
      {
        workingHours: [
          { days: ['monday', 'tuesday'], start: '09:00', end: '12:00' },
          { days: ['tuesday'], start: '11:00', end: '13:00' },
        ],
      },
      'invalid_request',
      'workingHours.1',
    ],
    [
      'an unknown field in a period',
      { workingHours: [{ days: ['monday'], start: '09:00', end: '17:00', lunch: '12:00' }] },
      'invalid_request',
      'workingHours.0.lunch',
    ],
    ['minimumNoticeMinutes -1', { minimumNoticeMinutes: -1 }, 'invalid_request', 'minimumNoticeMinutes'],
    [
      'minimumNoticeMinutes 10081',
      { minimumNoticeMinutes: 10081 },
      'invalid_request',
      'minimumNoticeMinutes',
    ],
    ['bufferMinutes 241', { bufferMinutes: 241 }, 'invalid_request', 'bufferMinutes'],
    ['tentativeIsBusy as text', { tentativeIsBusy: 'no' }, 'invalid_request', 'tentativeIsBusy'],
    ['limit 0', { limit: 0 }, 'invalid_request', 'limit'],
    ['limit 51', { limit: 51 }, 'invalid_request', 'limit'],
    ['stepMinutes 7', { stepMinutes: 7 }, 'invalid_request', 'stepMinutes'],
    ['stepMinutes 90', { stepMinutes: 90 }, 'invalid_request', 'stepMinutes'],
    ['an unknown argument', { query: 'x' }, 'invalid_request', 'query'],
  ];
  for (const [what, changes, code, field] of refusals) {
    it(`refuses ${what} with ${code} naming ${field}`, async () => {
      const args = Object.fromEntries(Object.entries(base(changes)).filter(([, v]) => v !== undefined));
      const result = await callRaw(args);
      assert.equal(result.isError, true, `expected a refusal, got ${result.content[0]?.text}`);
      const { error } = JSON.parse(result.content[0]!.text) as { error: Args };
      assert.equal(error.code, code, JSON.stringify(error));
      assert.equal(error.field, field, JSON.stringify(error));
    });
  }

  it('accepts the bounds it lists', async () => {
    const { content } = await call(
      base({
        end: '2026-04-02T01:00:00+02:00',
        durationMinutes: 1440,
        workingHours: [
          {
            days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
            start: '00:00',
            end: '24:00',
          },
        ],
        minimumNoticeMinutes: 10080,
        bufferMinutes: 240,
        limit: 50,
        stepMinutes: 5,
      }),
    );
    assert.equal(content.truncated, false);
    assert.ok((content.slots as unknown[]).length > 0);
  });
});
