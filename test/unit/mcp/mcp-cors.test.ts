import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/core/log.js';
import { mcpAudit } from '../../../src/mcp/audit.js';
import { mcpCorsHeaders, MCP_ALLOWED_HEADERS } from '../../../src/mcp/cors.js';
import { mcpRoute } from '../../../src/mcp/http-route.js';
import type { McpDeps } from '../../../src/mcp/mcp-deps.js';
import { parseCorsOrigins } from '../../../src/web/server/config.js';

/** CORS for `/mcp`: only listed origins, preflight answered with the transport's headers, the session id and challenge readable. */

const ALLOWED = ['https://assistant.example.org'];

describe('mcpCorsHeaders', () => {
  it('a listed origin: its preflight names the headers a browser client sends; its answers expose Mcp-Session-Id', () => {
    const preflight = mcpCorsHeaders('https://assistant.example.org', ALLOWED, true)!;
    expect(preflight['access-control-allow-origin']).toBe('https://assistant.example.org');
    for (const header of ['Authorization', 'Mcp-Session-Id', 'Mcp-Protocol-Version', 'Content-Type'])
      expect(preflight['access-control-allow-headers']).toContain(header);
    expect(preflight['access-control-allow-methods']).toContain('POST');
    expect(preflight).not.toHaveProperty('access-control-allow-credentials');
    expect(mcpCorsHeaders('https://assistant.example.org', ALLOWED, false)).toMatchObject({
      'access-control-expose-headers': expect.stringContaining('Mcp-Session-Id'),
      vary: 'Origin',
    });
  });

  it.each([
    ['another origin', 'https://evil.example.org'],
    ['the same host on another scheme', 'http://assistant.example.org'],
    ['no Origin header (not a browser)', undefined],
  ])('%s: no CORS headers', (_name, origin) => expect(mcpCorsHeaders(origin, ALLOWED, true)).toBeUndefined());

  it('none listed (the default): no origin is allowed', () => expect(mcpCorsHeaders('https://assistant.example.org', [], true)).toBeUndefined());
});

describe('HELMCREW_MCP_CORS_ORIGINS', () => {
  it.each([
    [undefined, { ok: true, origins: [] }],
    ['', { ok: true, origins: [] }],
    ['https://a.example.org, http://127.0.0.1:6274', { ok: true, origins: ['https://a.example.org', 'http://127.0.0.1:6274'] }],
  ])('%j', (raw, want) => expect(parseCorsOrigins(raw)).toEqual(want));

  it.each(['*', 'https://a.example.org/', 'https://a.example.org/app', 'ftp://a.example.org', 'a.example.org'])('%j is refused, named', (raw) => {
    const parsed = parseCorsOrigins(raw);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.message).toContain(JSON.stringify(raw));
  });
});

describe('/mcp on a server', () => {
  const serve = async () => {
    const log = createLogger('mcp-cors-test', 'silent');
    const deps = { tokens: { verdict: async () => ({ kind: 'unknown' as const }) }, audit: mcpAudit(log), log } as unknown as McpDeps;
    const app = Fastify();
    mcpRoute(deps, { corsOrigins: ALLOWED })(app);
    await app.ready();
    return app;
  };

  it('answers a listed origin’s preflight, refuses another’s, and lets the listed one read a 401’s challenge', async () => {
    const app = await serve();
    const preflight = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' };
    const allowed = await app.inject({ method: 'OPTIONS', url: '/mcp', headers: { origin: ALLOWED[0], ...preflight } });
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe(ALLOWED[0]);
    expect(allowed.headers['access-control-allow-headers']).toBe(MCP_ALLOWED_HEADERS);
    const refused = await app.inject({ method: 'OPTIONS', url: '/mcp', headers: { origin: 'https://evil.example.org', ...preflight } });
    expect(refused.statusCode).toBe(403);
    expect(refused.headers).not.toHaveProperty('access-control-allow-origin');
    const call = await app.inject({ method: 'POST', url: '/mcp', headers: { origin: ALLOWED[0], 'content-type': 'application/json' }, payload: '{}' });
    expect(call.statusCode).toBe(401);
    expect(call.headers['access-control-allow-origin']).toBe(ALLOWED[0]);
    expect(call.headers['access-control-expose-headers']).toContain('WWW-Authenticate');
    const other = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { origin: 'https://evil.example.org', 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(other.headers).not.toHaveProperty('access-control-allow-origin');
    await app.close();
  });
});
