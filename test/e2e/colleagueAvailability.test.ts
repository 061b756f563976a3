/**
 * Colleagues' free/busy through the real MCP client: three members of a workspace (one with a
 * calendar that does not count) and an outside address. find_meeting_times finds slots free for
 * the caller and every known colleague, naming the outsider unknown; get_availability merges
 * their busy time with the caller's and says who is known and why the others are not. Colleagues'
 * calendars are read from busy-only copies: no byte of their events' text leaves the service.
 * Turned off by the workspace, colleagues are `not_shared`; bad addresses are refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { accountsOf, setCountingCalendars } from '../../src/store/connectedAccounts.ts';
import { insertMembership, savePolicy } from '../../src/store/workspaces.ts';
import type { TestApp } from '../helpers/app.ts';
import type { ToolResult } from '../helpers/mcpSession.ts';
import { type MemoryCalendar, memoryProvider, seedMemoryAccount } from '../helpers/memoryCalendars.ts';
import type { RecordedClient } from '../helpers/recordedClient.ts';
import {
  assertNoneLeft,
  mondayAt as at,
  berlin,
  berlinCalendar,
  hour,
  hourSlots,
  knownVia,
  monday,
  seedAcme,
  startSchedulingApp,
  syncedClient,
  unknownBecause,
} from '../helpers/schedulingWorld.ts';
import { seedUser } from '../helpers/seed.ts';

const secretWords = ['Merger', 'Globex', 'salary', 'Dentist', 'Interview', 'Room 7'];

const calendars = new Map<string, MemoryCalendar>([
  ['ana', berlinCalendar('Ana work', [at('09:00', 'Standup')])],
  [
    'ben',
    berlinCalendar('Ben work', [
      at('10:00', 'Merger with Globex', {
        description: 'The salary question',
        locations: [{ name: 'Room 7' }],
      }),
    ]),
  ],
  // Ben's, not counting: its 11:00 never makes anyone busy.
  ['benPrivate', berlinCalendar('Ben private', [at('11:00', 'Dentist')])],
  ['cleo', berlinCalendar('Cleo work', [at('13:00', 'Interview')])],
  ['dan', berlinCalendar('Dan work', [at('15:00', 'Offsite')])],
]);

type Args = Record<string, unknown>;

describe("colleagues' free/busy", () => {
  let t: TestApp;
  let client: Client;
  let mcp: RecordedClient;
  let workspaceId: string;
  let anaWork: string;
  const provider = memoryProvider('google', calendars);

  before(async () => {
    t = await startSchedulingApp({ google: provider });
    const world = await seedAcme(t.ctx.db, ['ana@acme.example', 'ben@acme.example', 'cleo@acme.example']);
    const [ana, ben, cleo] = world.userIds;
    workspaceId = world.workspaceId;
    [anaWork] = (await seedMemoryAccount(t.ctx, { userId: ana, workspaceId }, provider, ['ana'])) as [string];
    const [benWork] = await seedMemoryAccount(t.ctx, { userId: ben, workspaceId }, provider, [
      'ben',
      'benPrivate',
    ]);
    await seedMemoryAccount(t.ctx, { userId: cleo, workspaceId }, provider, ['cleo']);
    await setCountingCalendars(t.ctx.db, (await accountsOf(t.ctx.db, ben))[0]!.id, [benWork!], 0);
    // Ana's app reaches her own calendar only; her colleagues' come from busy-only copies.
    mcp = await syncedClient(
      t,
      { userId: ana, workspaceId, calendars: [{ calendarId: anaWork, detailLevel: 'full' }] },
      'colleagues-test',
    );
    client = mcp.client;
  });

  after(async () => {
    await mcp?.close();
    await t?.close();
  });

  const call = (name: string, args: Args) => mcp.call(name, args);

  const attendees = ['Ben@Acme.example', 'cleo@acme.example', 'zed@elsewhere.example', 'ben@acme.example'];

  it('finds slots free for the caller and every known colleague, the outsider unknown, no text of theirs', async () => {
    const { content, bytes } = await call('find_meeting_times', {
      calendarIds: [anaWork],
      ...monday,
      timeZone: berlin,
      durationMinutes: 60,
      attendees,
    });
    const who = { free: ['Ben@Acme.example', 'cleo@acme.example'], unknown: ['zed@elsewhere.example'] };
    assert.deepEqual(content, {
      ok: true,
      // Ana 09:00, Ben 10:00, Cleo 13:00; Ben's private 11:00 does not count.
      slots: hourSlots(['11:00', '12:00', '14:00', '15:00', '16:00'], who),
      truncated: false,
    });
    assert.ok(bytes.includes('zed@elsewhere.example'), 'the answer was recorded');
    assertNoneLeft(bytes, [...secretWords, 'Standup']);
  });

  it('gives busy time merged across the caller and the known colleagues, and who is known', async () => {
    const { content, bytes } = await call('get_availability', {
      calendarIds: [anaWork],
      ...monday,
      timeZone: berlin,
      attendees,
    });
    assert.deepEqual(content, {
      ok: true,
      busy: [hour('09:00', '11:00'), hour('13:00', '14:00')],
      truncated: false,
      attendees: [
        knownVia('Ben@Acme.example', 'workspace'),
        knownVia('cleo@acme.example', 'workspace'),
        // Ana's account's provider offers no free/busy lookup.
        unknownBecause('zed@elsewhere.example', 'provider_cannot_tell'),
      ],
    });
    assertNoneLeft(bytes, secretWords);
  });

  it('answers as before without attendees', async () => {
    const { content } = await call('get_availability', {
      calendarIds: [anaWork],
      ...monday,
      timeZone: berlin,
    });
    assert.deepEqual(content, { ok: true, busy: [hour('09:00', '10:00')], truncated: false });
  });

  it('refuses malformed addresses and more than 20, with the field named', async () => {
    for (const bad of [
      ['not an address'],
      ['Ben <ben@acme.example>'],
      Array.from({ length: 21 }, (_, i) => `p${i}@acme.example`),
    ]) {
      const result = (await client.callTool({
        name: 'get_availability',
        arguments: { calendarIds: [anaWork], ...monday, attendees: bad },
      })) as unknown as ToolResult;
      assert.equal(result.isError, true, JSON.stringify(bad));
      const { error } = JSON.parse(result.content[0]!.text);
      assert.equal(error.code, 'invalid_request', JSON.stringify(error));
      assert.equal(error.field, 'attendees', JSON.stringify(error));
    }
  });

  it('says not_synced for a colleague whose calendar has no copy yet, never treating it as free', async () => {
    const dan = await seedUser(t.ctx.db, 'dan@acme.example');
    await insertMembership(t.ctx.db, { workspaceId, userId: dan, role: 'member', now: 0 });
    await seedMemoryAccount(t.ctx, { userId: dan, workspaceId }, provider, ['dan']);
    const { content } = await call('get_availability', {
      calendarIds: [anaWork],
      ...monday,
      timeZone: berlin,
      attendees: ['dan@acme.example'],
    });
    assert.deepEqual(content.busy, [hour('09:00', '10:00')]);
    assert.deepEqual(content.attendees, [unknownBecause('dan@acme.example', 'not_synced')]);
  });

  it('says not_shared for colleagues when the workspace turns the setting off', async () => {
    await savePolicy(t.ctx.db, workspaceId, { ...defaultPolicy, colleagueAvailability: false }, 0);
    const { content } = await call('get_availability', {
      calendarIds: [anaWork],
      ...monday,
      timeZone: berlin,
      attendees,
    });
    assert.deepEqual(content.busy, [hour('09:00', '10:00')]);
    assert.deepEqual(content.attendees, [
      unknownBecause('Ben@Acme.example', 'not_shared'),
      unknownBecause('cleo@acme.example', 'not_shared'),
      unknownBecause('zed@elsewhere.example', 'provider_cannot_tell'),
    ]);
  });
});
