import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config/config.ts';
import { type ConfigVariable, configVariables } from '../src/config/variables.ts';
import { docsTable } from './helpers/docsTable.ts';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems;
  }
  assert.fail('expected a ConfigError');
};

describe('configuration', () => {
  it('has working defaults for a development machine', () => {
    const config = loadConfig({});
    assert.equal(config.environment, 'development');
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.baseUrl, 'http://localhost:3000');
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.dataDir, './data');
    assert.equal(config.secretKey, undefined);
    assert.equal(config.sessionTtlHours, 168);
  });

  it('derives the base URL from PORT and strips a trailing slash', () => {
    assert.equal(loadConfig({ PORT: '8080' }).baseUrl, 'http://localhost:8080');
    assert.equal(
      loadConfig({ BASE_URL: 'https://cal.example.com/access/' }).baseUrl,
      'https://cal.example.com/access',
    );
  });

  it('accepts a 32-byte key as hex or base64', () => {
    const hex = 'ab'.repeat(32);
    assert.equal(loadConfig({ SECRET_KEY: hex }).secretKey?.length, 32);
    assert.equal(loadConfig({ SECRET_KEY: Buffer.alloc(32, 7).toString('base64') }).secretKey?.length, 32);
  });

  it('reports every bad value at once, naming each variable', () => {
    const problems = problemsOf({
      PORT: '70000',
      APP_ENV: 'staging',
      LOG_LEVEL: 'loud',
      TRUST_PROXY: 'maybe',
      DATABASE_URL: 'mysql://x',
      SECRET_KEY: 'short',
      BASE_URL: 'not a url',
      SESSION_TTL_HOURS: '0',
      SQLITE_READ_THREADS: '17',
    });
    for (const name of [
      'PORT',
      'APP_ENV',
      'LOG_LEVEL',
      'TRUST_PROXY',
      'DATABASE_URL',
      'SECRET_KEY',
      'BASE_URL',
      'SESSION_TTL_HOURS',
      'SQLITE_READ_THREADS',
    ]) {
      assert.ok(
        problems.some((p) => p.startsWith(name)),
        `${name} missing from ${problems.join('; ')}`,
      );
    }
  });

  it('reads the per-grant request budget and the origins allowed to call /mcp', () => {
    const defaults = loadConfig({});
    assert.equal(defaults.grantRequestsPerMinute, 600);
    assert.deepEqual(defaults.mcpAllowedOrigins, []);
    const set = loadConfig({
      GRANT_REQUESTS_PER_MINUTE: '30',
      MCP_ALLOWED_ORIGINS: 'https://app.example, http://127.0.0.1:6274',
    });
    assert.equal(set.grantRequestsPerMinute, 30);
    assert.deepEqual(set.mcpAllowedOrigins, ['https://app.example', 'http://127.0.0.1:6274']);
    assert.match(
      problemsOf({ GRANT_REQUESTS_PER_MINUTE: '0' })[0]!,
      /^GRANT_REQUESTS_PER_MINUTE must be a whole number/,
    );
    // An origin is scheme, host and port only: a path or a bare host would never equal an Origin header.
    for (const bad of ['https://app.example/', 'app.example', 'https://app.example/path']) {
      assert.match(
        problemsOf({ MCP_ALLOWED_ORIGINS: bad })[0]!,
        /^MCP_ALLOWED_ORIGINS must list origins/,
        bad,
      );
    }
  });

  it('reads how many reads of the copies are served at once: 4 unless told, from 1 to 64', () => {
    assert.equal(loadConfig({}).readsAtOnce, 4);
    assert.equal(loadConfig({ READS_AT_ONCE: '1' }).readsAtOnce, 1);
    assert.equal(loadConfig({ READS_AT_ONCE: '64' }).readsAtOnce, 64);
    // None at once would serve no read; a line no shorter than the clients would bound nothing.
    for (const bad of ['0', '65', '2.5', 'many'])
      assert.match(problemsOf({ READS_AT_ONCE: bad })[0]!, /^READS_AT_ONCE must be a whole number/, bad);
  });

  it("reads the search cache's bound in MB: 8 unless told, 0 for none, up to 1024", () => {
    assert.equal(loadConfig({}).searchCacheBytes, 8 * 1024 * 1024);
    assert.equal(loadConfig({ SEARCH_CACHE_MB: '0' }).searchCacheBytes, 0);
    assert.equal(loadConfig({ SEARCH_CACHE_MB: '1024' }).searchCacheBytes, 1024 * 1024 * 1024);
    for (const bad of ['-1', '1025', '2.5', 'lots'])
      assert.match(problemsOf({ SEARCH_CACHE_MB: bad })[0]!, /^SEARCH_CACHE_MB must be a whole number/, bad);
  });

  it('rejects a non-numeric port and a base URL with a query', () => {
    assert.match(problemsOf({ PORT: '30a' })[0]!, /^PORT must be a whole number/);
    assert.match(problemsOf({ BASE_URL: 'http://x.test/?a=1' })[0]!, /^BASE_URL must not have a query/);
    assert.match(problemsOf({ BASE_URL: 'ftp://x.test' })[0]!, /^BASE_URL must use http or https/);
  });

  it("reads e-mail only with SMTP_URL, the sender defaulting to the base URL's host", () => {
    assert.equal(loadConfig({}).mail, undefined);
    const smtp = 'smtps://mailer:p%40ss@mail.example.com:465';
    assert.deepEqual(loadConfig({ SMTP_URL: smtp, BASE_URL: 'https://cal.example.com/x' }).mail, {
      smtpUrl: smtp,
      from: 'Calendar Access <no-reply@cal.example.com>',
    });
    assert.equal(
      loadConfig({ SMTP_URL: 'smtp://mail.example.com', MAIL_FROM: 'cal@example.com' }).mail?.from,
      'cal@example.com',
    );
  });

  it('refuses a bad SMTP_URL without repeating it, and a sender that is no address', () => {
    for (const bad of [
      'http://mailer:hunter2-secret@mail.example.com',
      'smtp://mailer:hunter2-secret@',
      'hunter2-secret',
    ]) {
      const problems = problemsOf({ SMTP_URL: bad });
      assert.match(problems[0]!, /^SMTP_URL must be smtp:\/\//);
      assert.doesNotMatch(problems.join('\n'), /hunter2-secret/);
    }
    for (const from of ['Calendar Access', 'a@b.example\r\nBcc: x@y.example', 'Name <not an address>']) {
      assert.match(
        problemsOf({ SMTP_URL: 'smtp://mail.example.com', MAIL_FROM: from })[0]!,
        /^MAIL_FROM must be/,
      );
    }
  });

  it('refuses production without a secret key or without https', () => {
    const problems = problemsOf({ APP_ENV: 'production', BASE_URL: 'http://cal.example.com' });
    assert.ok(problems.some((p) => p.startsWith('SECRET_KEY is required')));
    assert.ok(problems.some((p) => p.startsWith('BASE_URL must use https')));
    const ok = loadConfig({
      APP_ENV: 'production',
      BASE_URL: 'https://cal.example.com',
      SECRET_KEY: 'ab'.repeat(32),
    });
    assert.equal(ok.environment, 'production');
  });

  it('lets CalDAV reach private networks outside production only, unless set', () => {
    const production = {
      APP_ENV: 'production',
      BASE_URL: 'https://cal.example.com',
      SECRET_KEY: 'ab'.repeat(32),
    };
    assert.equal(loadConfig({}).caldavAllowPrivateNetworks, true);
    assert.equal(loadConfig({ APP_ENV: 'test' }).caldavAllowPrivateNetworks, true);
    assert.equal(loadConfig(production).caldavAllowPrivateNetworks, false);
    assert.equal(
      loadConfig({ ...production, CALDAV_ALLOW_PRIVATE_NETWORKS: 'true' }).caldavAllowPrivateNetworks,
      true,
    );
    assert.equal(loadConfig({ CALDAV_ALLOW_PRIVATE_NETWORKS: 'false' }).caldavAllowPrivateNetworks, false);
  });
});

describe('the configuration table in docs/configuration.md', () => {
  it('is the table of variables in code written out: names, defaults, meanings and bounds', () => {
    const rows = Object.entries(configVariables).map(([name, variable]: [string, ConfigVariable]) => [
      `\`${name}\``,
      variable.shown ?? `\`${variable.default}\``,
      variable.read.accepts === undefined ? variable.doc : `${variable.doc}: ${variable.read.accepts}`,
    ]);
    assert.deepEqual(docsTable('configuration.md', 'Configuration'), [
      ['variable', 'default', 'meaning'],
      ...rows,
    ]);
  });
});
