/** How scopes and detail levels read to people, on every page that shows them. */

import { atLeast, type DetailLevel, detailLevels } from '../domain/detailLevels.ts';
import { type ContentField, contentFields, guestsLevel, shows } from '../domain/visibility.ts';
import type { Scope } from '../policy/workspacePolicy.ts';

export const scopeWords: Record<Scope, string> = {
  'calendar:read': 'Read calendars and events',
  'calendar:write': 'Create, change and delete events',
  'calendar:rsvp': 'Respond to invitations',
  'calendar:rooms': "Find and book the workspace's rooms",
};

export const detailWords: Record<DetailLevel, string> = {
  full: 'Full details',
  titles: 'Titles and times',
  busy: 'Busy/free only',
};

/** An event's content fields as people call them (which level shows which: domain/visibility.ts). */
const contentFieldWords: Record<ContentField, string> = {
  title: 'title',
  locations: 'locations (such as addresses)',
  workingLocation: 'working location',
  responseStatus: 'your answer to an invitation',
  description: 'description',
  virtualLocations: 'video-call links',
  links: 'links and attachments',
  categories: 'categories',
  keywords: 'keywords',
  color: 'colour',
  privacy: 'whether it is private',
  alerts: 'reminders',
};

/** Exactly what each level shares of an event, least first, in words from the one table. */
export const levelShares = (): Array<{ level: DetailLevel; shares: string }> =>
  detailLevels.map((level) => {
    const parts = ['when it is, busy or free, and its status'];
    if (level === 'busy') parts.push('a title of “Busy” or “Free” only');
    for (const field of Object.keys(contentFields) as ContentField[])
      if (shows(level, field)) parts.push(contentFieldWords[field]);
    if (atLeast(level, guestsLevel)) parts.push('organiser and guests');
    return { level, shares: parts.join(', ') };
  });
