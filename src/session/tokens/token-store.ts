import { createHash, randomBytes } from 'node:crypto';
import { clusterKey } from '../../core/fleet/cluster-keys.js';
import type { RedisConnection } from '../../core/redis.js';
import { tokenVerdict, type TokenRecord, type TokenScope, type TokenVerdict } from './token-verdict.js';

/**
 * Assistants' tokens in Redis: a token is shown once at creation and stored only as its SHA-256
 * (the key) with its person, scope and expiry; its short id points at that hash, for revoking and
 * for logs. A record is kept a day past its expiry (or revocation) so a late call is told why.
 */

const PREFIX = 'hcmcp_';
const KEEP_AFTER_MS = 24 * 3_600_000;

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
/** Does the text look like one of our tokens (rather than an id)? */
export const looksLikeToken = (text: string): boolean => text.startsWith(PREFIX);

export class TokenStore {
  constructor(
    private readonly redis: RedisConnection,
    private readonly keyspace: string,
  ) {}

  private recordKey(hash: string) {
    return clusterKey(this.keyspace, 'mcpToken', hash);
  }
  private idKey(id: string) {
    return clusterKey(this.keyspace, 'mcpTokenId', id);
  }

  /** A new token for `user` (a Slack user id; `owner` names another person or the OAuth client): the token (to print once) and its record. */
  async create(
    user: string,
    scope: TokenScope,
    ttlMs: number,
    now = Date.now(),
    owner: Pick<TokenRecord, 'person' | 'client'> = {},
  ): Promise<{ token: string; record: TokenRecord }> {
    const token = PREFIX + randomBytes(32).toString('base64url');
    const hash = hashToken(token);
    const record: TokenRecord = { id: randomBytes(6).toString('hex'), user, ...owner, scope, createdAt: now, expiresAt: now + ttlMs };
    const keepMs = ttlMs + KEEP_AFTER_MS;
    await this.redis.set(this.recordKey(hash), JSON.stringify(record), 'PX', keepMs);
    await this.redis.set(this.idKey(record.id), hash, 'PX', keepMs);
    return { token, record };
  }

  async verdict(token: string, now = Date.now()): Promise<TokenVerdict> {
    if (!looksLikeToken(token) || token.length > 200) return tokenVerdict(undefined, now);
    const raw = await this.redis.get(this.recordKey(hashToken(token)));
    return tokenVerdict(raw ? (JSON.parse(raw) as TokenRecord) : undefined, now);
  }

  /** A token's record by its short id (a refresh checks that the access token it replaces was not revoked). */
  async byId(id: string): Promise<TokenRecord | undefined> {
    if (!/^[0-9a-f]{12}$/.test(id)) return undefined;
    const hash = await this.redis.get(this.idKey(id));
    const raw = hash ? await this.redis.get(this.recordKey(hash)) : null;
    return raw ? (JSON.parse(raw) as TokenRecord) : undefined;
  }

  /** Revokes by id or by the token itself; the record stays (marked) so its calls are told it was revoked. */
  async revoke(idOrToken: string, now = Date.now()): Promise<TokenRecord | undefined> {
    const hash = looksLikeToken(idOrToken) ? hashToken(idOrToken) : /^[0-9a-f]{12}$/.test(idOrToken) ? await this.redis.get(this.idKey(idOrToken)) : null;
    if (!hash) return undefined;
    const raw = await this.redis.get(this.recordKey(hash));
    if (!raw) return undefined;
    const record: TokenRecord = { ...(JSON.parse(raw) as TokenRecord), revokedAt: now };
    await this.redis.set(this.recordKey(hash), JSON.stringify(record), 'PX', KEEP_AFTER_MS);
    return record;
  }

  /** Counts a call of token `id` in this minute; true while within `perMinute`. */
  async withinRate(id: string, perMinute: number, now = Date.now()): Promise<boolean> {
    const key = clusterKey(this.keyspace, 'mcpRate', `${id}:${Math.floor(now / 60_000)}`);
    const count = await this.redis.incr(key);
    if (count === 1) await this.redis.pexpire(key, 120_000);
    return count <= perMinute;
  }
}
