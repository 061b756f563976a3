/**
 * Feeds published by strangers fail in ways the person must be told apart: too large, not
 * iCalendar, cut off, redirecting in circles, too slow. Each gives a stable reason, and the read
 * service passes it on as the calendar's exclusion reason (not "provider unavailable").
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exclusionReason } from '../../src/calendars/reads/readEvents.ts';
import { AppError } from '../../src/errors.ts';
import { createIcsProvider } from '../../src/providers/ics/adapter.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { TestDeadline } from '../helpers/deadline.ts';
import { endless, type LoopbackServer, startHttpServer } from '../helpers/hostileServers.ts';

const account = (url: string) => ({
  accountKey: 'acc_ics_hostile',
  credentials: { kind: 'ics' as const, url },
  saveCredentials: async () => {},
});

describe('feeds published by strangers', () => {
  // Only the stalling feed times out, when it says so: the others fail for their own reason however slow the machine.
  const deadline = new TestDeadline();
  let server: LoopbackServer;
  before(async () => {
    server = await startHttpServer((request, response) => {
      switch (request.url) {
        case '/endless.ics':
          return endless(response, { prefix: 'BEGIN:VCALENDAR\r\nX-PAD:' });
        case '/page.ics':
          return response.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><p>hello');
        case '/unfinished.ics':
          return response.writeHead(200).end('BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\n');
        case '/breaks-off.ics':
          // Promises more than it sends, then hangs up.
          response.writeHead(200, { 'content-length': '5000' });
          return response.write('BEGIN:VCALENDAR\r\n', () => response.destroy());
        case '/stalls.ics':
          // Begins, then sends nothing more: the deadline passes once the start is out.
          response.writeHead(200);
          return void response.write('BEGIN:VCALENDAR\r\n', () => deadline.expire());
        case '/loop.ics':
          return response.writeHead(302, { location: '/loop.ics' }).end();
        default:
          return response.writeHead(404).end();
      }
    });
  });
  after(() => server.close());

  const provider = createIcsProvider({
    http: new ProviderHttp({ maxAttempts: 1, deadline: deadline.signal }),
    allowPrivateNetworks: true,
  });

  for (const [path, code, reason, exclusion] of [
    ['endless.ics', 'payload_too_large', 'too_large', 'too_large'],
    ['page.ics', 'invalid_request', 'not_calendar_data', 'not_calendar_data'],
    ['unfinished.ics', 'invalid_request', 'cut_off', 'cut_off'],
    ['breaks-off.ics', 'provider_unavailable', 'cut_off', 'cut_off'],
    ['stalls.ics', 'provider_unavailable', 'timeout', 'timeout'],
    ['loop.ics', 'invalid_request', 'too_many_redirects', 'too_many_redirects'],
    ['gone.ics', 'not_found', undefined, 'gone'],
  ] as const) {
    it(`${path}: ${code} (${reason ?? 'no reason'}), excluded as ${exclusion}`, async () => {
      const error = await provider.listCalendars(account(`${server.url}${path}`)).then(
        () => assert.fail('read'),
        (error: unknown) => error,
      );
      assert.ok(error instanceof AppError, String(error));
      assert.equal(error.code, code, error.message);
      assert.equal(error.details?.reason, reason);
      assert.equal(exclusionReason(error), exclusion);
    });
  }
});
