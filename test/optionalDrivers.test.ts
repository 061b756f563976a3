/**
 * The PostgreSQL, Redis and SMTP clients are loaded only when the configuration uses them: a
 * service on the embedded SQLite holds none of them (their code is megabytes of heap).
 */
import assert from 'node:assert/strict';
import { registerHooks } from 'node:module';
import { describe, it } from 'node:test';

// Every module this process resolves from here on, imported or required.
const resolved = new Set<string>();
registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    resolved.add(result.url);
    return result;
  },
});
const { startTestApp } = await import('./helpers/app.ts');

const loaded = (name: string) => [...resolved].some((url) => url.includes(`/node_modules/${name}/`));

describe('optional drivers', () => {
  it('are not loaded by a service on SQLite without SMTP or Redis, and are once configured', async () => {
    const plain = await startTestApp();
    try {
      await plain.app.inject({ url: '/healthz' });
      assert.deepEqual(
        ['pg', 'nodemailer', '@redis/client'].filter(loaded),
        [],
        'a service on SQLite loads no driver it does not use',
      );
    } finally {
      await plain.close();
    }
    const mailing = await startTestApp({
      env: {
        SMTP_URL: 'smtp://127.0.0.1:1',
        MAIL_FROM: 'calendar@example.test',
        REDIS_URL: 'redis://127.0.0.1:1',
      },
    });
    try {
      assert.ok(loaded('nodemailer'), 'SMTP_URL loads the SMTP client');
      assert.ok(loaded('@redis/client'), 'REDIS_URL loads the Redis client');
      assert.ok(!loaded('pg'));
    } finally {
      await mailing.close();
    }
  });
});
