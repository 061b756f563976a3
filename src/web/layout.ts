/** The page frame every page shares: title, navigation, notices and the sign-out form. */
import type { User } from '../store/users.ts';
import { type Html, html } from './html.ts';
import { style } from './style.ts';

/** A signed-in person as pages show them: with whether they administer any workspace. */
export type SiteUser = User & { administers?: boolean };

export interface PageOptions {
  title: string;
  user?: SiteUser | undefined;
  csrfToken?: string;
  notice?: string | undefined;
  error?: string | undefined;
  /** A page of several side-by-side panels (administration) rather than one column of text. */
  wide?: boolean;
  /** A script of the site's own (the CSP allows no other) that improves the page; it works without. */
  script?: string;
}

export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

export function page(options: PageOptions, body: Html): string {
  const { user, csrfToken } = options;
  const nav =
    user === undefined
      ? html`<a href="/login">Sign in</a>`
      : html`<a href="/account">Account</a><a href="/account/profile">Profile</a>${user.administers ? html`<a href="/admin">Admin</a>` : ''}
        <form class="inline" method="post" action="/logout">${csrfField(csrfToken ?? '')}<button type="submit">Sign out</button></form>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<title>${options.title} · Calendar Access</title>
<style>${style}</style>
${options.script === undefined ? '' : html`<script src="${options.script}" defer></script>`}
</head>
<body>
<header><strong>Calendar Access</strong><nav>${nav}</nav></header>
<main${options.wide ? html` class="wide"` : ''}>
<h1>${options.title}</h1>
${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : ''}
${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}
${body}
</main>
</body>
</html>`.value;
}
