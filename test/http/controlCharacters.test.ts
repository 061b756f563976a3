/**
 * NUL bytes (and other control characters) in every kind of input, on both engines: none reaches
 * PostgreSQL, which cannot store them. What a person or client sends is refused with its stable
 * code (invalid_request naming the field; calendar_not_permitted for an id, as for any unknown
 * id); what a provider lists is stored cleaned.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oauth from 'oauth4webapi';
import { newId } from '../../src/lib/ids.ts';
import { findAccount, insertAccount } from '../../src/store/connectedAccounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { callToolRaw, structured, toolError } from '../helpers/mcpSession.ts';
import { memoryProvider, occurrence } from '../helpers/memoryCalendars.ts';
import { discover, insecure, redirectUri } from '../helpers/oauth.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { getEvents } from '../helpers/restClient.ts';
import { testPassword } from '../helpers/seed.ts';
import { seedWriter } from '../helpers/writer.ts';

const berlin = 'Europe/Berlin';
const window = { start: '2026-03-02T00:00:00+01:00', end: '2026-03-03T00:00:00+01:00' };
const provider = memoryProvider(
  'google',
  new Map([
    [
      'work',
      {
        name: 'Wo\u0000rk\u0007',
        timeZone: berlin,
        occurrences: [occurrence({ providerEventId: 'e1', start: '2026-03-02T10:00:00', timeZone: berlin })],
      },
    ],
  ]),
);

for (const engine of await enginesUnderTest()) {
  describe(`control characters in input (${engine.name})`, { skip: engine.skip }, () => {
    let t: TestApp;
    let mcp: string;
    let work: string;
    let token: string;
    let restToken: string;
    let workspaceId: string;
    let userId: string;

    before(async () => {
      t = await startTestApp({
        listen: true,
        database: await engine.open(),
        providers: { google: provider },
      });
      mcp = `${t.ctx.config.baseUrl}/mcp`;
      const writer = await seedWriter(t.ctx, provider);
      ({ userId, workspaceId, token } = writer);
      [work] = writer.calendars as [string];
      ({ token: restToken } = await grantToken(t.ctx, {
        userId,
        workspaceId,
        calendars: [{ calendarId: work, detailLevel: 'full' }],
        resource: 'v1',
      }));
    });
    after(() => t.close());

    it('stores a calendar name from the provider without its control characters', async () => {
      const listed = structured(await callToolRaw(mcp, token, 'list_calendars', {}));
      assert.deepEqual(
        (listed.calendars as Array<{ name: string }>).map((c) => c.name),
        ['Work'],
      );
    });

    it("stores an OAuth account's label from the provider without its control characters", async () => {
      const id = newId('acc');
      const account = { id, userId, workspaceId, provider: 'google' as const, createdAt: 0 };
      await insertAccount(t.ctx.db, { ...account, label: 'ana\u0000@example.org' }, 'sealed');
      assert.equal((await findAccount(t.ctx.db, id))?.label, 'ana@example.org');
    });

    it('answers ids with NUL as unknown ids: calendar_not_permitted', async () => {
      const rest = await getEvents(t.app, restToken, [
        ['calendar_id', 'cal_\u0000'],
        ['start', window.start],
        ['end', window.end],
      ]);
      assert.equal(rest.status, 403);
      assert.equal((rest.body as { code: string }).code, 'calendar_not_permitted');
      const cases: Array<[string, Record<string, unknown>]> = [
        ['list_events', { calendarIds: [work, '\u0000'], ...window }],
        ['create_event', { calendarId: 'cal_\u0000', title: 'x', start: window.start, end: window.end }],
        ['delete_event', { eventId: 'ev\u0000', seen: { title: 'x', start: window.start } }],
      ];
      for (const [tool, args] of cases) {
        const error = toolError(await callToolRaw(mcp, token, tool, args));
        assert.equal(error.code, 'calendar_not_permitted', tool);
      }
    });

    it('refuses other tool text with NUL as invalid_request naming the argument', async () => {
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['search_events', { calendarIds: [work], query: 'plan\u0000', ...window }, 'query'],
        [
          'create_event',
          {
            calendarId: work,
            title: 'Lunch',
            description: 'a\u0000b',
            start: window.start,
            end: window.end,
            idempotencyKey: 'k',
          },
          'description',
        ],
        [
          'create_event',
          {
            calendarId: work,
            title: 'Lunch',
            start: window.start,
            end: window.end,
            idempotencyKey: 'k\u0000',
          },
          'idempotencyKey',
        ],
      ];
      for (const [tool, args, field] of cases) {
        const error = toolError(await callToolRaw(mcp, token, tool, args));
        assert.equal(error.code, 'invalid_request', `${tool} ${field}: ${JSON.stringify(error)}`);
        assert.equal(error.field, field);
      }
    });

    it('refuses form fields, query strings and path parameters of the pages with NUL', async () => {
      const browser = new PageClient(t.app);
      const signIn = await browser.signIn('ana\u0000@example.org', testPassword);
      assert.equal(signIn.statusCode, 400);
      assert.equal((await browser.signIn('ana@example.org', testPassword)).statusCode, 303);
      await browser.get(`/admin/workspaces/${workspaceId}`);
      const member = await browser.post(`/admin/workspaces/${workspaceId}/members`, {
        email: 'bo\u0000@example.org',
        role: 'member',
      });
      assert.equal(member.statusCode, 400);
      assert.match(member.body, /email cannot contain control characters/);
      for (const path of ['/admin/workspaces/ws_%00', '/account?notice=%00', '/login?next=%00'])
        assert.equal((await browser.get(path)).statusCode, 400, path);
    });

    it('refuses a client registration whose client_name holds NUL', async () => {
      const h = await discover(t);
      const response = await oauth.dynamicClientRegistrationRequest(
        h.as,
        { redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', client_name: 'Evil\u0000App' },
        insecure,
      );
      assert.equal(response.status, 400);
      assert.equal(((await response.json()) as { error: string }).error, 'invalid_client_metadata');
    });
  });
}
