/** What the authorization server asks of the site: who is signed in here, and its error page. */
import type { SitePages } from '../auth/authorizationServer.ts';
import type { AppContext } from '../context.ts';
import { resolveSession } from '../people/sessions.ts';
import { authorizationErrorPage } from './pages/authorizationError.ts';
import { cookieNames } from './visitor.ts';

export function sitePages(ctx: AppContext): SitePages {
  const names = cookieNames(ctx.config.baseUrl.startsWith('https:'));
  return {
    signedInUser: async (cookie) => {
      const token = cookie(names.session);
      return token === undefined ? undefined : resolveSession(ctx.db, ctx.clock, token);
    },
    errorPage: authorizationErrorPage,
  };
}
