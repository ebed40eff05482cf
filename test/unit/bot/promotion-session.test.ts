import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../../src/api/helmrelease.js';
import type { ReleaseOperations } from '../../../src/session/execute/operations.js';
import type { ClusterDeps, FleetMember, FleetRouting } from '../../../src/session/flow/fleet-routing.js';
import type { SessionPorts } from '../../../src/session/flow/ports.js';
import { ReleaseSession } from '../../../src/session/flow/release-session.js';
import { summarizeHistory } from '../../../src/core/helm-storage/release-storage.js';
import { createLogger } from '../../../src/core/log.js';
import type { OpenOutcome } from '../../../src/core/proposals/proposal-store.js';
import type { Proposal } from '../../../src/core/proposals/proposal.js';

/**
 * `/release promote` through the session (issue 35), with in-memory clusters and proposal stores:
 * where each place is, who may, what is proposed in which cluster's store, and what the person is told.
 */

const IMAGE = { repository: 'registry.example.com/shop/web', policy: { semver: '1.x' }, valuesPath: 'image.tag' };
const deployed = (chartVersion: string) => ({ history: [{ revision: 1, chartName: 'web', chartVersion, valuesDigest: '', status: 'deployed' }] });

function release(namespace: string, tag: string, runs: string, spec: Partial<HelmRelease['spec']> = {}): HelmRelease {
  return {
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name: 'web', namespace, generation: 1 },
    spec: { chart: { repository: 'https://charts.example', name: 'web' }, values: { image: { tag } }, imageUpdates: [IMAGE], ...spec },
    status: deployed(runs),
  };
}

const GATED = { approval: { required: 2, expireAfter: '1h' } };

function memoryStore(opened: Proposal[]) {
  return {
    listLive: async () => opened,
    open: async (p: Proposal): Promise<OpenOutcome> => {
      const existing = opened.find((o) => o.id === p.id);
      if (existing) return { kind: 'exists', proposal: existing };
      opened.push(p);
      return { kind: 'opened', proposal: p, superseded: [] };
    },
  };
}

function cluster(releases: HelmRelease[], steps: string[], opened: Proposal[], extra: Partial<ClusterDeps> = {}): ClusterDeps {
  const ops = {
    log: createLogger('test', 'silent'),
    recordRefusal: async (r: HelmRelease | undefined, _actor: unknown, what: string) =>
      void steps.push(`refusal recorded on ${r?.metadata.namespace}/${r?.metadata.name}: ${what}`),
  } as unknown as ReleaseOperations;
  return {
    ops,
    api: {
      list: async (namespace) => ({ items: releases.filter((r) => !namespace || r.metadata.namespace === namespace) }),
      get: async (namespace, name) => releases.find((r) => r.metadata.namespace === namespace && r.metadata.name === name),
    },
    freezes: { list: async () => ({ items: [] }) },
    storage: { history: async () => summarizeHistory([]) },
    proposals: memoryStore(opened),
    ...extra,
  };
}

function ports(steps: string[], refusal?: string): SessionPorts {
  return {
    actor: async () => ({ id: 'slack:UANA', channel: 'CWEB' }),
    reply: {
      say: async (text, kind) => void steps.push(`say ${kind}: ${text}`),
      answer: async (verb, output) => void steps.push(`answer ${verb}: ${output}`),
      plan: async (plan) => void steps.push(`show ${plan.title}`),
    },
    gate: {
      query: async () => undefined,
      action: async () => ({ allowed: true, teams: [], requireApproval: false }),
      propose: async (target) => (
        steps.push(`may upgrade ${target.kind === 'release' ? `${target.namespace}/${target.name}` : '?'} in ${target.cluster ?? 'own'}?`),
        refusal
      ),
    },
    confirm: { ask: async () => 'no' },
    progress: () => {
      throw new Error('a promotion writes nothing to wait for');
    },
    whoami: async () => undefined,
    secondPerson: true,
    awaitOutcome: true,
  };
}

const session = (deps: ClusterDeps, fleet?: FleetRouting) =>
  new ReleaseSession({
    ...deps,
    outcomeTimeoutMs: 1000,
    clock: { now: () => Date.parse('2026-11-26T22:00:00Z'), sleep: async () => undefined },
    ...(fleet ? { fleet } : {}),
  });

