/**
 * WebDAV/CalDAV XML: request bodies we send, and a namespace-aware reading of 207 Multi-Status
 * answers. Servers choose their own prefixes (`D:`, `d:`, a default namespace…), so every element
 * is identified by namespace URI + local name, never by its prefix.
 */
import { SaxesParser } from 'saxes';

export const ns = {
  dav: 'DAV:',
  caldav: 'urn:ietf:params:xml:ns:caldav',
  apple: 'http://apple.com/ns/ical/',
  /** CalendarServer's extensions: getctag, the collection's version before RFC 6578. */
  calendarserver: 'http://calendarserver.org/ns/',
} as const;

export interface XmlElement {
  ns: string;
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/** A property name as namespace + local name. */
export type PropName = readonly [namespace: string, name: string];

const prefixes: Record<string, string> = {
  [ns.dav]: 'd',
  [ns.caldav]: 'c',
  [ns.apple]: 'a',
  [ns.calendarserver]: 'cs',
};
const declarations = Object.entries(prefixes)
  .map(([uri, prefix]) => `xmlns:${prefix}="${uri}"`)
  .join(' ');

const qualified = ([namespace, name]: PropName): string => `${prefixes[namespace]}:${name}`;

export function propfindBody(props: readonly PropName[]): string {
  const list = props.map((prop) => `<${qualified(prop)}/>`).join('');
  return `<?xml version="1.0" encoding="utf-8"?>\n<d:propfind ${declarations}><d:prop>${list}</d:prop></d:propfind>`;
}

/** iCalendar UTC form (`20260329T003000Z`) that CalDAV time-range filters require. */
const icalUtc = (instant: Temporal.Instant): string =>
  instant
    .toZonedDateTimeISO('UTC')
    .toPlainDateTime()
    .toString({ smallestUnit: 'second' })
    .replaceAll(/[-:]/g, '')
    .concat('Z');

/** calendar-query for VEVENTs overlapping [start, end), with their ETags and data (RFC 4791 §7.8). */
export function calendarQueryBody(start: Temporal.Instant, end: Temporal.Instant): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<c:calendar-query ${declarations}>` +
    '<d:prop><d:getetag/><c:calendar-data/></d:prop>' +
    '<c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT">' +
    `<c:time-range start="${icalUtc(start)}" end="${icalUtc(end)}"/>` +
    '</c:comp-filter></c:comp-filter></c:filter></c:calendar-query>'
  );
}

/** Text for XML content: hrefs and sync-tokens come from the server and may hold `&` or `<`. */
const escapeXml = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/**
 * RFC 6578 §3.2 sync-collection: the members changed since `token` (every member when empty)
 * with their ETags, one level deep.
 */
export function syncCollectionBody(token: string): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<d:sync-collection ${declarations}>` +
    `<d:sync-token>${escapeXml(token)}</d:sync-token><d:sync-level>1</d:sync-level>` +
    '<d:prop><d:getetag/></d:prop></d:sync-collection>'
  );
}

