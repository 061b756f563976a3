/**
 * Working hours in find_meeting_times, end to end through the real MCP client: the caller meets
 * in Berlin with a workspace member who set his hours in London and an outsider whose hours
 * Graph's getSchedule gives in New York (a Windows zone name). Slots lie inside everyone's
 * hours; best effort ranks by them and names who is outside; with colleague availability off the
 * member's hours count no more. The answers carry times only: no zone or hours of anyone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectAccount } from '../../src/calendars/connections/connections.ts';
import { setWorkingHours } from '../../src/people/workingHours.ts';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { createMicrosoftProvider } from '../../src/providers/microsoft/adapter.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { FakeGraph } from '../fakes/graph.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClock } from '../helpers/clock.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { type MemoryCalendar, memoryProvider, seedMemoryAccount } from '../helpers/memoryCalendars.ts';
import { type RecordedClient, recordedClient } from '../helpers/recordedClient.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const berlin = 'Europe/Berlin';
/** Monday 2 March 2026: Berlin UTC+1, London UTC, New York UTC-5; the clock stands on the Sunday before. */
const window = { start: '2026-03-02T00:00:00+01:00', end: '2026-03-03T00:00:00+01:00' };
const hour = (start: string, end: string) => ({
  start: `2026-03-02T${start}:00+01:00`,
  end: `2026-03-02T${end}:00+01:00`,
});
const attendees = ['ben@acme.example', 'mia@contoso.example'];
/** Nothing of anyone's hours but the slots they shape. */
const hoursWords = ['London', 'New_York', 'Eastern', 'workingHours', '08:00', 'monday'];

describe('working hours in find_meeting_times', () => {
  let graph: FakeGraph;
  let t: TestApp;
  let mcp: RecordedClient;
  let calendarIds: string[];
  let workspaceId: string;
  const benCalendars = new Map<string, MemoryCalendar>([
    ['ben', { name: 'Ben work', timeZone: berlin, occurrences: [] }],
  ]);

  before(async () => {
    const clock = new TestClock('2026-03-01T12:00:00Z');
    graph = await FakeGraph.start({
      users: [
        { email: 'ana@acme.example', calendars: [{ id: 'own', name: 'Calendar', isDefaultCalendar: true }] },
      ],
    });
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
    const http = new ProviderHttp({ baseDelayMs: 1, sleep: async () => {} });
    t = await startTestApp({
      listen: true,
      clock,
      providers: {
        microsoft: createMicrosoftProvider({ http, config: graph.config(), clock }),
        caldav: memoryProvider('caldav', benCalendars),
      },
    });
    const ana = await seedUser(t.ctx.db, 'ana@acme.example');
    const ben = await seedUser(t.ctx.db, 'ben@acme.example');
    workspaceId = await seedWorkspace(t.ctx.db, 'Acme', [
      [ana, 'owner'],
      [ben, 'member'],
    ]);
    // Ben: 08:00–15:00 in London (UTC in March), so 09:00–16:00 in Berlin.
    await setWorkingHours(t.ctx.db, t.ctx.clock, ben, {
      days: ['monday', 'tuesday'],
      start: '08:00',
      end: '15:00',
      timeZone: 'Europe/London',
    });
    const { scopes, ...tokens } = graph.issueTokens('ana@acme.example');
    const viaGraph = await connectAccount(
      t.ctx,
      { userId: ana, workspaceId },
      { kind: 'microsoft', ...tokens, scopes },
      'Work',
    );
    await seedMemoryAccount(t.ctx, { userId: ben, workspaceId }, memoryProvider('caldav', benCalendars));
    calendarIds = viaGraph.calendars.map((c) => c.id);
    const { token } = await grantToken(t.ctx, {
      userId: ana,
      workspaceId,
      calendars: calendarIds.map((calendarId) => ({ calendarId, detailLevel: 'busy' as const })),
      resource: 'mcp',
    });
    await t.sync.runDue();
    await t.sync.idle();
    mcp = await recordedClient(`${t.ctx.config.baseUrl}/mcp`, token, 'working-hours-test');
  });

  after(async () => {
    await mcp?.close();
    await t?.close();
    await graph?.close();
  });

  const find = (args: Record<string, unknown>) =>
    mcp.call('find_meeting_times', {
      calendarIds,
      ...window,
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
