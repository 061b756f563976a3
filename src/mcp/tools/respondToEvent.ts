/** `respond_to_event`: the user's answer to an invitation (RSVP), with an optional comment. */

import { respondToEvent as respond } from '../../calendars/writes/changeEvent.ts';
import type { RsvpResponse } from '../../domain/eventChanges.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import type { ToolDefinition } from '../tool.ts';
import {
  addressOf,
  addressSchemas,
  changedEventSchema,
  outcomeRule,
  writeOutcome,
} from './writeArguments.ts';

interface RespondArguments {
  eventId: string;
  occurrenceId?: string;
  scope?: 'occurrence' | 'series';
  response: RsvpResponse;
  comment?: string;
}

export const respondToEvent: ToolDefinition = {
  name: 'respond_to_event',
  title: 'Respond to an invitation',
  description: [
    "Answers an invitation (canRespond true) with the user's answer and an optional comment to the organizer; returns the event as it now is.",
    outcomeRule,
  ].join(' '),
  scopes: ['calendar:rsvp'],
  inputSchema: closedObject(
    {
      ...addressSchemas,
      response: {
        type: 'string',
        enum: ['accepted', 'declined', 'tentative'],
      },
      comment: {
        type: 'string',
        minLength: 1,
        maxLength: 1024,
      },
    },
    ['eventId', 'response'],
  ),
  outputSchema: changedEventSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },

  async run(args: RespondArguments, { principal, calendars }) {
    const result = await respond(calendars, principal, {
      ...addressOf(args),
      response: args.response,
      ...(args.comment === undefined ? {} : { comment: args.comment }),
    });
    return writeOutcome({ ok: true, outcome: result.outcome, event: result.event }, result.confirmedByRead);
  },
};
