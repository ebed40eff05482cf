import { TOKEN_SCOPES } from './token-verdict.js';

/**
 * Pure: where the assistants' OAuth lives and what its two metadata documents say (the MCP
 * authorization spec: RFC 9728 for `/mcp`, the protected resource; RFC 8414 for the web server,
 * its authorization server). The web issues the tokens, `/mcp` checks them: both read these.
 */

export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  authorizationServerMetadata: '/.well-known/oauth-authorization-server',
  protectedResourceMetadata: '/.well-known/oauth-protected-resource',
} as const;

/** The resource indicator (RFC 8707) tokens are issued for: the MCP endpoint's URL. */
export const mcpResourceUrl = (publicUrl: string): string => `${publicUrl}/mcp`;

/** Where `/mcp`'s metadata is (RFC 9728 §3: the well-known path before the resource's own path). */
export const resourceMetadataUrl = (publicUrl: string): string => `${publicUrl}${OAUTH_PATHS.protectedResourceMetadata}/mcp`;

export function protectedResourceMetadata(publicUrl: string) {
  return {
    resource: mcpResourceUrl(publicUrl),
    authorization_servers: [publicUrl],
    scopes_supported: [...TOKEN_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'helmcrew',
  };
}

export function authorizationServerMetadata(publicUrl: string) {
  return {
    issuer: publicUrl,
    authorization_endpoint: `${publicUrl}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${publicUrl}${OAUTH_PATHS.token}`,
    registration_endpoint: `${publicUrl}${OAUTH_PATHS.register}`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    // Public clients only: the client proves itself with PKCE, not a secret.
    token_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...TOKEN_SCOPES],
    authorization_response_iss_parameter_supported: true,
  };
}
