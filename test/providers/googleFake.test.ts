/**
 * The fake Google's own documented behaviour that the adapter does not exercise, so that other
 * suites (a contract suite, incremental sync) can rely on it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GoogleErrorBody, GoogleEventList } from '../../src/providers/google/wire.ts';
import { FakeGoogle } from '../fakes/google.ts';

type Answer = GoogleEventList & GoogleErrorBody;

describe('fake Google', () => {
  let google: FakeGoogle;
  let bearer: string;
  const get = async (path: string, auth = bearer) => {
    const response = await fetch(`${google.url}/calendar/v3${path}`, {
      headers: { authorization: `Bearer ${auth}` },
    });
    return { status: response.status, body: (await response.json()) as Answer };
  };

  before(async () => {
    google = await FakeGoogle.start({
      calendars: [
        {
          id: 'primary@example.com',
          summary: 'Primary',
          timeZone: 'Europe/Berlin',
          accessRole: 'owner',
          events: [
            {
              id: 'a',
              summary: 'A',
              start: { dateTime: '2026-10-20T10:00:00+02:00' },
              end: { dateTime: '2026-10-20T11:00:00+02:00' },
            },
            {
              id: 'days',
              summary: 'Daily',
              start: { date: '2026-10-20' },
              end: { date: '2026-10-21' },
              recurrence: ['RRULE:FREQ=DAILY;INTERVAL=2;UNTIL=20261024'],
            },
          ],
        },
      ],
    });
    bearer = google.oauth.issue().accessToken;
  });
  after(() => google.close());

  it('answers Google-style errors for missing and bad credentials and unknown resources', async () => {
    const missing = await fetch(`${google.url}/calendar/v3/users/me/calendarList`);
    assert.equal(missing.status, 401);
    assert.match(missing.headers.get('www-authenticate') ?? '', /^Bearer /);
    assert.equal(((await missing.json()) as Answer).error?.errors?.[0]?.reason, 'required');
    assert.deepEqual((await get('/users/me/calendarList', 'ya29.nope')).body, {
      error: {
        errors: [{ domain: 'global', reason: 'authError', message: 'Invalid Credentials' }],
        code: 401,
        message: 'Invalid Credentials',
        status: 'UNAUTHENTICATED',
      },
    });
    assert.equal((await get('/calendars/nobody/events')).status, 404);
    const withoutScope = google.oauth.issue(['openid', 'email']).accessToken;
    const denied = await get('/users/me/calendarList', withoutScope);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error?.errors?.[0]?.reason, 'insufficientPermissions');
  });

  it('expands all-day series and refuses orderBy=startTime without singleEvents', async () => {
    const expanded = await get('/calendars/primary%40example.com/events?singleEvents=true&orderBy=startTime');
    assert.deepEqual(
      expanded.body.items?.map((e) => [e.id, e.start?.date]),
      [
        ['days_20261020', '2026-10-20'],
        ['a', undefined],
        ['days_20261022', '2026-10-22'],
        ['days_20261024', '2026-10-24'],
      ],
    );
    const refused = await get('/calendars/primary%40example.com/events?orderBy=startTime');
    assert.equal(refused.status, 400);
  });

  it('issues sync tokens, reports changes and deletions, and answers 410 once tokens expire', async () => {
    const full = await get('/calendars/primary%40example.com/events');
    const syncToken = full.body.nextSyncToken;
    assert.equal(typeof syncToken, 'string');
    google.calendars.deleteEvent('primary@example.com', 'a');
    const changes = await get(`/calendars/primary%40example.com/events?syncToken=${syncToken}`);
    assert.deepEqual(changes.body.items, [
      { kind: 'calendar#event', etag: full.body.items?.[0]?.etag, id: 'a', status: 'cancelled' },
    ]);
    assert.equal((await get('/calendars/primary%40example.com/events/a')).status, 410);
    google.calendars.expireSyncTokens();
    const gone = await get(`/calendars/primary%40example.com/events?syncToken=${changes.body.nextSyncToken}`);
    assert.equal(gone.status, 410);
    assert.equal(gone.body.error?.errors?.[0]?.reason, 'fullSyncRequired');
  });

  it('rejects authorization requests from unknown clients or redirect URIs, and bad client secrets', async () => {
    const config = google.config();
    const authorize = (params: Record<string, string>) =>
      fetch(`${config.authorizationUrl}?${new URLSearchParams(params)}`, { redirect: 'manual' });
    const base = {
      client_id: config.clientId,
      redirect_uri: config.redirectUri,
      response_type: 'code',
      scope: 'openid',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
    };
    assert.equal((await authorize({ ...base, client_id: 'other' })).status, 401);
    assert.equal((await authorize({ ...base, redirect_uri: 'https://evil.example/cb' })).status, 400);
    const plain = await authorize({ ...base, code_challenge_method: 'plain', state: 's' });
    assert.equal(plain.status, 302);
    assert.equal(new URL(plain.headers.get('location')!).searchParams.get('error'), 'invalid_request');
    const token = await fetch(config.tokenUrl, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: 'x',
        client_id: config.clientId,
      }),
    });
    assert.equal(token.status, 401);
    assert.equal(((await token.json()) as { error?: string }).error, 'invalid_client');
  });
});