/** RFC 4791 §7.9 calendar-multiget: these objects (absolute paths) with their ETags and data. */
export function multigetBody(paths: readonly string[]): string {
  const hrefs = paths.map((path) => `<d:href>${escapeXml(path)}</d:href>`).join('');
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<c:calendar-multiget ${declarations}>` +
    `<d:prop><d:getetag/><c:calendar-data/></d:prop>${hrefs}</c:calendar-multiget>`
  );
}

/**
 * WebDAV answers nest a dozen elements at most. The parser resolves each prefix through the
 * elements open around it, so its work grows with the square of the depth: 100,000 nested
 * elements (500 KB) would hold a thread for minutes.
 */
const maxDepth = 100;

/**
 * The document element, namespace-resolved by a strict parser; throws on XML that is not
 * well-formed or namespace-well-formed (an undeclared prefix). No DTD is read: an entity the XML
 * spec does not predefine is an error, never an expansion, and nesting past `maxDepth` is refused.
 * Text is trimmed, as servers indent.
 */
function parseXml(xml: string): XmlElement {
  const parser = new SaxesParser({ xmlns: true, position: false });
  const open: XmlElement[] = [];
  let root: XmlElement | undefined;
  parser.on('opentag', (tag) => {
    if (open.length >= maxDepth) throw new Error(`XML nested deeper than ${maxDepth} elements`);
    const attributes: Record<string, string> = {};
    for (const key in tag.attributes) {
      const attribute = tag.attributes[key]!;
      if (attribute.prefix !== 'xmlns' && attribute.name !== 'xmlns')
        attributes[attribute.local] = attribute.value;
    }
    const element: XmlElement = { ns: tag.uri, name: tag.local, attributes, children: [], text: '' };
    const parent = open.at(-1);
    if (parent === undefined) root = element;
    else parent.children.push(element);
    open.push(element);
  });
  const addText = (text: string) => {
    const element = open.at(-1);
    if (element !== undefined) element.text += text;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const element = open.pop()!;
    element.text = element.text.trim();
  });
  // Servers behind PHP and the like may send a blank line before the XML declaration, which
  // XML allows only at the very start: it is read as if it were not there.
  parser.write(xml.trimStart()).close();
  if (root === undefined) throw new Error('no document element');
  return root;
}

export const child = (element: XmlElement | undefined, namespace: string, name: string) =>
  element?.children.find((c) => c.ns === namespace && c.name === name);

export const children = (element: XmlElement | undefined, namespace: string, name: string) =>
  element?.children.filter((c) => c.ns === namespace && c.name === name) ?? [];

/** `HTTP/1.1 404 Not Found` → 404. */
const statusCode = (element: XmlElement | undefined): number | undefined => {
  const match = element ? /^\S+\s+(\d{3})/.exec(element.text.trim()) : null;
  return match ? Number(match[1]) : undefined;
};

export interface DavResponse {
  /** As the server wrote it (usually an absolute path, percent-encoded). */
  href: string;
  /** A response-level status (e.g. 404 for a member that vanished); absent with propstats. */
  status?: number;
  /** Properties the server returned with 2xx, keyed by `propKey`. */
  props: Map<string, XmlElement>;
}

export const propKey = ([namespace, name]: PropName): string => `{${namespace}}${name}`;

function multistatusRoot(xml: string): XmlElement {
  const root = parseXml(xml);
  if (root.ns !== ns.dav || root.name !== 'multistatus') {
    throw new Error(`expected DAV:multistatus, got {${root.ns}}${root.name}`);
  }
  return root;
}

/** The responses of a 207 Multi-Status body; throws when it is not one. */
export const parseMultistatus = (xml: string): DavResponse[] => responsesOf(multistatusRoot(xml));

/** A sync-collection answer (RFC 6578 §3.2): the responses and the collection's new sync-token. */
export function parseSyncCollection(xml: string): { responses: DavResponse[]; token?: string } {
  const root = multistatusRoot(xml);
  const token = child(root, ns.dav, 'sync-token')?.text.trim() || undefined;
  return { responses: responsesOf(root), ...(token !== undefined && { token }) };
}

/** The preconditions a DAV:error body names (RFC 4918 §16), as propKeys; none when it is not one. */
export function errorConditions(xml: string): string[] {
  try {
    const root = parseXml(xml);
    if (root.ns !== ns.dav || root.name !== 'error') return [];
    return root.children.map((condition) => propKey([condition.ns, condition.name]));
  } catch {
    return [];
  }
}

function responsesOf(root: XmlElement): DavResponse[] {
  return children(root, ns.dav, 'response').map((response) => {
    const props = new Map<string, XmlElement>();
    for (const propstat of children(response, ns.dav, 'propstat')) {
      const status = statusCode(child(propstat, ns.dav, 'status'));
      if (status === undefined || status < 200 || status > 299) continue;
      for (const prop of child(propstat, ns.dav, 'prop')?.children ?? []) {
        props.set(propKey([prop.ns, prop.name]), prop);
      }
    }
    return {
      href: child(response, ns.dav, 'href')?.text.trim() ?? '',
      status: statusCode(child(response, ns.dav, 'status')),
      props,
    };
  });
}

/** The first DAV:href inside a property (current-user-principal, calendar-home-set…). */
export const hrefIn = (prop: XmlElement | undefined): string | undefined =>
  child(prop, ns.dav, 'href')?.text.trim() || undefined;

/** One recipient of a schedule-response (RFC 6638 §10.2): its address, request-status and reply. */
export interface ScheduleReply {
  /** The recipient's href as the server wrote it (`mailto:…`). */
  recipient: string;
  requestStatus: string;
  calendarData: string;
}

/** The recipients of a CALDAV:schedule-response body; throws when it is not one. */
export function parseScheduleResponse(xml: string): ScheduleReply[] {
  const root = parseXml(xml);
  if (root.ns !== ns.caldav || root.name !== 'schedule-response') {
    throw new Error(`expected CALDAV:schedule-response, got {${root.ns}}${root.name}`);
  }
  return children(root, ns.caldav, 'response').map((response) => ({
    recipient: hrefIn(child(response, ns.caldav, 'recipient')) ?? '',
    requestStatus: child(response, ns.caldav, 'request-status')?.text.trim() ?? '',
    calendarData: child(response, ns.caldav, 'calendar-data')?.text ?? '',
  }));
}
