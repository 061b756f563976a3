/**
 * The MCP Apps views in Chromium, hosted by the extension's own host bridge (test/helpers/appHost.ts)
 * and fed real results of the service through the real MCP client: the agenda shows the events
 * day by day with a busy-only calendar's events as "Busy", the free-times view shows busy times
 * and slots, and a slot picked becomes a tools/call of create_event that reaches the calendar.
 * Nothing but the host page and the view's document is ever requested. With SCREENSHOT_DIR set,
 * each view is saved there.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import type { McpUiResourceCsp } from '@modelcontextprotocol/ext-apps';
import type { Browser } from 'playwright-core';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import type { TestApp } from '../helpers/app.ts';
import { type ShownView, showView, type ViewShown } from '../helpers/appHost.ts';
import { chromiumMissing, launchChromium } from '../helpers/browser.ts';
import { type MemoryCalendar, occurrence } from '../helpers/memoryCalendars.ts';
import { berlin, berlinCalendar, mcpClient, mondayAt, startAnaAlone } from '../helpers/schedulingWorld.ts';

const skip = chromiumMissing();
/** Monday to Wednesday, 2 to 4 March 2026; the clock stands on the Sunday before. */
const window = { start: '2026-03-02T00:00:00+01:00', end: '2026-03-05T00:00:00+01:00', timeZone: berlin };

const calendars = new Map<string, MemoryCalendar>([
  [
    'work',
    berlinCalendar('Work', [
      mondayAt('09:00', 'Standup'),
      mondayAt('10:30', 'Planning', { duration: 'PT90M', locations: [{ name: 'Room 4' }] }),
      occurrence({ start: '2026-03-03T13:00:00', timeZone: berlin, status: 'tentative', title: 'Review' }),
    ]),
  ],
  [
    'private',
    berlinCalendar('Private', [
      mondayAt('14:00', 'Secret interview', { duration: 'PT90M', description: 'salary' }),
    ]),
  ],
]);

