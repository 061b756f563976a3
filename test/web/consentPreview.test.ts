/**
 * The consent page's preview without JavaScript: Preview re-renders consent with the calendars
 * and levels chosen kept, and beside them the next seven days as the app would read them at those
 * levels (through the read service: busy blocks, titles and times, full details).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { memoryProvider, occurrence, seedMemoryAccount } from '../helpers/memoryCalendars.ts';
import {
  authorizationUrl,
  consentAction,
  discover,
  type OAuthHarness,
  reachConsent,
  registerClient,
} from '../helpers/oauth.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

describe('consent preview', () => {
  let t: TestApp;
  let h: OAuthHarness;
  let work: string;
  let family: string;
  /** Another member's calendar, in the same workspace. */
  let bens: string;
  const browser = { current: undefined as unknown as PageClient };

  // The test clock starts at 2026-03-29T00:30Z: 02:30 in Berlin, on the night clocks go forward.
  const provider = memoryProvider(
    'google',
    new Map([
      [
        'work',
        {
          name: 'Work',
          timeZone: 'Europe/Berlin',
          occurrences: [
            occurrence({
              start: '2026-03-30T10:00:00',
              timeZone: 'Europe/Berlin',
              title: 'Budget review',
              locations: [{ name: 'Room 4' }],
              description: 'Bring the Q2 numbers\nand the rest',
            }),
            occurrence({ start: '2026-04-10T10:00:00', timeZone: 'Europe/Berlin', title: 'Beyond the week' }),
          ],
        },
      ],
      [
        'family',
        {
          name: 'Family',
          timeZone: 'Europe/Berlin',
          occurrences: [
            occurrence({ start: '2026-04-01T18:00:00', timeZone: 'Europe/Berlin', title: 'Choir' }),
          ],
        },
      ],
    ]),
  );

  before(async () => {
    t = await startTestApp({ listen: true, providers: { google: provider } });
    const userId = await seedUser(t.ctx.db, 'ana@example.org');
    const ben = await seedUser(t.ctx.db, 'ben@example.org');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Acme', [
      [userId, 'owner'],
      [ben, 'member'],
    ]);
    [work, family] = (await seedMemoryAccount(t.ctx, { userId, workspaceId }, provider)) as [string, string];
    [bens] = (await seedMemoryAccount(t.ctx, { userId: ben, workspaceId }, provider, ['work'])) as [string];
    h = await discover(t);
    browser.current = new PageClient(t.app);
  });
  after(() => t.close());

  /** A new authorization's consent page: its body and the preview address. */
  async function consentPage() {
    const attempt = await authorizationUrl(h, await registerClient(h, { client_name: 'Planner' }));
    const step = await reachConsent(t, browser.current, 'ana@example.org', attempt);
    const action = consentAction(step.page.body);
    const workspace = /name="workspace" value="([^"]+)"/.exec(step.page.body)![1]!;
    return { body: step.page.body, preview: action.replace(/\/consent$/, '/preview'), workspace };
  }

  const panel = (body: string) => /<section class="preview"[\s\S]*?<\/section>/.exec(body)?.[0] ?? '';
  const text = (html: string) =>
    html
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();

  it('offers Allow first and primary, Deny and Preview secondary; nothing read before a calendar is ticked', async () => {
    const { body } = await consentPage();
    assert.match(
      body,
      /<button type="submit" class="primary" form="consent">Allow<\/button>\s*<button type="submit" class="secondary" form="deny">Deny<\/button>\s*<button type="submit" form="consent" formaction="[^"]+\/preview">Preview<\/button>/,
    );
    assert.match(body, /<script src="\/consent-preview.js" defer><\/script>/);
    assert.match(panel(body), /<h2 id="preview-title">What Planner will see<\/h2>/);
    assert.match(
      text(panel(body)),
      /Tick a calendar and choose its detail level: your next seven days appear here as Planner would see them/,
    );
  });

  it('shows busy blocks, then titles and times, then full details as the level is raised, the choice kept', async () => {
    const { preview, workspace } = await consentPage();
    const at = async (level: string) => {
      const page = await browser.current.post(preview, {
        workspace,
        calendar: [work],
        [`level_${work}`]: level,
      });
      assert.equal(page.statusCode, 200);
      assert.match(
        page.body,
        new RegExp(`<input type="checkbox" id="cal-${work}" name="calendar" value="${work}" checked>`),
      );
      assert.match(page.body, new RegExp(`<option value="${level}" selected>`));
      return text(panel(page.body));
    };
    const busy = await at('busy');
    assert.match(busy, /Mon 30 Mar 10:00–11:00 Busy$/);
    assert.doesNotMatch(busy, /Budget review/);
    assert.doesNotMatch(busy, /Beyond the week/, 'only the next seven days');
    assert.match(busy, /times in Europe\/Berlin/);

    const titles = await at('titles');
    assert.match(titles, /Mon 30 Mar 10:00–11:00 Budget review · Room 4$/);
    assert.doesNotMatch(titles, /Q2/, 'descriptions are full details');

    assert.match(await at('full'), /10:00–11:00 Budget review · Room 4 · Bring the Q2 numbers$/);
  });

  it('reads each ticked calendar at its own level, in one time order', async () => {
    const { preview, workspace } = await consentPage();
    const page = await browser.current.post(preview, {
      workspace,
      calendar: [work, family],
      [`level_${work}`]: 'titles',
      [`level_${family}`]: 'busy',
    });
    const shown = text(panel(page.body));
    assert.match(shown, /Budget review · Room 4 \(Work\) Wed 1 Apr 18:00–19:00 Busy \(Family\)/);
    assert.doesNotMatch(shown, /Choir/);
  });

  it('refuses a level that is not offered, next to nothing read', async () => {
    const { preview, workspace } = await consentPage();
    const page = await browser.current.post(preview, {
      workspace,
      calendar: [work],
      [`level_${work}`]: 'everything',
    });
    assert.equal(page.statusCode, 400);
    // Beside the level it concerns, which is focused; nothing above the page.
    assert.match(
      page.body,
      new RegExp(
        `<select id="level-${work}" name="level_${work}" aria-invalid="true" aria-describedby="level-${work}-error" autofocus>[\\s\\S]*?</select><p class="field-error" id="level-${work}-error">Choose one of the detail levels offered for this calendar`,
      ),
    );
    assert.doesNotMatch(page.body, /role="alert"/);
    assert.doesNotMatch(panel(page.body), /Budget review|Busy/);
  });

  it('says beside the calendars that one must be chosen, when Allow comes with none', async () => {
    const { preview, workspace } = await consentPage();
    const page = await browser.current.post(preview.replace(/\/preview$/, '/consent'), { workspace });
    assert.equal(page.statusCode, 400);
    assert.match(
      page.body,
      /<fieldset aria-describedby="calendars-error"><legend>Calendars it may see<\/legend>\s*<p class="field-error" id="calendars-error">Choose at least one calendar\.<\/p>/,
    );
  });

  it("never reads another person's calendar: refused like any calendar not offered", async () => {
    const { preview, workspace } = await consentPage();
    const page = await browser.current.post(preview, {
      workspace,
      calendar: [bens],
      [`level_${bens}`]: 'titles',
    });
    assert.equal(page.statusCode, 403);
    assert.doesNotMatch(page.body, /Budget review/);
  });

  it('serves its script from the site itself', async () => {
    const script = await new PageClient(t.app).get('/consent-preview.js');
    assert.equal(script.statusCode, 200);
    assert.match(String(script.headers['content-type']), /^text\/javascript/);
    assert.match(script.body, /data-preview/);
  });
});
