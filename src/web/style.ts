/**
 * The pages' one small design system, inlined into every page: a type scale and spacing steps as
 * custom properties, primary/secondary/danger buttons, field errors beside their field, visible
 * focus, tables that become labelled cards on phones (each cell's `data-label`), cards, and the
 * dark colours when the system asks for them. No framework, no script.
 */
import { Html } from './html.ts';

const tokens = `
:root{color-scheme:light dark;
--step--1:.875rem;--step-0:1rem;--step-1:1.2rem;--step-2:1.45rem;--step-3:1.9rem;
--space-1:.25rem;--space-2:.5rem;--space-3:.75rem;--space-4:1rem;--space-5:1.5rem;--space-6:2.5rem;
--radius:6px;
--text:#1b1b1b;--muted:#595f6b;--bg:#f6f7f9;--surface:#fff;--border:#d5d9e0;--line:#e4e7ec;
--accent:#1f3a5f;--accent-hover:#2b4f80;--on-accent:#fff;--link:#1d4f91;
--danger:#a4262c;--danger-bg:#fdecea;--danger-border:#f0a8a2;--ok-bg:#e6f4ea;--ok-border:#9bd3ae;
--focus:#f2a900}
@media (prefers-color-scheme:dark){:root{
--text:#e8eaee;--muted:#a9b0bc;--bg:#14171c;--surface:#1d2128;--border:#3a414d;--line:#2c323b;
--accent:#8fb3e8;--accent-hover:#a9c6f0;--on-accent:#0f1a2b;--link:#9cc0f5;
--danger:#ff9b94;--danger-bg:#3a1a1a;--danger-border:#7a3431;--ok-bg:#183323;--ok-border:#2f6b45;
--focus:#ffd166}}
`;

const base = `
body{font:var(--step-0)/1.5 system-ui,sans-serif;margin:0;overflow-wrap:break-word;color:var(--text);background:var(--bg)}
h1{font-size:var(--step-3);line-height:1.2;margin:var(--space-5) 0 var(--space-4)}
h2{font-size:var(--step-2);line-height:1.25;margin:var(--space-6) 0 var(--space-3)}
h3{font-size:var(--step-1);margin:var(--space-5) 0 var(--space-2)}
h4{font-size:var(--step-0);margin:var(--space-4) 0 var(--space-1)}
a{color:var(--link)}
header{display:flex;flex-wrap:wrap;gap:var(--space-2) var(--space-4);align-items:center;padding:var(--space-3) var(--space-5);background:#1f3a5f;color:#fff}
header strong,header button{white-space:nowrap}header a,header button{color:#fff}
header nav{display:flex;gap:var(--space-4);margin-left:auto;align-items:center}
main{max-width:64rem;margin:0 auto var(--space-6);padding:0 var(--space-5)}main.wide{max-width:84rem}
.muted{color:var(--muted)}small,.small{font-size:var(--step--1)}
code{overflow-wrap:anywhere}
[hidden]{display:none!important}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
`;

const forms = `
label{display:block;margin:var(--space-3) 0 var(--space-1);font-weight:600}
input[type=email],input[type=password],input[type=text],input[type=url],select,textarea{font:inherit;padding:var(--space-2);width:100%;max-width:28rem;box-sizing:border-box;color:var(--text);background:var(--surface);border:1px solid var(--border);border-radius:4px}
input[aria-invalid=true]{border-color:var(--danger);border-width:2px}
.field-error{color:var(--danger);font-weight:600;margin:var(--space-1) 0 0}
fieldset{border:1px solid var(--border);border-radius:var(--radius);margin:var(--space-4) 0;padding:var(--space-2) var(--space-4) var(--space-4)}
legend{font-weight:600;padding:0 var(--space-1)}
.choice{margin:var(--space-1) 0 var(--space-3)}.check{margin-top:var(--space-3)}
.choice input[type=checkbox]:not(:checked)~.level{display:none}
summary{cursor:pointer;color:var(--link)}
button,a.button{display:inline-block;font:inherit;line-height:1.4;padding:var(--space-2) var(--space-4);margin-top:var(--space-3);border-radius:4px;cursor:pointer;text-decoration:none;background:var(--surface);color:var(--accent);border:1px solid var(--border)}
button:hover,a.button:hover{border-color:var(--accent)}
button.primary{background:var(--accent);color:var(--on-accent);border-color:var(--accent);font-weight:600}button.primary:hover{background:var(--accent-hover)}
button.secondary,a.button.secondary{background:var(--surface);color:var(--accent);border-color:var(--accent)}
button.danger{background:var(--surface);color:var(--danger);border-color:var(--danger-border)}
header button{background:none;border:1px solid #fff;color:#fff;margin:0;padding:var(--space-1) var(--space-3)}
.actions{display:flex;flex-wrap:wrap;gap:var(--space-2) var(--space-3);align-items:center;margin-top:var(--space-4)}.actions>*{margin:0}.actions button,.actions a.button{margin:0}
.inline{display:inline}.inline button{margin:0}
`;

