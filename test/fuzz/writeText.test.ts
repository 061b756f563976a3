/**
 * Text a write sends, round-tripped through a real Radicale (issue 23, item 2): random titles,
 * descriptions, locations, guest names and answers' comments — line breaks of every kind, the
 * characters iCalendar escapes, content lines meant to be injected, any code points — sent with
 * create_event, update_event and respond_to_event through a real MCP client. Each object is then
 * fetched from Radicale with a plain GET and read by the project's parser and by ical.js: the text
 * equals what was sent (as iCalendar holds it) and the VEVENT has exactly the properties the
 * service meant to write — no ATTENDEE, ORGANIZER or VALARM of the text's making. The case count
 * and seed are printed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import type { Event } from '../../src/domain/event.ts';
import { defaultPolicy, type Scope } from '../../src/policy/workspacePolicy.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { asWritten, guestsOf, hostilePiece, propertyNames, readBoth } from '../helpers/icalText.ts';
import { basicAuth, type RadicaleServer, radicaleMissing, startRadicale } from '../helpers/radicale.ts';
import { connectRadicale, fillRadicale, vcalendar } from '../helpers/radicaleCalendars.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';
import { seenOf } from '../helpers/seen.ts';

const skip = radicaleMissing();
const me = 'person@example.com';
const boss = 'boss@example.org';
const berlin = 'Europe/Berlin';
const runs = 12;
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

/** Tool arguments refuse control characters other than tab and line breaks (tested below): none here. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters tool arguments refuse.
const stray = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
const text = (maxLength: number) =>
  fc
    .array(hostilePiece, { maxLength: 16 })
    .map((parts) => parts.join('').replace(stray, ''))
    .filter((value) => value.length <= maxLength);
const someText = (maxLength: number) => text(maxLength).filter((value) => value !== '');
/**
 * Guests' names as tools take them (trimmed by the service). Without backslashes: ical.js reads
 * backslash escapes in parameter values, which RFC 5545 does not have (test/domain/icalTextEscaping.test.ts).
 */
const guestName = someText(256)
  .map((name) => name.replaceAll('\\', '/'))
  .filter((name) => name.trim() !== '');

const fields = fc.record({
  title: someText(1024),
  description: text(8192),
  location: text(1024),
  guestName,
  comment: someText(1024),
});

/** The properties the service writes on a new event with one guest, and with the texts given. */
const writtenNames = (sent: { description: string; location: string }, extra: string[]) =>
  [
    'attendee',
    'created',
    'dtend',
    'dtstamp',
    'dtstart',
    'organizer',
    'sequence',
    'summary',
    'uid',
    ...(sent.description === '' ? [] : ['description']),
    ...(sent.location === '' ? [] : ['location']),
    ...extra,
  ].sort();

