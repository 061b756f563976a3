/**
 * The one JSON Schema of the Event, closed at every level. MCP output schemas, the OpenAPI
 * document and the tests all use this object.
 */

import { closedObject } from '../lib/jsonSchema.ts';
import {
  alertActions,
  editBlockedReasons,
  eventStatuses,
  freeBusyStatuses,
  privacies,
  responseStatuses,
  workingLocationTypes,
} from './event.ts';

const string = { type: 'string' } as const;
const stringArray = { type: 'array', items: string } as const;
const closed = closedObject;

export const locationSchema = closed({ name: string, description: string, coordinates: string }, ['name']);
export const virtualLocationSchema = closed({ name: string, uri: string }, ['uri']);
export const linkSchema = closed({ href: string, title: string, rel: string }, ['href']);
export const alertSchema = closed({ offset: string, action: { type: 'string', enum: alertActions } }, [
  'offset',
]);
export const workingLocationSchema = closed(
  { type: { type: 'string', enum: workingLocationTypes }, label: string },
  ['type'],
);

export const eventSchema = closed(
  {
    eventId: string,
    calendarId: string,
    occurrenceId: string,
    title: string,
    description: string,
    locations: { type: 'array', items: locationSchema },
    virtualLocations: { type: 'array', items: virtualLocationSchema },
    links: { type: 'array', items: linkSchema },
    categories: stringArray,
    keywords: stringArray,
    color: string,
    // A date (all-day), else RFC 3339 with an offset; a floating time no zone places, without one.
    start: { type: 'string', pattern: '^[\\d-]{10}(T[\\d:]{8}(Z|[+-][\\d:]{5})?)?$' },
    timeZone: string,
    duration: { type: 'string', pattern: '^P(?!$)(\\d+W)?(\\d+D)?(T(?=\\d)(\\d+H)?(\\d+M)?(\\d+S)?)?$' },
    showWithoutTime: { type: 'boolean' },
    status: { type: 'string', enum: eventStatuses },
    freeBusyStatus: { type: 'string', enum: freeBusyStatuses },
    canRespond: { type: 'boolean' },
    canEdit: { type: 'boolean' },
    editBlockedReason: { type: 'string', enum: editBlockedReasons },
    responseStatus: { type: 'string', enum: responseStatuses },
    privacy: { type: 'string', enum: privacies },
    alerts: { type: 'array', items: alertSchema },
    workingLocation: workingLocationSchema,
  },
  [
    'eventId',
    'calendarId',
    'occurrenceId',
    'title',
    'start',
    'duration',
    'showWithoutTime',
    'status',
    'freeBusyStatus',
    'canRespond',
    'canEdit',
  ],
);
