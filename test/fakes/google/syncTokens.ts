/**
 * The fake's sync tokens and page cursors, opaque to clients as Google's are.
 * A sync token names a calendar and a point in its change sequence; expiring it makes its
 * next use answer 410 `fullSyncRequired`, as Google does when it invalidates tokens.
 * A page cursor holds the listing computed for the first page, so that later pages neither
 * skip nor repeat items when the calendar changes in between, and the sync token on the last
 * page names the point the listing was taken at (changes made while paging come next time).
 */
import { randomBytes } from 'node:crypto';

interface IssuedToken {
  calendarId: string;
  seq: number;
  expired: boolean;
}

export interface Listing<T> {
  /** The request path the listing answers; a cursor serves no other. */
  scope: string;
  items: T[];
  /** Members of the last page only (nextSyncToken). */
  last?: Record<string, unknown>;
}

/** Google's tokens look like `CPDAlvWDx70CEPDAlvWDx70CGAU=`; these are URL-safe and unguessable. */
const opaque = (prefix: string) => `${prefix}${randomBytes(18).toString('base64url')}`;

export class SyncTokens {
  readonly #tokens = new Map<string, IssuedToken>();

  issue(calendarId: string, seq: number): string {
    const token = opaque('C');
    this.#tokens.set(token, { calendarId, seq, expired: false });
    return token;
  }

  /** The change sequence number the token stands for; `invalid` for a token never issued for this calendar. */
  check(token: string, calendarId: string): number | 'invalid' | 'expired' {
    const issued = this.#tokens.get(token);
    if (issued === undefined || issued.calendarId !== calendarId) return 'invalid';
    return issued.expired ? 'expired' : issued.seq;
  }

  /** Every token issued so far (for one calendar, or all) answers 410 from now on. */
  expire(calendarId?: string): void {
    for (const issued of this.#tokens.values())
      if (calendarId === undefined || issued.calendarId === calendarId) issued.expired = true;
  }
}

export class PageCursors {
  readonly #cursors = new Map<string, { listing: Listing<unknown>; offset: number }>();

  open(listing: Listing<unknown>, offset: number): string {
    const cursor = opaque('Cg');
    this.#cursors.set(cursor, { listing, offset });
    return cursor;
  }

  /** undefined for an unknown cursor, or one from a listing of another path. */
  resume(cursor: string, scope: string): { listing: Listing<unknown>; offset: number } | undefined {
    const found = this.#cursors.get(cursor);
    return found?.listing.scope === scope ? found : undefined;
  }
}
