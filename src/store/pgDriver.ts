/**
 * The PostgreSQL driver, loaded when PostgreSQL is first used: a service on the embedded SQLite
 * never holds it in memory.
 */
import { createRequire } from 'node:module';
import type Pg from 'pg';

let driver: typeof Pg | undefined;

export const pgDriver = (): typeof Pg => {
  driver ??= createRequire(import.meta.url)('pg') as typeof Pg;
  return driver;
};
