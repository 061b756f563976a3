/**
 * search_events end to end: calendars on a real Radicale, filled with the project's iCalendar
 * fixtures (test/fixtures/ical, see its README) and a few events written here for what no
 * fixture has, connected as a CalDAV account, searched through a real MCP client at /mcp.
 *
 * Expected results are worked out from the files by hand (wall times, the zone's offset that
 * day, the rules' arithmetic), never copied from an answer. Each list is compared exactly.
 *
 * Calendars (one Radicale user, connected twice: in a workspace with the default policy and in
 * one whose policy allows details of private events):
 * - Werkhaus (Europe/Berlin): community-calendar-berlin.ics, a German community calendar.
 * - Series (America/Los_Angeles): zoned-series-rdates-exdates-overrides.ics,
 *   weekly-utc-exdates-on-previous-day.ics, apple-structured-location.ics,
 *   override-before-master-zero-length.ics.
 * - Words (Europe/Berlin), Private (Europe/Berlin, plus confidential-yearly-all-day.ics), Ticker
 *   (Etc/UTC): events written below.
 * - Unzoned (no calendar-timezone): all-day-weekdays-absolute-alarms.ics and
 *   floating-times-x-wr-timezone.ics.
 * Radicale itself refuses google-birthdays-all-day.ics (a DATE with a stray Z) and
 * all-day-start-date-time-end.ics (DATE start, DATE-TIME end), so they are not used.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { DetailLevel } from '../../src/domain/detailLevels.ts';
import type { Event } from '../../src/domain/event.ts';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { assertValidEvent } from '../helpers/eventSchema.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { type RadicaleServer, radicaleMissing, startRadicale } from '../helpers/radicale.ts';
import { connectRadicale, fillRadicale, fixtureIcs, vcalendar } from '../helpers/radicaleCalendars.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const skip = radicaleMissing();

// ---- events written here (what no fixture has) -------------------------------------------------

/** Week of Mon 2026-06-01 in Berlin (CEST, +02:00): words, diacritics, fields, free/busy. */
const wordsIcs = vcalendar(
  [
    'UID:words-a',
    'DTSTART;TZID=Europe/Berlin:20260601T090000',
    'DTEND;TZID=Europe/Berlin:20260601T100000',
    'SUMMARY:Besprechung mit Frau Müller',
    'DESCRIPTION:Angebot für die Großstraße besprechen',
    'LOCATION:Kesselhaus',
    'CATEGORIES:Vertrieb,Kunde',
    'ORGANIZER;CN=Otto Kranich:mailto:otto@example.org',
    'ATTENDEE;CN=Ida Lindqvist;PARTSTAT=ACCEPTED:mailto:ida@example.org',
  ],
  [
    'UID:words-b',
    'DTSTART;TZID=Europe/Berlin:20260602T110000',
    'DTEND;TZID=Europe/Berlin:20260602T120000',
    'SUMMARY:MULLER quarterly review',
    'DESCRIPTION:Budget',
    'TRANSP:TRANSPARENT',
  ],
  ['UID:words-c', 'DTSTART:20260603T060000Z', 'DTEND:20260603T063000Z', 'SUMMARY:Strasse sperren'],
  [
    'UID:words-d',
    'DTSTART;TZID=Europe/Berlin:20260604T140000',
    'DTEND;TZID=Europe/Berlin:20260604T150000',
    'SUMMARY:Budget',
    'DESCRIPTION:Numbers for the quarterly review',
  ],
  [
    'UID:words-e',
    'DTSTART;TZID=Europe/Berlin:20260605T100000',
    'DTEND;TZID=Europe/Berlin:20260605T103000',
    // U+FB01 LATIN SMALL LIGATURE FI: NFKC makes it "fi".
    'SUMMARY:\uFB01nance sync',
  ],
  // Floating: the calendar's zone (Berlin) places it at 14:00Z, whatever zone a request names.
  [
    'UID:words-f',
    'DTSTART:20260605T160000',
    'DTEND:20260605T170000',
    'SUMMARY:Abschluss',
    'CATEGORIES:Quartalsende',
  ],
  // All-day on Saturday: in Berlin [Jun 5 22:00Z, Jun 6 22:00Z).
  [
    'UID:words-g',
    'DTSTART;VALUE=DATE:20260606',
    'DTEND;VALUE=DATE:20260607',
    'SUMMARY:Hoffest in der Kastanienallee',
    'TRANSP:TRANSPARENT',
  ],
  // Greek: "new website"; "ιστος" (web) is a substring of "ιστοσελιδα" once case is folded.
  [
    'UID:words-greek',
    'DTSTART;TZID=Europe/Berlin:20260616T170000',
    'DTEND;TZID=Europe/Berlin:20260616T180000',
    'SUMMARY:Νέα ιστοσελίδα',
  ],
  // All day on the two DST days of 2026 in Berlin: 23 hours, then 25 hours.
  ['UID:words-spring', 'DTSTART;VALUE=DATE:20260329', 'SUMMARY:Zeitumstellung Frühling'],
  ['UID:words-autumn', 'DTSTART;VALUE=DATE:20261025', 'SUMMARY:Zeitumstellung Herbst'],
  // July: 40 daily stand-ups from Jul 1, for limit and truncated.
  [
    'UID:words-standup',
    'DTSTART;TZID=Europe/Berlin:20260701T091500',
    'DURATION:PT15M',
    'RRULE:FREQ=DAILY;COUNT=40',
    'SUMMARY:Standup',
  ],
);

/** A minute ticker from May 1 2026: more occurrences in a week than the service expands per event (5000). */
const tickerIcs = vcalendar([
  'UID:ticker',
  'DTSTART:20260501T000000Z',
  'DURATION:PT1M',
  'RRULE:FREQ=MINUTELY;COUNT=6000',
  'SUMMARY:Ticker',
]);

/** Week of Mon 2026-06-08 in Berlin: private, confidential and public appointments. */
const privateIcs = vcalendar(
  [
    'UID:private-1',
    'DTSTART;TZID=Europe/Berlin:20260608T080000',
    'DTEND;TZID=Europe/Berlin:20260608T090000',
    'SUMMARY:Arzttermin Dr. Müller',
    'DESCRIPTION:Blutabnahme',
    'CLASS:PRIVATE',
  ],
  [
    'UID:private-2',
    'DTSTART;TZID=Europe/Berlin:20260609T150000',
    'DTEND;TZID=Europe/Berlin:20260609T160000',
    'SUMMARY:Bewerbungsgespräch',
    'CLASS:CONFIDENTIAL',
    'TRANSP:TRANSPARENT',
  ],
  [
    'UID:private-3',
    'DTSTART;TZID=Europe/Berlin:20260610T120000',
    'DTEND;TZID=Europe/Berlin:20260610T130000',
    'SUMMARY:Team lunch',
    'DESCRIPTION:Müller joins us',
    'CLASS:PUBLIC',
  ],
  [
    'UID:private-retro',
    'DTSTART;TZID=Europe/Berlin:20260715T093000',
    'DURATION:PT30M',
    'SUMMARY:Standup retro',
  ],
);

