import { checkedRedisUrl, SHARED_ENV, type Env } from '../../core/config/env.js';
import { readFleet } from '../../core/fleet/fleet-store.js';
import { renderFleet } from '../../core/fleet/heartbeat.js';
import { connectRedis } from '../../core/redis.js';
import { fleetAclCommand } from './fleet-acl.js';

/**
 * `helmcrew fleet [--json]`: the clusters whose agents announced themselves on this Redis and
 * prefix (REDIS_URL, HELMCREW_QUEUE_PREFIX), each up with its replicas, or unreachable since its
 * last heartbeat. Exit 0 when every cluster is up, 1 when one is not. `helmcrew fleet acl …`: the
 * fleet's Redis ACL lines (fleet-acl.ts).
 */
export async function fleetCommand(args: string[], env: Env = process.env): Promise<number> {
  if (args[0] === 'acl') {
    return fleetAclCommand(
      args.slice(1),
      env,
      (text) => process.stdout.write(text),
      (text) => console.error(text),
    );
  }
  const json = args.includes('--json');
  const unknown = args.filter((a) => a !== '--json');
  if (unknown.length > 0) {
    console.error(`usage: helmcrew fleet [--json] | helmcrew fleet acl …   (unknown: ${unknown.join(' ')})`);
    return 2;
  }
  const redis = connectRedis(checkedRedisUrl(env), { maxRetriesPerRequest: 3 });
  try {
    const fleet = await readFleet(redis, SHARED_ENV.in(env).text('HELMCREW_QUEUE_PREFIX'), Date.now());
    console.log(json ? JSON.stringify(fleet, null, 2) : renderFleet(fleet));
    return fleet.every((c) => c.state === 'up') ? 0 : 1;
  } finally {
    redis.disconnect();
  }
}
