import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * On every answer, set before any route runs so error pages carry them too: no script at all
 * (`default-src 'self'` with no inline script), no framing, no MIME sniffing, no full URLs sent
 * to other sites. Signed-in pages are not cached by the browser or a proxy.
 */
export const CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

export async function securityHeaders(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('x-frame-options', 'DENY');
  reply.header('referrer-policy', 'same-origin');
  if (!request.url.startsWith('/assets/')) reply.header('cache-control', 'no-store');
}
