/**
 * Rooms on a CalDAV server: the principals whose CALDAV:calendar-user-type is ROOM (RFC 6638
 * §2.4.2), found by a DAV:principal-property-search (RFC 3744 §9.4) in the collections the user's
 * principal names, with their address and display name. A server that offers no such search
 * (Radicale) lists none; CalDAV says nothing of seats or features.
 */
import type { Room } from '../../domain/rooms.ts';
import { type DavSession, davRequest, multistatus } from './client.ts';
import { addressesOf, principalCollections } from './discovery.ts';
import { ns, propKey } from './wire.ts';

/** Servers name one or two principal collections; more are not searched. */
const maxCollections = 3;

const searchBody = `<?xml version="1.0" encoding="utf-8"?>
<d:principal-property-search xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
  <d:property-search><d:prop><c:calendar-user-type/></d:prop><d:match>ROOM</d:match></d:property-search>
  <d:prop><d:displayname/><c:calendar-user-type/><c:calendar-user-address-set/></d:prop>
</d:principal-property-search>`;

export async function caldavRooms(session: DavSession, accountUrl: URL): Promise<Room[]> {
  const rooms: Room[] = [];
  for (const collection of (await principalCollections(session, accountUrl)).slice(0, maxCollections)) {
    const answer = await davRequest(session, {
      method: 'REPORT',
      url: collection,
      depth: '0',
      body: searchBody,
      what: 'the rooms',
    });
    // Not offered (400, 403, 405, 501…): this server lists no rooms.
    if (answer.status !== 207) continue;
    for (const { props } of multistatus(session, answer, 'the rooms')) {
      // A match is a substring match (RFC 3744 §9.4): only ROOM itself is a room.
      const type = props
        .get(propKey([ns.caldav, 'calendar-user-type']))
        ?.text.trim()
        .toUpperCase();
      const [email] = addressesOf(props.get(propKey([ns.caldav, 'calendar-user-address-set'])));
      if (type !== 'ROOM' || email === undefined) continue;
      const name = props.get(propKey([ns.dav, 'displayname']))?.text.trim();
      rooms.push({ email, name: name || email, features: [] });
    }
  }
  return rooms;
}
