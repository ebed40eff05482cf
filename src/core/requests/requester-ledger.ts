import type { RedisConnection } from '../redis.js';

/**
 * Who asked for a change, kept where only helmcrew's parts write: RedisConnection. The bot records it from
 * the signed Slack request, the terminal from the API server's SelfSubjectReview; the controller
 * reads it when it reports the outcome. A HelmRelease carries only the request id (or nothing, for
 * a spec change), so whoever may edit the object can name no requester, only point back at one of
 * its own release's past requests — and each request id is handled once.
 */

/** The person, as authenticated: `slack:U0123` (the signed request's user) or `kube:alice` (SelfSubjectReview). */
export interface Requester {
  id: string;
  /** A handle for media without Slack mentions (Slack's `user_name`, the kube user name). */
  name?: string;
}

export interface RequestRecord {
  requester: Requester;
  /** The `/release` verb asked for. */
  verb: string;
  at: string;
}

/** What the record is found by: a request's id (rollback, correct, retry) or the generation a spec change made (upgrade, resume). */
export type RequestKey = { requestId: string } | { generation: number };

/** How long a record is kept: a request's outcome comes within minutes, a retried spec within hours. */
export const REQUEST_RECORD_TTL_SECONDS = 24 * 3600;

/** Pure: the Redis key of one request of one HelmRelease object (its uid: a recreated object is another). */
export function requestRecordKey(prefix: string, uid: string, key: RequestKey): string {
  const part = 'requestId' in key ? `id:${key.requestId}` : `gen:${key.generation}`;
  return `${prefix}:requests:${uid}:${part}`;
}

/** Pure: a stored record, or undefined when it is not one (only our parts write it, but a bad value must not break a report). */
export function parseRequestRecord(raw: string | null): RequestRecord | undefined {
  if (!raw) return undefined;
  try {
    const value = JSON.parse(raw) as Partial<RequestRecord>;
    const requester = value.requester;
    if (!requester || typeof requester.id !== 'string' || typeof value.verb !== 'string' || typeof value.at !== 'string') return undefined;
    return {
      requester: { id: requester.id.slice(0, 200), ...(typeof requester.name === 'string' ? { name: requester.name.slice(0, 100) } : {}) },
      verb: value.verb.slice(0, 40),
      at: value.at.slice(0, 40),
    };
  } catch {
    return undefined;
  }
}

export class RequesterLedger {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    private readonly ttlSeconds = REQUEST_RECORD_TTL_SECONDS,
  ) {}

  async record(uid: string, key: RequestKey, record: RequestRecord): Promise<void> {
    await this.redis.set(requestRecordKey(this.prefix, uid, key), JSON.stringify(record), 'EX', this.ttlSeconds);
  }

  /** The first key's record that exists. */
  async find(uid: string, keys: readonly RequestKey[]): Promise<RequestRecord | undefined> {
    for (const key of keys) {
      const record = parseRequestRecord(await this.redis.get(requestRecordKey(this.prefix, uid, key)));
      if (record) return record;
    }
    return undefined;
  }
}
