/** What a read of the seeded calendars (bench/seed.ts) must answer before it is measured. */
import type { Answer } from './measure.ts';
import { toolResult } from './measure.ts';
import { calendarCount, eventsPerCalendar, matchEvery } from './seed.ts';

export const totalMatches = (calendarCount * eventsPerCalendar) / matchEvery;

/** Fails unless the answer is a successful search_events result over every seeded match. */
export function checkSearch(name: string, answer: Answer): void {
  const result = toolResult(answer);
  const structured = result?.structuredContent;
  if (
    result?.isError === true ||
    structured?.ok !== true ||
    !(structured.termine?.length > 0) ||
    structured.matched !== totalMatches ||
    result.content.length !== 1 // a second text is the note about calendars not read
  )
    throw new Error(`${name}: not a complete search result: ${answer.body.slice(0, 500)}`);
}

/** Fails unless the answer is the first full page of events with nothing excluded. */
export function checkEvents(name: string, { body }: Answer): void {
  const page = JSON.parse(body);
  if (page.data?.length !== 250 || page.meta?.excluded?.length !== 0 || page.meta?.nextCursor === undefined)
    throw new Error(`${name}: not a full first page: ${body.slice(0, 500)}`);
}
