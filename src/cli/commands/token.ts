import { checkedRedisUrl, type Env } from '../../core/config/env.js';
import { connectRedis } from '../../core/redis.js';
import { readSessionConfig } from '../../session/flow/config.js';
import { TokenStore } from '../../session/tokens/token-store.js';
import { tokenOrigin, tokenPerson } from '../../session/tokens/token-verdict.js';
import { parseTokenArgs } from './token-args.js';

/**
 * `helmcrew token create|revoke`: assistants' tokens (docs/mcp.md). The token is printed once, on
 * stdout; Redis keeps only its SHA-256 with the person, scope and expiry.
 */
export async function tokenCommand(args: string[], env: Env = process.env): Promise<number> {
  const parsed = parseTokenArgs(args);
  if (parsed.kind === 'error') {
    console.error(`helmcrew token: ${parsed.message}`);
    return 2;
  }
  const redis = connectRedis(checkedRedisUrl(env), { maxRetriesPerRequest: 3 });
  try {
    const store = new TokenStore(redis, readSessionConfig(env).keyPrefix);
    if (parsed.kind === 'revoke') {
      const record = await store.revoke(parsed.which);
      if (!record) {
        console.error('helmcrew token: no such token (or it expired more than a day ago)');
        return 1;
      }
      console.error(`revoked token ${record.id} of ${tokenPerson(record).id} (${tokenOrigin(record)})`);
      return 0;
    }
    const { token, record } = await store.create(parsed.user, parsed.scope, parsed.ttlMs);
    console.error(`token ${record.id} for slack:${record.user}, scope ${record.scope}, expires ${new Date(record.expiresAt).toISOString()}; shown once:`);
    console.log(token);
    return 0;
  } finally {
    redis.disconnect();
  }
}
