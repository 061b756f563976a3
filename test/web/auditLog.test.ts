/** The admin page's audit log in words: who did what to whom, what a policy change changed, and when. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { updatePolicy } from '../../src/people/policyChanges.ts';
import { changeRole, removeMember } from '../../src/people/workspaces.ts';
import { type AuditEntry, auditOf, recordAudit } from '../../src/store/audit.ts';
import { auditWhat, auditWho } from '../../src/web/pages/auditLog.ts';
import { testAdministration } from '../helpers/administration.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

const policyInput = {
  allowedScopes: ['calendar:read'],
  maxDetailLevel: 'busy',
  defaultDetailLevel: 'titles',
  privateDetailsAllowed: false,
  colleagueAvailability: 'on',
  allowedClients: '',
  blockedClients: '',
};

/** The text a person reads: tags dropped, entities of the escaping template undone. */
const words = (markup: string) =>
  markup
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

const entry = (fields: Partial<AuditEntry>): AuditEntry => ({
  id: 1,
  workspaceId: 'ws_1',
  actorUserId: 'usr_1',
  actorEmail: 'olga@example.org',
  actorName: 'Olga',
  action: 'workspace.created',
  targetUserId: null,
  targetEmail: null,
  targetName: null,
  detail: {},
  at: 0,
  ...fields,
});

