import { createHash, randomBytes } from 'node:crypto';
import { clusterKey } from '../../core/fleet/cluster-keys.js';
import type { RedisConnection } from '../../core/redis.js';
import type { WebPrincipal } from '../contract.js';
import type { AuthorizationAsk, CodeGrant } from './authorize-request.js';
import type { OAuthClient } from './oauth-rules.js';

/**
 * The assistants' OAuth state in Redis, in the cluster's keyspace beside the tokens it mints:
 * registered clients (a TTL, renewed when one gets a token), authorization requests waiting for a
 * person's consent (bound to that person), and one-time codes — stored by their SHA-256 and taken
 * once (GETDEL), so a code works at most once and never after its minute.
 */

export const OAUTH_TTLS = { clientSeconds: 30 * 24 * 3600, requestSeconds: 600, codeSeconds: 60, usedCodeSeconds: 600 } as const;

/** What Allow writes: the code's bindings and who consented. */
export interface IssuedCode extends CodeGrant {
  clientName: string;
  principal: Pick<WebPrincipal, 'id' | 'via' | 'subject'>;
}

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

  async putCode(issued: IssuedCode): Promise<string> {
    const code = randomBytes(32).toString('base64url');
    await this.redis.set(clusterKey(this.keyspace, 'mcpOauthCode', sha256(code)), JSON.stringify(issued), 'EX', OAUTH_TTLS.codeSeconds);
    return code;
  }

  /** The code's record, removed as it is read: whatever the exchange's outcome, a code is tried once. */
  async takeCode(code: string): Promise<IssuedCode | undefined> {
    const raw = await this.redis.getdel(clusterKey(this.keyspace, 'mcpOauthCode', sha256(code)));
    return raw ? (JSON.parse(raw) as IssuedCode) : undefined;
  }

  /** Remembers which token a code issued, so a replay of the code revokes it (OAuth 2.1 §4.1.3). */
  async markUsed(code: string, tokenId: string): Promise<void> {
    await this.redis.set(clusterKey(this.keyspace, 'mcpOauthCodeUsed', sha256(code)), tokenId, 'EX', OAUTH_TTLS.usedCodeSeconds);
  }

  async issuedBy(code: string): Promise<string | undefined> {
    return (await this.redis.get(clusterKey(this.keyspace, 'mcpOauthCodeUsed', sha256(code)))) ?? undefined;
  }
}
