/**
 * Workspace administration on a test database, its ports recorded instead of reaching an
 * authorization server or a mail server: which grants it ended or had looked up again, which
 * apps it registered.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../../src/lib/clock.ts';
import type { AdministrationDeps, ClientKind } from '../../src/people/administrationPorts.ts';
import type { Database } from '../../src/store/schema.ts';

export interface RecordedAdministration extends AdministrationDeps {
  ended: string[];
  forgotten: string[];
  /** Client ids registered, in order (also those removed since). */
  registered: string[];
  removed: string[];
}

export function testAdministration(db: Kysely<Database>, clock: Clock): RecordedAdministration {
  const ended: string[] = [];
  const forgotten: string[] = [];
  const registered: string[] = [];
  const removed: string[] = [];
  return {
    db,
    clock,
    linkBase: () => 'http://localhost:3000',
    mailer: undefined,
    onMailFailure: () => {},
    endGrants: async (ids) => void ended.push(...ids),
    forgetGrants: async (ids) => void forgotten.push(...ids),
    clients: {
      async register(input) {
        const clientId = `cli_test${registered.length}`;
        registered.push(clientId);
        return { clientId, name: String(input.name), kind: 'public' as ClientKind, clientSecret: undefined };
      },
      remove: async (clientId) => void removed.push(clientId),
      find: async (clientId) =>
        registered.includes(clientId) && !removed.includes(clientId)
          ? { kind: 'public' as const, redirectUris: [] }
          : undefined,
    },
    ended,
    forgotten,
    registered,
    removed,
  };
}
