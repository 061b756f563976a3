/**
 * Which endpoint a request to the fake Google addresses: one place for dispatch and for the
 * request counts that tests read ("no provider request when the copy is fresh").
 */

export type RequestKind =
  | 'authorize'
  | 'token'
  | 'calendarList'
  | 'calendarList.get'
  | 'events.list'
  | 'events.get'
  | 'events.instances'
  | 'write'
  | 'watch'
  | 'stop'
  | 'freeBusy'
  | 'other';

export interface Route {
  kind: RequestKind;
  calendarId?: string;
  eventId?: string;
}

export const apiPrefix = '/calendar/v3';

export function routeOf(method: string, pathname: string): Route {
  if (pathname === '/o/oauth2/v2/auth') return { kind: 'authorize' };
  if (pathname === '/token') return { kind: 'token' };
  if (!pathname.startsWith(`${apiPrefix}/`)) return { kind: 'other' };
  let segments: string[];
  try {
    segments = pathname
      .slice(apiPrefix.length + 1)
      .split('/')
      .map(decodeURIComponent);
  } catch {
    return { kind: 'other' };
  }
  const [first, second, third, fourth, fifth] = segments;
  const get = method === 'GET';
  if (first === 'users' && second === 'me' && third === 'calendarList' && get) {
    if (segments.length === 3) return { kind: 'calendarList' };
    if (segments.length === 4) return { kind: 'calendarList.get', calendarId: fourth };
  }
  if (first === 'freeBusy' && segments.length === 1 && method === 'POST') return { kind: 'freeBusy' };
  if (first === 'channels' && second === 'stop' && segments.length === 2 && method === 'POST')
    return { kind: 'stop' };
  if (first !== 'calendars' || third !== 'events' || segments.length > 5) return { kind: 'other' };
  const calendarId = second ?? '';
  // Event ids are base32hex (`0-9a-v`), so no event is called `watch`.
  if (segments.length === 4 && fourth === 'watch' && method === 'POST') return { kind: 'watch', calendarId };
  if (!get) return segments.length <= 4 ? { kind: 'write', calendarId, eventId: fourth } : { kind: 'other' };
  if (segments.length === 3) return { kind: 'events.list', calendarId };
  if (segments.length === 4) return { kind: 'events.get', calendarId, eventId: fourth };
  if (fifth === 'instances') return { kind: 'events.instances', calendarId, eventId: fourth };
  return { kind: 'other' };
}
