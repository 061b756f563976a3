/** Workspace administration rules, on both engines: roles, cross-workspace isolation, audit, atomicity. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { acceptInvitation, findInvitation } from '../../src/people/onboarding.ts';
import { blockClient, updatePolicy } from '../../src/people/policyChanges.ts';
import { workspaceOverview } from '../../src/people/workspaceOverview.ts';
import {
  addMember,
  changeRole,
  createWorkspace,
  removeMember,
  withdrawInvitation,
} from '../../src/people/workspaces.ts';
import { defaultPolicy, parsePolicy } from '../../src/policy/workspacePolicy.ts';
import { insertGrant, liveGrantIds } from '../../src/store/accessGrants.ts';
import { auditOf } from '../../src/store/audit.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { findPolicy, roleOf } from '../../src/store/workspaces.ts';
import { testAdministration } from '../helpers/administration.ts';
import { TestClock } from '../helpers/clock.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const tokenOf = (link: string) => new URL(link).searchParams.get('token') ?? '';

const rejectsWith = (promise: Promise<unknown>, code: string) =>
  assert.rejects(promise, (error: unknown) => error instanceof AppError && error.code === code);

for (const engine of await enginesUnderTest()) {
  describe(`workspace administration on ${engine.name}`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    const clock = new TestClock();
    const ids: Record<string, string> = {};
    let teamA: string;
    let teamB: string;

    let service: ReturnType<typeof testAdministration>;

    before(async () => {
      handle = await engine.open();
      service = testAdministration(handle.db, clock);
      for (const name of ['owner', 'admin', 'member', 'outsider', 'ownerB', 'newbie', 'second']) {
        ids[name] = await seedUser(handle.db, `${name}@example.org`);
      }
      teamA = await seedWorkspace(handle.db, 'Team A', [
        [ids.owner!, 'owner'],
        [ids.admin!, 'admin'],
        [ids.member!, 'member'],
      ]);
      teamB = await seedWorkspace(handle.db, 'Team B', [[ids.ownerB!, 'owner']]);
    });
    after(() => handle?.close());

    const as = (name: string) => ({ userId: ids[name]! });

    it('creates a workspace with its owner, default policy and an audit entry', async () => {
      const ws = await createWorkspace(service, { name: ' Research ', ownerId: ids.second! }, 'system');
      assert.equal(ws.name, 'Research');
      assert.equal(await roleOf(handle.db, ws.id, ids.second!), 'owner');
      assert.deepEqual((await findPolicy(handle.db, ws.id))?.allowedScopes, ['calendar:read']);
      assert.deepEqual(
        (await auditOf(handle.db, ws.id)).map((a) => a.action),
        ['workspace.created'],
      );
      await rejectsWith(
        createWorkspace(service, { name: '', ownerId: ids.second! }, 'system'),
        'invalid_request',
      );
      await rejectsWith(createWorkspace(service, { name: 'X', ownerId: 'usr_nope' }, 'system'), 'not_found');
    });

    it('lets owners and admins see the workspace; members get 403, outsiders 404', async () => {
      assert.equal((await workspaceOverview(service, teamA, as('admin'))).members.length, 3);
      await rejectsWith(workspaceOverview(service, teamA, as('member')), 'forbidden');
      await rejectsWith(workspaceOverview(service, teamA, as('outsider')), 'not_found');
      await rejectsWith(workspaceOverview(service, 'ws_doesnotexist', as('outsider')), 'not_found');
    });

    it('never lets an admin of one workspace act on another', async () => {
      await rejectsWith(
        addMember(service, teamB, { email: 'admin@example.org', role: 'owner' }, as('owner')),
        'not_found',
      );
      await rejectsWith(changeRole(service, teamB, ids.ownerB!, 'member', as('admin')), 'not_found');
      await rejectsWith(removeMember(service, teamB, ids.ownerB!, as('owner')), 'not_found');
      const policy = {
        allowedScopes: ['calendar:read'],
        maxDetailLevel: 'busy',
        privateDetailsAllowed: false,
        allowedClients: '',
      };
      await rejectsWith(updatePolicy(service, teamB, policy, as('admin')), 'not_found');
      // …and a member id from workspace B is not reachable through workspace A.
      await rejectsWith(changeRole(service, teamA, ids.ownerB!, 'member', as('owner')), 'not_found');
      assert.equal(await roleOf(handle.db, teamB, ids.ownerB!), 'owner');
      assert.equal((await auditOf(handle.db, teamB)).length, 0);
    });

    it('keeps members out of admin actions', async () => {
      await rejectsWith(
        addMember(service, teamA, { email: 'newbie@example.org', role: 'member' }, as('member')),
        'forbidden',
      );
      await rejectsWith(changeRole(service, teamA, ids.member!, 'admin', as('member')), 'forbidden');
      await rejectsWith(removeMember(service, teamA, ids.admin!, as('member')), 'forbidden');
      assert.equal(await roleOf(handle.db, teamA, ids.member!), 'member');
    });

    it('lets admins manage members and admins, but only owners touch owners', async () => {
      await rejectsWith(
        addMember(service, teamA, { email: 'newbie@example.org', role: 'owner' }, as('admin')),
        'forbidden',
      );
      await rejectsWith(changeRole(service, teamA, ids.owner!, 'admin', as('admin')), 'forbidden');
      await rejectsWith(changeRole(service, teamA, ids.member!, 'owner', as('admin')), 'forbidden');
      await rejectsWith(removeMember(service, teamA, ids.owner!, as('admin')), 'forbidden');
      const added = await addMember(
        service,
        teamA,
        { email: 'NEWBIE@example.org', role: 'member' },
        as('admin'),
      );
      assert.deepEqual(added, { kind: 'added', userId: ids.newbie });
      await rejectsWith(
        addMember(service, teamA, { email: 'newbie@example.org', role: 'admin' }, as('admin')),
        'already_exists',
      );
      await changeRole(service, teamA, ids.newbie!, 'admin', as('admin'));
      assert.equal(await roleOf(handle.db, teamA, ids.newbie!), 'admin');
      await removeMember(service, teamA, ids.newbie!, as('admin'));
      assert.equal(await roleOf(handle.db, teamA, ids.newbie!), undefined);
      await rejectsWith(
        addMember(service, teamA, { email: 'x@example.org', role: 'boss' }, as('owner')),
        'invalid_request',
      );
      const actions = (await auditOf(handle.db, teamA)).map((a) => a.action);
      assert.deepEqual(actions.slice(0, 3), ['member.removed', 'member.role_changed', 'member.added']);
    });

    it('never leaves a workspace without an owner', async () => {
      await rejectsWith(changeRole(service, teamA, ids.owner!, 'admin', as('owner')), 'conflict');
      await rejectsWith(removeMember(service, teamA, ids.owner!, as('owner')), 'conflict');
      await changeRole(service, teamA, ids.admin!, 'owner', as('owner'));
      await changeRole(service, teamA, ids.owner!, 'admin', as('owner'));
      assert.equal(await roleOf(handle.db, teamA, ids.owner!), 'admin');
      assert.equal(await roleOf(handle.db, teamA, ids.admin!), 'owner');
    });

    it('decides concurrent owner demotions one at a time, keeping an owner', async () => {
      const a = await seedUser(handle.db, `a-${engine.name}@example.org`);
      const b = await seedUser(handle.db, `b-${engine.name}@example.org`);
      const ws = await seedWorkspace(handle.db, 'Pair', [
        [a, 'owner'],
        [b, 'owner'],
      ]);
      const results = await Promise.allSettled([
        changeRole(service, ws, b, 'member', { userId: a }),
        changeRole(service, ws, a, 'member', { userId: b }),
      ]);
      assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
      const roles = [await roleOf(handle.db, ws, a), await roleOf(handle.db, ws, b)].sort();
      assert.deepEqual(roles, ['member', 'owner']);
    });

    it('validates and saves the policy, audited', async () => {
      const policy = await updatePolicy(
        service,
        teamA,
        {
          allowedScopes: ['calendar:write', 'calendar:read', 'calendar:write'],
          maxDetailLevel: 'titles',
          defaultDetailLevel: 'busy',
          privateDetailsAllowed: 'on',
          colleagueAvailability: 'off',
          allowedClients: 'client-1\nclient-2\n',
          blockedClients: 'client-3',
        },
        as('owner'),
      );
      assert.deepEqual(policy, {
        allowedScopes: ['calendar:read', 'calendar:write'],
        maxDetailLevel: 'titles',
        defaultDetailLevel: 'busy',
        privateDetailsAllowed: true,
        colleagueAvailability: false,
        allowedClients: ['client-1', 'client-2'],
        blockedClients: ['client-3'],
      });
      assert.deepEqual(await findPolicy(handle.db, teamA), policy);
      const bad = {
        allowedScopes: ['calendar:admin'],
        maxDetailLevel: 'full',
        privateDetailsAllowed: false,
        allowedClients: '',
      };
      await rejectsWith(updatePolicy(service, teamA, bad, as('owner')), 'invalid_request');
      for (const refused of [
        { ...bad, allowedScopes: [], maxDetailLevel: 'x' },
        { ...bad, allowedScopes: [], defaultDetailLevel: 'everything' },
        { ...bad, allowedScopes: [], colleagueAvailability: 'maybe' },
      ])
        await rejectsWith(updatePolicy(service, teamA, refused, as('owner')), 'invalid_request');
      assert.deepEqual(await findPolicy(handle.db, teamA), policy, 'refusals change nothing');
      assert.equal((await auditOf(handle.db, teamA))[0]?.action, 'policy.updated');
      // Colleagues' free/busy is on unless a policy says otherwise.
      assert.equal(defaultPolicy.colleagueAvailability, true);
      assert.equal(parsePolicy({ ...bad, allowedScopes: [] }).colleagueAvailability, true);
      assert.equal(
        parsePolicy({ ...bad, allowedScopes: [], colleagueAvailability: true }).colleagueAvailability,
        true,
      );
    });

    it('invites an address without an account through a single-use link', async () => {
      const result = await addMember(
        service,
        teamA,
        { email: 'Fresh@Example.org', role: 'member' },
        as('owner'),
      );
      assert.equal(result.kind, 'invited');
      const token = result.kind === 'invited' ? tokenOf(result.link) : '';
      assert.deepEqual(await findInvitation(handle.db, clock, token), {
        email: 'Fresh@Example.org',
        workspaceName: 'Team A',
        role: 'member',
      });
      await rejectsWith(
        acceptInvitation(handle.db, clock, token, { name: 'Fresh', password: 'short' }),
        'invalid_request',
      );
      const { userId, workspaceId } = await acceptInvitation(handle.db, clock, token, {
        name: 'Fresh',
        password: 'a long enough secret',
      });
      assert.equal(workspaceId, teamA);
      assert.equal(await roleOf(handle.db, teamA, userId), 'member');
      await rejectsWith(
        acceptInvitation(handle.db, clock, token, { name: 'Again', password: 'a long enough secret' }),
        'not_found',
      );
    });

    it('lists pending invitations, and withdrawing one ends its link (owners’ invitations by owners only), audited', async () => {
      // The roles were swapped above: "admin" owns Team A now, and "owner" administers it.
      const owner = as('admin');
      const admin = as('owner');
      const invite = async (email: string, role: string) => {
        const result = await addMember(service, teamA, { email, role }, owner);
        return result.kind === 'invited' ? tokenOf(result.link) : '';
      };
      const bossLink = await invite('boss@example.org', 'owner');
      const palLink = await invite('pal@example.org', 'member');
      const pending = async () =>
        (await workspaceOverview(service, teamA, admin)).invitations.filter((i) =>
          ['boss@example.org', 'pal@example.org'].includes(i.email),
        );
      const listed = await pending();
      const pal = listed.find((i) => i.email === 'pal@example.org');
      const boss = listed.find((i) => i.email === 'boss@example.org');
      assert.deepEqual(
        [pal, boss].map((i) => [i?.role, i?.invitedBy]),
        [
          ['member', 'admin@example.org'],
          ['owner', 'admin@example.org'],
        ],
      );

      await rejectsWith(withdrawInvitation(service, teamA, pal!.tokenHash, as('member')), 'forbidden');
      await rejectsWith(withdrawInvitation(service, teamA, boss!.tokenHash, admin), 'forbidden');
      await rejectsWith(withdrawInvitation(service, 'ws_other', pal!.tokenHash, admin), 'not_found');
      await withdrawInvitation(service, teamA, pal!.tokenHash, admin);
      await rejectsWith(findInvitation(handle.db, clock, palLink), 'not_found');
      await rejectsWith(withdrawInvitation(service, teamA, pal!.tokenHash, admin), 'not_found');
      const [entry] = await auditOf(handle.db, teamA);
      assert.equal(entry?.action, 'member.invitation_withdrawn');
      assert.deepEqual(entry?.detail, { email: 'pal@example.org', role: 'member' });
      assert.equal(entry?.actorUserId, ids.owner);

      await withdrawInvitation(service, teamA, boss!.tokenHash, owner);
      await rejectsWith(findInvitation(handle.db, clock, bossLink), 'not_found');
      assert.deepEqual(await pending(), []);
    });

    it('lets invitations expire', async () => {
      const result = await addMember(
        service,
        teamA,
        { email: 'late@example.org', role: 'member' },
        as('owner'),
      );
      const token = result.kind === 'invited' ? tokenOf(result.link) : '';
      clock.advance({ hours: 7 * 24 });
      await rejectsWith(findInvitation(handle.db, clock, token), 'not_found');
    });

    it("blocks an app through the policy's rules, ending its grants there; a saved policy has the others looked up again", async () => {
      const grant = (id: string, clientId: string) =>
        insertGrant(handle.db, {
          id,
          userId: ids.ownerB!,
          workspaceId: teamB,
          clientId,
          clientName: clientId,
          scopes: ['calendar:read'],
          privateDetails: false,
          calendars: [],
          createdAt: 0,
        });
      await grant('grt_blocked', 'app-1');
      await grant('grt_other', 'app-2');
      await rejectsWith(blockClient(service, teamB, 'not an id', as('ownerB')), 'invalid_request');
      assert.deepEqual((await findPolicy(handle.db, teamB))?.blockedClients, []);
      assert.equal(await blockClient(service, teamB, 'app-1', as('ownerB')), 1);
      assert.deepEqual((await findPolicy(handle.db, teamB))?.blockedClients, ['app-1']);
      assert.ok(service.ended.includes('grt_blocked'));
      assert.deepEqual(await liveGrantIds(handle.db, { workspaceId: teamB }), ['grt_other']);
      assert.deepEqual((await auditOf(handle.db, teamB))[0]?.detail, {
        client: 'app-1',
        clientName: 'app-1',
        grantsEnded: 1,
      });
      const forgotten = service.forgotten.length;
      await updatePolicy(service, teamB, { ...defaultPolicy, allowedClients: '' }, as('ownerB'));
      assert.deepEqual(service.forgotten.slice(forgotten), ['grt_other']);
    });
  });
}
