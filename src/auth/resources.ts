/** The two protected resources and what each token audience may carry. Pure. */
import { type Scope, scopes } from '../policy/workspacePolicy.ts';

export type ResourceName = 'mcp' | 'v1';

export interface ProtectedResource {
  name: ResourceName;
  /** The resource indicator and the access token audience. */
  url: string;
  /** The scopes a token for this resource may carry. */
  scopes: readonly Scope[];
  /** RFC 9728 metadata of this resource. */
  metadataUrl: string;
}

export type Resources = Record<ResourceName, ProtectedResource>;

export function protectedResources(baseUrl: string): Resources {
  const resource = (name: ResourceName, allowed: readonly Scope[]): ProtectedResource => ({
    name,
    url: `${baseUrl}/${name}`,
    scopes: allowed,
    metadataUrl: `${baseUrl}/.well-known/oauth-protected-resource/${name}`,
  });
  return {
    mcp: resource('mcp', scopes),
    // REST is read-only: its tokens never carry write scopes.
    v1: resource('v1', ['calendar:read']),
  };
}

export const resourceByUrl = (resources: Resources, url: string): ProtectedResource | undefined =>
  Object.values(resources).find((r) => r.url === url);

/** Issuer of the authorization server for a base URL. */
export const issuerFor = (baseUrl: string): string => `${baseUrl}/api/auth`;
