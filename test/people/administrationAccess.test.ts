/**
 * Workspace administration authorises inside every use case, whatever called it first: a member
 * is refused (403), an outsider or an admin of another workspace learns nothing (404); nothing is
 * written, audited, mailed, registered, ended or looked up again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { blockClient, updatePolicy } from '../../src/people/policyChanges.ts';
import type { Actor } from '../../src/people/workspaceAccess.ts';
import { registerApp } from '../../src/people/workspaceApps.ts';
import { workspaceOverview } from '../../src/people/workspaceOverview.ts';
import { addMember, changeRole, removeMember, withdrawInvitation } from '../../src/people/workspaces.ts';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { insertGrant, liveGrantIds } from '../../src/store/accessGrants.ts';
import { auditOf } from '../../src/store/audit.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { findPolicy, roleOf } from '../../src/store/workspaces.ts';
import { type RecordedAdministration, testAdministration } from '../helpers/administration.ts';
import { TestClock } from '../helpers/clock.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

for (const engine of await enginesUnderTest()) {
  describe(`workspace administration refuses non-admins on ${engine.name}`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    let service: RecordedAdministration;
    const clock = new TestClock();
    let team: string;
    let owner: string;
    let member: string;
    let invitation: string;
    const actors: Array<[string, () => Actor, string]> = [];

    before(async () => {
      handle = await engine.open();
      service = testAdministration(handle.db, clock);
      owner = await seedUser(handle.db, 'owner@example.org');
      member = await seedUser(handle.db, 'member@example.org');
      const outsider = await seedUser(handle.db, 'outsider@example.org');
      const otherAdmin = await seedUser(handle.db, 'elsewhere@example.org');
      team = await seedWorkspace(handle.db, 'Team', [
        [owner, 'owner'],
        [member, 'member'],
      ]);
      await seedWorkspace(handle.db, 'Elsewhere', [[otherAdmin, 'owner']]);
      // A grant the use cases would end or have looked up again, were they allowed.
      await insertGrant(handle.db, {
        id: 'grt_owner',
        userId: owner,
        workspaceId: team,
        clientId: 'some-client',
        clientName: 'Some client',
        scopes: ['calendar:read'],
        privateDetails: false,
        calendars: [],
        createdAt: 0,
      });
      const invited = await addMember(service, team, { email: 'new@example.org', role: 'member' }, 'system');
      assert.equal(invited.kind, 'invited');
      invitation = (await workspaceOverview(service, team, 'system')).invitations[0]!.tokenHash;
      actors.push(
        ['a member', () => ({ userId: member }), 'forbidden'],
        ['an outsider', () => ({ userId: outsider }), 'not_found'],
        ["another workspace's owner", () => ({ userId: otherAdmin }), 'not_found'],
      );
    });
    after(() => handle?.close());

    const policy = {
      ...defaultPolicy,
      allowedScopes: ['calendar:read', 'calendar:write'],
      allowedClients: '',
    };
    const useCases: Array<[string, (actor: Actor) => Promise<unknown>]> = [
      ['workspaceOverview', (actor) => workspaceOverview(service, team, actor)],
      ['addMember', (actor) => addMember(service, team, { email: 'x@example.org', role: 'member' }, actor)],
      ['withdrawInvitation', (actor) => withdrawInvitation(service, team, invitation, actor)],
      ['changeRole', (actor) => changeRole(service, team, owner, 'member', actor)],
      ['removeMember', (actor) => removeMember(service, team, owner, actor)],
      ['updatePolicy', (actor) => updatePolicy(service, team, policy, actor)],
      ['blockClient', (actor) => blockClient(service, team, 'some-client', actor)],
      [
        'registerApp',
        (actor) =>
          registerApp(
            service,
            team,
            { name: 'App', redirectUris: 'https://app.example/cb', kind: 'public' },
            actor,
          ),
      ],
    ];

    for (const [name, run] of useCases) {
      it(`${name}: refused, nothing changed`, async () => {
        const audited = (await auditOf(handle.db, team)).length;
        for (const [who, actor, code] of actors) {
          await assert.rejects(
            run(actor()),
            (error: unknown) => error instanceof AppError && error.code === code,
            `${name} by ${who}`,
          );
        }
        assert.equal((await auditOf(handle.db, team)).length, audited);
        assert.equal(await roleOf(handle.db, team, owner), 'owner');
        assert.deepEqual((await findPolicy(handle.db, team))?.blockedClients, []);
        assert.deepEqual(await liveGrantIds(handle.db, { workspaceId: team }), ['grt_owner']);
        assert.deepEqual(
          [service.ended, service.forgotten, service.registered],
          [[], [], []],
          'no port was used',
        );
      });
    }
  });
}
