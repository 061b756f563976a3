/**
 * Change notifications end to end, with the real adapters against the fake Google and Graph and
 * the app listening where the fakes deliver (ctx.pushAddress, as an https BASE_URL would give):
 * a channel once a calendar's copy has synced, a change at the provider synced with no read,
 * forged notifications refused without telling why, the Graph handshake and lifecycle, renewal
 * before the end, the channel stopped when the grant goes, and no channel without an https address.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addConnection } from '../../src/calendars/connections/connections.ts';
import { tokenHash } from '../../src/lib/secrets.ts';
import { createGoogleProvider } from '../../src/providers/google/adapter.ts';
import { createMicrosoftProvider } from '../../src/providers/microsoft/adapter.ts';
import type { Credentials } from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import type { Providers } from '../../src/providers/registry.ts';
import { markGrantsRevoked } from '../../src/store/accessGrants.ts';
import { copiesOf, occurrencesNear } from '../../src/store/calendarCopies.ts';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import { insertChannel } from '../../src/store/pushChannels.ts';
import { createPushUpkeep } from '../../src/sync/push.ts';
import { FakeGoogle } from '../fakes/google.ts';
import { FakeGraph } from '../fakes/graph.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClock } from '../helpers/clock.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const me = 'ana@example.com';
const berlin = 'Europe/Berlin';
const http = () => new ProviderHttp({ baseDelayMs: 1, sleep: async () => {} });

/** Waits for `check` to hold (the sync a notification starts is not waited for by the hook). */
async function until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`still not: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A person with the account connected and one calendar granted: its id and the grant's. */
async function connected(t: TestApp, credentials: Credentials, name: string) {
  const userId = await seedUser(t.ctx.db, me);
  const workspaceId = await seedWorkspace(t.ctx.db, 'Team', [[userId, 'owner']]);
  const { calendars } = await addConnection(t.ctx, { userId, workspaceId }, credentials, name);
  const calendarId = calendars.find((c) => c.name === 'Team')!.id;
  const { grantId } = await grantToken(t.ctx, {
    userId,
    workspaceId,
    calendars: [{ calendarId, detailLevel: 'full' }],
  });
  return { calendarId, grantId };
}

/** The body of the last channels.stop the fake received. */
const lastStop = (google: FakeGoogle) =>
  google.requests.findLast((r) => r.url.endsWith('/channels/stop'))?.body as
    | { id: string; resourceId: string }
    | undefined;

const channelRows = (t: TestApp) => t.ctx.db.selectFrom('push_channels').selectAll().execute();

async function copiedTitles(t: TestApp, calendarId: string): Promise<string[]> {
  const now = t.clock.now().epochMilliseconds;
  const window = { startMs: now - 30 * 86_400_000, endMs: now + 30 * 86_400_000 };
  return (await occurrencesNear(t.ctx.db, calendarId, window, 0)).map((o) => o.title ?? '');
}

/** When the copy is next due: a notification that counted moves it to now. */
const nextSyncAt = async (t: TestApp, calendarId: string) =>
  (await copiesOf(t.ctx.db, [calendarId])).get(calendarId)!.nextSyncAt;

const googleSeed = {
  id: me,
  summary: 'Team',
  timeZone: berlin,
  accessRole: 'owner' as const,
  primary: true,
  events: [
    {
      id: 'standup',
      summary: 'Standup',
      start: { dateTime: '2026-10-21T09:00:00', timeZone: berlin },
      end: { dateTime: '2026-10-21T09:15:00', timeZone: berlin },
    },
  ],
};

for (const engine of await enginesUnderTest())
  describe(`push: Google watch channels (${engine.name})`, { skip: engine.skip }, () => {
    const clock = new TestClock('2026-10-20T08:00:00Z');
    let google: FakeGoogle;
    let t: TestApp;
    let calendarId: string;
    let grantId: string;
    const googleHook = (headers: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: '/hooks/google', headers });

    before(async () => {
      google = await FakeGoogle.start({ clock, user: { email: me }, calendars: [googleSeed] });
      const providers: Providers = {
        google: createGoogleProvider({ http: http(), config: google.config(), clock }),
      };
      t = await startTestApp({ listen: true, push: true, clock, providers, database: await engine.open() });
      ({ calendarId, grantId } = await connected(t, { kind: 'google', ...google.oauth.issue() }, 'Google'));
    });
    after(async () => {
      await t?.close();
      await google?.close();
    });

    it('watches a calendar once its copy has synced, at our address, keeping only the hash of the token', async () => {
      assert.equal(google.counts.count({ kind: 'watch' }), 0);
      await t.sync.runDue();
      await google.settled();
      const [open, ...more] = google.channels.open();
      assert.equal(more.length, 0);
      assert.equal(open?.calendarId, me);
      const watch = google.requests.find((r) => r.url.endsWith('/events/watch'))!;
      const body = watch.body as { id: string; address: string; token: string; type: string };
      assert.equal(body.address, `${t.ctx.config.baseUrl}/hooks/google`);
      assert.equal(body.id, open.id);
      const [row] = await channelRows(t);
      assert.equal(row?.calendar_id, calendarId);
      assert.equal(row?.token_hash, tokenHash(body.token));
      assert.ok(!Object.values(row!).includes(body.token), 'the token itself is not stored');
      assert.deepEqual(
        google.channels.deliveries.map((d) => [d.state, d.status]),
        [['sync', 200]],
      );
      await t.sync.runDue();
      assert.equal(google.counts.count({ kind: 'watch' }), 1, 'one channel per calendar');
    });

    it('syncs the calendar when Google says it changed, without any read', async () => {
      google.calendars.changeEvent(me, 'standup', { summary: 'Standup (moved)' });
      await google.settled();
      assert.deepEqual(google.channels.deliveries.at(-1)?.state, 'exists');
      assert.equal(google.channels.deliveries.at(-1)?.status, 200);
      await until('the copy shows the change', async () =>
        (await copiedTitles(t, calendarId)).includes('Standup (moved)'),
      );
    });

    it('answers 404 with an empty body to a wrong token and to an unknown channel alike, and syncs nothing', async () => {
      const [open] = google.channels.open();
      const due = await nextSyncAt(t, calendarId);
      google.counts.reset();
      const wrongToken = await googleHook({
        'x-goog-channel-id': open!.id,
        'x-goog-channel-token': 'not-the-token',
        'x-goog-resource-state': 'exists',
      });
      const body = (google.requests.find((r) => r.url.endsWith('/events/watch'))!.body as { token: string })
        .token;
      const unknownChannel = await googleHook({
        'x-goog-channel-id': 'someone-elses-channel',
        'x-goog-channel-token': body,
        'x-goog-resource-state': 'exists',
      });
      const noToken = await googleHook({ 'x-goog-channel-id': open!.id, 'x-goog-resource-state': 'exists' });
      for (const answer of [wrongToken, unknownChannel, noToken]) {
        assert.equal(answer.statusCode, 404);
        assert.equal(answer.body, '');
      }
      assert.equal(await nextSyncAt(t, calendarId), due, 'not made due');
      assert.equal(google.counts.count({ kind: 'events.list' }), 0, 'not synced');
      const sync = await googleHook({ 'x-goog-channel-id': 'any', 'x-goog-resource-state': 'sync' });
      assert.equal(sync.statusCode, 200, 'the first message of a channel asks nothing');
      assert.equal(sync.body, '');
    });

    it('replaces a channel ending within a day: the new one watched, then the old one stopped', async () => {
      const [old] = google.channels.open();
      clock.advance({ hours: 6 * 24 + 1 });
      await t.sync.runDue();
      await google.settled();
      const [renewed, ...more] = google.channels.open();
      assert.equal(more.length, 0);
      assert.notEqual(renewed?.id, old!.id);
      assert.deepEqual(lastStop(google), { id: old!.id, resourceId: old!.resourceId });
      assert.deepEqual(
        (await channelRows(t)).map((r) => r.channel_id),
        [renewed!.id],
      );
      google.calendars.changeEvent(me, 'standup', { summary: 'Standup (renewed)' });
      await google.settled();
      await until('the renewed channel brings the change', async () =>
        (await copiedTitles(t, calendarId)).includes('Standup (renewed)'),
      );
    });

    it('stops the channel ending first when a calendar has two (two instances watched at once)', async () => {
      const [row] = await channelRows(t);
      await insertChannel(t.ctx.db, {
        provider: 'google',
        channelId: 'twin',
        calendarId,
        accountId: row!.account_id,
        resourceId: 'twin-resource',
        tokenHash: tokenHash('twin-token'),
        expiresAt: Number(row!.expires_at) - 3_600_000,
        createdAt: clock.now().epochMilliseconds,
      });
      await t.sync.runDue();
      assert.deepEqual(lastStop(google)?.id, 'twin');
      assert.deepEqual(
        (await channelRows(t)).map((r) => r.channel_id),
        [row!.channel_id],
      );
    });

    it('stops the channel at Google and forgets it when the grant is revoked', async () => {
      const [open] = google.channels.open();
      await markGrantsRevoked(t.ctx.db, { id: grantId }, 'test', clock.now().epochMilliseconds);
      await t.sync.runDue();
      assert.deepEqual(google.channels.open(), []);
      assert.equal(lastStop(google)?.id, open!.id);
      assert.deepEqual(await channelRows(t), []);
    });
  });

describe('push: a watch that fails', () => {
  const clock = new TestClock('2026-10-20T08:00:00Z');
  const logLines: string[] = [];
  let google: FakeGoogle;
  let t: TestApp;
  let calendarId: string;

  before(async () => {
    google = await FakeGoogle.start({ clock, user: { email: me }, calendars: [googleSeed] });
    const providers: Providers = {
      google: createGoogleProvider({ http: http(), config: google.config(), clock }),
    };
    t = await startTestApp({
      listen: true,
      push: true,
      clock,
      providers,
      logLines,
      env: { LOG_LEVEL: 'warn' },
    });
    ({ calendarId } = await connected(t, { kind: 'google', ...google.oauth.issue() }, 'Google'));
  });
  after(async () => {
    await t?.close();
    await google?.close();
  });

  it('is logged with the calendar and the reason, left alone for a minute, then tried again', async () => {
    google.inject({ status: 403, reason: 'push.webhookUrlUnauthorized', match: /\/events\/watch/ });
    await t.sync.runDue();
    assert.equal(google.counts.count({ kind: 'watch' }), 1);
    assert.deepEqual(await channelRows(t), []);
    const failed = logLines.map((line) => JSON.parse(line)).find((e) => e.msg === 'push channel failed');
    assert.equal(failed?.calendarId, calendarId);
    assert.equal(failed?.step, 'watch');
    assert.equal(typeof failed?.reason, 'string');
    const token = (google.requests.find((r) => r.url.endsWith('/events/watch'))!.body as { token: string })
      .token;
    assert.ok(!logLines.join('\n').includes(token), 'the token is not logged');

    await t.sync.runDue();
    assert.equal(google.counts.count({ kind: 'watch' }), 1, 'resting');
    clock.advance({ seconds: 61 });
    await t.sync.runDue();
    assert.equal(google.counts.count({ kind: 'watch' }), 2);
    assert.equal((await channelRows(t)).length, 1);
  });
});

describe('push: off without an https address', () => {
  let google: FakeGoogle;
  let t: TestApp;

  before(async () => {
    const clock = new TestClock('2026-10-20T08:00:00Z');
    google = await FakeGoogle.start({ clock, user: { email: me }, calendars: [googleSeed] });
    const providers: Providers = {
      google: createGoogleProvider({ http: http(), config: google.config(), clock }),
    };
    t = await startTestApp({ listen: true, clock, providers });
    await connected(t, { kind: 'google', ...google.oauth.issue() }, 'Google');
  });
  after(async () => {
    await t?.close();
    await google?.close();
  });

  it('never asks for a channel with an http BASE_URL, and has no hooks', async () => {
    assert.match(t.ctx.config.baseUrl, /^http:/);
    await t.sync.runDue();
    await t.sync.runDue();
    assert.ok(google.counts.count({ kind: 'events.list' }) > 0, 'the calendar was synced');
    assert.equal(google.counts.count({ kind: 'watch' }), 0);
    assert.deepEqual(await channelRows(t), []);
    const hook = await t.app.inject({ method: 'POST', url: '/hooks/google' });
    assert.equal(hook.statusCode, 404);
  });
});

describe('push: Graph subscriptions', () => {
  // The fake checks subscription expiry against the real time.
  const clock = new TestClock(Temporal.Now.instant().toString());
  const day = Temporal.Now.plainDateISO('UTC').add({ days: 2 });
  const logLines: string[] = [];
  let graph: FakeGraph;
  let t: TestApp;
  let calendarId: string;
  let grantId: string;
  const graphHook = (url: string, payload?: unknown) =>
    t.app.inject({
      method: 'POST',
      url,
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
      headers: { 'content-type': 'application/json' },
    });

  before(async () => {
    graph = await FakeGraph.start({
      users: [
        {
          email: me,
          calendars: [
            {
              id: 'team',
              name: 'Team',
              isDefaultCalendar: true,
              events: [
                {
                  id: 'standup',
                  zone: berlin,
                  subject: 'Standup',
                  start: `${day}T09:00:00`,
                  end: `${day}T09:15:00`,
                },
              ],
            },
          ],
        },
      ],
    });
    const providers: Providers = {
      microsoft: createMicrosoftProvider({ http: http(), config: graph.config(), clock }),
    };
    t = await startTestApp({
      listen: true,
      push: true,
      clock,
      providers,
      logLines,
      env: { LOG_LEVEL: 'info' },
    });
    ({ calendarId, grantId } = await connected(
      t,
      { kind: 'microsoft', ...graph.issueTokens(me) },
      'Microsoft',
    ));
  });
  after(async () => {
    await t?.close();
    await graph?.close();
  });
  /** Every clientState Graph was given: none may reach the log. */
  const clientStates = () => {
    for (const s of graph.subscriptions()) if (s.clientState) seenStates.add(s.clientState);
  };
  const seenStates = new Set<string>();

  it('subscribes after the first sync (Graph’s handshake answered), keeping only the hash of clientState', async () => {
    await t.sync.runDue();
    const [subscription, ...more] = graph.subscriptions();
    assert.equal(more.length, 0);
    assert.equal(subscription?.calendarId, 'team');
    assert.equal(subscription?.notificationUrl, `${t.ctx.config.baseUrl}/hooks/microsoft`);
    assert.equal(subscription?.lifecycleNotificationUrl, `${t.ctx.config.baseUrl}/hooks/microsoft`);
    const [row] = await channelRows(t);
    clientStates();
    assert.equal(row?.channel_id, subscription!.id);
    assert.equal(row?.token_hash, tokenHash(subscription!.clientState!));
    assert.ok(!Object.values(row!).includes(subscription!.clientState!), 'clientState itself is not stored');
  });

  it('echoes no validation token once the subscription is made (test/http/graphValidation.test.ts: while it is)', async () => {
    for (const token of ['Validation%3A%20%3Cb%3Ehi%3C%2Fb%3E', 'x'.repeat(1025), 'a%00b']) {
      const refused = await graphHook(`/hooks/microsoft?validationToken=${token}`);
      assert.equal(refused.statusCode, 404);
      assert.equal(refused.body, '');
    }
  });

  it('syncs the calendar when Graph notifies a change, without any read', async () => {
    graph.changeBehindTheBack('standup', { subject: 'Standup (moved)' });
    await graph.settled();
    await until('the copy shows the change', async () =>
      (await copiedTitles(t, calendarId)).includes('Standup (moved)'),
    );
  });

  it('ignores notifications with a wrong clientState or an unknown subscription; refuses a body that is none', async () => {
    const [subscription] = graph.subscriptions();
    const due = await nextSyncAt(t, calendarId);
    graph.resetRequestCounts();
    const forged = await graphHook('/hooks/microsoft', {
      value: [
        { subscriptionId: subscription!.id, clientState: 'guessed', changeType: 'updated' },
        { subscriptionId: 'unknown', clientState: subscription!.clientState, changeType: 'updated' },
        { subscriptionId: subscription!.id, clientState: 'guessed', lifecycleEvent: 'subscriptionRemoved' },
      ],
    });
    assert.equal(forged.statusCode, 202);
    assert.equal(await nextSyncAt(t, calendarId), due, 'not made due');
    assert.equal((await channelRows(t)).length, 1, 'not forgotten');
    assert.deepEqual(graph.requestCounts(), {}, 'nothing asked of Graph');
    for (const payload of ['not json', { value: 'nope' }]) {
      const refused = await t.app.inject({
        method: 'POST',
        url: '/hooks/microsoft',
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(refused.statusCode, 400);
    }
    const tooLarge = await graphHook('/hooks/microsoft', { value: [], padding: 'x'.repeat(300 * 1024) });
    assert.equal(tooLarge.statusCode, 413);
  });

  it('renews the subscription on reauthorizationRequired: a new one, then the old one deleted', async () => {
    const [old] = graph.subscriptions();
    graph.sendLifecycleNotification(old!.id, 'reauthorizationRequired');
    await graph.settled();
    await until('renewed', async () => {
      const ids = graph.subscriptions().map((s) => s.id);
      return ids.length === 1 && ids[0] !== old!.id;
    });
    await until('the old one forgotten', async () => (await channelRows(t)).length === 1);
    clientStates();
    assert.deepEqual(
      (await channelRows(t)).map((r) => r.channel_id),
      graph.subscriptions().map((s) => s.id),
    );
  });

  it('forgets a subscription Graph removed, and subscribes again in the next round', async () => {
    const [removed] = graph.subscriptions();
    graph.sendLifecycleNotification(removed!.id, 'subscriptionRemoved');
    await graph.settled();
    await until('forgotten', async () => (await channelRows(t)).length === 0);
    assert.ok((await nextSyncAt(t, calendarId)) <= clock.now().epochMilliseconds, 'made due');
    await t.sync.runDue();
    const [again] = graph.subscriptions();
    clientStates();
    assert.notEqual(again?.id, removed!.id);
    assert.deepEqual(
      (await channelRows(t)).map((r) => r.channel_id),
      [again!.id],
    );
  });

  it('deletes the subscription at Graph when the grant is revoked', async () => {
    graph.resetRequestCounts();
    await markGrantsRevoked(t.ctx.db, { id: grantId }, 'test', clock.now().epochMilliseconds);
    await t.sync.runDue();
    assert.deepEqual(graph.subscriptions(), []);
    assert.equal(graph.requestCounts()['DELETE subscription'], 1);
    assert.deepEqual(await channelRows(t), []);
  });

  it('never writes a token into the log', () => {
    const log = logLines.join('\n');
    assert.match(log, /hooks\/microsoft/, 'the requests were logged');
    assert.doesNotMatch(log, /Validation: |Validation%3A|Testing client application/);
    assert.doesNotMatch(log, /guessed/);
    assert.equal(seenStates.size, 3);
    for (const state of seenStates) assert.ok(!log.includes(state), 'a clientState in the log');
  });
});

describe('push: a Graph subscription another instance asks for', () => {
  const clock = new TestClock(Temporal.Now.instant().toString());
  let graph: FakeGraph;
  let t: TestApp;
  let calendarId: string;
  let providers: Providers;

  before(async () => {
    graph = await FakeGraph.start({
      users: [{ email: me, calendars: [{ id: 'team', name: 'Team', isDefaultCalendar: true, events: [] }] }],
    });
    providers = { microsoft: createMicrosoftProvider({ http: http(), config: graph.config(), clock }) };
    t = await startTestApp({ listen: true, push: true, clock, providers });
    ({ calendarId } = await connected(t, { kind: 'microsoft', ...graph.issueTokens(me) }, 'Microsoft'));
  });
  after(async () => {
    await t?.close();
    await graph?.close();
  });

  it('is validated by whichever instance Graph reaches: the handshake is known through the database', async () => {
    // The copy synced by hand, so this instance itself asks for nothing.
    await reconcileCopies(t.ctx.db, clock.now().epochMilliseconds);
    assert.equal(await t.sync.syncNow(calendarId), 'synced');
    // Another instance on the same database subscribes; Graph checks the address at this one.
    const { db, box } = t.ctx;
    const other = createPushUpkeep({ db, box, clock, providers, address: t.ctx.pushAddress! });
    await other.tend();
    assert.deepEqual(
      graph.subscriptions().map((s) => s.calendarId),
      ['team'],
    );
    assert.equal((await channelRows(t)).length, 1);
    // Once made, no instance echoes a token any more.
    const late = await t.app.inject({ method: 'POST', url: '/hooks/microsoft?validationToken=late' });
    assert.equal(late.statusCode, 404);
    assert.deepEqual(await t.ctx.db.selectFrom('push_handshakes').selectAll().execute(), []);
  });
});
