/**
 * The room list on the admin page: an admin adds, replaces and removes rooms and fills the list
 * from her accounts in one post; bad input re-renders the form with nothing saved; a member
 * is refused. Each change is in the audit log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { roomsOf } from '../../src/store/rooms.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

describe('rooms on the admin page', () => {
  let t: TestApp;
  let ana: PageClient;
  let ben: PageClient;
  let workspaceId: string;
  const base = () => `/admin/workspaces/${workspaceId}`;
  const rooms = async () =>
    (await roomsOf(t.ctx.db, workspaceId)).map(({ email, name, capacity, features, source }) => ({
      email,
      name,
      capacity,
      features,
      source,
    }));

  before(async () => {
    t = await startTestApp();
    const anaId = await seedUser(t.ctx.db, 'ana@example.org');
    const benId = await seedUser(t.ctx.db, 'ben@example.org');
    workspaceId = await seedWorkspace(t.ctx.db, 'Team', [
      [anaId, 'owner'],
      [benId, 'member'],
    ]);
    ana = new PageClient(t.app);
    await ana.signIn('ana@example.org', testPassword);
    ben = new PageClient(t.app);
    await ben.signIn('ben@example.org', testPassword);
    // A page seen gives each its form token.
    await ana.get(base());
    await ben.get('/account');
  });
  after(() => t?.close());

  it('adds a room, shows it, and replaces it when added again under its address', async () => {
    const added = await ana.post(`${base()}/rooms`, {
      name: 'Atlas',
      email: 'Atlas@Example.org',
      capacity: '6',
      features: 'Video, whiteboard',
    });
    assert.equal(added.statusCode, 303);
    assert.equal(added.headers.location, `${base()}?notice=room`);
    const page = await ana.get(added.headers.location as string);
    assert.match(page.body, /The room was saved\./);
    assert.match(
      page.body,
      /Atlas<br><span class="muted">Atlas@Example\.org<\/span><\/td><td data-label="Seats">6<\/td><td data-label="Features">video, whiteboard/,
    );
    assert.match(page.body, /Added the room Atlas \(Atlas@Example\.org\)/);
    await ana.post(`${base()}/rooms`, {
      name: 'Atlas',
      email: 'atlas@example.org',
      capacity: '',
      features: '',
    });
    assert.deepEqual(await rooms(), [
      { email: 'atlas@example.org', name: 'Atlas', capacity: undefined, features: [], source: 'admin' },
    ]);
  });

  it('re-renders the form for bad input, saving nothing', async () => {
    const before = await rooms();
    for (const form of [
      { name: 'Orion', email: 'not an address', capacity: '8', features: '' },
      { name: '', email: 'orion@example.org', capacity: '8', features: '' },
      { name: 'Orion', email: 'orion@example.org', capacity: 'eight', features: '' },
      {
        name: 'Orion',
        email: 'orion@example.org',
        capacity: '',
        features: Array.from({ length: 11 }, (_, i) => `f${i}`).join(','),
      },
    ]) {
      const response = await ana.post(`${base()}/rooms`, form);
      assert.equal(response.statusCode, 400, JSON.stringify(form));
    }
    assert.deepEqual(await rooms(), before);
  });

  it('refuses a member', async () => {
    const response = await ben.post(`${base()}/rooms`, { name: 'Mine', email: 'mine@example.org' });
    assert.equal(response.statusCode, 403);
    assert.equal((await ben.post(`${base()}/rooms/remove`, { email: 'atlas@example.org' })).statusCode, 403);
    assert.equal((await rooms()).length, 1);
  });

  it('fills the list from the providers in one post, saying how many they listed', async () => {
    const response = await ana.post(`${base()}/rooms/import`, {});
    assert.equal(response.statusCode, 200);
    assert.match(response.body, /Your calendar accounts listed 0 rooms\./);
  });

  it('removes a room; an unknown one is not found', async () => {
    const removed = await ana.post(`${base()}/rooms/remove`, { email: 'ATLAS@example.org' });
    assert.equal(removed.headers.location, `${base()}?notice=roomRemoved`);
    assert.deepEqual(await rooms(), []);
    assert.equal((await ana.post(`${base()}/rooms/remove`, { email: 'atlas@example.org' })).statusCode, 404);
  });
});
