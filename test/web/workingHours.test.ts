/**
 * The working-hours page: a person sets their own hours (weekdays, start, end, zone), sees them
 * again, removes them; bad input comes back with the error beside its field and nothing saved;
 * a form without the CSRF token is refused; one person's hours are never another's to see or change.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { workingHoursOf } from '../../src/store/workingHours.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { type FormData, PageClient } from '../helpers/pageClient.ts';
import { seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

const path = '/account/working-hours';

describe('working hours page', () => {
  let t: TestApp;
  let ana: PageClient;
  let ben: PageClient;
  let ids: { ana: string; ben: string };
  const stored = async (userId: string) => (await workingHoursOf(t.ctx.db, [userId])).get(userId);

  before(async () => {
    t = await startTestApp();
    ids = {
      ana: await seedUser(t.ctx.db, 'ana@example.org'),
      ben: await seedUser(t.ctx.db, 'ben@example.org'),
    };
    await seedWorkspace(t.ctx.db, 'Team', [
      [ids.ana, 'owner'],
      [ids.ben, 'member'],
    ]);
    ana = new PageClient(t.app);
    await ana.signIn('ana@example.org', testPassword);
    ben = new PageClient(t.app);
    await ben.signIn('ben@example.org', testPassword);
  });
  after(() => t?.close());

  it('is linked from the account page and asks for a sign-in first', async () => {
    assert.match(
      (await ana.get('/account')).body,
      /<a href="\/account\/working-hours">Your working hours<\/a>/,
    );
    const visitor = new PageClient(t.app);
    const answer = await visitor.get(path);
    assert.equal(answer.statusCode, 303);
    assert.match(String(answer.headers.location), /^\/login/);
  });

  it('saves the hours and shows them again', async () => {
    const page = await ana.get(path);
    assert.match(page.body, /None saved yet/);
    const saved = await ana.post(path, {
      days: ['tuesday', 'monday'],
      start: '08:30',
      end: '16:00',
      timeZone: 'America/New_York',
    });
    assert.equal(saved.statusCode, 303);
    assert.equal(saved.headers.location, `${path}?notice=saved`);
    assert.deepEqual(await stored(ids.ana), {
      days: ['monday', 'tuesday'],
      start: '08:30',
      end: '16:00',
      timeZone: 'America/New_York',
    });
    const shown = (await ana.get(saved.headers.location as string)).body;
    assert.match(shown, /Your working hours were saved\./);
    assert.match(shown, /value="monday" checked/);
    assert.match(shown, /value="wednesday">/);
    assert.match(shown, /id="start" name="start" type="time" required value="08:30"/);
    assert.match(shown, /value="America\/New_York"/);
  });

  it('shows a wrong field with its error beside it and saves nothing', async () => {
    const before = await stored(ids.ana);
    const good = { days: ['friday'], start: '09:00', end: '17:00', timeZone: 'Europe/Berlin' };
    const wrong: Array<[FormData, string]> = [
      [{ ...good, days: [] }, 'days'],
      [{ ...good, days: ['funday'] }, 'days'],
      [{ ...good, start: '9am' }, 'start'],
      [{ ...good, end: '25:00' }, 'end'],
      [{ ...good, start: '17:00', end: '09:00' }, 'end'],
      [{ ...good, start: '10:00', end: '10:00' }, 'end'],
      [{ ...good, timeZone: 'Mars/Olympus' }, 'timeZone'],
      [{ ...good, timeZone: '+02:00' }, 'timeZone'],
    ];
    for (const [form, field] of wrong) {
      const answer = await ana.post(path, form);
      assert.equal(answer.statusCode, 400, JSON.stringify(form));
      assert.match(
        answer.body,
        new RegExp(`<p class="field-error" id="${field}-error">`),
        JSON.stringify(form),
      );
      // What was typed is kept.
      if (form.timeZone !== good.timeZone)
        assert.match(answer.body, new RegExp(`value="${String(form.timeZone).replace('+', '\\+')}"`));
    }
    assert.deepEqual(await stored(ids.ana), before);
  });

  it('refuses a form without its CSRF token', async () => {
    const before = await stored(ids.ana);
    const forged = await ana.post(path, {
      _csrf: 'forged',
      days: ['sunday'],
      start: '10:00',
      end: '11:00',
      timeZone: 'UTC',
    });
    assert.equal(forged.statusCode, 403);
    assert.equal((await ana.post(`${path}/clear`, { _csrf: 'forged' })).statusCode, 403);
    assert.deepEqual(await stored(ids.ana), before);
  });

  it("keeps each person's hours their own: another sees and changes only theirs", async () => {
    const page = await ben.get(path);
    assert.match(page.body, /None saved yet/);
    assert.doesNotMatch(page.body, /America\/New_York|08:30/);
    await ben.post(path, { days: 'sunday', start: '10:00', end: '12:00', timeZone: 'Asia/Tokyo' });
    await ben.post(`${path}/clear`, {});
    assert.equal(await stored(ids.ben), undefined);
    assert.equal((await stored(ids.ana))?.timeZone, 'America/New_York');
  });

  it('removes the hours: none known again', async () => {
    await ana.get(path);
    const cleared = await ana.post(`${path}/clear`, {});
    assert.equal(cleared.headers.location, `${path}?notice=cleared`);
    assert.equal(await stored(ids.ana), undefined);
    assert.match((await ana.get(path)).body, /None saved yet/);
  });
});
