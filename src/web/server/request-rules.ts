import { timingSafeEqual } from 'node:crypto';

/**
 * The small decisions every request goes through, pure: which paths need a session, whether a
 * POST carries this session's CSRF token, and where a sign-in may return to.
 */

/** Reached by an assistant's client, not a browser: no session, no cookie, so no CSRF (each checks its own credential). */
const MACHINE_PATHS = new Set(['/mcp', '/oauth/token', '/oauth/register']);

/**
 * /healthz, the sign-in routes, the stylesheet and the OAuth metadata (`/.well-known/…`) are served
 * to anyone; `/mcp` (assistants) is authenticated by its own bearer token and the OAuth token and
 * registration endpoints by the client's code and PKCE; everything else — `/oauth/authorize`, where a
 * person allows an assistant, too — needs a session.
 */
export function needsSession(path: string): boolean {
  return !(
    path === '/healthz' ||
    path === '/auth' ||
    path.startsWith('/auth/') ||
    path.startsWith('/assets/') ||
    path.startsWith('/.well-known/') ||
    MACHINE_PATHS.has(path)
  );
}

/** A method that may change something: it must carry the CSRF token. */
export function changesState(method: string): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
}

/** The token a request carries: the `_csrf` form field, else the `x-csrf-token` header. */
export function csrfTokenOf(body: unknown, header: string | string[] | undefined): string | undefined {
  const field = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)._csrf : undefined;
  if (typeof field === 'string' && field !== '') return field;
  return typeof header === 'string' && header !== '' ? header : undefined;
}

/** Compared in constant time, so the answer's timing does not tell how much of a guess was right. */
export function csrfMatches(sent: string | undefined, expected: string): boolean {
  if (!sent) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A path on this site to go to after sign-in; anything else (another origin, `//host`, a scheme) goes to `/`. */
export function safeReturnTo(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length > 2048) return '/';
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\') || /[\r\n]/.test(raw)) return '/';
  return raw.startsWith('/auth') ? '/' : raw;
}
