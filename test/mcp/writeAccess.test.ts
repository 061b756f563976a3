/**
 * The write tools over real MCP (raw JSON-RPC against the listening service), who may use them: offered only
 * with their scopes and where the workspace policy allows writing, to 2025-era clients too; and the
 * audit of every attempt (app, calendar, event, outcome — never content).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eventWritesOf } from '../../src/store/eventWrites.ts';
import { listToolsRaw, structured, toolError } from '../helpers/mcpSession.ts';
import { seedMemoryAccount } from '../helpers/memoryCalendars.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';
import { seenOf } from '../helpers/seen.ts';
import { allScopes, writeTools, writeToolsSuite } from '../helpers/writeToolsSuite.ts';

describe('write tools over MCP', () => {
  const { app, ana, bob, provider, work, tokenFor, call, find } = writeToolsSuite();

  describe('offered by scope and policy', () => {
    it('lists the write tools only with their scopes, with closed schemas', async () => {
      const tools = await listToolsRaw(app.mcp, app.token);
      assert.deepEqual(
        tools.map((tool) => tool.name).filter((name) => writeTools.includes(name)),
        writeTools,
      );
      for (const tool of tools) assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
      const readOnly = await tokenFor(ana, ['calendar:read']);
      assert.equal(
        (await listToolsRaw(app.mcp, readOnly)).some((tool) => writeTools.includes(tool.name)),
        false,
      );
      const rsvpOnly = await tokenFor(ana, ['calendar:read', 'calendar:rsvp']);
      assert.deepEqual(
        (await listToolsRaw(app.mcp, rsvpOnly))
          .map((tool) => tool.name)
          .filter((name) => writeTools.includes(name)),
        ['respond_to_event'],
      );
    });

    it('works with a 2025-era client (v1 SDK), which validates results against the listed output schemas', async () => {
      const client = new V1Client({ name: 'v1-writer', version: '1' });
      await client.connect(
        new V1Transport(new URL(app.mcp), {
          requestInit: { headers: { authorization: `Bearer ${app.token}` } },
        }),
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
      const userId = await seedUser(app.t.ctx.db, 'cleo@example.org');
      const workspaceId = await seedWorkspace(app.t.ctx.db, 'Readers', [[userId, 'owner']]);
      const [workId, sharedId] = await seedMemoryAccount(app.t.ctx, { userId, workspaceId }, provider);
      const cleo = { userId, workspaceId, work: workId!, shared: sharedId! };
      const cleoToken = await tokenFor(cleo, allScopes);
      assert.equal(
        (await listToolsRaw(app.mcp, cleoToken)).some((tool) => writeTools.includes(tool.name)),
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

  describe('audit', () => {
    it('records every attempt with app, calendar, event and outcome — never content', async () => {
      const bobId = bob.userId;
      const [latest] = await eventWritesOf(app.t.ctx.db, ana.userId);
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
      const rows = (await eventWritesOf(app.t.ctx.db, ana.userId)).filter((r) => r.id > (latest?.id ?? 0));
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
        whileAsked = await eventWritesOf(app.t.ctx.db, ana.userId);
      };
      await call('update_event', { eventId: planning.eventId, seen: seenOf(planning), title: 'Planning' });
      assert.deepEqual(
        whileAsked[0] && [whileAsked[0].action, whileAsked[0].calendarId, whileAsked[0].outcome],
        ['update', ana.work, 'pending'],
      );
      // Bob's attempts are his own record, and name none of Ana's calendars.
      const bobs = await eventWritesOf(app.t.ctx.db, bobId);
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
      const page = new PageClient(app.t.app);
      await page.signIn('ana@example.org', testPassword);
      const body = (await page.get('/account')).body;
      assert.match(body, /<h2>Changes made by apps<\/h2>/);
      assert.match(
        body,
        /<td data-label="App">Test client<\/td>\s*<td data-label="Change">Created an event<\/td>\s*<td data-label="Calendar">Work<\/td>\s*<td data-label="Result">Done<\/td>/,
      );
      assert.match(
        body,
        /<td data-label="Calendar">Shared<\/td>\s*<td data-label="Result">Refused <code>calendar_read_only<\/code><\/td>/,
      );
      assert.match(
        body,
        /<td data-label="Change">Deleted an event<\/td>\s*<td data-label="Calendar"><span class="muted">not one shared with the app<\/span><\/td>\s*<td data-label="Result">Refused <code>calendar_not_permitted<\/code><\/td>/,
      );
      assert.doesNotMatch(body, /Secret title/);
      const bobPage = new PageClient(app.t.app);
      await bobPage.signIn('bob@example.org', testPassword);
      const bobsBody = (await bobPage.get('/account')).body;
      assert.match(
        bobsBody,
        /<td data-label="Change">Changed an event<\/td>\s*<td data-label="Calendar"><span class="muted">not one shared with the app/,
      );
      assert.doesNotMatch(bobsBody, /<td data-label="Calendar">(Work|Shared)<\/td>|Secret title/);
    });
  });
});
