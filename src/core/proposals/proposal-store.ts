/**
 * Proposals in Redis (issue 35): one hash per cluster keyspace, proposal id → record (JSON), so a
 * proposal survives restarts of the bot and the controller and an agent's ACL (its keyspace) covers
 * its own. Votes from two people pressing Approve at once must both count: every change is a
 * compare-and-set (a small script: write only if the record is still what was read), retried.
 */
import type { RedisConnection } from '../redis.js';
import { castVote, type Vote, type VoteVerdict } from './approval.js';
import { isLive, prunable, stampClosed, type Proposal } from './proposal.js';

/** Writes `new` at `field` only when the field still holds `old` ('' for absent); 1 when written. */
const COMPARE_AND_SET = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if (current == false and ARGV[2] == '') or current == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  return 1
end
return 0`;

const MAX_ATTEMPTS = 20;

export type OpenOutcome = { kind: 'opened'; proposal: Proposal; superseded: Proposal[] } | { kind: 'exists'; proposal: Proposal };

export class ProposalStore {
  /** @param key the hash of one cluster keyspace (clusterKey(keyspace, 'proposals')). */
  constructor(
    private readonly redis: RedisConnection,
    private readonly key: string,
    private readonly now: () => number = Date.now,
  ) {}

  async get(id: string): Promise<Proposal | undefined> {
    const raw = await this.redis.hget(this.key, id);
    return raw === null ? undefined : parseProposal(raw);
  }

  async list(): Promise<Proposal[]> {
    const fields = await this.redis.hgetall(this.key);
    return Object.values(fields)
      .map(parseProposal)
      .filter((p): p is Proposal => p !== undefined)
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  /** The proposals still taking votes at `now`. */
  async listLive(now: number): Promise<Proposal[]> {
    return (await this.list()).filter((p) => isLive(p, now));
  }

  /**
   * Opens a proposal, once: the same id again is `exists`. Open proposals on the same subject of the
   * same release are superseded by it (the new one names the one it replaced).
   */
  async open(proposal: Proposal): Promise<OpenOutcome> {
    const existing = await this.get(proposal.id);
    if (existing) return { kind: 'exists', proposal: existing };
    const superseded: Proposal[] = [];
    for (const other of await this.list()) {
      if (other.subject !== proposal.subject || other.state.phase !== 'open') continue;
      const changed = await this.update(other.id, (p) =>
        p.state.phase === 'open' ? { ...p, state: { phase: 'superseded', by: proposal.id, approvers: p.state.approvers } } : undefined,
      );
      if (changed) superseded.push(changed);
    }
    const record: Proposal = superseded.length ? { ...proposal, supersedes: superseded[superseded.length - 1]!.id } : proposal;
    if (!(await this.compareAndSet(record.id, undefined, record))) {
      const raced = await this.get(record.id);
      if (raced) return { kind: 'exists', proposal: raced };
    }
    return { kind: 'opened', proposal: record, superseded };
  }

  /** Counts a vote atomically; undefined when there is no such proposal. */
  async vote(id: string, vote: Vote): Promise<{ verdict: VoteVerdict; proposal: Proposal } | undefined> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const raw = await this.redis.hget(this.key, id);
      const current = raw === null ? undefined : parseProposal(raw);
      if (!current) return undefined;
      const verdict = castVote(current.state, current.facts, vote);
      if (verdict.kind === 'refused') return { verdict, proposal: current };
      const next = stampClosed(current, { ...current, state: verdict.state }, this.now());
      if (await this.casRaw(id, raw, next)) return { verdict, proposal: next };
    }
    throw new Error(`proposal ${id}: too many votes at once; try again`);
  }

  /**
   * Changes a record atomically: `change` gets the current record and returns the next one, or
   * undefined to leave it. Returns the record written, or undefined when nothing was.
   */
  async update(id: string, change: (current: Proposal) => Proposal | undefined): Promise<Proposal | undefined> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const raw = await this.redis.hget(this.key, id);
      const current = raw === null ? undefined : parseProposal(raw);
      if (!current) return undefined;
      const changed = change(current);
      if (!changed) return undefined;
      const next = stampClosed(current, changed, this.now());
      if (await this.casRaw(id, raw, next)) return next;
    }
    throw new Error(`proposal ${id}: changed by others too often; try again`);
  }

  /**
   * Removes the proposals closed before `before` (prunable(): their messages stay in the channel),
   * from `known` when the caller has just listed them (no second read). Closed is final, so a
   * list a moment old removes nothing it should not. Returns how many went.
   */
  async prune(before: number, known?: readonly Proposal[]): Promise<number> {
    const stale = prunable(known ?? (await this.list()), before);
    if (stale.length === 0) return 0;
    return this.redis.hdel(this.key, ...stale.map((p) => p.id));
  }

  private async compareAndSet(id: string, old: Proposal | undefined, next: Proposal): Promise<boolean> {
    return this.casRaw(id, old === undefined ? null : JSON.stringify(old), next);
  }

  private async casRaw(id: string, old: string | null, next: Proposal): Promise<boolean> {
    const written = await this.redis.eval(COMPARE_AND_SET, 1, this.key, id, old ?? '', JSON.stringify(next));
    return written === 1;
  }
}

/** A record as read; undefined for one this version cannot read (written by hand or another version). */
export function parseProposal(raw: string): Proposal | undefined {
  try {
    const value = JSON.parse(raw) as Partial<Proposal>;
    if (typeof value.id === 'string' && value.release && value.state && value.facts && Array.isArray(value.values)) return value as Proposal;
  } catch {
    // below
  }
  return undefined;
}
