import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { editBlockedReasons } from '../src/domain/event.ts';
import { AppError, errorCatalogue, reasonCatalogue } from '../src/errors.ts';
import { docsTable } from './helpers/docsTable.ts';

const codes = Object.keys(errorCatalogue);

describe('error catalogue', () => {
  it('is the table in docs/errors.md written out: every code, its HTTP status and its meaning', () => {
    const rows = Object.entries(errorCatalogue).map(([code, { status, message }]) => [
      `\`${code}\``,
      String(status),
      message,
    ]);
    assert.deepEqual(docsTable('errors.md', 'Errors'), [['code', 'HTTP status', 'meaning'], ...rows]);
  });

  it("is, with its reasons, the docs' table of reasons: each declared reason documented, each documented one declared", () => {
    const rows = Object.entries(reasonCatalogue).map(([reason, meaning]) => [`\`${reason}\``, meaning]);
    const table = docsTable('errors.md', 'Reasons');
    assert.deepEqual(table[0], ['reason', 'meaning']);
    const documented = table.slice(1).map(([reason]) => reason);
    const declared = rows.map(([reason]) => reason);
    assert.deepEqual(
      documented.filter((reason) => !declared.includes(reason)),
      [],
      'documented but not declared',
    );
    assert.deepEqual(
      declared.filter((reason) => !documented.includes(reason)),
      [],
      'declared but not documented',
    );
    assert.deepEqual(table.slice(1), rows);
  });

  it('declares only reasons some error gives', () => {
    const source = readdirSync(new URL('../src/', import.meta.url), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && file !== 'errors.ts')
      .map((file) => readFileSync(new URL(`../src/${file}`, import.meta.url), 'utf8'))
      .join('\n');
    const unused = Object.keys(reasonCatalogue).filter((reason) => !source.includes(`'${reason}'`));
    assert.deepEqual(unused, []);
  });

  it('lists the refusals of writes, one code per editBlockedReason, together', () => {
    const first = codes.indexOf(editBlockedReasons[0]);
    assert.deepEqual(codes.slice(first, first + editBlockedReasons.length), editBlockedReasons);
  });

  it("gives an error the code's status, and its default message unless the call names one", () => {
    const cause = new Error('socket closed');
    const plain = new AppError('not_found');
    assert.equal(plain.status, 404);
    assert.equal(plain.message, errorCatalogue.not_found.message);
    const withOptions = new AppError('rate_limited', undefined, { retryAfter: 3, cause });
    assert.equal(withOptions.message, errorCatalogue.rate_limited.message);
    assert.equal(withOptions.retryAfter, 3);
    assert.equal(withOptions.cause, cause);
    const specific = new AppError('conflict', 'The event changed since it was read.', { details: { a: 1 } });
    assert.equal(specific.status, 409);
    assert.equal(specific.message, 'The event changed since it was read.');
    assert.deepEqual(specific.details, { a: 1 });
  });
});
