/**
 * The write tools take guests by bare address only: `"victim"<attacker@evil.test>`,
 * `a,b@evil.test` and the like are refused naming the field, and nothing is written.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { callToolRaw, structured, toolError } from '../helpers/mcpSession.ts';
import { type MemoryCalendar, memoryProvider, seedMemoryAccount } from '../helpers/memoryCalendars.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const notBare = [
  '"victim"<attacker@evil.test>',
  'Victim <attacker@evil.test>',
  'a,b@evil.test',
  'victim@example.org;attacker@evil.test',
  '"a b"@example.org',
  'victim@example.org@evil.test',
  'eve@example.org\nBcc: attacker@evil.test',
];

describe('write tools: guests by bare address only', () => {
  const berlin = 'Europe/Berlin';
  const calendars = new Map<string, MemoryCalendar>([
    ['work', { name: 'Work', timeZone: berlin, occurrences: [] }],
    ['shared', { name: 'Shared', timeZone: berlin, access: 'reader', occurrences: [] }],
  ]);
  const provider = memoryProvider('google', calendars);
  let t: TestApp;
  let mcp: string;
  let token: string;
  let work: string;

  before(async () => {
    t = await startTestApp({ listen: true, providers: { google: provider } });
    mcp = `${t.ctx.config.baseUrl}/mcp`;
    const userId = await seedUser(t.ctx.db, 'ana@example.org');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Writers', [[userId, 'owner']]);
    const scopes = ['calendar:read', 'calendar:write'] as const;
    await savePolicy(t.ctx.db, workspaceId, { ...defaultPolicy, allowedScopes: [...scopes] }, 0);
    [work] = (await seedMemoryAccount(t.ctx, { userId, workspaceId }, provider)) as [string];
    ({ token } = await grantToken(t.ctx, {
      userId,
      workspaceId,
      calendars: [{ calendarId: work, detailLevel: 'full' }],
      scopes: [...scopes],
    }));
  });
  after(() => t?.close());

  it('create_event refuses each, naming attendees, and creates nothing', async () => {
    const base = { calendarId: work, title: 'Kick-off', start: '2026-03-24', end: '2026-03-25' };
    for (const email of notBare) {
      const error = toolError(
        await callToolRaw(mcp, token, 'create_event', { ...base, attendees: [{ email }] }),
      );
      assert.equal(error.code, 'invalid_request', email);
      assert.ok(String(error.field).startsWith('attendees'), `${email}: ${error.field}`);
    }
    assert.equal(calendars.get('work')!.occurrences.length, 0, 'nothing was created');
    const created = structured(
      await callToolRaw(mcp, token, 'create_event', { ...base, attendees: [{ email: 'eve@example.org' }] }),
    );
    assert.deepEqual(created.guests, { notified: true, emails: ['eve@example.org'] });
  });
});
