/** How scopes and detail levels read to people, on every page that shows them. */

import type { DetailLevel } from '../domain/detailLevels.ts';
import type { Scope } from '../policy/workspacePolicy.ts';

export const scopeWords: Record<Scope, string> = {
  'calendar:read': 'Read calendars and events',
  'calendar:write': 'Create, change and delete events',
  'calendar:rsvp': 'Respond to invitations',
};

export const detailWords: Record<DetailLevel, string> = {
  full: 'Full details',
  titles: 'Titles and times',
  busy: 'Busy/free only',
};
