/** People's working hours on both engines: saved, replaced, read for several people at once, removed, gone with the person. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clearWorkingHours, saveWorkingHours, workingHoursOf } from '../../src/store/workingHours.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { seedUser } from '../helpers/seed.ts';

const berlin = {
  days: ['monday', 'friday'] as const,
  start: '09:00',
  end: '17:30',
  timeZone: 'Europe/Berlin',
};
const tokyo = { days: ['sunday'] as const, start: '00:00', end: '24:00', timeZone: 'Asia/Tokyo' };

for (const engine of await enginesUnderTest()) {
  describe(`working hours on ${engine.name}`, { skip: engine.skip }, () => {
    it('keeps one setting per person, each their own', async () => {
      const handle = await engine.open();
      try {
        const { db } = handle;
        const ana = await seedUser(db, 'ana@example.org');
        const ben = await seedUser(db, 'ben@example.org');
        const cleo = await seedUser(db, 'cleo@example.org');
        assert.deepEqual(await workingHoursOf(db, []), new Map());
        await saveWorkingHours(db, ana, { ...berlin, days: ['monday'] }, 1);
        await saveWorkingHours(db, ana, berlin, 2);
        await saveWorkingHours(db, ben, tokyo, 3);
        assert.deepEqual(
          await workingHoursOf(db, [ana, ben, cleo]),
          new Map([
            [ana, { ...berlin, days: ['monday', 'friday'] }],
            [ben, { ...tokyo, days: ['sunday'] }],
          ]),
        );
        await clearWorkingHours(db, ana);
        assert.deepEqual([...(await workingHoursOf(db, [ana, ben])).keys()], [ben]);
        await db.deleteFrom('users').where('id', '=', ben).execute();
        assert.equal(
          (await db.selectFrom('working_hours').select('user_id').execute()).length,
          0,
          'removed with the person',
        );
      } finally {
        await handle.close();
      }
    });
  });
}
