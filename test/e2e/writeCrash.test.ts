/**
 * A crash between the provider's write and its outcome on record: the service (its own process,
 * on SQLite in a data directory) is killed with SIGKILL while Google holds the answer to a
 * create it has already made. The attempt is on record (pending, with its calendar and key)
 * because it was recorded before Google was asked; after a restart on the same data directory it
 * is listed as interrupted once no write could still be under way; and the client's retry with
 * the same idempotencyKey answers with that event, settles the record as done, and sends no
 * second create.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addConnection } from '../../src/calendars/connections/connections.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { createSecretBox } from '../../src/lib/encryption.ts';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { createGoogleProvider } from '../../src/providers/google/adapter.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { eventWritesOf } from '../../src/store/eventWrites.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { FakeGoogle } from '../fakes/google.ts';
import { freePort } from '../helpers/freePort.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { callToolRaw, structured } from '../helpers/mcpSession.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';
import { type ServiceProcess, startService } from '../helpers/serviceProcess.ts';

const providerTimeoutMs = 30_000;

describe('a service killed between the provider write and its outcome', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'write-crash-'));
  const secretKey = randomBytes(32);
  let database: DatabaseHandle;
  let google: FakeGoogle;
  let service: ServiceProcess | undefined;
  let baseUrl: string;
  let owner: { userId: string; workspaceId: string };
  let calendarId: string;

  const start = async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const config = google.config();
    service = startService({
      APP_ENV: 'test',
      LOG_LEVEL: 'info',
      PORT: String(port),
      BASE_URL: baseUrl,
      DATA_DIR: dataDir,
      SECRET_KEY: secretKey.toString('hex'),
      PROVIDER_TIMEOUT_MS: String(providerTimeoutMs),
      GOOGLE_CLIENT_ID: config.clientId,
      GOOGLE_CLIENT_SECRET: config.clientSecret,
      GOOGLE_AUTH_URL: config.authorizationUrl,
      GOOGLE_TOKEN_URL: config.tokenUrl,
      GOOGLE_API_URL: config.apiBaseUrl,
    });
    await service.started;
  };
  const token = async () =>
    (
      await grantToken(
        {
          db: database.db,
          box: createSecretBox(secretKey),
          clock: systemClock,
          config: { environment: 'test', baseUrl },
        },
        {
          ...owner,
          calendars: [{ calendarId, detailLevel: 'full' }],
          scopes: ['calendar:read', 'calendar:write'],
        },
      )
    ).token;
  const create = async (mcpToken: string) =>
    callToolRaw(`${baseUrl}/mcp`, mcpToken, 'create_event', {
      calendarId,
      title: 'Planning',
      start: '2026-04-01T09:00:00+02:00',
      end: '2026-04-01T10:00:00+02:00',
      idempotencyKey: 'planning-1',
    });
  const creates = () => google.requests.filter((r) => r.method === 'POST' && /\/events(\?|$)/.test(r.url));

  before(async () => {
    google = await FakeGoogle.start({
      calendars: [
        { id: 'work', summary: 'Work', timeZone: 'Europe/Berlin', accessRole: 'owner', events: [] },
      ],
    });
    database = openDatabase({ sqlitePath: join(dataDir, 'calendar-access.sqlite') });
    await migrateToLatest(database);
    const userId = await seedUser(database.db, 'ana@example.org');
    owner = { userId, workspaceId: await seedWorkspace(database.db, 'Acme', [[userId, 'owner']]) };
    await savePolicy(
      database.db,
      owner.workspaceId,
      { ...defaultPolicy, allowedScopes: ['calendar:read', 'calendar:write'] },
      0,
    );
    const { calendars } = await addConnection(
      {
        db: database.db,
        clock: systemClock,
        box: createSecretBox(secretKey),
        providers: {
          google: createGoogleProvider({
            http: new ProviderHttp(),
            config: google.config(),
            clock: systemClock,
          }),
        },
      },
      owner,
      { kind: 'google', ...google.oauth.issue() },
      'Google',
    );
    calendarId = calendars[0]!.id;
  });
  after(async () => {
    await service?.kill();
    await google?.close();
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps the attempt on record, shows it interrupted, and settles it by the retry’s key', async () => {
    await start();
    const mcpToken = await token();
    // Google makes the event, then holds its answer: the service dies waiting for it.
    let made!: () => void;
    const held = new Promise<void>((resolve) => {
      made = resolve;
    });
    google.inject({
      method: 'POST',
      match: /\/events(\?|$)/,
      phase: 'after',
      delayMs: 600_000,
      onHeld: made,
    });
    const lost = create(mcpToken).catch((error: unknown) => error);
    await held;
    const killedAt = Date.now();
    await service!.kill();
    assert.ok((await lost) instanceof Error, 'the client got no answer');
    assert.equal(creates().length, 1);

    await start();
    const [attempt] = await eventWritesOf(database.db, owner.userId);
    assert.deepEqual(
      [attempt?.action, attempt?.calendarId, attempt?.outcome, attempt?.eventId],
      ['create', calendarId, 'pending', null],
      'on record before Google was asked, with its calendar',
    );
    // As the account page lists it once no write could still be under way: interrupted.
    const listedLater = await eventWritesOf(database.db, owner.userId, { unsettledBefore: killedAt });
    assert.equal(listedLater[0]?.outcome, 'interrupted');

    const retried = structured(await create(await token()));
    assert.equal(retried.outcome, 'already_applied');
    assert.equal(creates().length, 1, 'no second create');
    const [retry, settled] = await eventWritesOf(database.db, owner.userId);
    assert.equal(settled?.id, attempt!.id);
    assert.deepEqual(
      [settled?.outcome, settled?.eventId],
      ['applied', (retried.event as { eventId: string }).eventId],
      'the crashed attempt settled as done, naming the event it made',
    );
    assert.equal(retry?.outcome, 'already_applied');
  });
});
