import { describe, expect, it } from 'vitest';
import { runQuery } from '../../../src/session/execute/queries.js';
import { parseReleaseCommand } from '../../../src/session/grammar/parse.js';
import type { Proposal } from '../../../src/core/proposals/proposal.js';

const proposal = (namespace: string, id: string, approvers: string[] = []): Proposal => ({
  id,
  kind: 'image',
  release: { cluster: 'default', namespace, name: 'web' },
  values: [{ valuesPath: 'image.tag', from: '1.4.2', to: '1.5.0' }],
  summary: 'image registry.example.com/shop/web 1.4.2 → 1.5.0',
  subject: `${namespace}/web image`,
  facts: { required: 2, expiresAt: Date.parse('2026-11-27T09:30:00Z') },
  state: { phase: 'open', approvers },
  createdAt: 0,
});
const none = { list: () => Promise.resolve({ items: [] }) };
const deps = (live: Proposal[]) => ({
  api: { ...none, get: () => Promise.resolve(undefined) },
  freezes: none,
  storage: { history: () => Promise.reject(new Error('not read')) },
  proposals: { listLive: (now: number) => Promise.resolve(live.filter((p) => now < p.facts.expiresAt)) },
});
const query = (text: string) => {
  const parsed = parseReleaseCommand(text);
  if (!parsed.ok || parsed.command.verb !== 'proposals') throw new Error(`not a proposals command: ${text}`);
  return parsed.command;
};
const now = new Date('2026-11-26T12:00:00Z');

describe('/release proposals', () => {
  it('parses with a namespace and --cluster, as list does', () => {
    expect(query('proposals shop --cluster prod')).toEqual({ verb: 'proposals', namespace: 'shop', cluster: 'prod' });
    expect(query('proposals')).toEqual({ verb: 'proposals' });
  });

  it('lists the open ones: release, id, what, votes, expiry', async () => {
    const answer = await runQuery(query('proposals'), deps([proposal('shop', 'p-1', ['slack:UANA']), proposal('blog', 'p-2')]), now);
    expect(answer).toBe(
      [
        'shop/web  p-1',
        '  image registry.example.com/shop/web 1.4.2 → 1.5.0',
        '  1 of 2 approvals (slack:UANA); expires 2026-11-27 09:30 UTC',
        'blog/web  p-2',
        '  image registry.example.com/shop/web 1.4.2 → 1.5.0',
        '  0 of 2 approvals; expires 2026-11-27 09:30 UTC',
      ].join('\n'),
    );
  });

  it('in one namespace, and when there are none', async () => {
    expect(await runQuery(query('proposals blog'), deps([proposal('shop', 'p-1'), proposal('blog', 'p-2')]), now)).toMatch(/^blog\/web {2}p-2\n/);
    expect(await runQuery(query('proposals blog'), deps([proposal('shop', 'p-1')]), now)).toBe('no open proposals in blog');
    expect(await runQuery(query('proposals'), deps([proposal('shop', 'p-1')]), new Date('2026-11-28T00:00:00Z'))).toBe('no open proposals');
  });

  it('says so where proposals cannot be read (the terminal)', async () => {
    const { proposals: _, ...without } = deps([]);
    expect(await runQuery(query('proposals'), without, now)).toBe('the proposals of this cluster cannot be read from here');
  });
});
