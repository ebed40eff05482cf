import { clusterKey } from '../../core/fleet/cluster-keys.js';
import { randomBytes } from 'node:crypto';
import type { RedisConnection } from '../../core/redis.js';
import type { PreparedAction } from '../plan/prepared.js';

/**
 * Plans waiting for a Confirm (or an Approve) click, in Redis with a TTL. A button carries only
 * the opaque id; the plan itself never leaves the server, and taking it deletes it, so a click
 * can run it at most once and never after it expired.
 */

export interface StoredPlan {
  action: PreparedAction;
  /**
   * Who asked: a Slack user in a channel, or (from the web) a signed-in person — then `id` is their
   * actor id (`oidc:…`, or `slack:U…` after Sign in with Slack), `slackUser` their Slack id when they
   * have one (else empty) and `channel` empty. An assistant's proposal (`via: 'assistant'`) names the
   * token's person, `slack:U…`, and is stored awaiting approval from its start.
   */
  requester: { slackUser: string; channel: string; id?: string; via?: 'web' | 'assistant' };
  /** Set once the requester confirmed and the two-person rule asks for a second person. */
  awaitingApproval?: boolean;
  /** The in-channel message that asks for approval, to update with the outcome. */
  approvalMessage?: { channel: string; ts: string };
  /** An assistant's proposal: the Slack messages that ask the Teams to approve it (one per channel). */
  approvalMessages?: { channel: string; ts: string }[];
  /** How many distinct approvals it takes (absent: one) and who gave them so far (actor ids). */
  approvals?: { needed: number; by: string[] };
}

/** Sets the new value only if the key still holds the old one, keeping its expiry: one key, so a Redis Cluster takes it too. */
const COMPARE_AND_SET = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl) else redis.call('SET', KEYS[1], ARGV[2]) end
return 1`;

export class PlanStore {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
  ) {}

  private key(id: string): string {
    return clusterKey(this.prefix, 'botPlan', id);
  }

  async put(plan: StoredPlan): Promise<string> {
    const id = randomBytes(18).toString('base64url');
    await this.redis.set(this.key(id), JSON.stringify(plan), 'EX', this.ttlSeconds);
    return id;
  }

  async peek(id: string): Promise<StoredPlan | undefined> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return undefined;
    const raw = await this.redis.get(this.key(id));
    return raw ? (JSON.parse(raw) as StoredPlan) : undefined;
  }

  /**
   * Changes a waiting plan in place (an approval counted, its messages noted), its expiry kept; of
   * two concurrent changes neither is lost (compare-and-set, retried). Undefined when it is gone.
   */
  async update(id: string, change: (plan: StoredPlan) => StoredPlan): Promise<StoredPlan | undefined> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return undefined;
    for (let attempt = 0; attempt < 8; attempt++) {
      const raw = await this.redis.get(this.key(id));
      if (!raw) return undefined;
      const next = change(JSON.parse(raw) as StoredPlan);
      if ((await this.redis.eval(COMPARE_AND_SET, 1, this.key(id), raw, JSON.stringify(next))) === 1) return next;
    }
    throw new Error(`plan ${id} kept changing under eight attempts to update it`);
  }

  /** Atomically takes the plan: of two concurrent clicks, only one gets it. */
  async take(id: string): Promise<StoredPlan | undefined> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return undefined;
    const raw = await this.redis.getdel(this.key(id));
    return raw ? (JSON.parse(raw) as StoredPlan) : undefined;
  }
}
