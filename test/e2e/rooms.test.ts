/**
 * Rooms end to end through the real MCP client: an admin fills the workspace's room list from
 * her Google (a resource calendar) and Microsoft (Graph places) accounts; find_meeting_times
 * with three workspace members, two outside addresses and a room finds slots every known
 * person and a fitting room can make; create_event books the room as a resource attendee on
 * Google and on Graph. Busy times of the others leave as times only. Bad input — malformed
 * addresses, more than 20 attendees, an unknown room, another workspace's room, rooms without
 * calendar:rooms — is each refused with its code, nothing written.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectionRooms } from '../../src/calendars/connections/connectionRooms.ts';
import { addRoom, importRooms } from '../../src/people/rooms.ts';
import { defaultPolicy, type Scope } from '../../src/policy/workspacePolicy.ts';
import { microsoftScopes } from '../../src/providers/microsoft/oauth.ts';
import { roomsOf } from '../../src/store/rooms.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import type { FakeGoogle } from '../fakes/google.ts';
import type { FakeGraph } from '../fakes/graph.ts';
import type { TestApp } from '../helpers/app.ts';
import { startAnaGoogle, startAnaGraph, startCallerWorld } from '../helpers/callerAccounts.ts';
import type { ToolResult } from '../helpers/mcpSession.ts';
import type { RecordedClient } from '../helpers/recordedClient.ts';
import { assertNoneLeft, berlin, hour, monday, mondayAt, syncedClient } from '../helpers/schedulingWorld.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const secretWords = ['Merger', 'Globex', 'Salary', 'Gym', 'Lunch with Gus', 'Board'];
/** UTC times of the Berlin hour (UTC+1). */
const utcHour = (start: number, end: number) => ({
  start: `2026-03-02T${String(start - 1).padStart(2, '0')}:00:00Z`,
  end: `2026-03-02T${String(end - 1).padStart(2, '0')}:00:00Z`,
});
const atlas = 'c_atlas@resource.calendar.google.com';
const orion = 'orion@acme.example';
const members = ['ben@acme.example', 'cleo@acme.example'];
const outsiders = ['gus@partner.example', 'mia@contoso.example'];

type Args = Record<string, unknown>;

