/**
 * The account page's first steps: the address to give an assistant and the steps to get there,
 * each marked done once it is (a calendar connected, an app allowed).
 */
import { type Html, html } from '../html.ts';

export interface StartState {
  mcpUrl: string;
  calendarsConnected: boolean;
  appsAllowed: boolean;
}

const step = (done: boolean, text: Html) =>
  html`<li>${done ? html`<strong>Done:</strong> ` : ''}${text}</li>`;

export function gettingStartedSection({ mcpUrl, calendarsConnected, appsAllowed }: StartState): Html {
  return html`<section id="getting-started">
<h2>Use your calendars from an assistant</h2>
<label for="mcp-url">The address of this service for assistants (MCP)</label>
<input id="mcp-url" type="url" readonly value="${mcpUrl}">
<ol>
${step(calendarsConnected, html`Connect a calendar account under Your calendars (Google, Microsoft 365, CalDAV or an ICS feed).`)}
${step(
  appsAllowed,
  html`Add the address to your assistant as a remote MCP server: in Claude as a custom connector, in ChatGPT as a connector, in VS Code with <code>MCP: Add Server…</code> (HTTP), or try it with <code>npx @modelcontextprotocol/inspector</code> (Streamable HTTP). No key is needed: the assistant sends you here to sign in, then asks which calendars it may see and in how much detail.`,
)}
${step(false, html`Ask it, for example, "what is on my calendar tomorrow?". You can see, change and revoke what each app may do under Your assistants, and what it changed under Changes made by apps.`)}
</ol>
</section>`;
}
