import { createHash, randomBytes } from 'node:crypto';
import { clusterKey } from '../../core/fleet/cluster-keys.js';
import type { RedisConnection } from '../../core/redis.js';
import type { AuthorizationAsk } from './authorize-request.js';
import type { OAuthClient } from './oauth-rules.js';
import type { CodeGrant, RefreshGrant } from './token-request.js';

/**
 * The assistants' OAuth state in Redis, in the cluster's keyspace beside the tokens it mints:
 * registered clients (a TTL, renewed when one gets a token), authorization requests waiting for a
 * person's consent (bound to that person), one-time codes and refresh tokens — stored by their
 * SHA-256 and taken once (GETDEL), so each works at most once — and each consent's family of
 * tokens, so a replayed code or refresh token revokes what it stood for.
 */

export const OAUTH_TTLS = { clientSeconds: 30 * 24 * 3600, requestSeconds: 600, codeSeconds: 60, usedCodeSeconds: 600 } as const;

const CLIENT_ID = /^hcc_[A-Za-z0-9_-]{22}$/;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export class OAuthStore {
  constructor(
    private readonly redis: RedisConnection,
    private readonly keyspace: string,
  ) {}

  async registerClient(fields: Omit<OAuthClient, 'clientId' | 'createdAt'>, now = Date.now()): Promise<OAuthClient> {
    const client: OAuthClient = { clientId: `hcc_${randomBytes(16).toString('base64url')}`, ...fields, createdAt: now };
    await this.redis.set(clusterKey(this.keyspace, 'mcpOauthClient', client.clientId), JSON.stringify(client), 'EX', OAUTH_TTLS.clientSeconds);
    return client;
  }

  async client(clientId: string | undefined): Promise<OAuthClient | undefined> {
    if (!clientId || !CLIENT_ID.test(clientId)) return undefined;
    const raw = await this.redis.get(clusterKey(this.keyspace, 'mcpOauthClient', clientId));
    return raw ? (JSON.parse(raw) as OAuthClient) : undefined;
  }

  /** A client in use stays registered another 30 days. */
  async keepClient(clientId: string): Promise<void> {
    await this.redis.expire(clusterKey(this.keyspace, 'mcpOauthClient', clientId), OAUTH_TTLS.clientSeconds);
  }

  /** An authorization request waiting on the consent page; its id goes in the form. */
  async putRequest(ask: AuthorizationAsk, principalId: string): Promise<string> {
    const id = randomBytes(18).toString('base64url');
    await this.redis.set(clusterKey(this.keyspace, 'mcpOauthRequest', id), JSON.stringify({ ask, principalId }), 'EX', OAUTH_TTLS.requestSeconds);
    return id;
  }

  /** Taken once: a second Allow (or Deny) for one request finds nothing. */
  async takeRequest(id: unknown): Promise<{ ask: AuthorizationAsk; principalId: string } | undefined> {
    if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{24}$/.test(id)) return undefined;
    const raw = await this.redis.getdel(clusterKey(this.keyspace, 'mcpOauthRequest', id));
    return raw ? (JSON.parse(raw) as { ask: AuthorizationAsk; principalId: string }) : undefined;
  }

  async putCode(issued: CodeGrant): Promise<string> {
    const code = randomBytes(32).toString('base64url');
    await this.redis.set(clusterKey(this.keyspace, 'mcpOauthCode', sha256(code)), JSON.stringify(issued), 'EX', OAUTH_TTLS.codeSeconds);
    return code;
  }

  /** The code's record, removed as it is read: whatever the exchange's outcome, a code is tried once. */
  async takeCode(code: string): Promise<CodeGrant | undefined> {
    const raw = await this.redis.getdel(clusterKey(this.keyspace, 'mcpOauthCode', sha256(code)));
    return raw ? (JSON.parse(raw) as CodeGrant) : undefined;
  }

  /** Remembers the family a code began, so a replay of the code revokes what it issued (OAuth 2.1 §4.1.3). */
  async markCodeUsed(code: string, family: string): Promise<void> {
    await this.redis.set(clusterKey(this.keyspace, 'mcpOauthCodeUsed', sha256(code)), family, 'EX', OAUTH_TTLS.usedCodeSeconds);
  }

  async codeUsedBy(code: string): Promise<string | undefined> {
    return (await this.redis.get(clusterKey(this.keyspace, 'mcpOauthCodeUsed', sha256(code)))) ?? undefined;
  }

  /** A refresh token for `grant`, kept until the grant's end; recorded as its family's current one. */
  async putRefresh(grant: RefreshGrant, now = Date.now()): Promise<string> {
    const token = `hcrt_${randomBytes(32).toString('base64url')}`;
    const ms = Math.max(1000, grant.expiresAt - now);
    const family = clusterKey(this.keyspace, 'mcpOauthFamily', grant.family);
    await this.redis.set(clusterKey(this.keyspace, 'mcpOauthRefresh', sha256(token)), JSON.stringify(grant), 'PX', ms);
    await this.redis.hset(family, 'current', sha256(token), `token:${grant.accessTokenId}`, '1');
    await this.redis.pexpire(family, ms);
    return token;
  }

  /** The refresh token's grant, removed as it is read; a used one is remembered (by family) until the family ends. */
  async takeRefresh(token: string, now = Date.now()): Promise<RefreshGrant | undefined> {
    const raw = await this.redis.getdel(clusterKey(this.keyspace, 'mcpOauthRefresh', sha256(token)));
    if (!raw) return undefined;
    const grant = JSON.parse(raw) as RefreshGrant;
    await this.redis.set(clusterKey(this.keyspace, 'mcpOauthRefreshUsed', sha256(token)), grant.family, 'PX', Math.max(1000, grant.expiresAt - now));
    return grant;
  }

  /** The family of a refresh token already used, if it was one. */
  async refreshUsedBy(token: string): Promise<string | undefined> {
    return (await this.redis.get(clusterKey(this.keyspace, 'mcpOauthRefreshUsed', sha256(token)))) ?? undefined;
  }

  /** Ends a family: its live refresh token is deleted; the ids of its access tokens are returned, for revoking. */
  async endFamily(family: string): Promise<string[]> {
    const key = clusterKey(this.keyspace, 'mcpOauthFamily', family);
    const fields = await this.redis.hgetall(key);
    if (fields.current) await this.redis.del(clusterKey(this.keyspace, 'mcpOauthRefresh', fields.current));
    await this.redis.del(key);
    return Object.keys(fields)
      .filter((f) => f.startsWith('token:'))
      .map((f) => f.slice('token:'.length));
  }
}