/**
 * Radicale 3 refuses zoned-series-rdates-exdates-overrides.ics as it stands (its parser fails on
 * the RDATE PERIOD and the VTIMEZONE without TZID), and the unknown component has no UID to be
 * stored under: those three parts go, the recurrence set (monthly rule, RDATEs, EXDATEs, both
 * overrides) stays as written.
 */
const acceptedByRadicale = (ics: string) =>
  ics
    .replace('BEGIN:VTIMEZONE\nX-INVALID-TIMEZONE:TRUE\nEND:VTIMEZONE\n', '')
    .replace(/^BEGIN:X-VENDOR-NOTES\n[\s\S]*?^END:X-VENDOR-NOTES\n/m, '')
    .replace(/^RDATE;VALUE=PERIOD:.*\n/m, '');

// ---- MCP ---------------------------------------------------------------------------------------

interface SearchResult {
  ok: true;
  termine: Event[];
  matched: number;
  truncated: boolean;
  searchedFields: string[];
}

interface ToolError {
  code: string;
  message: string;
  [detail: string]: unknown;
}

type Args = Record<string, unknown>;

class Assistant {
  readonly #client: Client;
  private constructor(client: Client) {
    this.#client = client;
  }

  static async connect(baseUrl: string, token: string): Promise<Assistant> {
    const client = new Client(
      { name: 'search-e2e', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return new Assistant(client);
  }

  async #call(name: string, args: Args) {
    return this.#client.callTool({ name, arguments: args });
  }

  /** A successful search; every event checked against the closed Event schema. */
  async search(args: Args): Promise<SearchResult> {
    return (await this.searchWithNote(args)).result;
  }

  /** The search and what the result says in words next to the JSON, if anything. */
  async searchWithNote(args: Args): Promise<{ result: SearchResult; note: string | undefined }> {
    const answer = await this.#call('search_events', args);
    if (answer.isError) assert.fail(`search_events failed: ${JSON.stringify(answer.content)}`);
    const result = answer.structuredContent as unknown as SearchResult;
    assert.deepEqual(Object.keys(result).sort(), ['matched', 'ok', 'searchedFields', 'termine', 'truncated']);
    assert.equal(result.ok, true);
    for (const event of result.termine) assertValidEvent(event);
    const texts = (answer.content as Array<{ type: string; text: string }>).map((c) => c.text);
    assert.deepEqual(JSON.parse(texts[0]!), result, 'the first text is the JSON result');
    assert.ok(texts.length <= 2, 'at most one note');
    return { result, note: texts[1] };
  }

  /** All events of a window (one page), to show what a search did not find. */
  async list(args: Args): Promise<Event[]> {
    const result = await this.#call('list_events', { limit: 250, ...args });
    if (result.isError) assert.fail(`list_events failed: ${JSON.stringify(result.content)}`);
    const structured = result.structuredContent as { termine: Event[]; truncated: boolean };
    assert.equal(structured.truncated, false);
    for (const event of structured.termine) assertValidEvent(event);
    return structured.termine;
  }

  /** The error of a call that must fail as a tool result. */
  async error(name: 'search_events' | 'list_events', args: Args): Promise<ToolError> {
    const result = await this.#call(name, args);
    assert.equal(result.isError, true, `expected an error, got ${JSON.stringify(result.structuredContent)}`);
    const [content] = result.content as Array<{ type: string; text: string }>;
    return (JSON.parse(content!.text) as { error: ToolError }).error;
  }

  close(): Promise<void> {
    return this.#client.close();
  }
}

/** `start zone title`: what a person checks on a calendar page ("floating" = no timeZone). */
const line = (event: Event) => `${event.start} ${event.timeZone ?? 'floating'} ${event.title}`;
const lines = (result: SearchResult | Event[]) => (Array.isArray(result) ? result : result.termine).map(line);

/**
 * Exactly these events and all of the matches: nothing cut, every calendar read completely.
 * `context` (the query, the zone) goes into the compared objects so a failure's diff names it.
 */
const assertFound = (result: SearchResult, expected: string[], context = '') =>
  assert.deepEqual(
    { context, events: lines(result), matched: result.matched, truncated: result.truncated },
    { context, events: expected, matched: expected.length, truncated: false },
  );

/** The fields every detail level shows, plus the title: all a busy placeholder may carry. */
const placeholderKeys = new Set([
  'eventId',
  'calendarId',
  'occurrenceId',
  'title',
  'start',
  'timeZone',
  'duration',
  'showWithoutTime',
  'status',
  'freeBusyStatus',
  'canEdit',
  'canRespond',
  'editBlockedReason',
]);
const assertPlaceholder = (event: Event) => {
  const extra = Object.keys(event).filter((key) => !placeholderKeys.has(key));
  assert.deepEqual(extra, [], `a placeholder shows only time and availability: ${JSON.stringify(event)}`);
};

// ---- windows -----------------------------------------------------------------------------------

/** Mon 2026-06-01 to Mon 2026-06-08 in Berlin. */
const wordsWeek = { start: '2026-06-01T00:00:00+02:00', end: '2026-06-08T00:00:00+02:00' };
/** Mon 2026-06-08 to Mon 2026-06-15 in Berlin. */
const privateWeek = { start: '2026-06-08T00:00:00+02:00', end: '2026-06-15T00:00:00+02:00' };
/** July 2026 in Berlin: 31 days, no DST change, 744 h. */
const july = { start: '2026-07-01T00:00:00+02:00', end: '2026-08-01T00:00:00+02:00' };
/** January 2022 in Berlin: 744 h. */
const january2022 = { start: '2022-01-01T00:00:00+01:00', end: '2022-02-01T00:00:00+01:00' };

describe('search_events on Radicale calendars', { skip }, () => {
  let radicale: RadicaleServer;
  let t: TestApp;
  /** Calendar name → id, in the workspace with the default policy (private details forbidden). */
  let home: Map<string, string>;
  /** The same Radicale account connected in a workspace whose policy allows private details. */
  let open: Map<string, string>;
  const assistants: Assistant[] = [];

  let full: Assistant;
  let busy: Assistant;
  let titles: Assistant;
  let mixed: Assistant;
  let privateAsked: Assistant;
  let privateAllowed: Assistant;

  const id = (calendars: Map<string, string>, name: string) => {
    const found = calendars.get(name);
    assert.ok(found, `no calendar named ${name}`);
    return found;
  };

  before(async () => {
    radicale = await startRadicale();
    await fillRadicale(radicale, [
      {
        slug: 'werkhaus',
        displayName: 'Werkhaus',
        timeZone: 'Europe/Berlin',
        contents: [await fixtureIcs('community-calendar-berlin.ics')],
      },
      {
        slug: 'series',
        displayName: 'Series',
        timeZone: 'America/Los_Angeles',
        contents: [
          acceptedByRadicale(await fixtureIcs('zoned-series-rdates-exdates-overrides.ics')),
          await fixtureIcs('weekly-utc-exdates-on-previous-day.ics'),
          await fixtureIcs('apple-structured-location.ics'),
          await fixtureIcs('override-before-master-zero-length.ics'),
        ],
      },
      { slug: 'ticker', displayName: 'Ticker', timeZone: 'Etc/UTC', contents: [tickerIcs] },
      { slug: 'words', displayName: 'Words', timeZone: 'Europe/Berlin', contents: [wordsIcs] },
      {
        slug: 'private',
        displayName: 'Private',
        timeZone: 'Europe/Berlin',
        contents: [privateIcs, await fixtureIcs('confidential-yearly-all-day.ics')],
      },
      {
        // No calendar-timezone: its all-day and floating times need the user's zone.
        slug: 'unzoned',
        displayName: 'Unzoned',
        contents: [
          await fixtureIcs('all-day-weekdays-absolute-alarms.ics'),
          await fixtureIcs('floating-times-x-wr-timezone.ics'),
        ],
      },
    ]);

    t = await startTestApp({ listen: true, adapters: { sleep: async () => {} } });
    const userId = await seedUser(t.ctx.db, 'ana@example.org');
    const homeId = await seedWorkspace(t.ctx.db, 'Home', [[userId, 'owner']]);
    const openId = await seedWorkspace(t.ctx.db, 'Open', [[userId, 'owner']]);
    await savePolicy(t.ctx.db, openId, { ...defaultPolicy, privateDetailsAllowed: true }, 0);
    home = await connectRadicale(t.ctx, { userId, workspaceId: homeId }, radicale);
    open = await connectRadicale(t.ctx, { userId, workspaceId: openId }, radicale);

    const assistant = async (
      workspaceId: string,
      calendars: Array<[id: string, level: DetailLevel]>,
      privateDetails = false,
    ) => {
      const { token } = await grantToken(t.ctx, {
        userId,
        workspaceId,
        calendars: calendars.map(([calendarId, detailLevel]) => ({ calendarId, detailLevel })),
        privateDetails,
        resource: 'mcp',
      });
      const connected = await Assistant.connect(t.ctx.config.baseUrl, token);
      assistants.push(connected);
      return connected;
    };
    full = await assistant(
      homeId,
      ['Werkhaus', 'Series', 'Words', 'Private', 'Unzoned', 'Ticker'].map((name) => [id(home, name), 'full']),
    );
    busy = await assistant(homeId, [
      [id(home, 'Words'), 'busy'],
      [id(home, 'Private'), 'busy'],
    ]);
    titles = await assistant(homeId, [[id(home, 'Words'), 'titles']]);
    mixed = await assistant(homeId, [
      [id(home, 'Words'), 'busy'],
      [id(home, 'Werkhaus'), 'full'],
    ]);
    // Asks for private details where the workspace policy forbids them: they stay hidden.
    privateAsked = await assistant(homeId, [[id(home, 'Private'), 'full']], true);
    privateAllowed = await assistant(openId, [[id(open, 'Private'), 'full']], true);
  });

  after(async () => {
    for (const assistant of assistants) await assistant.close();
    await t?.close();
    await radicale?.stop();
  });

  const words = () => [id(home, 'Words')];

  describe('words: all of them, in any order, folding case and diacritics', () => {
    it('finds words in any order, split on any white space', async () => {
      const expected = [
        '2026-06-02T11:00:00+02:00 Europe/Berlin MULLER quarterly review',
        '2026-06-04T14:00:00+02:00 Europe/Berlin Budget',
      ];
      for (const query of ['budget review', 'review budget', '  REVIEW\t\n Budget ', 'budget\u00a0review']) {
        const result = await full.search({ calendarIds: words(), query, ...wordsWeek });
        assertFound(result, expected, query);
        assert.deepEqual(result.searchedFields, ['title', 'description', 'categories', 'keywords']);
      }
    });

    it('needs every word: one missing word means no match', async () => {
      const search = (query: string) => full.search({ calendarIds: words(), query, ...wordsWeek });
      assertFound(await search('Müller Budget'), [
        '2026-06-02T11:00:00+02:00 Europe/Berlin MULLER quarterly review',
      ]);
      // "Kastanie" is in another event of the week, not in this one.
      assertFound(await search('Müller Budget Kastanie'), []);
      assertFound(await search('Kastanie'), ['2026-06-06 floating Hoffest in der Kastanienallee']);
    });

    it('folds case and diacritics both ways: Müller = MULLER = muller', async () => {
      const expected = [
        '2026-06-01T09:00:00+02:00 Europe/Berlin Besprechung mit Frau Müller',
        '2026-06-02T11:00:00+02:00 Europe/Berlin MULLER quarterly review',
      ];
      for (const query of ['müller', 'MÜLLER', 'muller', 'Mu\u0308ller']) {
        const result = await full.search({ calendarIds: words(), query, ...wordsWeek });
        assertFound(result, expected, query);
      }
    });

    it('folds ß to ss both ways and finds a word inside a longer one', async () => {
      // "Großstraße" in a description holds "strasse"; "Strasse" in a title matches "straße".
      const expected = [
        '2026-06-01T09:00:00+02:00 Europe/Berlin Besprechung mit Frau Müller',
        '2026-06-03T06:00:00+00:00 Etc/UTC Strasse sperren',
      ];
      for (const query of ['straße', 'STRASSE', 'Strasse']) {
        const result = await full.search({ calendarIds: words(), query, ...wordsWeek });
        assertFound(result, expected, query);
      }
    });

    it('applies NFKC: the ligature ﬁ is f and i', async () => {
      for (const query of ['finance', '\uFB01nance', 'FINANCE SYNC']) {
        const result = await full.search({ calendarIds: words(), query, ...wordsWeek });
        assertFound(result, ['2026-06-05T10:00:00+02:00 Europe/Berlin \uFB01nance sync'], query);
      }
    });

    it('folds a final sigma like any sigma, as full case folding does', async () => {
      const week = { start: '2026-06-15T00:00:00+02:00', end: '2026-06-22T00:00:00+02:00' };
      const search = (query: string) => full.search({ calendarIds: words(), query, ...week });
      const website = ['2026-06-16T17:00:00+02:00 Europe/Berlin Νέα ιστοσελίδα'];
      // Upper case and without the accent: found.
      assertFound(await search('ΙΣΤΟΣΕΛΙΔΑ'), website);
      assertFound(await search('σελιδα'), website);
      // "ιστος" (web) is in "ιστοσελιδα": case folding maps ς to σ, so a word ending in sigma
      // matches inside a longer word however it was typed.
      for (const query of ['ιστος', 'ΙΣΤΟΣ', 'ιστοσ']) assertFound(await search(query), website, query);
    });

    it('matches words spread over title, description and categories', async () => {
      const search = (query: string) => full.search({ calendarIds: words(), query, ...wordsWeek });
      // Title "MULLER …" and description "Budget".
      assertFound(await search('muller budget'), [
        '2026-06-02T11:00:00+02:00 Europe/Berlin MULLER quarterly review',
      ]);
      // Description "Angebot …" and title "… Müller".
      assertFound(await search('Angebot Müller'), [
        '2026-06-01T09:00:00+02:00 Europe/Berlin Besprechung mit Frau Müller',
      ]);
      // CATEGORIES (returned as keywords) and title.
      const byCategory = await search('vertrieb besprechung');
      assertFound(byCategory, ['2026-06-01T09:00:00+02:00 Europe/Berlin Besprechung mit Frau Müller']);
      assert.deepEqual(byCategory.termine[0]?.keywords, ['Vertrieb', 'Kunde']);
      // A word only in the categories of a floating event, placed by the calendar's zone.
      assertFound(await search('QUARTALSENDE'), ['2026-06-05T16:00:00+02:00 floating Abschluss']);
    });

    it('never searches locations or participants', async () => {
      const all = await full.list({ calendarIds: words(), ...wordsWeek });
      const meeting = all.find((event) => event.title === 'Besprechung mit Frau Müller');
      assert.deepEqual(meeting?.locations, [{ name: 'Kesselhaus' }]);
      // The location, the organizer's and the attendee's names are there, yet never searched.
      for (const query of [
        'Kesselhaus',
        'Kranich',
        'Lindqvist',
        'otto@example.org',
        'Besprechung Kesselhaus',
      ]) {
        const result = await full.search({ calendarIds: words(), query, ...wordsWeek });
        assertFound(result, [], query);
      }
    });

    it('refuses a query without words or longer than 200 characters', async () => {
      for (const query of ['', ' \t\n\u3000']) {
        const error = await full.error('search_events', { calendarIds: words(), query, ...wordsWeek });
        assert.equal(error.code, 'invalid_request', JSON.stringify(query));
        assert.equal(error.field, 'query');
      }
      const long = await full.error('search_events', {
        calendarIds: words(),
        query: 'x'.repeat(201),
        ...wordsWeek,
      });
      assert.equal(long.code, 'invalid_request');
      assert.equal(long.field, 'query');
      const longest = await full.search({ calendarIds: words(), query: 'x'.repeat(200), ...wordsWeek });
      assertFound(longest, []);
    });
  });

  describe('real-world text (Werkhaus Lindenau, a community calendar as Google exports it)', () => {
    const werkhaus = () => [id(home, 'Werkhaus')];

    it('finds "Elektroniktreff – Funk-AG" by its words in reverse order, and only it', async () => {
      // A biweekly Wednesday series at 19:00, "Elektroniktreff", until Jan 13 (Jan 12 is the last),
      // and a weekly "Elektroniktreff – Funk-AG" from Jan 19.
      const both = await full.search({
        calendarIds: werkhaus(),
        query: 'FUNK elektroniktreff',
        ...january2022,
      });
      assertFound(both, [
        '2022-01-19T19:00:00+01:00 Europe/Berlin Elektroniktreff – Funk-AG',
        '2022-01-26T19:00:00+01:00 Europe/Berlin Elektroniktreff – Funk-AG',
      ]);
      const one = await full.search({ calendarIds: werkhaus(), query: 'elektroniktreff', ...january2022 });
      assertFound(one, [
        '2022-01-12T19:00:00+01:00 Europe/Berlin Elektroniktreff',
        '2022-01-19T19:00:00+01:00 Europe/Berlin Elektroniktreff – Funk-AG',
        '2022-01-26T19:00:00+01:00 Europe/Berlin Elektroniktreff – Funk-AG',
      ]);
    });

    it('finds "ReparaturCafé" without the accent, including a moved instance', async () => {
      // Second Saturday Jan 8; the third-Saturday series' Jan 15 instance moved to Sunday Jan 23.
      const result = await full.search({ calendarIds: werkhaus(), query: 'reparaturcafe', ...january2022 });
      assertFound(result, [
        '2022-01-08T11:00:00+01:00 Europe/Berlin Werkhaus unterwegs: ReparaturCafé',
        '2022-01-23T11:00:00+01:00 Europe/Berlin Werkhaus unterwegs: ReparaturCafé',
      ]);
      // Jan 15 itself is empty: the override replaced it.
      const moved = await full.search({
        calendarIds: werkhaus(),
        query: 'reparaturcafe',
        start: '2022-01-15T00:00:00+01:00',
        end: '2022-01-16T00:00:00+01:00',
      });
      assertFound(moved, []);
    });

    it('finds "ReparaturCafe" with an accent in the query, and an umlaut word without it', async () => {
      const cafe = await full.search({
        calendarIds: werkhaus(),
        query: 'REPARATURCAFÉ',
        start: '2020-09-01T00:00:00+02:00',
        end: '2020-10-01T00:00:00+02:00',
      });
      assertFound(cafe, ['2020-09-19T08:00:00+00:00 Etc/UTC (Stadtbibliothek) ReparaturCafe']);
      const bio = await full.search({
        calendarIds: werkhaus(),
        query: 'BIOOKONOMIE',
        start: '2022-02-01T00:00:00+01:00',
        end: '2022-03-01T00:00:00+01:00',
      });
      assertFound(bio, ['2022-02-24T18:00:00+00:00 Etc/UTC Ökologie-Abend: Bioökonomie erklärt']);
    });

    it('finds "für Jugendliche" as "JUGENDLICHE fur" across two weekly series', async () => {
      // Mondays until Jan 16 (Jan 10 is the last), then Thursdays from Jan 20.
      const result = await full.search({ calendarIds: werkhaus(), query: 'JUGENDLICHE fur', ...january2022 });
      assertFound(result, [
        '2022-01-03T16:00:00+01:00 Europe/Berlin Technik-Treff für Jugendliche',
        '2022-01-10T16:00:00+01:00 Europe/Berlin Technik-Treff für Jugendliche',
        '2022-01-20T16:00:00+01:00 Europe/Berlin Technik-Treff für Jugendliche',
        '2022-01-27T16:00:00+01:00 Europe/Berlin Technik-Treff für Jugendliche',
      ]);
    });

    it('tells the two school workshop series apart by a word of one description', async () => {
      // Thursdays say "Gruppe Ahorn", Fridays "Gruppe Eiche"; Mar 10 and Mar 11 are excluded.
      const march = { start: '2022-03-01T00:00:00+01:00', end: '2022-03-19T00:00:00+01:00' };
      const fridays = await full.search({ calendarIds: werkhaus(), query: 'eiche schulwerkstatt', ...march });
      assertFound(fridays, [
        '2022-03-04T08:30:00+01:00 Europe/Berlin Schulwerkstatt: Holz',
        '2022-03-18T08:30:00+01:00 Europe/Berlin Schulwerkstatt: Holz',
      ]);
      // "Werkstatt" is in both titles (Schulwerkstatt), "Okonkwo" in both descriptions: both series.
      const both = await full.search({ calendarIds: werkhaus(), query: 'werkstatt okonkwo', ...march });
      assertFound(both, [
        '2022-03-03T08:30:00+01:00 Europe/Berlin Schulwerkstatt: Holz',
        '2022-03-04T08:30:00+01:00 Europe/Berlin Schulwerkstatt: Holz',
        '2022-03-17T08:30:00+01:00 Europe/Berlin Schulwerkstatt: Holz',
        '2022-03-18T08:30:00+01:00 Europe/Berlin Schulwerkstatt: Holz',
      ]);
    });
  });

  describe('recurrence: instances inside and across the window edges', () => {
    const series = () => [id(home, 'Series')];

    it('expands rule, RDATEs and a moved RDATE instance', async () => {
      // RDATE Nov 3 moved to Nov 4 09:00, Nov 8 14:00 EST (second Tuesday), RDATE Nov 17.
      const window = { start: '2022-10-25T00:00:00Z', end: '2022-11-20T00:00:00Z' };
      const all = await full.search({ calendarIds: series(), query: 'harbour', ...window });
      assertFound(all, [
        '2022-11-04T09:00:00-04:00 America/New_York Harbour board review',
        '2022-11-08T14:00:00-05:00 America/New_York Harbour board review',
        '2022-11-17T14:00:00-05:00 America/New_York Harbour board review',
      ]);
      assert.equal(new Set(all.termine.map((e) => e.occurrenceId)).size, 3);
      assert.equal(new Set(all.termine.map((e) => e.eventId)).size, 1);
      // The moved instance has no description of its own: "mooring" is only in the others.
      const fees = await full.search({ calendarIds: series(), query: 'harbour mooring', ...window });
      assertFound(fees, [
        '2022-11-08T14:00:00-05:00 America/New_York Harbour board review',
        '2022-11-17T14:00:00-05:00 America/New_York Harbour board review',
      ]);
    });

    it('searches an override by its own description', async () => {
      const september = { start: '2022-09-01T00:00:00Z', end: '2022-09-30T00:00:00Z' };
      const changed = await full.search({ calendarIds: series(), query: 'harbour upstairs', ...september });
      assertFound(changed, ['2022-09-13T16:30:00-04:00 America/New_York Harbour board review']);
      assert.equal(changed.termine[0]?.description, 'Room swap: we meet upstairs');
    });

    it('never searches the location or participants of a fixture', async () => {
      const window = { start: '2022-10-25T00:00:00Z', end: '2022-11-20T00:00:00Z' };
      const all = await full.list({ calendarIds: series(), ...window });
      assert.deepEqual(all[0]?.locations, [{ name: 'Pier 4 office' }]);
      for (const query of ['pier', 'Adeyemi', 'marek.olsen']) {
        const result = await full.search({ calendarIds: series(), query, ...window });
        assertFound(result, [], query);
      }
      // apple-structured-location: street, town and country are only in LOCATION and the Apple location.
      const week = { start: '2023-10-30T00:00:00+01:00', end: '2023-11-04T00:00:00+01:00' };
      const checkIns = await full.search({ calendarIds: series(), query: 'morning blocking round', ...week });
      assertFound(
        checkIns,
        ['10-30', '10-31', '11-01', '11-02', '11-03'].map(
          (day) => `2023-${day}T09:15:00+01:00 Europe/Zurich Morning check-in`,
        ),
      );
      for (const query of ['Muhlegasse', 'Zurich', 'Schweiz', 'Mühlegasse']) {
        const result = await full.search({ calendarIds: series(), query, ...week });
        assertFound(result, [], query);
      }
    });

    it('counts a zero-length instance when start ≤ it < end, at its moved time', async () => {
      // Spieleabend: last Thursdays 20:00 Berlin (19:00Z in winter), DTSTART = DTEND; the Dec 28
      // 2023 instance moved to Dec 14 by an override written before its master.
      const games = (start: string, end: string) =>
        full.search({ calendarIds: series(), query: 'spieleabend', start, end });
      const moved = await games('2023-12-14T19:00:00Z', '2023-12-14T19:00:01Z');
      assertFound(moved, ['2023-12-14T20:00:00+01:00 Europe/Berlin Spieleabend']);
      assert.equal(moved.termine[0]?.duration, 'PT0S');
      assertFound(await games('2023-12-14T18:30:00Z', '2023-12-14T19:00:00Z'), []);
      assertFound(await games('2023-12-28T00:00:00+01:00', '2023-12-29T00:00:00+01:00'), []);
      // The first instance sits exactly on the start.
      assertFound(await games('2023-11-30T19:00:00Z', '2023-12-30T19:00:00Z'), [
        '2023-11-30T20:00:00+01:00 Europe/Berlin Spieleabend',
        '2023-12-14T20:00:00+01:00 Europe/Berlin Spieleabend',
      ]);
    });

    it('keeps an instance that overlaps the start and drops one that starts at the end', async () => {
      // Late handover: Tuesdays 00:15–01:00 Berlin, COUNT=8 from Mar 5 2024, Mar 12 and Mar 26 deleted.
      // Mar 19 is 18 Mar 23:15Z–00:00Z; after the DST change Apr 16 is 15 Apr 22:15Z.
      const result = await full.search({
        calendarIds: series(),
        query: 'handover',
        start: '2024-03-18T23:30:00Z',
        end: '2024-04-15T22:15:00Z',
      });
      assertFound(result, [
        '2024-03-19T00:15:00+01:00 Europe/Berlin Late handover',
        '2024-04-02T00:15:00+02:00 Europe/Berlin Late handover',
        '2024-04-09T00:15:00+02:00 Europe/Berlin Late handover',
      ]);
    });

    it('drops an instance that ends at the start and keeps one starting a second before the end', async () => {
      const result = await full.search({
        calendarIds: series(),
        query: 'HANDOVER',
        start: '2024-03-19T00:00:00Z',
        end: '2024-04-15T22:15:01Z',
      });
      assertFound(result, [
        '2024-04-02T00:15:00+02:00 Europe/Berlin Late handover',
        '2024-04-09T00:15:00+02:00 Europe/Berlin Late handover',
        '2024-04-16T00:15:00+02:00 Europe/Berlin Late handover',
      ]);
    });

    it('places instances of a 2022 weekly rule by their local time after a DST change', async () => {
      // Elektroniktreff – Funk-AG: Wednesdays 19:00 Berlin since Jan 19 2022; Apr 8 2026 is 17:00Z.
      const at = (end: string) =>
        full.search({
          calendarIds: [id(home, 'Werkhaus')],
          query: 'funk',
          start: '2026-03-31T00:00:00Z',
          end,
        });
      assertFound(await at('2026-04-08T17:00:00Z'), [
        '2026-04-01T19:00:00+02:00 Europe/Berlin Elektroniktreff – Funk-AG',
      ]);
      assertFound(await at('2026-04-08T17:00:01Z'), [
        '2026-04-01T19:00:00+02:00 Europe/Berlin Elektroniktreff – Funk-AG',
        '2026-04-08T19:00:00+02:00 Europe/Berlin Elektroniktreff – Funk-AG',
      ]);
    });
  });

  describe('window: 744 elapsed hours, across DST changes', () => {
    const window = (start: string, end: string) => ({ calendarIds: [id(home, 'Werkhaus')], start, end });
    const funk = (start: string, end: string) => ({ ...window(start, end), query: 'Elektroniktreff Funk' });

    it('accepts exactly 744 h over the spring change (31 days and one hour on the clock)', async () => {
      // 2026-03-14T23:00Z to 2026-04-14T23:00Z; Berlin moves to CEST on Mar 29.
      const result = await full.search(funk('2026-03-15T00:00:00+01:00', '2026-04-15T01:00:00+02:00'));
      assertFound(
        result,
        ['03-18T19:00:00+01:00', '03-25T19:00:00+01:00', '04-01T19:00:00+02:00', '04-08T19:00:00+02:00'].map(
          (day) => `2026-${day} Europe/Berlin Elektroniktreff – Funk-AG`,
        ),
      );
      // The same window written in UTC.
      const utc = await full.search(funk('2026-03-14T23:00:00Z', '2026-04-14T23:00:00Z'));
      assert.deepEqual(lines(utc), lines(result));
    });

    it('refuses 744 h + 1 s over the spring change', async () => {
      const [start, end] = ['2026-03-15T00:00:00+01:00', '2026-04-15T01:00:01+02:00'];
      for (const [tool, args] of [
        ['search_events', funk(start, end)],
        ['list_events', window(start, end)],
      ] as const) {
        const error = await full.error(tool, args);
        assert.equal(error.code, 'window_too_long', tool);
        assert.equal(error.field, 'end', tool);
        assert.equal(error.maxHours, 744, tool);
      }
    });

    it('refuses 31 days on the clock over the autumn change (745 h), accepts 744 h', async () => {
      const tooLong = await full.error(
        'search_events',
        funk('2026-10-10T00:00:00+02:00', '2026-11-10T00:00:00+01:00'),
      );
      assert.equal(tooLong.code, 'window_too_long');
      const result = await full.search(funk('2026-10-10T00:00:00+02:00', '2026-11-09T23:00:00+01:00'));
      assertFound(
        result,
        ['10-14T19:00:00+02:00', '10-21T19:00:00+02:00', '10-28T19:00:00+01:00', '11-04T19:00:00+01:00'].map(
          (day) => `2026-${day} Europe/Berlin Elektroniktreff – Funk-AG`,
        ),
      );
    });

    it('refuses a window without Z or offset, or ending before it starts', async () => {
      const noZone = await full.error('search_events', funk('2026-03-15T00:00:00', '2026-03-20T00:00:00Z'));
      assert.equal(noZone.code, 'window_invalid');
      assert.equal(noZone.field, 'start');
      const backwards = await full.error(
        'search_events',
        funk('2026-03-20T00:00:00Z', '2026-03-20T00:00:00Z'),
      );
      assert.equal(backwards.code, 'window_invalid');
      assert.equal(backwards.field, 'end');
    });
  });

  describe('detail levels: busy placeholders and titles', () => {
    it('searches the placeholder on a busy calendar: "Busy" matches, real words do not', async () => {
      const result = await busy.search({ calendarIds: words(), query: 'busy', ...wordsWeek });
      assertFound(result, [
        '2026-06-01T09:00:00+02:00 Europe/Berlin Busy',
        '2026-06-03T06:00:00+00:00 Etc/UTC Busy',
        '2026-06-04T14:00:00+02:00 Europe/Berlin Busy',
        '2026-06-05T10:00:00+02:00 Europe/Berlin Busy',
        '2026-06-05T16:00:00+02:00 floating Busy',
      ]);
      assert.deepEqual(result.searchedFields, ['title']);
      for (const event of result.termine) assertPlaceholder(event);
      for (const query of ['Müller', 'budget', 'besprechung', 'vertrieb', 'Kesselhaus']) {
        const hidden = await busy.search({ calendarIds: words(), query, ...wordsWeek });
        assertFound(hidden, [], query);
        assert.deepEqual(hidden.searchedFields, ['title']);
      }
    });

    it('shows transparent events as "Free", and "free" finds them', async () => {
      const result = await busy.search({ calendarIds: words(), query: 'FREE', ...wordsWeek });
      assertFound(result, ['2026-06-02T11:00:00+02:00 Europe/Berlin Free', '2026-06-06 floating Free']);
      assert.deepEqual(
        result.termine.map((e) => [e.freeBusyStatus, e.showWithoutTime, e.duration]),
        [
          ['free', false, 'PT1H'],
          ['free', true, 'P1D'],
        ],
      );
      for (const event of result.termine) assertPlaceholder(event);
    });

    it('searches only titles on a titles calendar', async () => {
      const search = (query: string) => titles.search({ calendarIds: words(), query, ...wordsWeek });
      const muller = await search('muller');
      assertFound(muller, [
        '2026-06-01T09:00:00+02:00 Europe/Berlin Besprechung mit Frau Müller',
        '2026-06-02T11:00:00+02:00 Europe/Berlin MULLER quarterly review',
      ]);
      assert.deepEqual(muller.searchedFields, ['title']);
      assert.equal(muller.termine[0]?.description, undefined);
      assert.equal(muller.termine[0]?.keywords, undefined);
      // Full: both events (words in title and description). Titles: each lacks one word.
      assertFound(await search('budget review'), []);
      assertFound(await search('budget'), ['2026-06-04T14:00:00+02:00 Europe/Berlin Budget']);
      assertFound(await search('vertrieb'), []);
      assertFound(await search('quartalsende'), []);
    });

    it('lists every field searched on any requested calendar', async () => {
      const result = await mixed.search({
        calendarIds: [id(home, 'Words'), id(home, 'Werkhaus')],
        query: 'busy',
        ...wordsWeek,
      });
      assert.deepEqual(result.searchedFields, ['title', 'description', 'categories', 'keywords']);
      assert.equal(result.matched, 5);
      assert.ok(result.termine.every((event) => event.calendarId === id(home, 'Words')));
    });
  });

  describe('private events', () => {
    const privateCalendar = () => [id(home, 'Private')];

    it('masks private and confidential events without private details', async () => {
      const search = (query: string) =>
        full.search({ calendarIds: privateCalendar(), query, ...privateWeek });
      // Only the public lunch mentions Müller now; the doctor's appointment is a busy block.
      assertFound(await search('müller'), ['2026-06-10T12:00:00+02:00 Europe/Berlin Team lunch']);
      const blocked = await search('busy');
      assertFound(blocked, ['2026-06-08T08:00:00+02:00 Europe/Berlin Busy']);
      assertPlaceholder(blocked.termine[0]!);
      const free = await search('free');
      assertFound(free, ['2026-06-09T15:00:00+02:00 Europe/Berlin Free']);
      assertPlaceholder(free.termine[0]!);
      for (const query of ['Arzttermin', 'Blutabnahme', 'Bewerbungsgesprach']) {
        assertFound(await search(query), [], query);
      }
    });

    it('keeps them masked when the grant asks for private details but the policy forbids them', async () => {
      const search = (query: string) =>
        privateAsked.search({ calendarIds: privateCalendar(), query, ...privateWeek });
      assertFound(await search('müller'), ['2026-06-10T12:00:00+02:00 Europe/Berlin Team lunch']);
      assertFound(await search('busy'), ['2026-06-08T08:00:00+02:00 Europe/Berlin Busy']);
    });

    it('searches them when the grant has private details and the policy allows them', async () => {
      const calendarIds = [id(open, 'Private')];
      const search = (query: string) => privateAllowed.search({ calendarIds, query, ...privateWeek });
      const muller = await search('müller');
      assertFound(muller, [
        '2026-06-08T08:00:00+02:00 Europe/Berlin Arzttermin Dr. Müller',
        '2026-06-10T12:00:00+02:00 Europe/Berlin Team lunch',
      ]);
      assert.equal(muller.termine[0]?.privacy, 'private');
      assert.equal(muller.termine[0]?.description, 'Blutabnahme');
      const interview = await search('bewerbungsgesprach');
      assertFound(interview, ['2026-06-09T15:00:00+02:00 Europe/Berlin Bewerbungsgespräch']);
      assert.equal(interview.termine[0]?.privacy, 'secret');
      assert.equal(interview.termine[0]?.freeBusyStatus, 'free');
      assertFound(await search('busy'), []);
    });

    it('masks a confidential yearly all-day event as "Free" in a 744 h window over the autumn change', async () => {
      // confidential-yearly-all-day: Oct 21 every year since 1999, CONFIDENTIAL, TRANSPARENT.
      const autumn = { start: '2026-10-10T00:00:00+02:00', end: '2026-11-09T23:00:00+01:00' };
      const masked = await full.search({ calendarIds: privateCalendar(), query: 'free', ...autumn });
      assertFound(masked, ['2026-10-21 floating Free']);
      assert.equal(masked.termine[0]?.showWithoutTime, true);
      assertPlaceholder(masked.termine[0]!);
      const hidden = await full.search({ calendarIds: privateCalendar(), query: 'anniversary', ...autumn });
      assertFound(hidden, []);

      const shown = await privateAllowed.search({
        calendarIds: [id(open, 'Private')],
        query: 'wedding day family',
        ...autumn,
      });
      assertFound(shown, ['2026-10-21 floating Wedding anniversary of Ines and Tomás']);
      assert.deepEqual(shown.termine[0]?.keywords, ['FAMILY', 'WEDDING DAY', 'REMEMBER']);
      assert.equal(shown.termine[0]?.privacy, 'secret');
    });
  });

  describe('all-day and floating times: the zone that places them', () => {
    const unzoned = () => [id(home, 'Unzoned')];

    it('answers time_zone_required without timeZone on a calendar without a zone', async () => {
      const window = { start: '2023-08-12T00:00:00-07:00', end: '2023-08-14T00:00:00-07:00' };
      for (const tool of ['search_events', 'list_events'] as const) {
        const error = await full.error(tool, {
          calendarIds: [...words(), ...unzoned()],
          ...(tool === 'search_events' ? { query: 'cover rota' } : {}),
          ...window,
        });
        assert.equal(error.code, 'time_zone_required', tool);
        // Only the calendar that lacks a zone is named.
        assert.deepEqual(error.calendarIds, unzoned(), tool);
      }
    });

    it('places an all-day event by the timeZone given: in or out of the window', async () => {
      // "Holiday cover rota": every weekday, all day. The window is Sat–Sun in Los Angeles
      // (Aug 12 07:00Z to Aug 14 07:00Z).
      const window = { start: '2023-08-12T00:00:00-07:00', end: '2023-08-14T00:00:00-07:00' };
      const inZone = async (timeZone: string) => {
        const found = await full.search({ calendarIds: unzoned(), query: 'rota COVER', timeZone, ...window });
        const listed = await full.list({ calendarIds: unzoned(), timeZone, ...window });
        assert.deepEqual(lines(found), lines(listed), timeZone);
        return found;
      };
      // Los Angeles: Friday ends and Monday begins exactly at the edges.
      assertFound(await inZone('America/Los_Angeles'), []);
      // Berlin: Monday Aug 14 begins at Aug 13 22:00Z, inside.
      const berlin = await inZone('Europe/Berlin');
      assertFound(berlin, ['2023-08-14 floating Holiday cover rota']);
      assert.deepEqual(
        [berlin.termine[0]?.showWithoutTime, berlin.termine[0]?.duration, berlin.termine[0]?.freeBusyStatus],
        [true, 'P1D', 'free'],
      );
      // Honolulu: Friday Aug 11 lasts until Aug 12 10:00Z, inside.
      assertFound(await inZone('Pacific/Honolulu'), ['2023-08-11 floating Holiday cover rota']);
    });

    it('places a floating event by the timeZone given', async () => {
      // "Choir rehearsal", May 12 2022 19:30–21:15 local, no zone (X-WR-TIMEZONE is not a CalDAV zone).
      const window = { start: '2022-05-12T17:30:00Z', end: '2022-05-12T23:30:00Z' };
      const search = (timeZone: string) =>
        full.search({ calendarIds: unzoned(), query: 'choir', timeZone, ...window });
      // Amsterdam: 17:30Z–19:15Z.
      assertFound(await search('Europe/Amsterdam'), ['2022-05-12T19:30:00+02:00 floating Choir rehearsal']);
      // New York: starts 23:30Z, exactly at the end.
      assertFound(await search('America/New_York'), []);
      // Tokyo: 10:30Z–12:15Z, before the window.
      assertFound(await search('Asia/Tokyo'), []);
    });

    it("places by the calendar's own zone, not the request's, where the calendar has one; shows in the request's", async () => {
      // Floating "Abschluss" 16:00 and all-day "Hoffest" Jun 6, on the Berlin calendar.
      const shown = {
        undefined: '2026-06-05T16:00:00+02:00',
        'America/New_York': '2026-06-05T10:00:00-04:00',
      };
      for (const timeZone of [undefined, 'America/New_York'] as const) {
        const zone = timeZone === undefined ? {} : { timeZone };
        const floating = await full.search({
          calendarIds: words(),
          query: 'abschluss',
          start: '2026-06-05T14:00:00Z',
          end: '2026-06-05T14:00:01Z',
          ...zone,
        });
        assertFound(
          floating,
          [`${shown[String(timeZone) as keyof typeof shown]} floating Abschluss`],
          String(timeZone),
        );
        const allDay = (start: string, end: string) =>
          full.search({ calendarIds: words(), query: 'hoffest', start, end, ...zone });
        assertFound(
          await allDay('2026-06-05T22:00:00Z', '2026-06-05T22:00:01Z'),
          ['2026-06-06 floating Hoffest in der Kastanienallee'],
          String(timeZone),
        );
        assertFound(await allDay('2026-06-06T22:00:00Z', '2026-06-07T04:00:00Z'), []);
      }
    });

    it('gives an all-day event the length of its day: 23 h in spring, 25 h in autumn', async () => {
      const search = (start: string, end: string) =>
        full.search({ calendarIds: words(), query: 'zeitumstellung', start, end });
      // Mar 29 2026 in Berlin: Mar 28 23:00Z to Mar 29 22:00Z.
      const spring = ['2026-03-29 floating Zeitumstellung Frühling'];
      const lastSecond = await search('2026-03-29T21:59:59Z', '2026-03-30T00:00:00Z');
      assertFound(lastSecond, spring);
      assert.deepEqual(
        [lastSecond.termine[0]?.showWithoutTime, lastSecond.termine[0]?.duration],
        [true, 'P1D'],
      );
      assertFound(await search('2026-03-29T22:00:00Z', '2026-03-30T00:00:00Z'), []);
      assertFound(await search('2026-03-28T22:00:00Z', '2026-03-28T23:00:00Z'), []);
      assertFound(await search('2026-03-28T22:00:00Z', '2026-03-28T23:00:01Z'), spring);
      // Oct 25 2026 in Berlin: Oct 24 22:00Z to Oct 25 23:00Z.
      const autumn = ['2026-10-25 floating Zeitumstellung Herbst'];
      assertFound(await search('2026-10-25T22:59:59Z', '2026-10-26T00:00:00Z'), autumn);
      assertFound(await search('2026-10-25T23:00:00Z', '2026-10-26T00:00:00Z'), []);
      assertFound(await search('2026-10-24T21:00:00Z', '2026-10-24T22:00:00Z'), []);
    });

    it('refuses a timeZone that is not an IANA zone', async () => {
      const error = await full.error('search_events', {
        calendarIds: unzoned(),
        query: 'choir',
        timeZone: 'Mars/Olympus_Mons',
        start: '2022-05-12T17:30:00Z',
        end: '2022-05-12T23:30:00Z',
      });
      assert.equal(error.code, 'invalid_time_zone');
      assert.equal(error.field, 'timeZone');
    });
  });

  describe('limit and truncated', () => {
    const standups = (days: number) =>
      Array.from(
        { length: days },
        (_, day) => `2026-07-${String(day + 1).padStart(2, '0')}T09:15:00+02:00 Europe/Berlin Standup`,
      );

    it('returns 25 of 31 matches by default, truncated', async () => {
      const result = await full.search({ calendarIds: words(), query: 'standup', ...july });
      assert.deepEqual(lines(result), standups(25));
      assert.equal(result.matched, 31);
      assert.equal(result.truncated, true);
    });

    it('is not truncated when the limit holds every match, and is at exactly one fewer', async () => {
      for (const [limit, returned, truncated] of [
        [50, 31, false],
        [31, 31, false],
        [30, 30, true],
        [1, 1, true],
      ] as const) {
        const result = await full.search({ calendarIds: words(), query: 'standup', limit, ...july });
        assert.deepEqual(lines(result), standups(returned), `limit ${limit}`);
        assert.equal(result.matched, 31, `limit ${limit}`);
        assert.equal(result.truncated, truncated, `limit ${limit}`);
      }
    });

    it('cuts across calendars in start order', async () => {
      // "Standup retro" (Private) on Jul 15 09:30 comes right after that day's 09:15 stand-up.
      const result = await full.search({
        calendarIds: [id(home, 'Private'), id(home, 'Words')],
        query: 'STANDUP',
        limit: 16,
        ...july,
      });
      assert.deepEqual(lines(result), [
        ...standups(15),
        '2026-07-15T09:30:00+02:00 Europe/Berlin Standup retro',
      ]);
      assert.equal(result.matched, 32);
      assert.equal(result.truncated, true);
    });

    it('counts only matches: a query matching nothing among 31 events', async () => {
      const result = await full.search({ calendarIds: words(), query: 'standup retro', limit: 1, ...july });
      assertFound(result, []);
    });

    it('is truncated when a calendar could not be searched completely, and says which', async () => {
      // 6000 one-minute occurrences in the week; the service expands fewer per event and
      // reports the calendar as incomplete.
      const ticker = id(home, 'Ticker');
      const week = { start: '2026-05-01T00:00:00Z', end: '2026-05-08T00:00:00Z' };
      const { result, note } = await full.searchWithNote({
        calendarIds: [ticker],
        query: 'ticker',
        limit: 3,
        ...week,
      });
      assert.deepEqual(lines(result), [
        '2026-05-01T00:00:00+00:00 Etc/UTC Ticker',
        '2026-05-01T00:01:00+00:00 Etc/UTC Ticker',
        '2026-05-01T00:02:00+00:00 Etc/UTC Ticker',
      ]);
      assert.ok(result.matched > 3 && result.matched < 6000, `matched ${result.matched}`);
      assert.equal(result.truncated, true);
      assert.match(note ?? '', new RegExp(`${ticker} \\(some of its events could not be read\\)`));
      // Nothing found there proves nothing: still truncated, and only that calendar is named.
      const none = await full.searchWithNote({ calendarIds: [...words(), ticker], query: 'müller', ...week });
      assert.deepEqual(none.result.termine, []);
      assert.equal(none.result.matched, 0);
      assert.equal(none.result.truncated, true);
      assert.match(none.note ?? '', new RegExp(ticker));
      assert.doesNotMatch(none.note ?? '', new RegExp(words()[0]!));
      // A complete calendar alone: no note.
      const complete = await full.searchWithNote({ calendarIds: words(), query: 'müller', ...week });
      assert.equal(complete.note, undefined);
      assert.equal(complete.result.truncated, false);
    });

    it('refuses a limit outside 1 to 50', async () => {
      for (const limit of [0, 51, 2.5]) {
        const error = await full.error('search_events', {
          calendarIds: words(),
          query: 'standup',
          limit,
          ...july,
        });
        assert.equal(error.code, 'invalid_request', `limit ${limit}`);
        assert.equal(error.field, 'limit', `limit ${limit}`);
      }
    });
  });
});
