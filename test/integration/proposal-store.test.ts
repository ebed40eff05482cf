import { afterAll, describe, expect, it } from 'vitest';
import { clusterKey } from '../../src/core/fleet/cluster-keys.js';
import { ProposalStore } from '../../src/core/proposals/proposal-store.js';
import { proposalId, type Proposal } from '../../src/core/proposals/proposal.js';
import { connectRedis } from '../../src/core/redis.js';
import { testEnv, uniqueName } from '../support/fixtures.js';

/**
 * Issue 35: the proposal store on the real Redis — votes cast at the same instant by two people
 * both count (compare-and-set, retried), one Reject ends it, a newer proposal on the same subject
 * supersedes the open one, the same change opened twice is one proposal, and closed ones are
 * pruned after their retention.
 */
describe('ProposalStore on Redis', () => {
  const { env } = testEnv();
  const redis = connectRedis(env.redisUrl);
  const keyspace = uniqueName('hc-proposals');
  const store = new ProposalStore(redis, clusterKey(keyspace, 'proposals'));
  afterAll(() => redis.disconnect());

  const release = { cluster: 'default', namespace: 'shop', name: 'web' };
  const subject = 'shop/web image registry.example.com/shop/web';
  const proposal = (tag: string, over: Partial<Proposal> = {}): Proposal => {
    const values = [{ valuesPath: 'image.tag', from: '1.4.2', to: tag }];
    return {
      id: proposalId(release, subject, values),
      kind: 'image',
      release,
      values,
      summary: `image registry.example.com/shop/web 1.4.2 → ${tag}`,
      subject,
      facts: { required: 2, expiresAt: Date.now() + 3_600_000 },
      state: { phase: 'open', approvers: [] },
      createdAt: Date.now(),
      ...over,
    };
  };
  const approve = (person: string) => ({ person, choice: 'approve' as const, allowed: true, at: Date.now() });

  it('two people approving at the same instant both count; the second approval closes it', async () => {
    const opened = await store.open(proposal('1.5.0'));
    expect(opened.kind).toBe('opened');
    const id = opened.proposal.id;
    // Sent together on one connection: both read the same record, one compare-and-set loses and retries.
    const [ana, ben] = await Promise.all([store.vote(id, approve('ana')), store.vote(id, approve('ben'))]);
    expect([ana!.verdict.kind, ben!.verdict.kind].sort()).toEqual(['approved', 'counted']);
    const stored = await store.get(id);
    expect(stored!.state.phase).toBe('approved');
    expect([...stored!.state.approvers].sort()).toEqual(['ana', 'ben']);
  });

  it('many people at once on a proposal needing two: exactly two approvals, the rest told it is approved', async () => {
    const { proposal: p } = await store.open(proposal('1.5.1', { subject: `${subject}-many` }));
    const verdicts = await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map((person) => store.vote(p.id, approve(person))));
    expect(verdicts.filter((v) => v!.verdict.kind === 'approved')).toHaveLength(1);
    expect(verdicts.filter((v) => v!.verdict.kind === 'counted')).toHaveLength(1);
    const refused = verdicts.filter((v) => v!.verdict.kind === 'refused');
    expect(refused).toHaveLength(4);
    for (const r of refused) expect(r!.verdict.kind === 'refused' && r!.verdict.reply).toMatch(/^this change was already approved by \w and \w/);
    expect((await store.get(p.id))!.state.approvers).toHaveLength(2);
  });

  it('one Reject ends it; a later approval is told who rejected it', async () => {
    const { proposal: p } = await store.open(proposal('1.6.0', { subject: `${subject}-reject` }));
    await store.vote(p.id, approve('ana'));
    const rejected = await store.vote(p.id, { ...approve('cy'), choice: 'reject' });
    expect(rejected!.verdict.kind).toBe('rejected');
    expect((await store.get(p.id))!.state).toEqual({ phase: 'rejected', by: 'cy', approvers: ['ana'] });
    const late = await store.vote(p.id, approve('ben'));
    expect(late!.verdict).toEqual({ kind: 'refused', reply: 'this change was rejected by cy' });
  });

  it('a newer proposal on the same subject supersedes the open one, which then takes no votes', async () => {
    const s = `${subject}-supersede`;
    const { proposal: old } = await store.open(proposal('1.7.0', { subject: s }));
    const opened = await store.open(proposal('1.7.1', { subject: s }));
    expect(opened.kind).toBe('opened');
    if (opened.kind !== 'opened') return;
    expect(opened.superseded.map((p) => p.id)).toEqual([old.id]);
    expect(opened.proposal.supersedes).toBe(old.id);
    expect((await store.get(old.id))!.state).toMatchObject({ phase: 'superseded', by: opened.proposal.id });
    const late = await store.vote(old.id, approve('ana'));
    expect(late!.verdict).toEqual({ kind: 'refused', reply: `this proposal was replaced by a newer one (${opened.proposal.id})` });
    expect((await store.listLive(Date.now())).map((p) => p.id)).toContain(opened.proposal.id);
    expect((await store.listLive(Date.now())).map((p) => p.id)).not.toContain(old.id);
  });

  it('the same change opened twice is one proposal: the second open is `exists`, even at the same instant', async () => {
    const p = proposal('1.8.0', { subject: `${subject}-twice` });
    const [first, second] = await Promise.all([store.open(p), store.open(p)]);
    expect([first.kind, second.kind].sort()).toEqual(['exists', 'opened']);
    expect((await store.open(p)).kind).toBe('exists');
    expect((await store.list()).filter((q) => q.id === p.id)).toHaveLength(1);
  });

  it('update stores the message reference the bot and notify edit', async () => {
    const { proposal: p } = await store.open(proposal('1.9.0', { subject: `${subject}-message` }));
    await store.update(p.id, (q) => ({ ...q, message: { channel: 'C1', ts: '1.2' } }));
    expect((await store.get(p.id))!.message).toEqual({ channel: 'C1', ts: '1.2' });
    expect(await store.vote('p-unknown', approve('ana'))).toBeUndefined();
  });

  it('closed proposals are pruned a retention after they closed; the newest rejected one of a subject stays, so it is not proposed again', async () => {
    let clock = Date.now();
    const week = 7 * 86_400_000;
    const timed = new ProposalStore(redis, clusterKey(uniqueName('hc-prune'), 'proposals'), () => clock);
    const s = `${subject}-prune`;
    const open = async (tag: string, subj = s) => {
      const opened = await timed.open(proposal(tag, { subject: subj, createdAt: clock }));
      expect(opened.kind).toBe('opened');
      return opened.proposal;
    };
    // 2.0.0 superseded by 2.0.1, which is approved and applied; 3.0.0 rejected; 4.0.0 still open.
    const superseded = await open('2.0.0');
    const applied = await open('2.0.1');
    await timed.vote(applied.id, approve('ana'));
    await timed.vote(applied.id, approve('ben'));
    await timed.update(applied.id, (p) => (p.state.phase === 'approved' ? { ...p, state: { phase: 'applied', approvers: p.state.approvers } } : undefined));
    const rejected = await open('3.0.0', `${s}-rejected`);
    await timed.vote(rejected.id, { ...approve('cy'), choice: 'reject' });
    const stillOpen = await open('4.0.0', `${s}-open`);
    const closedAt = clock;
    for (const p of [superseded, applied, rejected]) expect((await timed.get(p.id))!.closedAt).toBe(closedAt);

    // Within the retention nothing goes.
    clock += week - 1000;
    expect(await timed.prune(clock - week)).toBe(0);
    clock += 2000;
    expect(await timed.prune(clock - week)).toBe(2);
    expect((await timed.list()).map((p) => p.id).sort()).toEqual([rejected.id, stillOpen.id].sort());
    // The rejected change stays rejected: the same tag again is the same proposal, not a new one.
    expect((await timed.open(proposal('3.0.0', { subject: `${s}-rejected` }))).kind).toBe('exists');
    // A list the caller has just read does as well as the store's own.
    const newer = await open('3.0.1', `${s}-rejected`);
    clock += 1;
    expect(await timed.prune(clock, await timed.list())).toBe(1);
    expect((await timed.list()).map((p) => p.id).sort()).toEqual([newer.id, stillOpen.id].sort());
  });
});
