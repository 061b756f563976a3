/**
 * Other people's free/busy through the caller's own accounts, end to end through the real MCP
 * client: the caller has a Google and a Microsoft account (the fakes, through the real adapters);
 * one outsider is known through Google's freeBusy, one through Graph's getSchedule, one neither
 * can tell about, and a workspace member is read from the copies. Each attendee says its source
 * or why it is unknown; what a provider told is kept for a minute per grant; a failing provider
 * makes only its people unknown; the answers' bytes
 * hold no title, neither the member's nor the one Graph sends with a schedule item.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setAccountStatus } from '../../src/store/connectedAccounts.ts';
import type { FakeGoogle } from '../fakes/google.ts';
import type { FakeGraph } from '../fakes/graph.ts';
import type { TestApp } from '../helpers/app.ts';
import { startAnaGoogle, startAnaGraph, startCallerWorld } from '../helpers/callerAccounts.ts';
import type { RecordedClient } from '../helpers/recordedClient.ts';
import {
  assertNoneLeft,
  berlin,
  hour,
  hourSlots,
  knownVia,
  monday,
  mondayAt,
  syncedClient,
  unknownBecause,
} from '../helpers/schedulingWorld.ts';

const secretWords = ['Merger', 'Globex', 'Salary', 'Gym', 'Lunch with Gus'];

describe("outsiders' free/busy through the caller's accounts", () => {
  let google: FakeGoogle;
  let graph: FakeGraph;
  let t: TestApp;
  let mcp: RecordedClient;
  let calendarIds: string[];
  let accountIds: string[];

  before(async () => {
    google = await startAnaGoogle([
      {
        id: 'standup',
        summary: 'Lunch with Gus',
        start: { dateTime: '2026-03-02T09:00:00+01:00' },
        end: { dateTime: '2026-03-02T10:00:00+01:00' },
      },
    ]);
    graph = await startAnaGraph();
    google.freeBusy.set('gus@partner.example', [
      { start: '2026-03-02T10:00:00Z', end: '2026-03-02T11:00:00Z' },
    ]);
    graph.schedules.set('mia@contoso.example', [
      {
        status: 'busy',
        start: '2026-03-02T13:00:00Z',
        end: '2026-03-02T14:00:00Z',
        subject: 'Salary review',
      },
      { status: 'free', start: '2026-03-02T15:00:00Z', end: '2026-03-02T16:00:00Z', subject: 'Gym' },
    ]);
    const world = await startCallerWorld({
      google,
      graph,
      members: { 'ben@acme.example': [mondayAt('10:00', 'Merger with Globex')] },
      // The read deadline (twice this) bounds how long a provider is waited for.
      env: { PROVIDER_TIMEOUT_MS: '1000' },
    });
    t = world.t;
    const viaGoogle = world.viaGoogle!;
    const viaGraph = world.viaGraph!;
    calendarIds = [...viaGoogle.calendars, ...viaGraph.calendars].map((c) => c.id);
    accountIds = [viaGoogle.account.id, viaGraph.account.id];
    mcp = await syncedClient(
      t,
      {
        userId: world.ana,
        workspaceId: world.workspaceId,
        calendars: calendarIds.map((calendarId) => ({ calendarId, detailLevel: 'busy' as const })),
      },
      'outsiders-test',
    );
  });

  after(async () => {
    await mcp?.close();
    await t?.close();
    await google?.close();
    await graph?.close();
  });

  const attendees = [
    'ben@acme.example',
    'Gus@Partner.example',
    'mia@contoso.example',
    'zed@elsewhere.example',
  ];
  const availability = () =>
    mcp.call('get_availability', { calendarIds, ...monday, timeZone: berlin, attendees });
  const noTitles = (bytes: string) => {
    assert.ok(bytes.includes('zed@elsewhere.example'), 'the answer was recorded');
    assertNoneLeft(bytes, secretWords);
  };

  it('merges the busy time each provider tells with the copies, saying where each came from', async () => {
    const { content, bytes } = await availability();
    assert.deepEqual(content, {
      ok: true,
      // Ana 09:00, Ben 10:00 (copies), Gus 11:00 (Google), Mia 14:00 (Graph; her free 16:00 is not busy).
      busy: [hour('09:00', '12:00'), hour('14:00', '15:00')],
      truncated: false,
      attendees: [
        knownVia('ben@acme.example', 'workspace'),
        knownVia('Gus@Partner.example', 'google'),
        knownVia('mia@contoso.example', 'microsoft'),
        unknownBecause('zed@elsewhere.example', 'provider_cannot_tell'),
      ],
    });
    noTitles(bytes);
  });

  it('finds slots every known attendee can make, the one no provider can tell about unknown', async () => {
    const { content, bytes } = await mcp.call('find_meeting_times', {
      calendarIds,
      ...monday,
      timeZone: berlin,
      durationMinutes: 60,
      attendees,
    });
    const who = {
      free: ['ben@acme.example', 'Gus@Partner.example', 'mia@contoso.example'],
      unknown: ['zed@elsewhere.example'],
    };
    assert.deepEqual(content, {
      ok: true,
      slots: hourSlots(['12:00', '13:00', '15:00', '16:00'], who),
      truncated: false,
    });
    noTitles(bytes);
  });

  it('asks the providers once for calls repeated within a minute, again after it', async () => {
    const asked = () =>
      google.counts.count({ kind: 'freeBusy' }) + (graph.requestCounts()['POST schedule'] ?? 0);
    const first = await availability();
    const before = asked();
    const again = await availability();
    assert.equal(asked(), before, 'nothing asked again');
    assert.deepEqual(again.content, first.content);
    t.clock.advance({ seconds: 61 });
    await availability();
    assert.equal(asked(), before + 2, 'each provider asked once more');
  });

  it("makes only a failing provider's people unknown, never the whole answer an error", async () => {
    // Past the minute answers are kept for.
    t.clock.advance({ seconds: 61 });
    google.inject({ status: 503, match: /freeBusy/ });
    const { content } = await availability();
    assert.deepEqual(content.busy, [hour('09:00', '11:00'), hour('14:00', '15:00')]);
    assert.deepEqual(content.attendees, [
      knownVia('ben@acme.example', 'workspace'),
      unknownBecause('Gus@Partner.example', 'provider_cannot_tell'),
      knownVia('mia@contoso.example', 'microsoft'),
      unknownBecause('zed@elsewhere.example', 'provider_cannot_tell'),
    ]);
  });

  it('waits for a slow provider no longer than the read deadline, its people unknown', async () => {
    t.clock.advance({ seconds: 61 });
    graph.failNext(1, { method: 'POST', delayMs: 10_000 });
    const started = performance.now();
    const { content } = await availability();
    assert.ok(performance.now() - started < 5_000, 'answered within the deadline');
    assert.deepEqual(content.attendees, [
      knownVia('ben@acme.example', 'workspace'),
      knownVia('Gus@Partner.example', 'google'),
      unknownBecause('mia@contoso.example', 'provider_cannot_tell'),
      unknownBecause('zed@elsewhere.example', 'provider_cannot_tell'),
    ]);
  });

  it('says outside_workspace when no account of the caller is there to ask', async () => {
    for (const id of accountIds) await setAccountStatus(t.ctx.db, id, 'reconnect_required', 'Reconnect.', 0);
    const { content } = await availability();
    assert.deepEqual(content.attendees, [
      knownVia('ben@acme.example', 'workspace'),
      unknownBecause('Gus@Partner.example', 'outside_workspace'),
      unknownBecause('mia@contoso.example', 'outside_workspace'),
      unknownBecause('zed@elsewhere.example', 'outside_workspace'),
    ]);
  });
});
