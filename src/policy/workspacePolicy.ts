/** The workspace policy record: what members' grants may contain at most. Pure. */
import { type DetailLevel, detailLevels, isDetailLevel } from '../domain/detailLevels.ts';
import { invalidField } from '../errors.ts';

export const scopes = ['calendar:read', 'calendar:write', 'calendar:rsvp', 'calendar:rooms'] as const;
export type Scope = (typeof scopes)[number];

export interface WorkspacePolicy {
  allowedScopes: Scope[];
  maxDetailLevel: DetailLevel;
  /** Where each calendar's level starts on the consent page (the maximum, if that is lower). */
  defaultDetailLevel: DetailLevel;
  /** Whether members may share details of private events at consent. */
  privateDetailsAllowed: boolean;
  /** Whether members may see each other's free/busy (times only, from the calendars each lets count). */
  colleagueAvailability: boolean;
  /** Client IDs that may be granted access; `null` = any client. */
  allowedClients: string[] | null;
  /** Client IDs an admin switched off in this workspace; wins over `allowedClients`. */
  blockedClients: string[];
}

/** Secure by default: reading only, private details withheld; admins widen it deliberately. */
export const defaultPolicy: WorkspacePolicy = Object.freeze({
  allowedScopes: ['calendar:read'],
  maxDetailLevel: 'full',
  // Titles and times, not everything: a person shares more by choosing it.
  defaultDetailLevel: 'titles',
  privateDetailsAllowed: false,
  // Times only, inside the workspace: what scheduling with colleagues needs.
  colleagueAvailability: true,
  allowedClients: null,
  blockedClients: [],
}) as WorkspacePolicy;

export const isScope = (value: unknown): value is Scope =>
  typeof value === 'string' && (scopes as readonly string[]).includes(value);

const maxClients = 100;
const clientIdPattern = /^[\x21-\x7e]{1,2048}$/;

export interface PolicyInput {
  allowedScopes: unknown;
  maxDetailLevel: unknown;
  /** Absent: titles and times. */
  defaultDetailLevel?: unknown;
  privateDetailsAllowed: unknown;
  /** Absent: on. */
  colleagueAvailability?: unknown;
  allowedClients: unknown;
  blockedClients?: unknown;
}

/** Validates a whole policy as submitted (form or CLI); unknown values are errors, never dropped. */
export function parsePolicy(input: PolicyInput): WorkspacePolicy {
  const requested = input.allowedScopes === undefined ? [] : [input.allowedScopes].flat();
  const allowedScopes: Scope[] = [];
  for (const value of requested) {
    if (!isScope(value)) throw invalidField('allowedScopes', `Unknown scope "${String(value)}".`);
    if (!allowedScopes.includes(value)) allowedScopes.push(value);
  }
  allowedScopes.sort((a, b) => scopes.indexOf(a) - scopes.indexOf(b));

  if (!isDetailLevel(input.maxDetailLevel)) {
    throw invalidField('maxDetailLevel', `Maximum detail level must be one of ${detailLevels.join(', ')}.`);
  }
  const defaultDetailLevel = input.defaultDetailLevel ?? defaultPolicy.defaultDetailLevel;
  if (!isDetailLevel(defaultDetailLevel)) {
    throw invalidField(
      'defaultDetailLevel',
      `The level preselected at consent must be one of ${detailLevels.join(', ')}.`,
    );
  }
  const privateDetailsAllowed = input.privateDetailsAllowed === true || input.privateDetailsAllowed === 'on';
  const colleagueAvailability = onOff('colleagueAvailability', input.colleagueAvailability ?? true);

  const allowed = clientList('allowedClients', input.allowedClients);
  const blockedClients = clientList('blockedClients', input.blockedClients) ?? [];
  return {
    allowedScopes,
    maxDetailLevel: input.maxDetailLevel,
    defaultDetailLevel,
    privateDetailsAllowed,
    colleagueAvailability,
    allowedClients: allowed,
    blockedClients,
  };
}

/** A switch as a form (`on`, `off`) or JSON (a boolean) gives it; anything else is an error. */
function onOff(field: string, value: unknown): boolean {
  if (value === true || value === 'on') return true;
  if (value === false || value === 'off') return false;
  throw invalidField(field, 'Give on or off.');
}

/** A list of client IDs, from a form's text (one per line) or an array; empty → `null`. */
function clientList(field: string, clients: unknown): string[] | null {
  const list = typeof clients === 'string' ? clients.split(/\s+/).filter(Boolean) : clients;
  if (list === undefined || list === null) return null;
  if (!Array.isArray(list)) throw invalidField(field, 'Give a list of client IDs.');
  if (list.length === 0) return null;
  if (list.length > maxClients) throw invalidField(field, `List at most ${maxClients} clients.`);
  for (const id of list) {
    if (typeof id !== 'string' || !clientIdPattern.test(id)) {
      throw invalidField(field, 'Client IDs are printable text without spaces.');
    }
  }
  return [...new Set(list as string[])];
}

/** Whether members of a workspace with this policy may grant anything to the client. */
export const clientPermitted = (policy: WorkspacePolicy, clientId: string): boolean =>
  !policy.blockedClients.includes(clientId) &&
  (policy.allowedClients === null || policy.allowedClients.includes(clientId));

/** The requested scopes the policy lets a grant hold, in canonical order. */
export const permittedScopes = (policy: WorkspacePolicy, requested: Iterable<string>): Scope[] => {
  const wanted = new Set(requested);
  return policy.allowedScopes.filter((scope) => wanted.has(scope));
};