describe('MCP Apps views in Chromium', { skip }, () => {
  let t: TestApp;
  let browser: Browser;
  let client: Client;
  let work: string;
  let secret: string;
  const pages: ShownView[] = [];

  before(async () => {
    const world = await startAnaAlone(calendars);
    t = world.t;
    [work, secret] = world.calendarIds as [string, string];
    const { userId, workspaceId } = world;
    await savePolicy(
      t.ctx.db,
      workspaceId,
      { ...defaultPolicy, allowedScopes: ['calendar:read', 'calendar:write'] },
      0,
    );
    const calendarsGranted = [
      { calendarId: work, detailLevel: 'full' as const },
      { calendarId: secret, detailLevel: 'busy' as const },
    ];
    client = await mcpClient(
      t,
      { userId, workspaceId, calendars: calendarsGranted, scopes: ['calendar:read', 'calendar:write'] },
      'apps-host-test',
    );
    browser = await launchChromium();
  });
  after(async () => {
    for (const shown of pages) await shown.page.close();
    await browser?.close();
    await client?.close();
    await t?.close();
  });

  const callTool = async (params: { name: string; arguments?: Record<string, unknown> }) =>
    (await client.callTool(params)) as CallToolResult;

  /** The tool called through the service, its view read from it, and shown with its result. */
  async function shown(
    tool: string,
    input: Record<string, unknown>,
    options: { callTool?: ViewShown['callTool'] | null; width?: number } = {},
  ): Promise<ShownView> {
    const listed = (await client.listTools()).tools.find((x) => x.name === tool);
    const uri = (listed!._meta!.ui as { resourceUri: string }).resourceUri;
    const [view] = (await client.readResource({ uri })).contents as unknown as [
      { text: string; _meta: { ui: { csp: McpUiResourceCsp } } },
    ];
    const result = await callTool({ name: tool, arguments: input });
    const host = await showView(browser, {
      html: view.text,
      csp: view._meta.ui.csp,
      input,
      result,
      ...(options.callTool === null ? {} : { callTool: options.callTool ?? callTool }),
      ...(options.width === undefined ? {} : { width: options.width }),
    });
    pages.push(host);
    return host;
  }

  async function screenshot(host: ShownView, name: string) {
    if (process.env.SCREENSHOT_DIR)
      await host.page.locator('iframe').screenshot({ path: `${process.env.SCREENSHOT_DIR}/mcp-${name}.png` });
  }

  const onlyHostAndView = (host: ShownView) =>
    assert.deepEqual([...new Set(host.requests)], ['https://host.test/', 'https://views.test/view']);

  it('shows list_events as an agenda, day by day, a busy-only calendar as Busy', async () => {
    const host = await shown('list_events', { calendarIds: [work, secret], ...window });
    const view = host.view.locator('main');
    await view.getByRole('heading', { name: 'Agenda' }).waitFor();
    assert.deepEqual(await view.getByRole('heading', { level: 2 }).allTextContents(), [
      'Mon 2 Mar',
      'Tue 3 Mar',
    ]);
    const monday = await view.locator('section').first().innerText();
    for (const shownText of [
      '09:00',
      'Standup',
      '10:30',
      '1 h 30 min',
      'Planning',
      'Room 4',
      '14:00',
      'Busy',
    ])
      assert.ok(monday.includes(shownText), `${shownText} in ${monday}`);
    assert.match(await view.locator('section').nth(1).innerText(), /13:00[\s\S]*Review[\s\S]*tentative/);
    const all = await view.innerText();
    assert.doesNotMatch(all, /Secret|salary/);
    await screenshot(host, 'agenda');
    await host.page.setViewportSize({ width: 390, height: 600 });
    await screenshot(host, 'agenda-390');
    await host.bridge.sendHostContextChange({ theme: 'dark' });
    const frame = host.page.frames().find((f) => f.url() === 'https://views.test/view')!;
    await frame.waitForFunction(() => {
      const { document } = globalThis as unknown as {
        document: { documentElement: { style: { colorScheme: string } } };
      };
      return document.documentElement.style.colorScheme === 'dark';
    });
    await screenshot(host, 'agenda-dark');
    onlyHostAndView(host);
  });

  it('shows search_events with its query and count', async () => {
    const host = await shown('search_events', { calendarIds: [work], query: 'planning', ...window });
    const view = host.view.locator('main');
    await view.getByRole('heading', { name: 'Events matching “planning”' }).waitFor();
    assert.match(await view.innerText(), /1 found[\s\S]*Planning/);
    onlyHostAndView(host);
  });

  it('shows get_availability as busy times per day', async () => {
    const host = await shown('get_availability', { calendarIds: [work, secret], ...window });
    const view = host.view.locator('main');
    await view.getByRole('heading', { name: 'Busy times' }).waitFor();
    assert.deepEqual(await view.locator('section').first().locator('li').allTextContents(), [
      'Busy 09:00 – 10:00',
      'Busy 10:30 – 12:00',
      'Busy 14:00 – 15:30',
    ]);
    assert.equal(await view.locator('.bar span').count(), 4);
    await screenshot(host, 'busy');
    onlyHostAndView(host);
  });

  it('turns a slot picked into a create_event call the host makes, which reaches the calendar', async () => {
    const input = { calendarIds: [work, secret], ...window, durationMinutes: 60, limit: 6 };
    const host = await shown('find_meeting_times', input);
    const view = host.view.locator('main');
    await view.getByRole('heading', { name: 'Free slots' }).waitFor();
    const slots = view.getByRole('button', { name: /^\d\d:\d\d – \d\d:\d\d$/ });
    const days = view.locator('section');
    assert.deepEqual(await days.getByRole('heading').allTextContents(), ['Mon 2 Mar', 'Tue 3 Mar']);
    assert.deepEqual(await days.first().getByRole('button').allTextContents(), [
      '12:00 – 13:00',
      '13:00 – 14:00',
      '15:30 – 16:30',
    ]);
    assert.equal(await slots.count(), 6);
    await screenshot(host, 'slots');

    assert.equal(await view.getByLabel('Title').isVisible(), false, 'no form before a slot is picked');
    await slots.first().click();
    assert.equal(await slots.first().getAttribute('aria-pressed'), 'true');
    await view.getByLabel('Title').fill('Coffee with Bo');
    // The view names the calendars by asking list_calendars through the host.
    await view.getByRole('option', { name: 'Work' }).waitFor({ state: 'attached' });
    assert.equal(await view.getByRole('option', { name: 'Private' }).isDisabled(), true, 'busy times only');
    assert.equal(await view.getByLabel('Calendar').inputValue(), work);
    await view.getByRole('button', { name: 'Create event' }).click();
    await view.getByText('Created “Coffee with Bo”, Mon 2 Mar 12:00 – 13:00.').waitFor();
    await screenshot(host, 'slot-created');

    assert.deepEqual(
      host.calls.map((c) => c.name),
      ['list_calendars', 'create_event'],
    );
    const call = host.calls[1] as { name: string; arguments: Record<string, unknown> };
    assert.match(String(call.arguments.idempotencyKey), /^slot-[0-9a-f]{24}$/);
    assert.deepEqual(
      { ...call.arguments, idempotencyKey: undefined },
      {
        calendarId: work,
        title: 'Coffee with Bo',
        start: '2026-03-02T12:00:00+01:00',
        end: '2026-03-02T13:00:00+01:00',
        timeZone: berlin,
        idempotencyKey: undefined,
      },
    );
    const made = calendars.get('work')!.occurrences.filter((o) => o.title === 'Coffee with Bo');
    assert.equal(made.length, 1, 'the event reached the calendar once');
    onlyHostAndView(host);
  });

  it('shows the slots without picking where the host cannot call tools', async () => {
    const host = await shown(
      'find_meeting_times',
      { calendarIds: [work], ...window, durationMinutes: 30, limit: 2 },
      { callTool: null },
    );
    const view = host.view.locator('main');
    await view.getByText('This host cannot create events from here.').waitFor();
    assert.equal(await view.getByRole('button').count(), 0);
    assert.equal(await view.locator('.slots li').count(), 2);
  });

  it('asks for a title, says so when the host does not make the call, and keeps one key per request', async () => {
    const declined = async (): Promise<CallToolResult> => {
      throw new Error('The person said no');
    };
    const input = { calendarIds: [work], ...window, durationMinutes: 30, limit: 1 };
    const host = await shown('find_meeting_times', input, { callTool: declined });
    const view = host.view.locator('main');
    await view.locator('button.slot').first().click();
    await view.getByRole('button', { name: 'Create event' }).click();
    await view.getByText('Give the event a title.').waitFor();
    assert.equal(host.calls.length, 0);
    await view.getByLabel('Title').fill('Lunch');
    await view.getByLabel('Title').press('Enter');
    await view.getByText('The event was not created: The person said no').waitFor();
    assert.equal(host.calls.length, 1);
    // Asked again, the same request carries the same key (never a second event); a changed one another.
    await view.getByRole('button', { name: 'Create event' }).click();
    await view.getByLabel('Title').fill('Lunch with Cy');
    await view.getByRole('button', { name: 'Create event' }).click();
    while (host.calls.length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    const keys = host.calls.map((c) => c.arguments?.idempotencyKey);
    assert.equal(keys.length, 3);
    assert.equal(keys[1], keys[0]);
    assert.notEqual(keys[2], keys[0]);
    assert.equal(calendars.get('work')!.occurrences.filter((o) => o.title === 'Lunch').length, 0);
  });

  it('shows an error result as its message', async () => {
    const host = await shown('list_events', {
      calendarIds: [work],
      start: '2026-03-02T00:00:00+01:00',
      end: 'soon',
    });
    await host.view.getByRole('alert').waitFor();
    assert.match(await host.view.getByRole('alert').innerText(), /end/);
  });
});
