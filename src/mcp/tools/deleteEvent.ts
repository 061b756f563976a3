/** `delete_event`: removes an event, one occurrence of it, it and the later ones, or its whole series. */
import { deleteEvent as remove } from '../../calendars/writes/changeEvent.ts';
import { requireSeen, type SeenValues } from '../../domain/seenValues.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import type { ToolDefinition } from '../tool.ts';
import { guestsAnswerSchema, notifyAttendeesSchema, notifyRule } from './guestArguments.ts';
import { addressOf, outcomeRule, seenSchema, splitAddressSchemas, writeOutcome } from './writeArguments.ts';

interface DeleteArguments {
  eventId: string;
  seen: SeenValues;
  occurrenceId?: string;
  scope?: 'occurrence' | 'series' | 'following';
  notifyAttendees?: boolean;
}

export const deleteEvent: ToolDefinition = {
  name: 'delete_event',
  title: 'Delete an event',
  description: [
    'Deletes an event with canEdit true.',
    'Give seen with at least the title and start you read: if the event changed since (there or in any field given), nothing is deleted and the answer is a conflict with it as it now is.',
    'scope "following" (with occurrenceId) ends the series before that occurrence; refused (series_has_exceptions, naming them) while later occurrences were changed or cancelled on their own.',
    'Deleting a series or its following occurrences asks the user first where this client can ask (MCP elicitation); elsewhere it is deleted without asking, so make sure the user wants that. Declined: nothing is deleted (not_confirmed).',
    notifyRule,
    outcomeRule,
  ].join(' '),
  scopes: ['calendar:write'],
  inputSchema: closedObject(
    {
      ...splitAddressSchemas,
      seen: seenSchema,
      notifyAttendees: notifyAttendeesSchema,
    },
    ['eventId', 'seen'],
  ),
  outputSchema: closedObject(
    {
      ok: { type: 'boolean', const: true },
      outcome: { type: 'string', const: 'applied' },
      deleted: closedObject(
        {
          eventId: { type: 'string' },
          occurrenceId: { type: 'string' },
          scope: { type: 'string', enum: ['occurrence', 'series', 'following'] },
        },
        ['eventId'],
      ),
      guests: guestsAnswerSchema,
    },
    ['ok', 'outcome', 'deleted'],
  ),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },

  async run(args: DeleteArguments, { principal, calendars, confirm }) {
    const address = addressOf(args);
    // Before the person is asked: a deletion that would be refused anyway asks nothing.
    requireSeen(args.seen, ['delete']);
    if (args.scope === 'series')
      confirm(
        'Your assistant asks to delete every occurrence of a repeating event in your calendar. Delete the whole series?',
      );
    if (args.scope === 'following')
      confirm(
        'Your assistant asks to delete an occurrence of a repeating event and every later one in your calendar. Delete them?',
      );
    const result = await remove(calendars, principal, {
      ...address,
      seen: args.seen,
      ...(args.notifyAttendees === undefined ? {} : { notifyAttendees: args.notifyAttendees }),
    });
    return writeOutcome(
      {
        ok: true,
        outcome: result.outcome,
        // "following" from the first occurrence removed the whole series: said as such.
        deleted: { ...address, ...(result.scope === undefined ? {} : { scope: result.scope }) },
        ...(result.guests === undefined ? {} : { guests: result.guests }),
      },
      result.confirmedByRead,
    );
  },
};
