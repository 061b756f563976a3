/**
 * Working hours in find_meeting_times, end to end through the real MCP client: the caller meets
 * in Berlin with a workspace member who set his hours in London and an outsider whose hours
 * Graph's getSchedule gives in New York (a Windows zone name). Slots lie inside everyone's
 * hours; best effort ranks by them and names who is outside; with colleague availability off the
 * member's hours count no more. The answers carry times only: no zone or hours of anyone. On that
 * Monday (2 March 2026) Berlin is at UTC+1, London at UTC, New York at UTC-5.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setWorkingHours } from '../../src/people/workingHours.ts';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import type { FakeGraph } from '../fakes/graph.ts';
import type { TestApp } from '../helpers/app.ts';
import { startAnaGraph, startCallerWorld } from '../helpers/callerAccounts.ts';
import type { RecordedClient } from '../helpers/recordedClient.ts';
import { berlin, hour, monday, syncedClient } from '../helpers/schedulingWorld.ts';

const attendees = ['ben@acme.example', 'mia@contoso.example'];
/** Nothing of anyone's hours but the slots they shape. */
const hoursWords = ['London', 'New_York', 'Eastern', 'workingHours', '08:00', 'monday'];

describe('working hours in find_meeting_times', () => {
  let graph: FakeGraph;
  let t: TestApp;
  let mcp: RecordedClient;
  let calendarIds: string[];
  let workspaceId: string;

  before(async () => {
    graph = await startAnaGraph();
    // Mia: 09:00–17:00 New York time (14:00–22:00 UTC that day), busy only after her hours.
    graph.schedules.set(
      'mia@contoso.example',
      [{ status: 'busy', start: '2026-03-02T22:00:00Z', end: '2026-03-02T23:00:00Z', subject: 'Late call' }],
      {
        daysOfWeek: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
        startTime: '09:00:00.0000000',
        endTime: '17:00:00.0000000',
        timeZone: { name: 'Eastern Standard Time' },
      },
    );
    const world = await startCallerWorld({ graph, members: { 'ben@acme.example': [] } });
    t = world.t;
    workspaceId = world.workspaceId;
    const [ben] = world.members as [string];
    // Ben: 08:00–15:00 in London (UTC in March), so 09:00–16:00 in Berlin.
    await setWorkingHours(t.ctx.db, t.ctx.clock, ben, {
      days: ['monday', 'tuesday'],
      start: '08:00',
      end: '15:00',
      timeZone: 'Europe/London',
    });
    calendarIds = world.viaGraph!.calendars.map((c) => c.id);
    mcp = await syncedClient(
      t,
      {
        userId: world.ana,
        workspaceId,
        calendars: calendarIds.map((calendarId) => ({ calendarId, detailLevel: 'busy' as const })),
      },
      'working-hours-test',
    );
  });

  after(async () => {
    await mcp?.close();
    await t?.close();
    await graph?.close();
  });

  const find = (args: Record<string, unknown>) =>
    mcp.call('find_meeting_times', {
      calendarIds,
      ...monday,
      timeZone: berlin,
      durationMinutes: 60,
      stepMinutes: 60,
      attendees,
      ...args,
    });
  const timesOnly = (bytes: string) => {
    assert.ok(bytes.includes('mia@contoso.example'), 'the answer was recorded');
    for (const word of [...hoursWords, 'Late call'])
      assert.ok(!bytes.includes(word), `"${word}" left the service`);
  };

  it("offers only the hour inside the caller's, the member's and the outsider's hours", async () => {
    const { content, bytes } = await find({});
    // Berlin 09–17, Ben 09–16, Mia 15–23 (Berlin time): 15:00–16:00 alone.
    assert.deepEqual(content, {
      ok: true,
      slots: [{ ...hour('15:00', '16:00'), free: attendees, unknown: [] }],
      truncated: false,
    });
    timesOnly(bytes);
  });

  it('best effort ranks by who is outside their hours and names them', async () => {
    const { content, bytes } = await find({ requireAll: false, limit: 3 });
    const outside = (who: string[]) => ({ free: attendees, unknown: [], busy: [], outsideHours: who });
    assert.deepEqual(content, {
      ok: true,
      slots: [
        { ...hour('09:00', '10:00'), ...outside(['mia@contoso.example']) },
        { ...hour('10:00', '11:00'), ...outside(['mia@contoso.example']) },
        { ...hour('15:00', '16:00'), ...outside([]) },
      ],
      truncated: false,
    });
    timesOnly(bytes);
  });

  it("stops holding to the member's hours when the workspace stops sharing availability", async () => {
    await savePolicy(t.ctx.db, workspaceId, { ...defaultPolicy, colleagueAvailability: false }, 0);
    try {
      const { content } = await find({});
      const who = { free: ['mia@contoso.example'], unknown: ['ben@acme.example'] };
      assert.deepEqual(content.slots, [
        { ...hour('15:00', '16:00'), ...who },
        { ...hour('16:00', '17:00'), ...who },
      ]);
    } finally {
      await savePolicy(t.ctx.db, workspaceId, defaultPolicy, 0);
    }
  });
});
