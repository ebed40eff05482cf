import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../../src/api/helmrelease.js';
import type { ReleaseOperations } from '../../../src/session/execute/operations.js';
import { draftReleaseCommand, type Draft } from '../../../src/session/plan/prepared.js';
import type { ClusterDeps, FleetMember, FleetRouting } from '../../../src/session/flow/fleet-routing.js';
import type { SessionPorts } from '../../../src/session/flow/ports.js';
import { ReleaseSession } from '../../../src/session/flow/release-session.js';
import { summarizeHistory } from '../../../src/core/helm-storage/release-storage.js';

/** The session's fleet routing with in-memory clusters: which cluster a command goes to, and that it is named in every answer. */

const release = (namespace: string, name = 'unicorn'): HelmRelease =>
  ({ metadata: { namespace, name, generation: 1 }, spec: { chart: { name: 'unicorn', version: '1.0.0' } }, status: {} }) as unknown as HelmRelease;

function cluster(name: string, releases: HelmRelease[], steps: string[]): ClusterDeps {
  const ops = {
    draft: async (command: Parameters<typeof draftReleaseCommand>[0]) => {
      const found = releases.find((r) => r.metadata.name === command.release.name)!;
      return { ok: true, draft: draftReleaseCommand(command, found, summarizeHistory([])) };
    },
    plan: async (draft: Draft) => {
      const { plan, release: _, ...scope } = draft;
      return { ...scope, plan: plan() };
    },
    apply: async () => (steps.push(`apply in ${name}`), { summary: `written in ${name}` }),
    recordRefusal: async () => undefined,
  } as unknown as ReleaseOperations;
  return {
    ops,
    api: {
      list: async (namespace) => ({ items: releases.filter((r) => !namespace || r.metadata.namespace === namespace) }),
      get: async () =>
        ({
          ...releases[0]!,
          spec: { ...releases[0]!.spec, suspend: true },
          status: { conditions: [{ type: 'Suspended', status: 'True', message: `suspended in ${name}` }] },
        }) as never,
    },
    freezes: { list: async () => ({ items: [] }) },
    storage: { history: async () => summarizeHistory([]) },
  };
}

function fleetWorld() {
  const steps: string[] = [];
  const clusters: Record<string, ClusterDeps> = {
    home: cluster('home', [release('web')], steps),
    edge: cluster('edge', [release('shop')], steps),
  };
  const members: FleetMember[] = [
    { name: 'home', own: true },
    { name: 'edge', own: false },
    { name: 'prod', own: false, unavailable: 'cluster prod is unreachable: its agent stopped answering (last heartbeat 2026-11-26T15:00:00.000Z, 1h ago)' },
  ];
  const fleet: FleetRouting = {
    own: 'home',
    members: async () => members,
    route: async (name) => {
      const member = members.find((m) => m.name === name);
      if (!member) return { ok: false, message: `no cluster "${name}"` };
      if (member.unavailable) return { ok: false, message: `${member.unavailable}; nothing was sent` };
      return { ok: true, deps: clusters[name]! };
    },
  };
  const ports: SessionPorts = {
    actor: async () => ({ id: 'slack:UALICE' }),
    reply: {
      say: async (text, kind) => void steps.push(`say ${kind}: ${text}`),
      answer: async (verb, output) => void steps.push(`answer ${verb}: ${output}`),
      plan: async (plan) => void steps.push(`show ${plan.title}`),
      chooseCluster: async (question, text, choices) => void steps.push(`which cluster? ${choices.join(',')} for "${text}"`),
    },
    gate: { query: async () => undefined, action: async () => ({ allowed: true, teams: [], requireApproval: false }) },
    confirm: { ask: async (action) => (steps.push(`ask ${action.plan.title}`), 'yes') },
    progress: (_action, _approver, api) => ({
      started: async (action) => action,
      failed: async () => undefined,
      applied: async (summary) => void steps.push(`applied ${summary}`),
      finished: async (outcomes) => void steps.push(`finished ${outcomes.map((o) => o.message).join()} (read ${api === clusters.edge!.api ? 'edge' : 'home'})`),
    }),
    whoami: async () => undefined,
    secondPerson: true,
    awaitOutcome: true,
  };
  const session = new ReleaseSession({ ...clusters.home!, outcomeTimeoutMs: 1000, clock: { now: () => 0, sleep: async () => undefined }, fleet });
  return { steps, session, ports };
}

describe('a /release session in front of a fleet', () => {
  it('a name in one other cluster goes there; the plan, the write and the wait are that cluster’s, and say so', async () => {
    const { steps, session, ports } = fleetWorld();
    const end = await session.run('suspend shop/unicorn', ports);
    expect(end).toBe('done');
    expect(steps).toEqual([
      'ask suspend shop/unicorn (cluster edge)',
      'apply in edge',
      'applied written in edge',
      'finished shop/unicorn: suspended in edge (read edge)',
    ]);
  });

  it('a name in several clusters asks which, with the command to carry on, and does nothing else', async () => {
    const { steps, session, ports } = fleetWorld();
    expect(await session.run('status unicorn', ports)).toBe('not-done');
    expect(steps).toEqual(['which cluster? edge,home for "status unicorn"']);
  });

  it('the chosen cluster answers, named', async () => {
    const { steps, session, ports } = fleetWorld();
    await session.run('status unicorn --cluster edge', ports);
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatch(/^answer status: cluster edge\nshop\/unicorn: chart unicorn 1.0.0 declared/);
  });

  it('an unreachable cluster is named with its last heartbeat; nothing is sent', async () => {
    const { steps, session, ports } = fleetWorld();
    expect(await session.run('suspend prod/web/unicorn', ports)).toBe('not-done');
    expect(steps).toEqual([
      'say stopped: cluster prod is unreachable: its agent stopped answering (last heartbeat 2026-11-26T15:00:00.000Z, 1h ago); nothing was sent',
    ]);
  });

  it('list --cluster all: every cluster under its name, the unreachable one said so', async () => {
    const { steps, session, ports } = fleetWorld();
    await session.run('list --cluster all', ports);
    expect(steps).toHaveLength(1);
    const [, output] = steps[0]!.split('answer list: ');
    expect(output!.split('\n')).toEqual([
      '== cluster home (this bot’s own) ==',
      'web/unicorn  unicorn -  ready=Unknown',
      '== cluster edge ==',
      'shop/unicorn  unicorn -  ready=Unknown',
      '== cluster prod ==',
      'cluster prod is unreachable: its agent stopped answering (last heartbeat 2026-11-26T15:00:00.000Z, 1h ago)',
    ]);
  });

  it('without a fleet, --cluster is refused and nothing else changes', async () => {
    const { steps, ports } = fleetWorld();
    const single = new ReleaseSession({ ...cluster('home', [release('web')], steps), outcomeTimeoutMs: 1000 });
    expect(await single.run('status unicorn --cluster edge', ports)).toBe('bad-input');
    await single.run('status unicorn', ports);
    expect(steps[0]).toContain('--cluster needs a fleet');
    expect(steps[1]).toMatch(/^answer status: web\/unicorn: chart unicorn/);
  });
});
