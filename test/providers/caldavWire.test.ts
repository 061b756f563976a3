/**
 * WebDAV XML as servers write it and as hostile ones might: namespaces by URI whatever the
 * prefix, text as the XML means it, and every document that is not well-formed refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorConditions, parseMultistatus, parseSyncCollection } from '../../src/providers/caldav/wire.ts';

const hrefs = (xml: string) => parseMultistatus(xml).map((response) => response.href);

describe('WebDAV XML', () => {
  it('knows DAV: by its URI under any prefix or as the default namespace', () => {
    const etag = (xml: string) => parseMultistatus(xml)[0]!.props.get('{DAV:}getetag')?.text;
    const upper =
      '<D:multistatus xmlns:D="DAV:"><D:response><D:href>/a.ics</D:href><D:propstat><D:prop><D:getetag>"1"</D:getetag></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response></D:multistatus>';
    const plain =
      '<multistatus xmlns="DAV:"><response><href>/a.ics</href><propstat><prop><getetag>"1"</getetag></prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>';
    assert.equal(etag(upper), '"1"');
    assert.equal(etag(plain), '"1"');
    // The same names in another namespace are not DAV:'s.
    assert.throws(
      () => parseMultistatus(plain.replace('xmlns="DAV:"', 'xmlns="urn:other"')),
      /DAV:multistatus/,
    );
  });

  it('reads text as the XML means it: entities, CDATA, line ends normalised, indentation trimmed', () => {
    const { responses, token } = parseSyncCollection(
      '<?xml version="1.0"?>\r\n<d:multistatus xmlns:d="DAV:">\r\n  <d:response>\r\n    <d:href>\r\n      /a&amp;b&#x41;&#66;.ics\r\n    </d:href>\r\n  </d:response>\r\n  <d:response><d:href><![CDATA[/c<d>.ics]]></d:href></d:response>\r\n  <d:sync-token> http://example.test/sync/1 </d:sync-token>\r\n</d:multistatus>',
    );
    assert.deepEqual(
      responses.map((response) => response.href),
      ['/a&bAB.ics', '/c<d>.ics'],
    );
    assert.equal(token, 'http://example.test/sync/1');
    const data = parseMultistatus(
      '<d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:response><d:href>/a.ics</d:href><d:propstat><d:prop><c:calendar-data>BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n</c:calendar-data></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>',
    )[0]!.props.get('{urn:ietf:params:xml:ns:caldav}calendar-data')?.text;
    assert.equal(data, 'BEGIN:VCALENDAR\nEND:VCALENDAR');
  });

  it('reads an answer with blank lines before its XML declaration, as such servers send it', () => {
    assert.deepEqual(
      hrefs(
        '\r\n\n  <?xml version="1.0" encoding="utf-8"?>\n<d:multistatus xmlns:d="DAV:"><d:response><d:href>/a.ics</d:href></d:response></d:multistatus>',
      ),
      ['/a.ics'],
    );
  });

  it('refuses what is not well-formed: unclosed or crossed elements, two roots, text outside, no root', () => {
    for (const xml of [
      '<d:multistatus xmlns:d="DAV:"><d:response>',
      '<d:multistatus xmlns:d="DAV:"><d:response></d:href></d:multistatus>',
      '<d:multistatus xmlns:d="DAV:"/><d:multistatus xmlns:d="DAV:"/>',
      'Internal Server Error',
      '',
      '<d:multistatus xmlns:d="DAV:"><d:response><d:href>a & b</d:href></d:response></d:multistatus>',
    ])
      assert.throws(() => parseMultistatus(xml), Error, JSON.stringify(xml));
  });

  it('refuses a prefix never declared, and expands no entity a DTD declares', () => {
    assert.throws(() => hrefs('<d:multistatus xmlns:d="DAV:"><x:response/></d:multistatus>'), /prefix/);
    const laughs = [
      '<?xml version="1.0"?>',
      '<!DOCTYPE d:multistatus [',
      '<!ENTITY lol "lol">',
      ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`),
      ']>',
      '<d:multistatus xmlns:d="DAV:"><d:response><d:href>&lol9;</d:href></d:response></d:multistatus>',
    ].join('\n');
    assert.throws(() => hrefs(laughs), /entity/);
    // A DAV:error body that is not XML names no condition (it never throws).
    assert.deepEqual(errorConditions(laughs), []);
  });

  it('refuses XML nested deeper than 100 elements, at the 101st, and reads 100', () => {
    const nested = (depth: number) =>
      `<d:multistatus xmlns:d="DAV:"><d:response><d:href>/deep.ics</d:href></d:response>${'<d:x>'.repeat(depth - 1)}${'</d:x>'.repeat(depth - 1)}</d:multistatus>`;
    assert.deepEqual(hrefs(nested(100)), ['/deep.ics']);
    assert.throws(() => hrefs(nested(101)), /nested deeper than 100/);
    // Deep enough to hold the thread for minutes if it were read (the work grows with depth²).
    assert.throws(() => hrefs(nested(100_000)), /nested deeper than 100/);
  });
});