describe('rooms: listed, found free with the attendees, booked', () => {
  let google: FakeGoogle;
  let graph: FakeGraph;
  let t: TestApp;
  let mcp: RecordedClient;
  let noRooms: RecordedClient;
  let googleCalendar: string;
  let graphCalendar: string;
  let calendarIds: string[];
  let workspaceId: string;
  let anaId: string;

  before(async () => {
    google = await startAnaGoogle(
      [
        {
          id: 'lunch',
          summary: 'Lunch with Gus',
          start: { dateTime: '2026-03-02T09:00:00+01:00' },
          end: { dateTime: '2026-03-02T10:00:00+01:00' },
        },
      ],
      // A room as Google lists it to people who may book it: a resource calendar.
      [{ id: atlas, summary: 'HQ-1-Atlas (6) [Video]', timeZone: berlin, accessRole: 'freeBusyReader' }],
    );
    graph = await startAnaGraph();
    graph.rooms.push(
      {
        emailAddress: orion,
        displayName: 'Orion',
        capacity: 8,
        tags: ['video'],
        displayDeviceName: 'Screen',
      },
      { emailAddress: 'nook@acme.example', displayName: 'Nook', capacity: 2, tags: ['video'] },
    );
    google.freeBusy.set('gus@partner.example', [utcHour(12, 13)]);
    google.freeBusy.set(atlas, [utcHour(14, 15), utcHour(16, 17)]);
    graph.schedules.set('mia@contoso.example', [{ status: 'busy', ...utcHour(13, 14), subject: 'Gym' }]);
    graph.schedules.set(orion, [{ status: 'busy', ...utcHour(14, 16), subject: 'Board meeting' }]);
    const world = await startCallerWorld({
      google,
      graph,
      members: {
        'ben@acme.example': [mondayAt('10:00', 'Merger with Globex')],
        'cleo@acme.example': [mondayAt('11:00', 'Salary talk')],
      },
      // An administrator consented to Place.Read.All for Ana's Microsoft account.
      graphScopes: [...microsoftScopes, 'Place.Read.All'],
      env: { PROVIDER_TIMEOUT_MS: '1000' },
    });
    t = world.t;
    workspaceId = world.workspaceId;
    anaId = world.ana;
    const viaGoogle = world.viaGoogle!;
    const viaGraph = world.viaGraph!;
    const allowed: Scope[] = ['calendar:read', 'calendar:write', 'calendar:rooms'];
    await savePolicy(t.ctx.db, workspaceId, { ...defaultPolicy, allowedScopes: allowed }, 0);
    googleCalendar = viaGoogle.calendars.find((c) => c.providerCalendarId === 'ana@acme.example')!.id;
    graphCalendar = viaGraph.calendars[0]!.id;
    calendarIds = [googleCalendar, graphCalendar];

    // Another workspace's room, which Acme's people must not book.
    const zoe = await seedUser(t.ctx.db, 'zoe@other.example');
    const other = await seedWorkspace(t.ctx.db, 'Other', [[zoe, 'owner']]);
    await addRoom(
      t.ctx,
      other,
      { email: 'vega@other.example', name: 'Vega', capacity: '20', features: 'video' },
      { userId: zoe },
    );

    const client = (granted: Scope[], name: string) =>
      syncedClient(
        t,
        {
          userId: anaId,
          workspaceId,
          calendars: calendarIds.map((calendarId) => ({ calendarId, detailLevel: 'full' as const })),
          scopes: granted,
        },
        name,
      );
    mcp = await client(allowed, 'rooms-test');
    noRooms = await client(['calendar:read', 'calendar:write'], 'no-rooms-test');
  });

  after(async () => {
    await mcp?.close();
    await noRooms?.close();
    await t?.close();
    await google?.close();
    await graph?.close();
  });

  const call = (name: string, args: Args) => mcp.call(name, args);
  const refusal = async (client: RecordedClient, name: string, args: Args) => {
    const result = (await client.client.callTool({ name, arguments: args })) as unknown as ToolResult;
    assert.equal(result.isError, true, JSON.stringify(result));
    return JSON.parse(result.content[0]!.text).error as { code: string; field?: string };
  };
  const noTitles = (bytes: string) => {
    assert.ok(bytes.length > 0, 'the answer was recorded');
    assertNoneLeft(bytes, secretWords);
  };
  const written = () => ({
    google: google.counts.count({ kind: 'write' }),
    graph: graph.requests.filter((r) => r.method !== 'GET' && !r.path.endsWith('getSchedule')).length,
  });

  it("fills the room list from the admin's Google and Microsoft accounts in one call", async () => {
    const owner = { userId: anaId, workspaceId };
    const outcome = await importRooms(t.ctx, workspaceId, owner, () => connectionRooms(t.ctx, owner));
    assert.deepEqual(outcome, { listed: 3, failed: 0 });
    assert.deepEqual(
      (await roomsOf(t.ctx.db, workspaceId)).map(({ email, name, capacity, features, source }) => ({
        email,
        name,
        capacity,
        features,
        source,
      })),
      [
        { email: atlas, name: 'HQ-1-Atlas', capacity: 6, features: ['video'], source: 'google' },
        { email: 'nook@acme.example', name: 'Nook', capacity: 2, features: ['video'], source: 'microsoft' },
        { email: orion, name: 'Orion', capacity: 8, features: ['video', 'display'], source: 'microsoft' },
      ],
    );
  });

  it('lists the rooms that fit, smallest first', async () => {
    const { content } = await call('list_rooms', { minCapacity: 6, features: ['Video'] });
    assert.deepEqual(content, {
      ok: true,
      rooms: [
        { email: atlas, name: 'HQ-1-Atlas', capacity: 6, features: ['video'] },
        { email: orion, name: 'Orion', capacity: 8, features: ['video', 'display'] },
      ],
    });
  });

  it('finds slots every known person and a fitting room can make, naming the room, times only', async () => {
    const { content, bytes } = await call('find_meeting_times', {
      calendarIds,
      ...monday,
      timeZone: berlin,
      durationMinutes: 60,
      attendees: [...members, ...outsiders],
      rooms: { minCapacity: 6, features: ['video'] },
    });
    const free = [...members, ...outsiders];
    // Ana 9, Ben 10, Cleo 11, Gus 12, Mia 13; at 14 both rooms are taken; Atlas again at 16.
    assert.deepEqual(content, {
      ok: true,
      slots: [
        { ...hour('15:00', '16:00'), free, unknown: [], room: atlas },
        { ...hour('16:00', '17:00'), free, unknown: [], room: orion },
      ],
      truncated: false,
    });
    noTitles(bytes);
  });

  it('says so when no room fits, or none that fits can be told about: no slot without a room', async () => {
    const meeting = { calendarIds, ...monday, timeZone: berlin, durationMinutes: 60 };
    const none = await call('find_meeting_times', { ...meeting, rooms: { minCapacity: 100 } });
    assert.deepEqual(none.content.slots, []);
    assert.match(none.bytes, /No room of the workspace has minCapacity seats/);
    // Graph failing, its rooms (Nook, Orion) are not told about: only Atlas is ever offered.
    const rooms = { features: ['video'], minCapacity: 2 };
    t.clock.advance({ seconds: 61 });
    graph.failNext(1, { method: 'POST', status: 503 });
    const some = await call('find_meeting_times', { ...meeting, rooms });
    // Ana is busy at 9, Atlas at 14 and 16; Nook and Orion would be free then, but nobody says so.
    assert.deepEqual(some.content.slots, [
      { ...hour('10:00', '11:00'), room: atlas },
      { ...hour('11:00', '12:00'), room: atlas },
      { ...hour('12:00', '13:00'), room: atlas },
      { ...hour('13:00', '14:00'), room: atlas },
      { ...hour('15:00', '16:00'), room: atlas },
    ]);
    t.clock.advance({ seconds: 61 });
    graph.failNext(1, { method: 'POST', status: 503 });
    google.inject({ status: 503, match: /freeBusy/ });
    const untold = await call('find_meeting_times', { ...meeting, rooms });
    assert.deepEqual(untold.content.slots, []);
    assert.match(untold.bytes, /No fitting room's free\/busy could be told/);
    t.clock.advance({ seconds: 61 });
  });

  it('best effort (requireAll false): the slots where fewest are busy, each saying who is', async () => {
    const { content, bytes } = await call('find_meeting_times', {
      calendarIds,
      ...monday,
      timeZone: berlin,
      durationMinutes: 60,
      attendees: [...members, ...outsiders, 'zed@elsewhere.example'],
      requireAll: false,
      limit: 4,
    });
    const all = [...members, ...outsiders];
    assert.deepEqual(content, {
      ok: true,
      slots: [
        {
          ...hour('10:00', '11:00'),
          free: all.filter((a) => a !== 'ben@acme.example'),
          unknown: ['zed@elsewhere.example'],
          busy: ['ben@acme.example'],
          outsideHours: [],
        },
        {
          ...hour('14:00', '15:00'),
          free: all,
          unknown: ['zed@elsewhere.example'],
          busy: [],
          outsideHours: [],
        },
        {
          ...hour('15:00', '16:00'),
          free: all,
          unknown: ['zed@elsewhere.example'],
          busy: [],
          outsideHours: [],
        },
        {
          ...hour('16:00', '17:00'),
          free: all,
          unknown: ['zed@elsewhere.example'],
          busy: [],
          outsideHours: [],
        },
      ],
      truncated: false,
    });
    noTitles(bytes);
  });

  it('books the room as a resource attendee on Google', async () => {
    const { content } = await call('create_event', {
      calendarId: googleCalendar,
      title: 'Planning',
      ...hour('15:00', '16:00'),
      attendees: [{ email: 'ben@acme.example' }],
      rooms: [atlas],
    });
    assert.deepEqual((content.guests as Args).emails, ['ben@acme.example', atlas]);
    const stored = google.calendars
      .storedEvents('ana@acme.example')
      .find((e) => e.event.summary === 'Planning')!.event;
    assert.deepEqual(
      stored.attendees?.map(({ email, resource, displayName }) => ({ email, resource, displayName })),
      [
        { email: 'ben@acme.example', resource: undefined, displayName: undefined },
        { email: atlas, resource: true, displayName: 'HQ-1-Atlas' },
      ],
    );
  });

  it('books the room on Graph as a resource attendee and the location, on create and on update', async () => {
    const { content } = await call('create_event', {
      calendarId: graphCalendar,
      title: 'Review',
      ...hour('16:00', '17:00'),
      rooms: [orion],
    });
    const body = graph.requests.find((r) => r.method === 'POST' && r.path.endsWith('/events'))!.body as Args;
    assert.deepEqual(body.attendees, [{ type: 'resource', emailAddress: { address: orion, name: 'Orion' } }]);
    assert.deepEqual(body.location, {
      displayName: 'Orion',
      locationEmailAddress: orion,
      locationType: 'conferenceRoom',
    });

    const event = content.event as Args;
    const writes = graph.requests.length;
    await call('update_event', {
      eventId: event.eventId,
      seen: { title: 'Review' },
      rooms: ['nook@acme.example'],
      notifyAttendees: true,
    });
    const patch = graph.requests.slice(writes).find((r) => r.method === 'PATCH')!.body as Args;
    assert.deepEqual(patch.attendees, [
      { type: 'resource', emailAddress: { address: orion, name: 'Orion' } },
      { type: 'resource', emailAddress: { address: 'nook@acme.example', name: 'Nook' } },
    ]);
    assert.equal((patch.location as Args).locationEmailAddress, 'nook@acme.example');
  });

  it('refuses bad input with a stable code each, writing nothing', async () => {
    const before = written();
    const meeting = { calendarIds, ...monday, timeZone: berlin, durationMinutes: 60 };
    const create = { calendarId: googleCalendar, title: 'Nope', ...hour('15:00', '16:00') };
    const cases: Array<[RecordedClient, string, Args, string, string | undefined]> = [
      [
        mcp,
        'find_meeting_times',
        { ...meeting, attendees: ['not an address'] },
        'invalid_request',
        'attendees',
      ],
      [
        mcp,
        'find_meeting_times',
        { ...meeting, attendees: ['Ben <ben@acme.example>'] },
        'invalid_request',
        'attendees',
      ],
      [
        mcp,
        'find_meeting_times',
        { ...meeting, attendees: Array.from({ length: 21 }, (_, i) => `p${i}@acme.example`) },
        'invalid_request',
        'attendees',
      ],
      [mcp, 'create_event', { ...create, rooms: ['not a room'] }, 'invalid_request', 'rooms'],
      [mcp, 'create_event', { ...create, rooms: ['nowhere@acme.example'] }, 'unknown_room', 'rooms'],
      [mcp, 'create_event', { ...create, rooms: ['vega@other.example'] }, 'unknown_room', 'rooms'],
      [
        mcp,
        'update_event',
        { eventId: 'x', seen: {}, rooms: ['vega@other.example'] },
        'unknown_room',
        'rooms',
      ],
      [noRooms, 'create_event', { ...create, rooms: [atlas] }, 'insufficient_scope', undefined],
      [
        noRooms,
        'find_meeting_times',
        { ...meeting, rooms: { minCapacity: 2 } },
        'insufficient_scope',
        undefined,
      ],
    ];
    for (const [client, name, args, code, field] of cases) {
      const error = await refusal(client, name, args);
      assert.equal(error.code, code, `${name} ${JSON.stringify(args)}: ${JSON.stringify(error)}`);
      if (field !== undefined) assert.equal(error.field, field, JSON.stringify(error));
    }
    assert.deepEqual(written(), before, 'nothing was written');
    assert.equal(
      google.calendars.storedEvents('ana@acme.example').filter((e) => e.event.summary === 'Nope').length,
      0,
    );
  });

  it('lists list_rooms only with calendar:rooms', async () => {
    const names = async (client: RecordedClient) =>
      (await client.client.listTools()).tools.map((tool) => tool.name);
    assert.ok((await names(mcp)).includes('list_rooms'));
    assert.ok(!(await names(noRooms)).includes('list_rooms'));
  });
});
