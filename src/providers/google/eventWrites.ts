/**
 * The Calendar API v3 writes: events.insert, events.patch and events.delete. Each is sent once;
 * patch and delete are conditional on the etag just read (If-Match). `sendUpdates=all` lets
 * guests hear of a new event or a change as they would from Google's own calendar; `none`
 * keeps a change or a deletion from them.
 */
import type { GuestNotice } from '../../domain/eventChanges.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { calendarPath } from './client.ts';
import { providerName } from './config.ts';
import { googleWriteFailure } from './errors.ts';
import type { GoogleSession, GoogleWrite } from './session.ts';
import type { GoogleEventChanges } from './toWire.ts';
import type { GoogleEvent } from './wire.ts';

export interface GoogleEventWrites {
  /** The event as Google stored it. */
  insert(calendarId: string, event: GoogleEventChanges): Promise<GoogleEvent>;
  patch(
    calendarId: string,
    eventId: string,
    changes: GoogleEventChanges,
    etag: string,
    notice: GuestNotice,
  ): Promise<void>;
  remove(calendarId: string, eventId: string, etag: string, notice: GuestNotice): Promise<void>;
}

const sendUpdates: Record<GuestNotice, string> = { send: 'all', quiet: 'none' };

export function createGoogleEventWrites(
  session: GoogleSession,
  apiBaseUrl: string,
  clock: Clock,
): GoogleEventWrites {
  const urlOf = (calendarId: string, eventId: string | undefined, notice: GuestNotice) => {
    const events = `${apiBaseUrl}${calendarPath(calendarId)}/events`;
    const url = new URL(eventId === undefined ? events : `${events}/${encodeURIComponent(eventId)}`);
    url.searchParams.set('sendUpdates', sendUpdates[notice]);
    return url.href;
  };
  const send = async (write: GoogleWrite): Promise<Response> => {
    const response = await session.write(write);
    if (!response.ok) throw await googleWriteFailure(response, clock.now());
    return response;
  };

  return {
    async insert(calendarId, event) {
      // Version 1 lets an insert ask Google for a new Meet conference (conferenceData.createRequest).
      const url = new URL(urlOf(calendarId, undefined, 'send'));
      url.searchParams.set('conferenceDataVersion', '1');
      const response = await send({ url: url.href, method: 'POST', body: event });
      try {
        return (await response.json()) as GoogleEvent;
      } catch (error) {
        // Made, most likely: the service finds out with findCreated.
        throw new AppError('provider_unavailable', `${providerName} sent an unreadable answer.`, {
          cause: error,
          details: { reason: 'bad_response', status: response.status },
        });
      }
    },
    async patch(calendarId, eventId, changes, etag, notice) {
      const response = await send({
        url: urlOf(calendarId, eventId, notice),
        method: 'PATCH',
        body: changes,
        ifMatch: etag,
      });
      await response.body?.cancel();
    },
    async remove(calendarId, eventId, etag, notice) {
      const response = await send({
        url: urlOf(calendarId, eventId, notice),
        method: 'DELETE',
        ifMatch: etag,
      });
      await response.body?.cancel();
    },
  };
}
