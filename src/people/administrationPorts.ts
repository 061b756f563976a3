/**
 * What workspace administration (workspaces.ts, policyChanges.ts, workspaceApps.ts,
 * workspaceOverview.ts) is given by main.ts: the database and clock, the mailer for invitations,
 * and the authorization server's side — ending grants, having them looked up again, its registry
 * of clients. Each use case takes the part it needs.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../lib/clock.ts';
import type { MailFailure } from '../mail/delivery.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Database } from '../store/schema.ts';

export interface AdministrationDeps {
  db: Kysely<Database>;
  clock: Clock;
  /** Where invitation links point (BASE_URL); asked only when an invitation is made. */
  linkBase(): string;
  /** Sends invitations; none: the link goes back to whoever invited, to pass on. */
  mailer: Mailer | undefined;
  /** An invitation e-mail that was not sent, as much of it as may be logged. */
  onMailFailure(failure: MailFailure): void;
  /** Ends grants at the authorization server: their tokens go, and every instance is told. */
  endGrants(grantIds: readonly string[]): Promise<void>;
  /** Every instance looks these grants up again: what they reach changed, they go on. */
  forgetGrants(grantIds: readonly string[]): Promise<void>;
  /** The authorization server's registry of clients, for apps registered for a workspace. */
  clients: ClientRegistry;
}

export const clientKinds = ['public', 'confidential'] as const;
export type ClientKind = (typeof clientKinds)[number];

/** An app's registration as typed into the admin page's form. */
export interface ClientRegistration {
  name: unknown;
  /** One URI per line. */
  redirectUris: unknown;
  kind: unknown;
}

export interface RegisteredClient {
  clientId: string;
  name: string;
  kind: ClientKind;
  /** Only for confidential clients, and only in the answer to the registration. */
  clientSecret: string | undefined;
}

export interface ClientRegistry {
  /** Checks a registration as dynamic registration is checked, and stores the client. */
  register(input: ClientRegistration, now: number): Promise<RegisteredClient>;
  /** Undoes `register` when the rest of a registration fails. */
  remove(clientId: string): Promise<void>;
  /** What the server holds of a client; undefined once it is gone. */
  find(clientId: string): Promise<{ kind: ClientKind; redirectUris: readonly string[] } | undefined>;
}
