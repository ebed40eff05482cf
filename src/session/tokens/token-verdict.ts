/**
 * Pure: what an assistant's token is worth now. A token belongs to a person (a Slack user) and
 * carries a scope: `read` may only read, `propose` may also propose changes (never apply them).
 */

export type TokenScope = 'read' | 'propose';
export const TOKEN_SCOPES: readonly TokenScope[] = ['read', 'propose'];

/** What Redis keeps for a token: never the token itself, only the SHA-256 it is found by. */
export interface TokenRecord {
  /** A short public id: in logs, audit lines and `token revoke`. */
  id: string;
  /** The Slack user id whose Team permissions apply (`U…`). */
  user: string;
  scope: TokenScope;
  /** Epoch ms. */
  createdAt: number;
  expiresAt: number;
  revokedAt?: number;
}

export type TokenVerdict =
  { kind: 'unknown' } | { kind: 'revoked'; record: TokenRecord } | { kind: 'expired'; record: TokenRecord } | { kind: 'ok'; record: TokenRecord };

export function tokenVerdict(record: TokenRecord | undefined, now: number): TokenVerdict {
  if (!record) return { kind: 'unknown' };
  if (record.revokedAt !== undefined) return { kind: 'revoked', record };
  if (now >= record.expiresAt) return { kind: 'expired', record };
  return { kind: 'ok', record };
}

/** The words a refused token is answered with (the same for a client and the log). */
export function verdictMessage(verdict: TokenVerdict): string {
  switch (verdict.kind) {
    case 'unknown':
      return 'this token is not known (or the Authorization header is not "Bearer <token>")';
    case 'revoked':
      return `token ${verdict.record.id} was revoked`;
    case 'expired':
      return `token ${verdict.record.id} expired at ${new Date(verdict.record.expiresAt).toISOString()}`;
    case 'ok':
      return `token ${verdict.record.id} of slack:${verdict.record.user} (${verdict.record.scope})`;
  }
}

/** May this scope do that? A read token reads; only a propose token proposes. */
export function scopeAllows(scope: TokenScope, needs: TokenScope): boolean {
  return needs === 'read' || scope === 'propose';
}

/** A Slack user id as Slack writes them (U… or W…), so a typo does not mint a token for nobody. */
export const SLACK_USER_ID = /^[UW][A-Z0-9]{2,20}$/;

/** Token lifetimes: at least a minute, at most 90 days. */
export const TOKEN_TTL_BOUNDS_MS = { min: 60_000, max: 90 * 24 * 3_600_000 } as const;
