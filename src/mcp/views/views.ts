/**
 * The MCP Apps views (extension io.modelcontextprotocol/ui, stable 2026-01-26): `ui://` HTML
 * resources that a host supporting Apps shows with a tool's result. A tool names its view in its
 * listing (`_meta.ui.resourceUri`); its results stay exactly as they are, so a host without Apps
 * sees no change. A view shows what the result holds and nothing more, and fetches nothing: its
 * CSP metadata declares no domain of any kind, the strictest policy the extension has.
 */
import type { McpUiResourceMeta } from '@modelcontextprotocol/ext-apps';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { type ReadResourceResult, type Resource, ResourceNotFoundError } from '@modelcontextprotocol/server';
import { viewPage } from './viewPage.ts';

export interface View {
  uri: `ui://${string}`;
  name: string;
  title: string;
  description: string;
  html: string;
}

export const agendaView: View = {
  uri: 'ui://calendar/agenda',
  name: 'agenda',
  title: 'Agenda',
  description: 'The events of list_events and search_events, day by day.',
  html: viewPage('Agenda', 'agenda.js'),
};

export const freeTimesView: View = {
  uri: 'ui://calendar/free-times',
  name: 'free-times',
  title: 'Free times',
  description:
    'Busy times of get_availability and the slots of find_meeting_times; a slot picked asks the host to call create_event.',
  html: viewPage('Free times', 'freeTimes.js'),
};

const meta: { ui: McpUiResourceMeta } = {
  ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [] }, prefersBorder: true },
};

export const listedView = (view: View): Resource => ({
  uri: view.uri,
  name: view.name,
  title: view.title,
  description: view.description,
  mimeType: RESOURCE_MIME_TYPE,
  _meta: meta,
});

/** `resources/read` of one of `views` (the views of the tools the caller may use). */
export function readView(views: readonly View[], uri: string): ReadResourceResult {
  const view = views.find((v) => v.uri === uri);
  if (view === undefined) throw new ResourceNotFoundError(uri);
  return { contents: [{ uri: view.uri, mimeType: RESOURCE_MIME_TYPE, text: view.html, _meta: meta }] };
}