describe('write text round trips on Radicale', { skip }, () => {
  let radicale: RadicaleServer;
  let t: TestApp;
  let client: Client;
  let calendarId: string;
  let calendarUrl: URL;

  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as {
      isError?: boolean;
      structuredContent?: Record<string, unknown>;
      content: Array<{ text: string }>;
    };
  const ok = async (name: string, args: Record<string, unknown>) => {
    const result = await call(name, args);
    assert.notEqual(result.isError, true, `${name}: ${result.content[0]?.text}`);
    return result.structuredContent!;
  };

  /** The calendar's objects by href, fetched as Radicale serves them. */
  const request = (url: URL, init: RequestInit = {}) =>
    fetch(url, {
      ...init,
      headers: { authorization: basicAuth(radicale.username, radicale.password), ...init.headers },
    });
  const hrefs = async (): Promise<Set<string>> => {
    const answer = await request(calendarUrl, {
      method: 'PROPFIND',
      headers: { depth: '1', 'content-type': 'application/xml' },
      body: '<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>',
    });
    assert.equal(answer.status, 207);
    const listed = [...(await answer.text()).matchAll(/<(?:\w+:)?href>([^<]+\.ics)<\/(?:\w+:)?href>/g)];
    return new Set(listed.map((match) => match[1]!));
  };
  const object = async (href: string): Promise<string> => {
    const answer = await request(new URL(href, calendarUrl));
    assert.equal(answer.status, 200);
    return answer.text();
  };

  before(async () => {
    radicale = await startRadicale({ users: { [me]: 'person-password' } });
    await fillRadicale(radicale, [
      {
        slug: 'fuzz',
        displayName: 'Fuzz',
        timeZone: berlin,
        contents: [
          vcalendar([
            'UID:invite',
            'DTSTART;TZID=Europe/Berlin:20260325T140000',
            'DTEND;TZID=Europe/Berlin:20260325T150000',
            'SUMMARY:Design review',
            `ORGANIZER:mailto:${boss}`,
            `ATTENDEE;PARTSTAT=ACCEPTED:mailto:${boss}`,
            `ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:${me}`,
          ]),
        ],
      },
    ]);
    calendarUrl = new URL(`${me}/fuzz/`, radicale.url);
    t = await startTestApp({ listen: true, adapters: { sleep: async () => {} } });
    const userId = await seedUser(t.ctx.db, me);
    const workspaceId = await seedWorkspace(t.ctx.db, 'Fuzz', [[userId, 'owner']]);
    const scopes: Scope[] = ['calendar:read', 'calendar:write', 'calendar:rsvp'];
    await savePolicy(t.ctx.db, workspaceId, { ...defaultPolicy, allowedScopes: scopes }, 0);
    calendarId = (await connectRadicale(t.ctx, { userId, workspaceId }, radicale)).get('Fuzz')!;
    const { token } = await grantToken(t.ctx, {
      userId,
      workspaceId,
      calendars: [{ calendarId, detailLevel: 'full' }],
      scopes,
      resource: 'mcp',
    });
    client = new Client({ name: 'write-text-fuzz', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.ctx.config.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
  });
  after(async () => {
    await client?.close();
    await t?.close();
    await radicale?.stop();
  });

  it('create, update and respond: Radicale holds the text sent and exactly the properties written', async () => {
    const window = { start: '2026-03-23T00:00:00+01:00', end: '2026-03-30T00:00:00+02:00' };
    const listed = (await ok('list_events', { calendarIds: [calendarId], ...window })).termine as Event[];
    const invitation = listed.find((event) => event.title === 'Design review')!;
    let day = 0;
    await fc.assert(
      fc.asyncProperty(fields, fields, async (created, updated) => {
        day += 1;
        const earlier = await hrefs();
        const start = Temporal.PlainDate.from('2026-04-01').add({ days: day });
        const guest = { email: `guest${day}@example.org`, name: created.guestName };
        const made = await ok('create_event', {
          calendarId,
          title: created.title,
          description: created.description,
          location: created.location,
          start: `${start}T09:00:00`,
          end: `${start}T10:00:00`,
          timeZone: berlin,
          attendees: [guest],
        });
        const [href, ...others] = [...(await hrefs())].filter((listedHref) => !earlier.has(listedHref));
        assert.deepEqual(others, [], 'one new object');
        const check = (ics: string, sent: typeof created, extra: string[]) => {
          for (const event of readBoth(ics)) {
            assert.equal(event.getFirstPropertyValue('summary'), asWritten(sent.title));
            for (const name of ['description', 'location'] as const) {
              assert.equal(
                event.getFirstPropertyValue(name),
                sent[name] === '' ? null : asWritten(sent[name]),
              );
            }
            assert.deepEqual(guestsOf(event), [
              [`mailto:${guest.email}`, asWritten(created.guestName.trim())],
            ]);
            assert.deepEqual(propertyNames(event), writtenNames(sent, extra));
            assert.deepEqual(event.getAllSubcomponents(), []);
          }
        };
        check(await object(href!), created, []);

        const event = made.event as Event;
        await ok('update_event', {
          eventId: event.eventId,
          seen: seenOf(event),
          title: updated.title,
          description: updated.description === '' ? null : updated.description,
          location: updated.location === '' ? null : updated.location,
          notifyAttendees: true,
        });
        check(await object(href!), updated, ['last-modified']);

        await ok('respond_to_event', {
          eventId: invitation.eventId,
          response: 'tentative',
          comment: created.comment,
        });
        for (const answered of readBoth(await object('invite.ics'))) {
          assert.equal(answered.getFirstPropertyValue('comment'), asWritten(created.comment));
          assert.deepEqual(propertyNames(answered), [
            'attendee',
            'attendee',
            'comment',
            'dtend',
            'dtstamp',
            'dtstart',
            'last-modified',
            'organizer',
            'summary',
            'uid',
          ]);
          assert.deepEqual(answered.getAllSubcomponents(), []);
        }
      }),
      { numRuns: runs, seed, endOnFailure: true },
    );
    process.stdout.write(`# write text round trips on Radicale: ${runs} cases, seed ${seed}\n`);
  });

  it('a control character other than tab and line breaks is refused, naming the argument; nothing is written', async () => {
    const earlier = await hrefs();
    const result = await call('create_event', {
      calendarId,
      title: 'Call\u0000ATTENDEE:mailto:evil@example.org',
      start: '2026-05-01T09:00:00',
      end: '2026-05-01T10:00:00',
      timeZone: berlin,
    });
    assert.equal(result.isError, true);
    const { error } = JSON.parse(result.content[0]!.text) as { error: { code: string; field: string } };
    assert.deepEqual([error.code, error.field], ['invalid_request', 'title']);
    assert.deepEqual(await hrefs(), earlier);
  });
});
