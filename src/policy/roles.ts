/** Workspace roles and what each may do to members. Pure rules, no I/O. */
import { AppError, invalidField } from '../errors.ts';

export const roles = ['owner', 'admin', 'member'] as const;
export type Role = (typeof roles)[number];

export function parseRole(input: unknown, field = 'role'): Role {
  if (typeof input === 'string' && (roles as readonly string[]).includes(input)) return input as Role;
  throw invalidField(field, `Role must be one of ${roles.join(', ')}.`);
}

export const canAdminister = (role: Role | undefined): boolean => role === 'owner' || role === 'admin';

/**
 * Whether `actor` may change a member from `from` to `to` (`undefined` = not a member).
 * Admins manage members and admins; only owners create, demote or remove owners.
 */
export function assertMayChangeMembership(
  actor: Role | undefined,
  from: Role | undefined,
  to: Role | undefined,
): void {
  if (!canAdminister(actor))
    throw new AppError('forbidden', 'Only workspace owners and admins can manage members.');
  if (actor !== 'owner' && (from === 'owner' || to === 'owner')) {
    throw new AppError('forbidden', 'Only an owner can add, change or remove an owner.');
  }
}
