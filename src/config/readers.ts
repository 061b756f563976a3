/**
 * Readers of one environment variable's text, each with its bounds. A reader reports a bad value
 * as a problem that starts with the variable's name and returns a stand-in, so that every problem
 * is found in one pass (the stand-in is never used: any problem stops the start).
 */

export interface ValueReader<T> {
  (value: string, name: string, problems: string[]): T;
  /** What it accepts, for the documentation (`1–2160`, `` `a`, `b` or `c` ``); absent: any text. */
  accepts?: string;
}

const withAccepts = <T>(reader: ValueReader<T>, accepts: string): ValueReader<T> =>
  Object.assign(reader, { accepts });

export const text: ValueReader<string> = (value) => value;

const orList = new Intl.ListFormat('en-GB', { type: 'disjunction' });

export const oneOf = <T extends string>(allowed: readonly T[]): ValueReader<T> =>
  withAccepts(
    (value, name, problems) => {
      if ((allowed as readonly string[]).includes(value)) return value as T;
      problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return allowed[0] as T;
    },
    orList.format(allowed.map((a) => `\`${a}\``)),
  );

export const wholeNumber = (min: number, max: number): ValueReader<number> =>
  withAccepts((value, name, problems) => {
    const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${value}")`);
      return min;
    }
    return n;
  }, `${min}–${max}`);

export const flag: ValueReader<boolean> = (value, name, problems) => {
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  problems.push(`${name} must be true or false (got "${value}")`);
  return false;
};

export const httpUrl: ValueReader<string> = (value, name, problems) => {
  if (!/^https?:\/\/\S+$/.test(value)) problems.push(`${name} must be an http(s) URL`);
  return value;
};

export const redisUrl: ValueReader<string> = (value, name, problems) => {
  if (!/^rediss?:\/\/\S*$/.test(value)) problems.push(`${name} must be a redis:// or rediss:// URL`);
  return value;
};

export const postgresUrl: ValueReader<string> = (value, name, problems) => {
  if (!/^postgres(ql)?:\/\//.test(value)) {
    problems.push(`${name} must be a postgres:// or postgresql:// connection string`);
  }
  return value;
};

/** An absolute http(s) URL without query or fragment, returned without a trailing slash. */
export const baseUrl: ValueReader<string> = (value, name, problems) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push(`${name} must be an absolute URL (got "${value}")`);
    return value;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    problems.push(`${name} must use http or https`);
  } else if (url.search !== '' || url.hash !== '') {
    problems.push(`${name} must not have a query or fragment`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
};

/** 32 bytes as 64 hex digits or base64; `undefined` stands in for a bad key. */
export const secretKey: ValueReader<Buffer | undefined> = (value, name, problems) => {
  const key = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) {
    problems.push(`${name} must be 32 bytes, given as 64 hex digits or base64`);
    return undefined;
  }
  return key;
};

/** A comma-separated list of origins (`https://app.example`), each exactly an origin. */
export const origins: ValueReader<string[]> = (value, name, problems) => {
  const list = value
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of list) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || parsed.origin !== origin) {
      problems.push(`${name} must list origins like https://app.example, comma-separated (got "${origin}")`);
    }
  }
  return list;
};

/** `host:port` (`[::1]:9464` for IPv6) of an address to listen on. */
export const listenAddress: ValueReader<{ host: string; port: number }> = withAccepts(
  (value, name, problems) => {
    const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]]+)):(\d{1,5})$/.exec(value);
    const port = m ? Number(m[3]) : Number.NaN;
    if (!m || port > 65_535) {
      problems.push(`${name} must be host:port, such as 127.0.0.1:9464 (got "${value}")`);
      return { host: '127.0.0.1', port: 0 };
    }
    return { host: (m[1] ?? m[2])!, port };
  },
  '`host:port`',
);

/** A shared secret sent in an HTTP header: at least 32 visible ASCII characters. */
export const bearerSecret: ValueReader<string> = withAccepts((value, name, problems) => {
  if (!/^[\x21-\x7e]{32,}$/.test(value)) {
    problems.push(`${name} must be at least 32 visible ASCII characters (\`openssl rand -hex 32\`)`);
  }
  return value;
}, 'at least 32 visible ASCII characters');
/**
 * `smtp://[user:password@]host[:port]` or `smtps://…`. The value is never repeated in a problem:
 * it holds the SMTP password.
 */
export const smtpUrl: ValueReader<string> = (value, name, problems) => {
  const url = URL.parse(value);
  if (url === null || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '') {
    problems.push(`${name} must be smtp://user:password@host:port or smtps://… (the value is not shown)`);
  }
  return value;
};

/** A sender: `name@example.com` or `Name <name@example.com>`, on one line. */
export const mailbox: ValueReader<string> = (value, name, problems) => {
  const address = /^[^\s<>@]+@[^\s<>@]+$/;
  const named = /^([^\r\n<>]*)<([^<>]*)>$/.exec(value);
  if (!(named ? address.test(named[2]!) : address.test(value))) {
    problems.push(`${name} must be an address, alone or as Name <name@example.com> (got "${value}")`);
  }
  return value;
};
