/**
 * JSON Schemas of what the read surfaces answer besides the Event (domain/eventSchema.ts): the
 * calendar list and the event list with their exclusions. Closed objects; the OpenAPI document,
 * the MCP output schemas and the tests all use these.
 */

import { detailLevels } from '../../domain/detailLevels.ts';
import { eventSchema } from '../../domain/eventSchema.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import { exclusionReasons } from './readEvents.ts';

const string = { type: 'string' } as const;
const closed = closedObject;

export const calendarSchema = closed(
  {
    id: string,
    name: string,
    provider: { type: 'string', enum: ['caldav', 'ics', 'google', 'microsoft'] },
    accountId: string,
    primary: {
      type: 'boolean',
      description: "true on the user's one default calendar (on none when it is not shared).",
    },
    readOnly: { type: 'boolean' },
    detailLevel: { type: 'string', enum: detailLevels },
    timeZone: string,
    color: string,
  },
  ['id', 'name', 'provider', 'accountId', 'primary', 'readOnly', 'detailLevel'],
);

export const calendarExclusionSchema = closed(
  {
    reason: { type: 'string', enum: ['not_selected', 'reconnect_required'] },
    count: { type: 'integer', minimum: 1 },
    accountId: string,
  },
  ['reason', 'count'],
);

export const calendarListSchema = closed(
  {
    data: { type: 'array', items: calendarSchema },
    meta: closed({ excluded: { type: 'array', items: calendarExclusionSchema } }, ['excluded']),
  },
  ['data', 'meta'],
);

export const eventExclusionSchema = closed(
  { calendarId: string, reason: { type: 'string', enum: exclusionReasons } },
  ['calendarId', 'reason'],
);

/** A calendar answered from a copy older than the freshness allows: its sync failed just now. */
export const staleCopySchema = closed(
  {
    calendarId: string,
    syncedAt: { type: 'string', description: 'When the copy was last synced: an ISO 8601 instant in UTC.' },
    reason: {
      type: 'string',
      enum: exclusionReasons,
      description:
        'Why the copy is not fresher: its last sync failure, or timeout while a sync is under way.',
    },
  },
  ['calendarId', 'syncedAt', 'reason'],
);

export const eventListSchema = closed(
  {
    data: { type: 'array', items: eventSchema },
    meta: closed(
      {
        excluded: { type: 'array', items: eventExclusionSchema },
        stale: { type: 'array', items: staleCopySchema },
        nextCursor: string,
      },
      ['excluded'],
    ),
  },
  ['data', 'meta'],
);
