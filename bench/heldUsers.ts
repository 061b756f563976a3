/**
 * Run by the multi-user benchmark in a process of its own: the service on the organisation's
 * database (argv[2]: a JSON file saying where, the key its secrets were sealed with, and each
 * member's calendars and tokens), every member read once by search_events and GET /v1/events;
 * prints the process's resident memory in bytes and how many members it read.
 */
import { readFileSync } from 'node:fs';
import { answer } from './measure.ts';
import { eventsCall, type Member, searchCall } from './organisation.ts';
import { calendarCount, madeWhenAsked } from './seed.ts';
import { service } from './service.ts';

export interface HeldUsers {
  databaseUrl?: string;
  sqlitePath?: string;
  secretKey: string;
  members: Member[];
  /** Reading stops after this long: a process that reads too slowly shows how many it read. */
  readForMs: number;
}

if (import.meta.main) {
  const held: HeldUsers = JSON.parse(readFileSync(process.argv[2]!, 'utf8'));
  const { url, close } = await service(
    // The copies are fresh: the provider is there for the service's shape, its events made only if asked.
    { google: madeWhenAsked(calendarCount) },
    {
      ...(held.databaseUrl === undefined ? {} : { databaseUrl: held.databaseUrl }),
      ...(held.sqlitePath === undefined ? {} : { sqlitePath: held.sqlitePath }),
      secretKey: Buffer.from(held.secretKey, 'hex'),
    },
  );
  const until = performance.now() + held.readForMs;
  let read = 0;
  for (const member of held.members) {
    if (performance.now() > until) break;
    await answer('held search_events', searchCall(member), url);
    await answer('held GET /v1/events', eventsCall(member), url);
    read += 1;
  }
  globalThis.gc?.();
  process.stdout.write(`${process.memoryUsage().rss} ${read}\n`);
  await close();
}
