/** Column types that differ between the two engines, so one migration set serves both. */
import { type Kysely, PostgresAdapter } from 'kysely';

export interface ColumnTypes {
  /** Epoch milliseconds. */
  time: 'bigint' | 'integer';
  flag: 'boolean' | 'integer';
  serial: 'bigserial' | 'integer';
}

export function columnTypes(db: Kysely<unknown>): ColumnTypes {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return postgres
    ? { time: 'bigint', flag: 'boolean', serial: 'bigserial' }
    : { time: 'integer', flag: 'integer', serial: 'integer' };
}
