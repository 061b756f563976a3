/**
 * `canEdit` and `canRespond` as the client may act on them: what the provider allows (already on
 * the event), narrowed by the token's effective scopes, which already include the workspace
 * policy. A client that may not write sees why: `access_denied`. Pure.
 */
import type { Event } from '../domain/event.ts';
import type { Scope } from './workspacePolicy.ts';

export function narrowRights(event: Event, scopes: readonly Scope[]): Event {
  const canWrite = scopes.includes('calendar:write');
  const canRsvp = scopes.includes('calendar:rsvp');
  if ((canWrite || !event.canEdit) && (canRsvp || !event.canRespond)) return event;
  return {
    ...event,
    canEdit: canWrite && event.canEdit,
    canRespond: canRsvp && event.canRespond,
    ...(canWrite ? {} : { editBlockedReason: event.editBlockedReason ?? 'access_denied' }),
  };
}