describe('/release promote between namespaces of the bot’s own cluster', () => {
  function world(prod = release('prod', '1.4.2', '1.2.0', GATED)) {
    const steps: string[] = [];
    const opened: Proposal[] = [];
    const own = cluster([release('staging', '1.5.0', '1.3.0'), prod], steps, opened);
    return { steps, opened, own, run: (text: string, refusal?: string) => session(own).run(text, ports(steps, refusal)) };
  }

  it('opens a proposal in the store for the target, the person named as its proposer, and answers with its id', async () => {
    const { steps, opened, run } = world();
    expect(await run('promote web --from staging --to prod')).toBe('done');
    expect(opened).toHaveLength(1);
    const p = opened[0]!;
    expect(p).toMatchObject({
      kind: 'promotion',
      release: { cluster: 'default', namespace: 'prod', name: 'web' },
      chartVersion: { from: '1.2.0', to: '1.3.0' },
      values: [{ valuesPath: 'image.tag', from: '1.4.2', to: '1.5.0' }],
      facts: { required: 2, proposedBy: 'slack:UANA', expiresAt: Date.parse('2026-11-26T23:00:00Z') },
      state: { phase: 'open', approvers: [] },
      unannounced: true,
    });
    expect(steps).toEqual([
      'may upgrade prod/web in own?',
      [
        `say info: Proposed ${p.id}: promotion from staging/web to prod/web: chart 1.2.0 → 1.3.0, image.tag 1.4.2 → 1.5.0`,
        '  chart version: 1.2.0 → 1.3.0',
        '  image.tag: 1.4.2 → 1.5.0',
        "It needs 2 approvals, from people other than you, by 2026-11-26 23:00 UTC: the message with Approve / Reject comes to the channel of prod/web's Team.",
      ].join('\n'),
    ]);
  });

  it('asked twice, the open proposal is named again rather than opened twice', async () => {
    const { steps, opened, run } = world();
    await run('promote web --from staging --to prod');
    steps.length = 0;
    expect(await run('promote web --from staging --to prod')).toBe('done');
    expect(opened).toHaveLength(1);
    expect(steps.at(-1)).toBe(
      `say info: This promotion is already proposed: ${opened[0]!.id} (${opened[0]!.summary}); it has 0 of 2 approvals and expires 2026-11-26 23:00 UTC.`,
    );
  });

  it('asked again after a rejection, a new proposal', async () => {
    const { opened, run } = world();
    await run('promote web --from staging --to prod');
    opened[0] = { ...opened[0]!, state: { phase: 'rejected', by: 'slack:UCY', approvers: [] } };
    expect(await run('promote web --from staging --to prod')).toBe('done');
    expect(opened).toHaveLength(2);
    expect(opened[1]!.id).not.toBe(opened[0].id);
  });

  it('a typo in a place is answered with the namespace meant; nothing is opened', async () => {
    const { steps, opened, run } = world();
    expect(await run('promote web --from staging --to prdo')).toBe('not-done');
    expect(opened).toEqual([]);
    expect(steps).toEqual(['say stopped: --to prdo: no release "prdo/web"; there is staging/web, prod/web — did you mean --to prod?']);
  });

  it('the same place twice, and a release the same on both sides, are said as such', async () => {
    const same = world(release('prod', '1.5.0', '1.3.0', GATED));
    expect(await same.run('promote web --from staging --to prod')).toBe('not-done');
    expect(same.steps.at(-1)).toBe('say stopped: prod/web already runs what staging/web runs (chart web 1.3.0, image.tag 1.5.0): nothing to promote');
    const { steps, run } = world();
    expect(await run('promote web --from prod --to prod')).toBe('bad-input');
    expect(steps).toEqual(['say input: --from and --to both name prod/web: a promotion goes from one place to another']);
  });

  it('a namespace in the release and another in a place is refused as unclear', async () => {
    const { steps, run } = world();
    expect(await run('promote staging/web --from staging --to prod')).toBe('bad-input');
    expect(steps).toEqual(['say input: the release names namespace staging and --to says prod: give the namespace in one place']);
  });

  it('a person without `upgrade` on the target is refused, the refusal recorded on the target; nothing is opened', async () => {
    const { steps, opened, run } = world();
    const why = 'you may not upgrade prod/web (chart web): none of your Teams (viewers) grants "upgrade"';
    expect(await run('promote web --from staging --to prod', why)).toBe('not-done');
    expect(opened).toEqual([]);
    expect(steps).toEqual([
      'may upgrade prod/web in own?',
      'refusal recorded on prod/web: promote to prod/web',
      `say stopped: Refused: ${why} (proposing a promotion takes \`upgrade\` on its target). Nothing changed.`,
    ]);
  });

  it('a cluster named without a fleet is refused with what this bot drives', async () => {
    const { steps, run } = world();
    expect(await run('promote web --from edge/staging --to prod')).toBe('bad-input');
    expect(steps).toEqual(['say input: --from edge/staging names cluster edge: this bot drives only its own cluster (default); name a namespace there']);
  });

  it('without a proposal store (the terminal) it says where to ask', async () => {
    const steps: string[] = [];
    const { proposals: _none, ...own } = cluster([release('staging', '1.5.0', '1.3.0'), release('prod', '1.4.2', '1.2.0', GATED)], steps, []);
    expect(await session(own).run('promote web --from staging --to prod', ports(steps))).toBe('not-done');
    expect(steps).toEqual(['say stopped: proposals cannot be opened from here (no proposal store for cluster default); ask in Slack']);
  });

  it('a target without spec.approval: applied on its own, and the person is told so', async () => {
    const { steps, opened, run } = world(release('prod', '1.4.2', '1.3.0'));
    expect(await run('promote web --from staging --to prod')).toBe('done');
    expect(opened[0]!.state).toEqual({ phase: 'approved', approvers: [] });
    expect(steps.at(-1)).toMatch(/\nprod\/web asks for no approval \(no spec.approval\): the controller applies it now\.$/);
  });
});

