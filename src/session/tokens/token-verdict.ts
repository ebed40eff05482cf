import type { Subject } from '../authz/policy-types.js';

/**
 * Pure: what an assistant's token is worth now. A token belongs to a person — a Slack user, or a
 * person of the web's OIDC provider (minted through OAuth after a web sign-in) — and carries a
 * scope: `read` may only read, `propose` may also propose changes (never apply them).
 */

export type TokenScope = 'read' | 'propose';
export const TOKEN_SCOPES: readonly TokenScope[] = ['read', 'propose'];

/** What Redis keeps for a token: never the token itself, only the SHA-256 it is found by. */
export interface TokenRecord {
  /** A short public id: in logs, audit lines and `token revoke`. */
  id: string;
  /** The Slack user id whose Team permissions apply (`U…`); empty when `person` names someone else. */
  user: string;
  /**
   * A person of the web's OIDC provider (a token minted through OAuth after that sign-in): their
   * actor id (`oidc:…`) and the verified email and groups the Teams match, as the web saw them at
   * sign-in — so the Team gate sees the principal the web sees.
   */
  person?: { id: string; email?: string; groups?: string[] };
  /** Minted through OAuth (docs/mcp.md): the client it was issued to, as it registered. */
  client?: { id: string; name: string };
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
      return `token ${verdict.record.id} of ${tokenPerson(verdict.record).id} (${verdict.record.scope})`;
  }
}

/** Who a token acts as: the actor id audit lines name, and the Subject the Teams are matched on. */
export function tokenPerson(record: TokenRecord): { id: string; subject: Subject } {
  if (record.person)
    return {
      id: record.person.id,
      subject: { slackUserGroups: [], ...(record.person.email ? { email: record.person.email } : {}), groups: record.person.groups ?? [] },
    };
  return { id: `slack:${record.user}`, subject: { slackUser: record.user, slackUserGroups: [] } };
}

/** How a log line names where a token came from: `helmcrew token create`, or the OAuth client it was issued to. */
export function tokenOrigin(record: TokenRecord): string {
  return record.client ? `oauth client ${JSON.stringify(record.client.name)} (${record.client.id})` : 'token create';
}

/** May this scope do that? A read token reads; only a propose token proposes. */
export function scopeAllows(scope: TokenScope, needs: TokenScope): boolean {
  return needs === 'read' || scope === 'propose';
}

/** A Slack user id as Slack writes them (U… or W…), so a typo does not mint a token for nobody. */
export const SLACK_USER_ID = /^[UW][A-Z0-9]{2,20}$/;

/** Token lifetimes: at least a minute, at most 90 days. */
export const TOKEN_TTL_BOUNDS_MS = { min: 60_000, max: 90 * 24 * 3_600_000 } as const;
