/**
 * Run by `npm run bench` in a process of its own: the service holding 100,000 events in its
 * copies (100 calendars × 1,000, on a database file), every calendar read once so its view
 * is in memory too; prints the process's resident memory in bytes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { grantToken } from '../test/helpers/grantToken.ts';
import { heldCalendars, madeWhenAsked, seedAccount, window } from './seed.ts';
import { service } from './service.ts';

const dir = mkdtempSync(join(tmpdir(), 'bench-held-'));
try {
  const provider = madeWhenAsked(heldCalendars);
  const { ctx, sync, url, close } = await service(
    { google: provider },
    { sqlitePath: join(dir, 'held.sqlite') },
  );
  const owner = await seedAccount(ctx, provider);
  const calendars = owner.calendarIds.map((calendarId) => ({ calendarId, detailLevel: 'full' as const }));
  const token = (await grantToken(ctx, { ...owner, calendars, resource: 'v1' })).token;
  while ((await sync.runDue()) > 0);
  for (let i = 0; i < owner.calendarIds.length; i += 20) {
    const query = new URLSearchParams({
      calendar_id: owner.calendarIds.slice(i, i + 20).join(','),
      ...window,
    });
    const response = await fetch(`${url}/v1/events?${query}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (!response.ok) throw new Error(`held events: ${response.status}`);
    await response.arrayBuffer();
  }
  globalThis.gc?.();
  process.stdout.write(`${process.memoryUsage().rss}\n`);
  await close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