describe('audit log in words', () => {
  let t: TestApp;
  let owner: string;
  let colleague: string;
  let workspaceId: string;

  before(async () => {
    t = await startTestApp();
    owner = await seedUser(t.ctx.db, 'olga@example.org', 'Olga Owner');
    colleague = await seedUser(t.ctx.db, 'colin@example.org', 'Colin <Colleague>');
    workspaceId = await seedWorkspace(t.ctx.db, 'Operations', [
      [owner, 'owner'],
      [colleague, 'member'],
    ]);
  });
  after(() => t?.close());

  it('says what a policy change changed, who changed roles, and when, on the admin page', async () => {
    const as = { userId: owner };
    const admin = testAdministration(t.ctx.db, t.clock);
    await updatePolicy(admin, workspaceId, policyInput, as);
    t.clock.advance({ minutes: 5 });
    const widerPolicy: typeof policyInput = {
      ...policyInput,
      allowedScopes: ['calendar:read', 'calendar:write'],
      maxDetailLevel: 'full',
      defaultDetailLevel: 'full',
      colleagueAvailability: 'off',
      blockedClients: 'bad-client',
    };
    await updatePolicy(admin, workspaceId, widerPolicy, as);
    // Saved again as it is: an entry that says nothing changed.
    await updatePolicy(admin, workspaceId, widerPolicy, as);
    await changeRole(admin, workspaceId, colleague, 'admin', as);
    await removeMember(admin, workspaceId, colleague, as);

    const browser = new PageClient(t.app);
    await browser.signIn('olga@example.org', testPassword);
    const page = await browser.get(`/admin/workspaces/${workspaceId}`);
    assert.equal(page.statusCode, 200);
    const audit = /<section id="audit"[\s\S]*?<\/section>/.exec(page.body)?.[0] ?? '';
    const rows = audit.split('</tr>').map((row) => words(row).trim());
    const [removed, role, unchanged, widened, narrowed] = rows.slice(1);
    assert.match(
      removed!,
      /Olga Owner \(olga@example.org\)Removed Colin <Colleague> \(colin@example.org\) \(was admin\)$/,
    );
    assert.match(role!, /Changed the role of Colin <Colleague> \(colin@example.org\): member → admin$/);
    assert.match(unchanged!, /Saved the policy without changes$/);
    assert.match(
      widened!,
      /^\w+ \w+ \d{4}, \d\d:\d\d UTC.*Changed the policy: Create, change and delete events: off → on; Maximum detail: Busy\/free only → Full details; Preselected detail: Titles and times → Full details; Colleagues' free\/busy: on → off; Blocked clients: none → bad-client$/,
    );
    assert.match(narrowed!, /Changed the policy: Maximum detail: Full details → Busy\/free only$/);
    // The name is text, never markup.
    assert.doesNotMatch(page.body, /<Colleague>/);
    assert.match(page.body, /<time datetime="[^"]+Z">\d+ \w+ \d{4}, \d\d:\d\d UTC<\/time>/);
  });

  it('keeps the policy before a change in the entry itself', async () => {
    const [latest] = await auditOf(t.ctx.db, workspaceId);
    assert.equal(latest?.action, 'member.removed');
    const policyEntry = (await auditOf(t.ctx.db, workspaceId)).find((e) => e.action === 'policy.updated')!;
    assert.deepEqual(policyEntry.detail.before, {
      allowedScopes: ['calendar:read', 'calendar:write'],
      maxDetailLevel: 'full',
      defaultDetailLevel: 'full',
      privateDetailsAllowed: false,
      colleagueAvailability: false,
      allowedClients: null,
      blockedClients: ['bad-client'],
    });
  });

  it('reads entries written before they kept names or the earlier policy', async () => {
    await recordAudit(t.ctx.db, {
      workspaceId,
      actorUserId: null,
      action: 'policy.updated',
      targetUserId: null,
      detail: {
        allowedScopes: ['calendar:read'],
        maxDetailLevel: 'busy',
        privateDetailsAllowed: false,
        allowedClients: null,
        blockedClients: [],
      },
      at: 0,
    });
    const [old] = await auditOf(t.ctx.db, workspaceId);
    assert.equal(words(auditWho(old!).value), 'The operator (CLI)');
    assert.equal(
      words(auditWhat(old!).value),
      // Written before levels were preselected per workspace: they started at titles and times.
      "Saved the policy: Apps may: read calendars and events; Maximum detail: Busy/free only; Preselected detail: Titles and times; Details of private events: off; Colleagues' free/busy: on; Allowed clients: any; Blocked clients: none",
    );
    const grant = entry({
      action: 'grant.created',
      detail: { client: 'client-1', scopes: ['calendar:read'], calendars: 2 },
    });
    assert.equal(
      words(auditWhat(grant).value),
      'Allowed the app client-1 to read calendars and events: 2 calendars',
    );
    const revoked = entry({ action: 'grant.revoked', detail: { client: 'client-1' } });
    assert.equal(words(auditWhat(revoked).value), 'Revoked the access of the app client-1');
  });

  it('names the app, the calendar accounts and the member in newer entries', () => {
    const grant = entry({
      action: 'grant.created',
      detail: {
        client: 'cli_1',
        clientName: 'Claude',
        scopes: ['calendar:read', 'calendar:rsvp'],
        calendars: 1,
        accounts: [{ label: 'olga@gmail.com', provider: 'google' }],
      },
    });
    assert.equal(
      words(auditWhat(grant).value),
      'Allowed Claude cli_1 to read calendars and events and respond to invitations: 1 calendar of olga@gmail.com (Google Calendar)',
    );
    const blocked = entry({
      action: 'client.blocked',
      detail: { client: 'cli_1', clientName: 'Claude', grantsEnded: 3 },
    });
    assert.equal(
      words(auditWhat(blocked).value),
      'Blocked Claude cli_1 in the workspace; 3 grants to it ended',
    );
    const left = entry({ action: 'member.removed', targetUserId: 'usr_1', detail: { role: 'admin' } });
    assert.equal(words(auditWhat(left).value), 'Left the workspace (was admin)');
    const joined = entry({
      action: 'member.added',
      targetUserId: 'usr_1',
      detail: { role: 'member', via: 'invitation' },
    });
    assert.equal(words(auditWhat(joined).value), 'Joined as member, through an invitation');
    const gone = entry({ actorEmail: null, actorName: null });
    assert.equal(words(auditWho(gone).value), 'a removed account');
  });
});
