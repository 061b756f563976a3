/**
 * A REPORT answer read whole where the expansion pool runs it: which objects count, their
 * versions and ids, removals, and what is reported skipped.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { calendarLimits, createBudget } from '../../src/domain/budget.ts';
import { readReport } from '../../src/providers/caldav/report.ts';
import { davResponse, multistatus } from '../helpers/davXml.ts';

const server = 'https://dav.example.com';
const calendarUrl = `${server}/calendars/ana/work/`;
const window = {
  start: Temporal.Instant.from('2026-03-01T00:00:00Z'),
  end: Temporal.Instant.from('2026-04-01T00:00:00Z'),
};
const ics = (uid: string) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20260101T000000Z',
    'DTSTART:20260310T100000Z',
    'DURATION:PT1H',
    `SUMMARY:Event ${uid}`,
    'END:VEVENT',
    'END:VCALENDAR',
  ].join('\r\n');
const object = (name: string, etag?: string, data = ics(`uid-${name}`)) =>
  davResponse(
    `/calendars/ana/work/${name}.ics`,
    `${etag === undefined ? '' : `<d:getetag>"${etag}"</d:getetag>`}<c:calendar-data>${data}</c:calendar-data>`,
  );
const gone = (name: string) =>
  `<d:response><d:href>/calendars/ana/work/${name}.ics</d:href><d:status>HTTP/1.1 404 Not Found</d:status></d:response>`;
const keyOf = (name: string) => `${calendarUrl}${name}.ics`;
const read = (xml: string, asked?: { key: string; version?: string }[], within = window) =>
  readReport(
    xml,
    { calendarUrl, base: calendarUrl, window: within, selfAddresses: [], ...(asked && { asked }) },
    createBudget(calendarLimits, () => performance.now()),
  );

describe('a REPORT answer read in the pool', () => {
  const answer = multistatus(
    [
      davResponse('/calendars/ana/work/', '<d:getetag>"collection"</d:getetag>'),
      object('a', 'etag-a'),
      object('b'),
      object('c'),
      gone('d'),
      object('extra', 'etag-extra'),
      object('broken', 'etag-broken', '<p>not iCalendar</p>'.replaceAll('<', '&lt;')),
      davResponse(
        'https://elsewhere.example.org/calendars/ana/work/x.ics',
        `<c:calendar-data>${ics('x')}</c:calendar-data>`,
      ),
    ].join(''),
  );

  it('reads a multiget: only the members asked, 404s as removals, each with its version', () => {
    const result = read(answer, [
      { key: keyOf('a'), version: 'listed-a' },
      { key: keyOf('b'), version: 'listed-b' },
      { key: keyOf('c') },
      { key: keyOf('d') },
      { key: keyOf('broken') },
    ]);
    assert.ok(!('error' in result));
    assert.deepEqual(
      result.objects.map(({ key, version }) => [key, version]),
      [
        // The ETag that came with the data wins over the one listed; without either, the data's hash.
        [keyOf('a'), '"etag-a"'],
        [keyOf('b'), 'listed-b'],
        // (as the XML gives it: line ends normalised), its sha256's first 128 bits
        [
          keyOf('c'),
          createHash('sha256')
            .update(ics('uid-c').replaceAll('\r\n', '\n'))
            .digest()
            .subarray(0, 16)
            .toString('base64url'),
        ],
        [keyOf('broken'), '"etag-broken"'],
      ],
    );
    assert.deepEqual(result.removals, [keyOf('d')]);
    assert.deepEqual(
      result.objects.map((o) => o.occurrences.map((occurrence) => occurrence.providerEventId)),
      [['a.ics#uid-a'], ['b.ics#uid-b'], ['c.ics#uid-c'], []],
    );
    assert.deepEqual(
      result.skipped.map((item) => [item.providerEventId, item.reason.split(':')[0]]),
      [['broken.ics', 'unreadable iCalendar object']],
    );
  });

  it('reads a calendar-query: every object of the calendar, one on another server or without data skipped', () => {
    const result = read(answer);
    assert.ok(!('error' in result));
    assert.deepEqual(
      result.objects.map((o) => o.key),
      [keyOf('a'), keyOf('b'), keyOf('c'), keyOf('extra'), keyOf('broken')],
    );
    assert.deepEqual(result.removals, []);
    assert.deepEqual(
      result.skipped.map((item) => item.reason.split(':')[0]),
      [
        'the server sent no calendar data for it',
        'the server placed it on another server',
        'unreadable iCalendar object',
      ],
    );
  });

  it('keeps only occurrences near the window', () => {
    const result = read(multistatus(object('a', 'etag-a')));
    assert.ok(!('error' in result));
    const outside = read(multistatus(object('a', 'etag-a')), undefined, {
      start: window.end,
      end: window.end.add({ hours: 24 * 30 }),
    });
    assert.ok(!('error' in outside));
    assert.equal(result.objects[0]!.occurrences.length, 1);
    assert.deepEqual(outside.objects[0]!.occurrences, []);
  });

  it('says what is wrong with an answer that is not WebDAV XML, as a value', () => {
    const result = read('<html><body>Welcome</body></html>');
    assert.ok('error' in result, JSON.stringify(result));
  });
});
