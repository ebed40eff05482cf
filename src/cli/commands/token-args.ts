import { parseDuration } from '../../api/duration.js';
import { SLACK_USER_ID, TOKEN_SCOPES, TOKEN_TTL_BOUNDS_MS, type TokenScope } from '../../session/tokens/token-verdict.js';

/** Pure: `helmcrew token …`'s words, or what is wrong with them. */

export const TOKEN_USAGE = `usage:
  helmcrew token create --user <slack user id> --scope read|propose --expires <duration: 30m, 12h, 720h>
  helmcrew token revoke <token id or token>`;

export type TokenArgs =
  { kind: 'create'; user: string; scope: TokenScope; ttlMs: number } | { kind: 'revoke'; which: string } | { kind: 'error'; message: string };

export function parseTokenArgs(args: readonly string[]): TokenArgs {
  const [sub, ...rest] = args;
  if (sub === 'revoke') {
    if (rest.length !== 1 || !rest[0]) return { kind: 'error', message: `revoke takes one token id or token\n${TOKEN_USAGE}` };
    return { kind: 'revoke', which: rest[0] };
  }
  if (sub !== 'create') return { kind: 'error', message: TOKEN_USAGE };
  const flags: Record<string, string> = {};
  for (let i = 0; i < rest.length; i += 2) {
    const [flag, value] = [rest[i]!, rest[i + 1]];
    if (!['--user', '--scope', '--expires'].includes(flag) || value === undefined) return { kind: 'error', message: `unexpected "${flag}"\n${TOKEN_USAGE}` };
    flags[flag] = value;
  }
  const user = flags['--user'] ?? '';
  if (!SLACK_USER_ID.test(user)) return { kind: 'error', message: `--user must be a Slack user id like U0123ABCD, got "${user.slice(0, 40)}"` };
  const scope = flags['--scope'];
  if (!TOKEN_SCOPES.includes(scope as TokenScope)) return { kind: 'error', message: `--scope must be read or propose, got "${String(scope ?? '')}"` };
  let ttlMs: number;
  try {
    ttlMs = parseDuration(flags['--expires'] ?? '');
  } catch {
    return { kind: 'error', message: `--expires must be a duration like 30m, 12h or 720h, got "${flags['--expires'] ?? ''}"` };
  }
  if (ttlMs < TOKEN_TTL_BOUNDS_MS.min || ttlMs > TOKEN_TTL_BOUNDS_MS.max) return { kind: 'error', message: '--expires must be between 1m and 2160h (90 days)' };
  return { kind: 'create', user, scope: scope as TokenScope, ttlMs };
}
