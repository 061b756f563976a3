/**
 * delete_event and respond_to_event over real MCP on in-memory calendars: one occurrence, then the
 * series; an invitation answered, the organizer refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { structured, toolError } from '../helpers/mcpSession.ts';
import { seenOf } from '../helpers/seen.ts';
import { writeToolsSuite } from '../helpers/writeToolsSuite.ts';

describe('write tools over MCP', () => {
  const { ana, tokenFor, call, find } = writeToolsSuite();

  describe('delete_event and respond_to_event', () => {
    it('deletes one occurrence, then the series', async () => {
      const [first, second] = await find('Standup');
      const gone = structured(
        await call('delete_event', {
          eventId: second!.eventId,
          occurrenceId: second!.occurrenceId,
          seen: seenOf(second!),
          scope: 'occurrence',
        }),
      );
      assert.deepEqual(gone.deleted, {
        eventId: second!.eventId,
        occurrenceId: second!.occurrenceId,
        scope: 'occurrence',
      });
      assert.deepEqual(
        (await find('Standup')).map((e) => e.occurrenceId),
        [first!.occurrenceId],
      );
      structured(
        await call('delete_event', { eventId: first!.eventId, seen: seenOf(first!), scope: 'series' }),
      );
      assert.equal((await find('Standup')).length, 0);
      assert.equal(
        toolError(
          await call('delete_event', { eventId: first!.eventId, seen: seenOf(first!), scope: 'series' }),
        ).code,
        'not_found',
      );
    });

    it('answers an invitation, and refuses to answer for the organizer', async () => {
      const review = (await find('Review'))[0]!;
      assert.equal(review.canRespond, true);
      const answered = structured(
        await call('respond_to_event', {
          eventId: review.eventId,
          response: 'accepted',
          comment: 'See you there',
        }),
      ).event as Record<string, unknown>;
      assert.equal(answered.responseStatus, 'accepted');
      const planning = (await find('Planning'))[0]!;
      assert.equal(
        toolError(await call('respond_to_event', { eventId: planning.eventId, response: 'declined' })).code,
        'access_denied',
      );
      const noRsvp = await tokenFor(ana, ['calendar:read', 'calendar:write']);
      const hidden = await call(
        'respond_to_event',
        { eventId: review.eventId, response: 'declined' },
        noRsvp,
      ).catch((error: unknown) => error);
      assert.match(String(hidden), /Unknown tool: respond_to_event/);
    });
  });
});
