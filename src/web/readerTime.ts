/** Where a signed-in person reading a page is in time: now by the service's clock, and their zone. */
import { personZone } from '../calendars/personZone.ts';
import type { AppContext } from '../context.ts';
import type { ReaderTime } from './when.ts';

export const readerTime = async (ctx: AppContext, userId: string): Promise<ReaderTime> => ({
  now: ctx.clock.now(),
  zone: await personZone(ctx.db, userId),
});