describe('/release promote across the clusters of a fleet', () => {
  function fleetWorld() {
    const steps: string[] = [];
    const home: Proposal[] = [];
    const edge: Proposal[] = [];
    // Through an agent, declared values arrive masked; the agent answers the image values apart.
    const masked = release('staging', '#0123456789abcdef', '1.3.0');
    const clusters: Record<string, ClusterDeps> = {
      home: cluster([release('prod', '1.4.2', '1.2.0', GATED)], steps, home),
      edge: cluster([masked], steps, edge, { imageValues: async () => ({ 'image.tag': '1.6.0' }) }),
    };
    const members: FleetMember[] = [
      { name: 'home', own: true },
      { name: 'edge', own: false },
      { name: 'gone', own: false, unavailable: 'cluster gone is unreachable: its agent stopped answering (last heartbeat 2026-11-26T15:00:00.000Z, 7h ago)' },
    ];
    const fleet: FleetRouting = {
      own: 'home',
      members: async () => members,
      route: async (name) => {
        const member = members.find((m) => m.name === name);
        if (!member) return { ok: false, message: `no cluster "${name}" in this bot's fleet (it holds keys for: home, edge, gone); nothing was sent` };
        if (member.unavailable) return { ok: false, message: `${member.unavailable}; nothing was sent` };
        return { ok: true, deps: clusters[name]! };
      },
    };
    const run = (text: string) => session(clusters.home!, fleet).run(text, ports(steps));
    return { steps, home, edge, run };
  }

  it('a word naming a cluster is that cluster; the source’s image values come from its agent; the proposal is the target cluster’s', async () => {
    const { steps, home, edge, run } = fleetWorld();
    expect(await run('promote web --from edge --to prod')).toBe('done');
    expect(edge).toEqual([]);
    expect(home).toHaveLength(1);
    expect(home[0]).toMatchObject({
      release: { cluster: 'home', namespace: 'prod', name: 'web' },
      values: [{ valuesPath: 'image.tag', from: '1.4.2', to: '1.6.0' }],
      chartVersion: { from: '1.2.0', to: '1.3.0' },
      subject: 'home/prod/web promotion from edge/staging/web',
    });
    expect(steps[0]).toBe('may upgrade prod/web in home?');
    expect(steps[1]).toMatch(/^say info: Proposed p-[0-9a-f]{16}: promotion from edge:staging\/web to home:prod\/web: /);
  });

  it('a near miss of a cluster name is answered with the cluster meant', async () => {
    const { steps, run } = fleetWorld();
    expect(await run('promote web --from edg --to prod')).toBe('not-done');
    expect(steps).toEqual(['say stopped: --from edg: no release "edg/web"; there is prod/web in cluster home — did you mean cluster edge (--from edge)?']);
  });

  it('an unknown or unreachable cluster is named, and nothing is sent', async () => {
    const { steps, run } = fleetWorld();
    expect(await run('promote web --from nowhere/staging --to prod')).toBe('not-done');
    expect(await run('promote web --from gone/staging --to prod')).toBe('not-done');
    expect(steps).toEqual([
      `say stopped: --from nowhere/staging: no cluster "nowhere" in this bot's fleet (it holds keys for: home, edge, gone); nothing was sent`,
      'say stopped: --from gone/staging: cluster gone is unreachable: its agent stopped answering (last heartbeat 2026-11-26T15:00:00.000Z, 7h ago); nothing was sent',
    ]);
  });
});