const blocks = `
.notice{background:var(--ok-bg);border:1px solid var(--ok-border);border-radius:var(--radius);padding:var(--space-3)}
.error{background:var(--danger-bg);border:1px solid var(--danger-border);border-radius:var(--radius);padding:var(--space-3)}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,26rem),1fr));gap:var(--space-4)}
.card,.panel{min-width:0;background:var(--surface);border:1px solid var(--border);border-radius:var(--radius)}
.card{padding:var(--space-2) var(--space-4) var(--space-4)}.card h3{margin-top:var(--space-2)}
dl.facts{display:grid;grid-template-columns:auto 1fr;gap:var(--space-1) var(--space-4);margin:var(--space-3) 0}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
ul.plain{list-style:none;padding:0;margin:0}ul.calendars li{margin-bottom:var(--space-2)}
button.small,.inline button.small{padding:0 var(--space-2);margin:var(--space-1) 0 0;font-size:var(--step--1)}
dl.levels dt{font-weight:600}dl.levels dd{margin:0 0 var(--space-2) var(--space-4)}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:var(--space-2);border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:break-word}th{font-size:var(--step--1);color:var(--muted)}
.toc ul{display:flex;flex-wrap:wrap;gap:var(--space-1) var(--space-5);list-style:none;padding:0;margin:var(--space-4) 0 var(--space-5)}td select{width:auto}
.panels{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,32rem),1fr));gap:var(--space-5);align-items:start}
.panel{padding:0 var(--space-5) var(--space-5);scroll-margin-top:var(--space-4)}.panel>h2:first-child,.card>h3:first-child{margin-top:var(--space-4)}.panel.wide{grid-column:1/-1}
.scroll{overflow-x:auto}table.audit td:first-child{white-space:nowrap}
.consent{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,24rem),1fr));gap:var(--space-5);align-items:start}
.consent>form{min-width:0}.preview{position:sticky;top:var(--space-4);background:var(--surface);border:1px solid var(--border);border-radius:var(--radius);padding:0 var(--space-4) var(--space-4)}
.preview h2{margin-top:var(--space-4)}.preview h3{margin-top:var(--space-3)}.preview ol{list-style:none;padding:0;margin:0 0 var(--space-3)}.preview li{padding:var(--space-1) 0;border-bottom:1px solid var(--line)}
.preview .slot{font-variant-numeric:tabular-nums;margin-right:var(--space-2)}.preview .busy{color:var(--muted);font-style:italic}
`;

/** Phones: tighter margins; a `stack` table's rows are cards, each cell headed by its column's name. */
const phone = `
@media (max-width:40rem){header{padding:var(--space-2) var(--space-3)}h1{font-size:var(--step-2)}h2{font-size:var(--step-1)}main{padding:0 var(--space-3)}.panel{padding:0 var(--space-3) var(--space-3)}
table.stack thead{display:none}table.stack,table.stack tbody,table.stack tr,table.stack td{display:block}
table.stack tr{background:var(--surface);border:1px solid var(--border);border-radius:var(--radius);padding:var(--space-2) var(--space-3);margin-bottom:var(--space-3)}
table.stack td{border:0;padding:var(--space-1) 0}table.stack td[data-label]::before{content:attr(data-label);display:block;font-size:var(--step--1);font-weight:600;color:var(--muted)}}
`;

export const style = new Html(tokens + base + forms + blocks + phone);
