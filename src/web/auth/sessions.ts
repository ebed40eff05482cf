import { createHash, randomBytes } from 'node:crypto';
import type { RedisConnection } from '../../core/redis.js';
import type { WebPrincipal } from '../contract.js';

/**
 * Web sessions and sign-ins under way, in Redis so every replica shares them. The cookie holds a
 * random id (32 bytes); Redis holds only its SHA-256, so a reader of Redis cannot sign in as anyone.
 * A session ends by its TTL (at most 12 h) or at logout. A sign-in under way is taken once (GETDEL):
 * a replayed callback finds nothing.
 */

export interface WebSession {
  principal: WebPrincipal;
  /** The CSRF token bound to this session. */
  csrfToken: string;
  createdAt: number;
}

/** What the callback needs to finish a sign-in: checked by openid-client against the provider's answer. */
export interface PendingLogin {
  provider: 'oidc' | 'slack';
  state: string;
  nonce: string;
  codeVerifier: string;
  /** Where to go after sign-in: a path on this site. */
  returnTo: string;
}

/** How long a sign-in may take, from the sign-in page to the callback. */
export const LOGIN_TTL_SECONDS = 600;

export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export class WebSessionStore {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    private readonly sessionSeconds: number,
  ) {}

  async create(principal: WebPrincipal, now = Date.now()): Promise<{ id: string; session: WebSession }> {
    const id = newSecret();
    const session: WebSession = { principal, csrfToken: newSecret(), createdAt: now };
    await this.redis.set(this.key('session', id), JSON.stringify(session), 'EX', this.sessionSeconds);
    return { id, session };
  }

  async get(id: string): Promise<WebSession | undefined> {
    const raw = await this.redis.get(this.key('session', id));
    return raw ? (JSON.parse(raw) as WebSession) : undefined;
  }

  async delete(id: string): Promise<void> {
    await this.redis.del(this.key('session', id));
  }

  async startLogin(login: PendingLogin): Promise<string> {
    const id = newSecret();
    await this.redis.set(this.key('login', id), JSON.stringify(login), 'EX', LOGIN_TTL_SECONDS);
    return id;
  }

  /** The sign-in under way, removed as it is read: a second callback with the same cookie finds none. */
  async takeLogin(id: string): Promise<PendingLogin | undefined> {
    const raw = await this.redis.getdel(this.key('login', id));
    return raw ? (JSON.parse(raw) as PendingLogin) : undefined;
  }

  private key(kind: 'session' | 'login', id: string): string {
    return `${this.prefix}:web:${kind}:${createHash('sha256').update(id).digest('hex')}`;
  }
}
