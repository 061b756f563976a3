/**
 * get_event over real MCP on in-memory calendars: each event as list_events shows it, at each level
 * and with the rights of the token; one not_found for every id the calendar does not have.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertMatchesSchema, listToolsRaw, structured, toolError } from '../helpers/mcpSession.ts';
import { allScopes, window, writeToolsSuite } from '../helpers/writeToolsSuite.ts';

describe('write tools over MCP', () => {
  const { app, ana, bob, work, tokenFor, call, listed, find } = writeToolsSuite();

  describe('get_event', () => {
    const get = (calendarId: string, event: Record<string, string>, as = app.token) =>
      call('get_event', { calendarId, eventId: event.eventId!, occurrenceId: event.occurrenceId! }, as);

    it('answers each event as list_events does, at each level and with the rights of the token', async () => {
      for (const [level, scopes] of [
        ['busy', allScopes],
        ['titles', allScopes],
        ['full', allScopes],
        ['full', ['calendar:read']],
      ] as const) {
        const as = await tokenFor(ana, [...scopes], level);
        const events = await listed(as);
        for (const event of events) {
          const answer = structured(await get(ana.work, event, as));
          assert.deepEqual(answer, { ok: true, event }, `${level} ${scopes.join()}: ${event.start}`);
        }
        // Every kind is among them: a private event without its details, a series' second occurrence.
        const doctor = events.find((e) => e.start?.startsWith('2026-03-27T09:00:00'));
        assert.deepEqual([doctor?.title, doctor?.canEdit], ['Busy', false]);
        assert.equal(events.filter((e) => e.eventId === events.at(-1)!.eventId).length, 2);
      }
      const tools = await listToolsRaw(app.mcp, app.token);
      const [planning] = await find('Planning');
      assertMatchesSchema(
        tools.find((tool) => tool.name === 'get_event')!.outputSchema,
        structured(await get(ana.work, planning!)),
      );
    });

    it("gives one not_found for an id of another calendar, a made-up id, another person's event and a deleted one", async () => {
      const [planning] = await find('Planning');
      const [standup] = await find('Standup');
      const made = toolError(await get(ana.work, { eventId: `evt_${'A'.repeat(40)}` }));
      assert.equal(made.code, 'not_found');
      const both = await tokenFor(ana, ['calendar:read']);
      assert.deepEqual(toolError(await get(ana.shared, planning!, both)), made, 'another calendar');
      const bobToken = await tokenFor(bob, ['calendar:read']);
      const bobs = (
        structured(await call('list_events', { calendarIds: [bob.work], ...window }, bobToken))
          .termine as Array<Record<string, string>>
      )[0]!;
      assert.deepEqual(toolError(await get(ana.work, bobs)), made, "another person's");
      assert.deepEqual(
        toolError(await get(ana.work, { eventId: planning!.eventId!, occurrenceId: standup!.occurrenceId! })),
        made,
        'an occurrence of another event',
      );
      work().occurrences = work().occurrences.filter((o) => o.providerEventId !== 'own');
      assert.deepEqual(toolError(await get(ana.work, planning!)), made, 'deleted at the provider');
      assert.equal(toolError(await get(bob.work, bobs)).code, 'calendar_not_permitted');
    });
  });
});
