/**
 * The synced copy stores no more than a grant may show: a private event's texts are kept only
 * while some grant reaching its calendar has private details; a grant with them makes the copy
 * sync again in full; when the last such grant goes, the texts are purged at once and leave no
 * trace in the SQLite file or its -wal (secure_delete, then a checkpoint that empties the log).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { foldText } from '../../src/domain/search.ts';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { markGrantsRevoked } from '../../src/store/accessGrants.ts';
import { copyKeyOf } from '../../src/store/calendarCopies.ts';
import { openDatabase } from '../../src/store/database.ts';
import { unpackOccurrence } from '../../src/store/packedOccurrence.ts';
import { decodeSlot } from '../../src/store/wordPostings.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { callToolRaw, structured } from '../helpers/mcpSession.ts';
import { memoryProvider, occurrence, seedMemoryAccount } from '../helpers/memoryCalendars.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

const marker = 'Zq7MergerTalksMarker';
const standupMarker = 'Zq7StandupNotesMarker';
const window = { start: '2026-03-30T00:00:00Z', end: '2026-04-06T00:00:00Z' };

describe('what the copy stores of private events', () => {
  let dir: string;
  let path: string;
  let t: TestApp;
  let calendarId: string;
  let owner: { userId: string; workspaceId: string };
  const provider = memoryProvider(
    'google',
    new Map([
      [
        'work',
        {
          name: 'Work',
          timeZone: 'Europe/Berlin',
          occurrences: [
            occurrence({
              providerEventId: 'private-1',
              start: '2026-03-31T10:00:00',
              timeZone: 'Europe/Berlin',
              title: `${marker} title`,
              description: `${marker} description`,
              locations: [{ name: `${marker} room` }],
              privacy: 'private',
            }),
            occurrence({
              providerEventId: 'public-1',
              start: '2026-03-31T12:00:00',
              timeZone: 'Europe/Berlin',
              title: 'Standup',
              description: `Daily ${standupMarker}`,
            }),
          ],
        },
      ],
    ]),
  );

  const stored = async () =>
    t.ctx.db
      .selectFrom('copy_occurrences')
      .select(['item_key', 'data'])
      .where('copy_key', '=', copyKeyOf(t.ctx.db, calendarId))
      .orderBy('item_key')
      .execute();
  /**
   * The file holding `text` as its folded search text (the occurrence itself is packed, its
   * bytes not the text's): the rows' texts and packed occurrences are zeroed alike when deleted.
   */
  const fileHolds = async (text: string) => {
    for (const file of [path, `${path}-wal`]) {
      const bytes = await readFile(file).catch(() => Buffer.alloc(0));
      if (bytes.includes(foldText(text))) return file;
    }
    return undefined;
  };
  const occurrenceText = (data: string | Uint8Array) => JSON.stringify(unpackOccurrence(data));
  /** The words the copy's search index lists (the rows keep no text of their own). */
  const indexedWords = async () => [
    ...new Set(
      (
        await t.ctx.db
          .selectFrom('copy_words')
          .select('lists')
          .where(
            'copy_key',
            '=',
            t.ctx.db.selectFrom('calendar_copies').select('copy_key').where('calendar_id', '=', calendarId),
          )
          .execute()
      ).flatMap((row) => [...decodeSlot(row.lists).keys()]),
    ),
  ];
  const search = async (token: string) =>
    structured(
      await callToolRaw(`${t.ctx.config.baseUrl}/mcp`, token, 'list_events', {
        calendarIds: [calendarId],
        ...window,
      }),
    ).termine as { title: string }[];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'copy-privacy-'));
    path = join(dir, 'calendar-access.sqlite');
    t = await startTestApp({
      database: openDatabase({ sqlitePath: path }),
      providers: { google: provider },
      listen: true,
    });
    const userId = await seedUser(t.ctx.db, 'pia@example.org');
    owner = { userId, workspaceId: await seedWorkspace(t.ctx.db, 'Private', [[userId, 'owner']]) };
    await savePolicy(t.ctx.db, owner.workspaceId, { ...defaultPolicy, privateDetailsAllowed: true }, 0);
    [calendarId] = (await seedMemoryAccount(t.ctx, owner, provider)) as [string];
  });
  after(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  let plain: string;

  it('keeps a private event as busy when no grant has private details', async () => {
    plain = (await grantToken(t.ctx, { ...owner, calendars: [{ calendarId, detailLevel: 'full' }] })).token;
    await t.sync.runDue();
    const rows = await stored();
    assert.equal(rows.length, 2);
    const [secret, standup] = rows as [(typeof rows)[0], (typeof rows)[0]];
    assert.equal(secret.item_key, 'private-1');
    assert.ok(!occurrenceText(secret.data).includes(marker), occurrenceText(secret.data));
    const words = await indexedWords();
    assert.ok(!words.some((word) => word.includes(foldText(marker))), words.join(' '));
    assert.match(occurrenceText(standup.data), /Standup/);
    assert.ok(words.includes('daily') && words.includes(foldText(standupMarker)), words.join(' '));
    assert.deepEqual(
      (await search(plain)).map((e) => e.title),
      ['Busy', 'Standup'],
    );
  });

  it('syncs in full when a grant with private details comes, answering it live until then', async () => {
    const { token, grantId } = await grantToken(t.ctx, {
      ...owner,
      clientId: 'private-client',
      privateDetails: true,
      calendars: [{ calendarId, detailLevel: 'full' }],
    });
    assert.deepEqual(
      (await search(token)).map((e) => e.title),
      [`${marker} title`, 'Standup'],
      'the copy cannot answer this grant: read live',
    );
    await t.sync.runDue();
    const [secret] = await stored();
    assert.match(occurrenceText(secret!.data), new RegExp(marker));
    const copy = await t.ctx.db
      .selectFrom('calendar_copies')
      .select(['private_details', 'synced_at'])
      .where('calendar_id', '=', calendarId)
      .executeTakeFirstOrThrow();
    assert.ok(copy.private_details);
    assert.notEqual(copy.synced_at, null);
    assert.deepEqual(
      (await search(plain)).map((e) => e.title),
      ['Busy', 'Standup'],
      'still masked for the grant without private details',
    );
    privateGrant = grantId;
  });

  let privateGrant: string;

  it('purges the texts when that grant goes, leaving none in the file or its -wal', async () => {
    assert.ok(await fileHolds(marker), 'the marker is on disk while a grant may see it');
    await markGrantsRevoked(t.ctx.db, { id: privateGrant }, 'test', 0);
    await t.sync.runDue();
    const [secret] = await stored();
    assert.ok(!occurrenceText(secret!.data).includes(marker), 'synced again without it');
    assert.equal(await fileHolds(marker), undefined);
    assert.deepEqual(
      (await search(plain)).map((e) => e.title),
      ['Busy', 'Standup'],
    );
  });

  it('deletes the copy with the last grant, leaving none of it in the file or its -wal', async () => {
    assert.ok(await fileHolds(standupMarker), 'the public event is on disk while a grant reaches it');
    const [grant] = await t.ctx.db
      .selectFrom('access_grants')
      .select('id')
      .where('revoked_at', 'is', null)
      .execute();
    const person = new PageClient(t.app);
    await person.signIn('pia@example.org', testPassword);
    await person.get('/account');
    assert.equal((await person.post(`/account/apps/${grant!.id}/revoke`, {})).statusCode, 303);
    assert.deepEqual(await stored(), []);
    assert.equal(await fileHolds(standupMarker), undefined);
  });
});
