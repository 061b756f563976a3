/**
 * /v1/openapi.json: an OpenAPI 3.1 document that describes exactly the read interface, whose
 * schemas the real responses (successes and problems) validate against, and that Redocly's
 * recommended rules pass without a warning (offline).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { calendarListSchema } from '../../src/calendars/reads/schemas.ts';
import { eventSchema } from '../../src/domain/eventSchema.ts';
import { AppError, errorCatalogue } from '../../src/errors.ts';
import { setAccountStatus } from '../../src/store/connectedAccounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import {
  type MemoryCalendar,
  memoryProvider,
  occurrence,
  seedMemoryAccount,
} from '../helpers/memoryCalendars.ts';
import { getEvents, type QueryPairs, type RestResponse, restRequest } from '../helpers/restClient.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const run = promisify(execFile);
const baseUrl = 'https://calendar.acme.test';
const inWindow: QueryPairs = [
  ['start', '2026-03-02T00:00:00Z'],
  ['end', '2026-03-09T00:00:00Z'],
];

// biome-ignore lint/suspicious/noExplicitAny: the served document is read as plain JSON.
type Json = any;

const google = new Map<string, MemoryCalendar>([
  [
    'full',
    {
      name: 'Full',
      timeZone: 'Europe/Berlin',
      occurrences: [
        occurrence({
          start: '2026-03-02T09:00:00',
          timeZone: 'Europe/Berlin',
          title: 'Everything',
          description: 'All fields',
          locations: [{ name: 'Room', description: 'Floor 2', coordinates: 'geo:1,2' }],
          virtualLocations: [{ uri: 'https://meet.example/x' }],
          links: [{ href: 'https://docs.example/x', rel: 'related' }],
          categories: ['A'],
          keywords: ['B'],
          color: '#000000',
          privacy: 'public',
          responseStatus: 'accepted',
          alerts: [{ offset: '-PT10M', action: 'email' }, { offset: 'PT0S' }],
          workingLocation: { type: 'custom', label: 'Lab' },
        }),
        occurrence({
          start: '2026-03-03T00:00:00',
          duration: 'P1D',
          showWithoutTime: true,
          title: 'All day',
        }),
        occurrence({
          start: '2026-03-04T10:00:00',
          timeZone: 'Europe/Berlin',
          title: 'Third',
          status: 'tentative',
        }),
      ],
    },
  ],
  [
    'busy',
    {
      name: 'Busy',
      timeZone: 'Etc/UTC',
      access: 'freeBusy',
      occurrences: [occurrence({ start: '2026-03-02T10:00:00', timeZone: 'Etc/UTC', title: 'Hidden' })],
    },
  ],
  [
    'down',
    {
      name: 'Down',
      timeZone: 'Etc/UTC',
      occurrences: [],
      failure: new AppError('provider_unavailable', 'down'),
    },
  ],
  ['partial', { name: 'Partial', timeZone: 'Etc/UTC', occurrences: [], skipped: [{ reason: 'unreadable' }] }],
  ['unchosen', { name: 'Unchosen', timeZone: 'Etc/UTC', occurrences: [] }],
]);

const dav = new Map<string, MemoryCalendar>([['zoneless', { name: 'Zoneless', occurrences: [] }]]);

describe('the OpenAPI document', () => {
  let t: TestApp;
  let document: Json;
  let served: RestResponse;
  const cal: Record<string, string> = {};
  let token: string;
  let mcpToken: string;
  let scopelessToken: string;
  let davAccount: string;
  const ajv = new Ajv2020({ strict: true, allErrors: true });

  /** A validator for `#/components/schemas/…` with every component reachable as `#/$defs/…`. */
  function validatorFor(ref: string) {
    const defs = JSON.parse(
      JSON.stringify(document.components.schemas).replaceAll('"#/components/schemas/', '"#/$defs/'),
    );
    return ajv.compile({ $defs: defs, $ref: ref.replace('#/components/schemas/', '#/$defs/') });
  }

  const schemaErrors = (ref: string, value: unknown): string | undefined => {
    const validate = validatorFor(ref);
    return validate(value) ? undefined : ajv.errorsText(validate.errors);
  };

  /** The response is documented for this operation, with its media type, and its body fits the schema. */
  function assertDocumented(path: '/calendars' | '/events', response: RestResponse): void {
    const responses = document.paths[path].get.responses;
    const documented = responses[String(response.status)];
    assert.ok(documented, `${path} does not document status ${response.status}`);
    const mediaType = response.contentType.split(';')[0]!;
    const content = documented.content[mediaType];
    assert.ok(content, `${path} ${response.status} does not document ${mediaType}`);
    assert.equal(schemaErrors(content.schema.$ref, response.body), undefined, JSON.stringify(response.body));
  }

  before(async () => {
    t = await startTestApp({
      env: { BASE_URL: baseUrl },
      providers: { google: memoryProvider('google', google), caldav: memoryProvider('caldav', dav) },
    });
    const userId = await seedUser(t.ctx.db, 'ana@example.org');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Acme', [[userId, 'owner']]);
    const owner = { userId, workspaceId };
    const googleIds = await seedMemoryAccount(t.ctx, owner, memoryProvider('google', google));
    [...google.keys()].forEach((key, i) => {
      cal[key] = googleIds[i]!;
    });
    cal.zoneless = (await seedMemoryAccount(t.ctx, owner, memoryProvider('caldav', dav)))[0]!;
    davAccount = (await t.ctx.db
      .selectFrom('calendars')
      .select('account_id')
      .where('id', '=', cal.zoneless!)
      .executeTakeFirstOrThrow())!.account_id;
    const calendars = ['full', 'busy', 'down', 'partial', 'zoneless'].map((key) => ({
      calendarId: cal[key]!,
      detailLevel: 'full' as const,
    }));
    const spec = { userId, workspaceId, calendars, resource: 'v1' as const };
    ({ token } = await grantToken(t.ctx, spec));
    ({ token: mcpToken } = await grantToken(t.ctx, { ...spec, resource: 'mcp' }));
    ({ token: scopelessToken } = await grantToken(t.ctx, { ...spec, scopes: [] }));
    served = await restRequest(t.app, { url: '/v1/openapi.json' });
    document = served.body;
  });

  after(() => t.close());

  describe('document', () => {
    it('is served without a token as JSON, readable from any origin', () => {
      assert.equal(served.status, 200);
      assert.match(served.contentType, /^application\/json/);
      assert.equal(served.headers['access-control-allow-origin'], '*');
    });

    it('is OpenAPI 3.1 for this deployment’s /v1 with OAuth 2 (authorization code) and calendar:read', () => {
      assert.equal(document.openapi, '3.1.0');
      assert.deepEqual(document.servers, [{ url: `${baseUrl}/v1` }]);
      assert.deepEqual(document.security, [{ oauth2: ['calendar:read'] }]);
      const scheme = document.components.securitySchemes.oauth2;
      assert.equal(scheme.type, 'oauth2');
      assert.deepEqual(Object.keys(scheme.flows), ['authorizationCode']);
      assert.equal(scheme.flows.authorizationCode.authorizationUrl, `${baseUrl}/api/auth/auth`);
      assert.equal(scheme.flows.authorizationCode.tokenUrl, `${baseUrl}/api/auth/token`);
      assert.deepEqual(Object.keys(scheme.flows.authorizationCode.scopes), ['calendar:read']);
    });

    it('describes GET /calendars and GET /events and nothing else (no writes, no availability)', () => {
      assert.deepEqual(Object.keys(document.paths).sort(), ['/calendars', '/events']);
      for (const item of Object.values(document.paths) as Json[])
        assert.deepEqual(Object.keys(item), ['get']);
      assert.doesNotMatch(JSON.stringify(document.paths), /"(post|put|patch|delete)"/);
    });

    it('documents the query of /events with the bounds the server enforces', () => {
      const parameters = document.paths['/events'].get.parameters as Json[];
      assert.deepEqual(
        parameters.map((p) => [p.name, p.in, p.required]),
        [
          ['calendar_id', 'query', true],
          ['start', 'query', true],
          ['end', 'query', true],
          ['time_zone', 'query', false],
          ['limit', 'query', false],
          ['cursor', 'query', false],
        ],
      );
      const byName = new Map(parameters.map((p) => [p.name, p]));
      assert.deepEqual(byName.get('calendar_id').schema, {
        type: 'array',
        minItems: 1,
        maxItems: 20,
        items: { type: 'string' },
      });
      assert.equal(byName.get('calendar_id').style, 'form');
      assert.equal(byName.get('calendar_id').explode, true);
      assert.deepEqual(byName.get('start').schema, { type: 'string', format: 'date-time' });
      assert.deepEqual(byName.get('end').schema, { type: 'string', format: 'date-time' });
      assert.deepEqual(byName.get('time_zone').schema, { type: 'string', minLength: 1, maxLength: 128 });
      assert.deepEqual(byName.get('limit').schema, {
        type: 'integer',
        minimum: 1,
        maximum: 1000,
        default: 250,
      });
      assert.match(document.paths['/events'].get.description, /744 elapsed hours/);
    });

    it('uses the one Event schema of the service, and the one calendar list schema', () => {
      assert.deepEqual(document.components.schemas.Event, JSON.parse(JSON.stringify(eventSchema)));
      assert.deepEqual(
        document.components.schemas.CalendarList,
        JSON.parse(JSON.stringify(calendarListSchema)),
      );
      assert.deepEqual(document.components.schemas.EventList.properties.data, {
        type: 'array',
        items: { $ref: '#/components/schemas/Event' },
      });
      assert.deepEqual(document.components.schemas.Problem.properties.code.enum, Object.keys(errorCatalogue));
    });

    it('has every $ref resolvable inside the document', () => {
      const refs = [...JSON.stringify(document).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
      assert.ok(refs.length >= 10);
      for (const ref of refs) {
        assert.match(ref, /^#\/components\/schemas\/[A-Za-z]+$/);
        assert.ok(document.components.schemas[ref.split('/').at(-1)!], ref);
      }
    });

    it('compiles every component schema as JSON Schema 2020-12 in strict mode', () => {
      for (const name of Object.keys(document.components.schemas)) {
        assert.doesNotThrow(() => validatorFor(`#/components/schemas/${name}`), name);
      }
    });
  });

  describe('schemas against bad values (so that the response checks can fail)', () => {
    const event = {
      eventId: 'evt_1',
      calendarId: 'cal_1',
      occurrenceId: 'occ_1',
      title: 'x',
      start: '2026-03-02T09:00:00+01:00',
      duration: 'PT1H',
      showWithoutTime: false,
      status: 'confirmed',
      freeBusyStatus: 'busy',
      canRespond: false,
      canEdit: false,
    };
    const list = (data: unknown[], meta: object = { excluded: [] }) => ({ data, meta });
    const cases: Array<[string, string, unknown, boolean]> = [
      ['a minimal event', 'EventList', list([event]), true],
      ['an event with an extra property', 'EventList', list([{ ...event, organizer: 'x' }]), false],
      [
        'an event without canEdit',
        'EventList',
        list([{ ...event, canEdit: undefined }].map((e) => JSON.parse(JSON.stringify(e)))),
        false,
      ],
      [
        'an event starting with an offset',
        'EventList',
        list([{ ...event, start: '2026-03-02T09:00:00Z' }]),
        true,
      ],
      ['an all-day event starting on a date', 'EventList', list([{ ...event, start: '2026-03-02' }]), true],
      [
        'an event with a start in another format',
        'EventList',
        list([{ ...event, start: '2026-03-02 09:00' }]),
        false,
      ],
      ['an unknown status', 'EventList', list([{ ...event, status: 'done' }]), false],
      [
        'a location with an extra property',
        'EventList',
        list([{ ...event, locations: [{ name: 'a', x: 1 }] }]),
        false,
      ],
      ['meta without excluded', 'EventList', list([], {}), false],
      [
        'an unknown exclusion reason',
        'EventList',
        list([], { excluded: [{ calendarId: 'c', reason: 'exploded' }] }),
        false,
      ],
      ['an extra member in meta', 'EventList', list([], { excluded: [], total: 1 }), false],
      ['a numeric nextCursor', 'EventList', list([], { excluded: [], nextCursor: 1 }), false],
      ['an empty calendar list', 'CalendarList', { data: [], meta: { excluded: [] } }, true],
      [
        'a calendar without provider',
        'CalendarList',
        { data: [{ id: 'c', name: 'n' }], meta: { excluded: [] } },
        false,
      ],
      [
        'a problem',
        'Problem',
        { type: 'about:blank', title: 'Bad Request', status: 400, code: 'invalid_request', detail: 'x' },
        true,
      ],
      [
        'a problem with an unknown code',
        'Problem',
        { type: 'about:blank', title: 'x', status: 400, code: 'oops', detail: 'x' },
        false,
      ],
      [
        'a problem without code',
        'Problem',
        { type: 'about:blank', title: 'x', status: 400, detail: 'x' },
        false,
      ],
    ];
    for (const [what, name, value, valid] of cases) {
      it(`${valid ? 'accepts' : 'rejects'} ${what}`, () => {
        assert.equal(schemaErrors(`#/components/schemas/${name}`, value) === undefined, valid);
      });
    }
  });

  describe('responses validate against the document', () => {
    it('GET /calendars with exclusions (not selected, reconnect required)', async () => {
      await setAccountStatus(t.ctx.db, davAccount, 'reconnect_required', 'test', 0);
      try {
        const response = await restRequest(t.app, { url: '/v1/calendars', token });
        assert.equal(response.status, 200);
        assert.deepEqual(response.body.meta.excluded, [
          { reason: 'reconnect_required', count: 1, accountId: davAccount },
          { reason: 'not_selected', count: 1 },
        ]);
        assert.equal(response.body.data.length, 4);
        assertDocumented('/calendars', response);
      } finally {
        await setAccountStatus(t.ctx.db, davAccount, 'active', null, 0);
      }
    });

    it('GET /events: every field, all-day, busy placeholders, exclusions and a next cursor', async () => {
      const response = await getEvents(t.app, token, [
        ['calendar_id', [cal.full, cal.busy, cal.down, cal.partial].join(',')],
        ...inWindow,
        ['limit', '3'],
      ]);
      assert.equal(response.status, 200);
      assert.equal(response.body.data.length, 3);
      assert.equal(typeof response.body.meta.nextCursor, 'string');
      assert.deepEqual(response.body.meta.excluded, [
        { calendarId: cal.down, reason: 'provider_unavailable' },
        { calendarId: cal.partial, reason: 'incomplete' },
      ]);
      assert.deepEqual(Object.keys(response.body.data[0]).length, 24);
      assertDocumented('/events', response);
      const next = await getEvents(t.app, token, [
        ['calendar_id', [cal.full, cal.busy, cal.down, cal.partial].join(',')],
        ...inWindow,
        ['limit', '3'],
        ['cursor', response.body.meta.nextCursor],
      ]);
      assert.equal(next.body.data.length, 1);
      assertDocumented('/events', next);
    });

    const problems: Array<[string, () => Promise<RestResponse>, number, string]> = [
      [
        'an unknown parameter',
        () => getEvents(t.app, token, [['calendar_id', cal.full!], ...inWindow, ['x', '1']]),
        400,
        'invalid_request',
      ],
      [
        'a zoneless CalDAV calendar',
        () => getEvents(t.app, token, [['calendar_id', cal.zoneless!], ...inWindow]),
        400,
        'time_zone_required',
      ],
      [
        'a window too long',
        () =>
          getEvents(t.app, token, [
            ['calendar_id', cal.full!],
            ['start', '2026-03-01T00:00:00Z'],
            ['end', '2026-04-01T00:00:01Z'],
          ]),
        400,
        'window_too_long',
      ],
      [
        'an unknown calendar',
        () => getEvents(t.app, token, [['calendar_id', 'cal_unknown'], ...inWindow]),
        403,
        'calendar_not_permitted',
      ],
      [
        'no token',
        () => getEvents(t.app, undefined, [['calendar_id', cal.full!], ...inWindow]),
        401,
        'unauthenticated',
      ],
      [
        'a token for /mcp',
        () => getEvents(t.app, mcpToken, [['calendar_id', cal.full!], ...inWindow]),
        401,
        'invalid_token',
      ],
      [
        'a token without calendar:read',
        () => getEvents(t.app, scopelessToken, [['calendar_id', cal.full!], ...inWindow]),
        403,
        'insufficient_scope',
      ],
    ];
    for (const [what, send, status, code] of problems) {
      it(`GET /events problem: ${what} → ${status} ${code}`, async () => {
        const response = await send();
        assert.equal(response.status, status, response.text);
        assert.equal(response.body.code, code);
        assertDocumented('/events', response);
      });
    }

    it('GET /calendars problems: no token, a token for /mcp, no calendar:read', async () => {
      for (const [bearer, status] of [
        [undefined, 401],
        [mcpToken, 401],
        [scopelessToken, 403],
      ] as const) {
        const response = await restRequest(t.app, {
          url: '/v1/calendars',
          ...(bearer ? { token: bearer } : {}),
        });
        assert.equal(response.status, status);
        assertDocumented('/calendars', response);
      }
    });

    it('404 and 405 bodies are Problems too', async () => {
      for (const [method, url, status] of [
        ['GET', '/v1/nothing', 404],
        ['POST', '/v1/events', 405],
        ['DELETE', '/v1/calendars', 405],
      ] as const) {
        const response = await restRequest(t.app, { method, url, token });
        assert.equal(response.status, status);
        assert.match(response.contentType, /^application\/problem\+json/);
        assert.equal(schemaErrors('#/components/schemas/Problem', response.body), undefined);
      }
    });
  });

  describe('Redocly lint (recommended rules, offline)', () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'openapi-lint-'));
    });
    after(() => rm(dir, { recursive: true, force: true }));

    async function lint(text: string): Promise<{ code: number; report: Json }> {
      const file = join(dir, `openapi-${Math.random().toString(36).slice(2)}.json`);
      await writeFile(file, text);
      const env = {
        ...process.env,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        NO_COLOR: '1',
      };
      const bin = join(import.meta.dirname, '../../node_modules/.bin/redocly');
      try {
        const { stdout } = await run(bin, ['lint', '--format=json', file], { env, cwd: dir });
        return { code: 0, report: JSON.parse(stdout) };
      } catch (error) {
        const e = error as { code?: number; stdout?: string };
        return { code: e.code ?? -1, report: e.stdout ? JSON.parse(e.stdout) : undefined };
      }
    }

    const summary = (report: Json) =>
      (report.problems as Json[]).map((p) => `${p.severity} ${p.ruleId} ${p.location?.[0]?.pointer}`);

    it('passes with no error and no warning', async () => {
      const { code, report } = await lint(served.text);
      assert.deepEqual(summary(report), []);
      assert.deepEqual(report.totals, { errors: 0, warnings: 0, ignored: 0 });
      assert.equal(code, 0);
    });

    it('served from a localhost base URL, warns only about that server URL', async () => {
      const local = await startTestApp();
      try {
        const response = await restRequest(local.app, { url: '/v1/openapi.json' });
        const { code, report } = await lint(response.text);
        assert.equal(code, 0);
        assert.deepEqual(summary(report), ['warn no-server-example.com #/servers/0/url']);
      } finally {
        await local.close();
      }
    });
  });
});
