/** The page frame every page shares: title, navigation, notices and the sign-out form. */
import type { User } from '../store/users.ts';
import { Html, html } from './html.ts';

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
}

const style = new Html(`
body{font:16px/1.5 system-ui,sans-serif;margin:0;overflow-wrap:break-word;color:#1b1b1b;background:#fafafa}
header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;padding:.75rem 1.5rem;background:#1f3a5f;color:#fff}header strong,header button{white-space:nowrap}
header a,header button{color:#fff}header nav{display:flex;gap:1rem;margin-left:auto;align-items:center}
main{max-width:52rem;margin:1.5rem auto;padding:0 1.5rem}main.wide{max-width:84rem}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=email],input[type=password],input[type=text],input[type=url],select,textarea{font:inherit;padding:.4rem;width:100%;max-width:28rem;box-sizing:border-box}
button{font:inherit;padding:.4rem .9rem;margin-top:.75rem;cursor:pointer}
header button{background:none;border:1px solid #fff;margin:0}
button.primary{background:#1f3a5f;color:#fff;border:1px solid #1f3a5f;font-weight:600}button.secondary{background:#fff;color:#1f3a5f;border:1px solid #8a94a6}
.choice input[type=checkbox]:not(:checked)~.level{display:none}
dl.levels dt{font-weight:600}dl.levels dd{margin:0 0 .5rem 1rem}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.4rem;border-bottom:1px solid #ddd;vertical-align:top;overflow-wrap:break-word}
summary{cursor:pointer;color:#1f3a5f}
.notice{background:#e6f4ea;border:1px solid #9bd3ae;padding:.6rem}.error{background:#fdecea;border:1px solid #f5a9a1;padding:.6rem}
.inline{display:inline}.inline button{margin:0}.muted{color:#666}fieldset{border:1px solid #ccc;margin:1rem 0}.choice{margin:.25rem 0 1rem}.check{margin-top:.75rem}
code{overflow-wrap:anywhere}.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.toc ul{display:flex;flex-wrap:wrap;gap:.25rem 1.25rem;list-style:none;padding:0;margin:1rem 0 1.25rem}td select{width:auto}
.panels{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,32rem),1fr));gap:1.5rem;align-items:start}
.panel{min-width:0;background:#fff;border:1px solid #ddd;border-radius:6px;padding:0 1.25rem 1.25rem;scroll-margin-top:1rem}.panel.wide{grid-column:1/-1}
.scroll{overflow-x:auto}table.audit td:first-child{white-space:nowrap}
@media (max-width:40rem){header{padding:.5rem .75rem}h1{font-size:1.6rem}main{padding:0 .75rem}.panel{padding:0 .75rem .75rem}table.stack td{border:0;padding:.1rem .4rem}table.stack tr{border-bottom:1px solid #ccc;padding:.5rem 0}table.stack thead{display:none}table.stack,table.stack tbody,table.stack tr,table.stack td{display:block}}
`);

export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

export function page(options: PageOptions, body: Html): string {
  const { user, csrfToken } = options;
  const nav =
    user === undefined
      ? html`<a href="/login">Sign in</a>`
      : html`<a href="/account">Account</a>${user.administers ? html`<a href="/admin">Admin</a>` : ''}
        <form class="inline" method="post" action="/logout">${csrfField(csrfToken ?? '')}<button type="submit">Sign out</button></form>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<title>${options.title} · Calendar Access</title>
<style>${style}</style>
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
