/**
 * The descriptive fields of a VEVENT, mapped as DESIGN §4 says (JSCalendar names). Empty
 * strings and empty lists are left out.
 */
import type { EventStatus, FreeBusyStatus, Link, Location, Privacy, VirtualLocation } from '../event.ts';
import type { Component } from './parse.ts';

export interface Description {
  title?: string;
  description?: string;
  locations?: Location[];
  virtualLocations?: VirtualLocation[];
  links?: Link[];
  keywords?: string[];
  color?: string;
  status: EventStatus;
  freeBusyStatus: FreeBusyStatus;
  privacy?: Privacy;
}

const statuses: Record<string, EventStatus> = {
  CONFIRMED: 'confirmed',
  TENTATIVE: 'tentative',
  CANCELLED: 'cancelled',
};
const privacyByClass: Record<string, Privacy> = {
  PUBLIC: 'public',
  PRIVATE: 'private',
  CONFIDENTIAL: 'secret',
};

export function describe(component: Component): Description {
  const status = statuses[upper(text(component, 'status'))] ?? 'confirmed';
  const freeBusyStatus: FreeBusyStatus = upper(text(component, 'transp')) === 'TRANSPARENT' ? 'free' : 'busy';
  const classValue = upper(text(component, 'class'));
  return {
    ...optional('title', text(component, 'summary')),
    ...optional('description', text(component, 'description')),
    ...optional('locations', locations(component)),
    ...optional('virtualLocations', virtualLocations(component)),
    ...optional('links', links(component)),
    ...optional('keywords', keywords(component)),
    ...optional('color', text(component, 'color')?.trim()),
    status,
    freeBusyStatus,
    // RFC 5545: an unrecognised CLASS is to be treated as PRIVATE.
    ...(classValue === '' ? {} : { privacy: privacyByClass[classValue] ?? 'private' }),
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  const empty = value === undefined || (typeof value === 'string' && value.trim() === '');
  if (empty || (Array.isArray(value) && value.length === 0)) return {};
  return { [key]: value } as { [P in K]?: V };
}

function text(component: Component, name: string): string | undefined {
  const value = component.getFirstPropertyValue(name);
  return typeof value === 'string' ? value : undefined;
}

function upper(value: string | undefined): string {
  return value?.trim().toUpperCase() ?? '';
}

function param(property: { getFirstParameter(name: string): string }, name: string): string | undefined {
  const value = property.getFirstParameter(name);
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function uris(component: Component, name: string) {
  return component
    .getAllProperties(name)
    .map((property) => ({ property, uri: property.getFirstValue() }))
    .filter(
      (item): item is typeof item & { uri: string } => typeof item.uri === 'string' && URL.canParse(item.uri),
    );
}

function locations(component: Component): Location[] {
  const name = text(component, 'location');
  if (name === undefined || name.trim() === '') return [];
  const coordinates = geo(component);
  return [{ name, ...(coordinates && { coordinates }) }];
}

/** GEO (`lat;lon`), else the geo: URI Apple puts into X-APPLE-STRUCTURED-LOCATION. */
function geo(component: Component): string | undefined {
  const value = component.getFirstPropertyValue('geo');
  if (Array.isArray(value) && value.length === 2 && value.every(Number.isFinite))
    return `geo:${value[0]},${value[1]}`;
  const apple = component.getFirstPropertyValue('x-apple-structured-location');
  return typeof apple === 'string' && /^geo:-?\d/.test(apple) ? apple : undefined;
}

function virtualLocations(component: Component): VirtualLocation[] {
  return uris(component, 'conference').map(({ property, uri }) => {
    const name = param(property, 'label');
    return { uri, ...(name && { name }) };
  });
}

function links(component: Component): Link[] {
  const url = uris(component, 'url').map(({ uri }) => ({ href: uri }));
  const attachments = uris(component, 'attach')
    .filter(({ property }) => property.type === 'uri')
    .map(({ uri }) => ({ href: uri, rel: 'enclosure' }));
  // RFC 9253 LINK; a VALUE=UID link names another event, not a resource, so it is no href.
  const related = uris(component, 'link')
    .filter(({ property }) => property.type !== 'uid')
    .map(({ property, uri }) => {
      // RFC 9253 names the parameter LINKREL; some producers write REL.
      const rel = param(property, 'linkrel') ?? param(property, 'rel');
      const title = param(property, 'label');
      return {
        href: uri,
        ...(rel && { rel: rel.includes(':') ? rel : rel.toLowerCase() }),
        ...(title && { title }),
      };
    });
  return [...url, ...attachments, ...related];
}

function keywords(component: Component): string[] {
  const values = component
    .getAllProperties('categories')
    .flatMap((property) => property.getValues())
    .filter((value): value is string => typeof value === 'string' && value.trim() !== '');
  return [...new Set(values)];
}
