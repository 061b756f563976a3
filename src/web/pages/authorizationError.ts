/**
 * The page shown when an authorization request fails before its redirect URI is verified: the
 * error stays here instead of being sent to an address nobody vouched for.
 */
import { html } from '../html.ts';
import { page } from '../layout.ts';

export const authorizationErrorPage = (code: string, description: string | undefined): string =>
  page(
    { title: 'This authorization request cannot go on' },
    html`<p>${description ?? 'The application sent a request this service cannot accept.'}</p>
<p class="muted">Error code: <code>${code}</code></p>
<p>Go back to the application and try again, or tell its developers about this message.</p>`,
  );
