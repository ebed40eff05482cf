import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../../src/api/helmrelease.js';
import type { AuthzDecision } from '../../../src/session/authz/authorize.js';
import type { ReleaseOperations } from '../../../src/session/execute/operations.js';
import { findRelease } from '../../../src/session/execute/find-release.js';
import { draftReleaseCommand, type Draft } from '../../../src/session/plan/prepared.js';
import type { SessionDeps } from '../../../src/session/flow/release-session.js';
import { ReleaseSession } from '../../../src/session/flow/release-session.js';
import type { SessionPorts } from '../../../src/session/flow/ports.js';
import { summarizeHistory } from '../../../src/core/helm-storage/release-storage.js';

/**
 * The /release session with in-memory ports: the order of its steps (authorize before any plan
 * or preview, a plan built once, the write only after a yes, progress around the write), the
 * same for Slack and the terminal. Fast: no cluster, Slack or Redis.
 */

const release = (suspended = false): HelmRelease =>
  ({
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { namespace: 'web', name: 'unicorn', generation: 3 },
    spec: { chart: { name: 'unicorn', version: '1.0.0' }, ...(suspended ? { suspend: true } : {}) },
    status: suspended ? { conditions: [{ type: 'Suspended', status: 'True', reason: 'Suspended', message: 'suspended by chat', lastTransitionTime: '' }] } : {},
  }) as unknown as HelmRelease;

interface World {
  steps: string[];
  deps: SessionDeps;
  ports: SessionPorts;
}

function world(
  over: { decision?: AuthzDecision; confirm?: 'yes' | 'no' | 'later'; failApply?: boolean; secondPerson?: boolean; current?: HelmRelease } = {},
): World {
  const steps: string[] = [];
  let plans = 0;
  const ops = {
    draft: async (command: Parameters<typeof draftReleaseCommand>[0]): Promise<{ ok: true; draft: Draft }> => {
      steps.push(`draft ${command.verb}`);
      const draft = draftReleaseCommand(command, release(), summarizeHistory([]));
      return { ok: true, draft: { ...draft, plan: (preview) => (steps.push(`plan #${++plans}`), draft.plan(preview)) } };
    },
    plan: async (draft: Draft) => {
      steps.push('preview');
      const { plan, release: _, ...scope } = draft;
      return { ...scope, plan: plan() };
    },
    apply: async () => {
      steps.push('apply');
      if (over.failApply) throw new Error('forbidden');
      return { summary: 'asked' };
    },
    recordRefusal: async (_r: unknown, _a: unknown, what: string, why: string) => void steps.push(`refusal recorded: ${what}: ${why}`),
  } as unknown as ReleaseOperations;
  const deps: SessionDeps = {
    ops,
    api: { get: async () => over.current ?? release(true), list: async () => ({ items: [release()] }) },
    freezes: {} as never,
    storage: {} as never,
    outcomeTimeoutMs: 1000,
    clock: { now: () => 0, sleep: async () => undefined },
  };
  const ports: SessionPorts = {
    actor: async () => ({ id: 'kube:alice' }),
    reply: {
      say: async (text, kind) => void steps.push(`say ${kind}: ${text}`),
      answer: async (verb) => void steps.push(`answer ${verb}`),
      plan: async (plan) => void steps.push(`show ${plan.title}`),
    },
    gate: {
      query: async () => undefined,
      action: async () => (steps.push('authorize'), over.decision ?? { allowed: true, teams: [], requireApproval: false }),
    },
    confirm: { ask: async (action) => (steps.push(`ask ${action.plan.title}`), over.confirm ?? 'yes') },
    progress: () => ({
      started: async (action) => (steps.push('started'), action),
      failed: async () => void steps.push('failed'),
      applied: async (summary) => void steps.push(`applied ${summary}`),
      finished: async (outcomes) => void steps.push(`finished ${outcomes.map((o) => o.message).join()}`),
    }),
    whoami: async () => void steps.push('whoami'),
    secondPerson: over.secondPerson ?? true,
    awaitOutcome: true,
  };
  return { steps, deps, ports };
}

describe('the /release session', () => {
  it.each([
    {
      name: 'confirmed now (the terminal): authorize, one plan, ask, write, report',
      given: {},
      want: [
        'draft suspend',
        'authorize',
        'preview',
        'plan #1',
        'ask suspend web/unicorn',
        'started',
        'apply',
        'applied asked',
        'finished web/unicorn: suspended by chat',
      ],
      end: 'done',
    },
    {
      name: 'confirmed later (Slack): nothing is written now',
      given: { confirm: 'later' as const },
      want: ['draft suspend', 'authorize', 'preview', 'plan #1', 'ask suspend web/unicorn'],
      end: 'done',
    },
    {
      name: 'declined: nothing is written',
      given: { confirm: 'no' as const },
      want: ['draft suspend', 'authorize', 'preview', 'plan #1', 'ask suspend web/unicorn'],
      end: 'not-done',
    },
    {
      name: 'refused: recorded and told; no preview asked for',
      given: { decision: { allowed: false as const, reason: 'you may not suspend web/unicorn' } },
      want: [
        'draft suspend',
        'authorize',
        'plan #1',
        'refusal recorded: suspend web/unicorn: you may not suspend web/unicorn',
        'say stopped: Refused: you may not suspend web/unicorn. Nothing changed.',
      ],
      end: 'not-done',
    },
  ])('$name', async ({ given, want, end }) => {
    const { steps, deps, ports } = world(given);
    expect(await new ReleaseSession(deps).run('suspend web/unicorn', ports)).toBe(end);
    expect(steps).toEqual(want);
  });

  it('a write that fails leaves no one believing it is in progress', async () => {
    const { steps, deps, ports } = world({ failApply: true });
    await expect(new ReleaseSession(deps).run('suspend web/unicorn', ports)).rejects.toThrow('forbidden');
    expect(steps.slice(-3)).toEqual(['started', 'apply', 'failed']);
  });

  it('--break-glass where no second person can approve: refused before anything is read', async () => {
    const { steps, deps, ports } = world({ secondPerson: false });
    expect(await new ReleaseSession(deps).run('upgrade web/unicorn 2.0.0 --break-glass', ports)).toBe('bad-input');
    expect(steps).toEqual([expect.stringMatching(/^say input: --break-glass needs a second person/)]);
  });

  it('a plan that cannot be carried out is shown, never offered', async () => {
    const { steps, deps, ports } = world();
    expect(await new ReleaseSession(deps).run('resume web/unicorn', ports)).toBe('not-done');
    expect(steps).toEqual(['draft resume', 'authorize', 'preview', 'plan #1', 'show resume web/unicorn']);
  });

  it('what was typed wrong is told as such; whoami is the medium’s own', async () => {
    const { steps, deps, ports } = world();
    const session = new ReleaseSession(deps);
    expect(await session.run('suspnd unicorn', ports)).toBe('bad-input');
    expect(await session.run('whoami', ports)).toBe('done');
    expect(steps).toEqual([expect.stringMatching(/^say input: unknown command "suspnd" — did you mean "suspend"/), 'whoami']);
  });
});

describe('a /release query reads its release once', () => {
  it.each(['status web/unicorn', 'status unicorn'])('%s: the gate that authorizes it and the answer share one read', async (text) => {
    const { deps, ports, steps } = world();
    const reads: string[] = [];
    deps.api = {
      get: async (namespace, name) => (reads.push(`get ${namespace}/${name}`), release()),
      list: async (namespace) => (reads.push(`list ${namespace ?? 'all'}`), { items: [release()] }),
    };
    // The gate resolves the release as teamGate does, to authorize it.
    ports.gate = {
      ...ports.gate,
      query: async (command, api) => {
        if ('release' in command) await findRelease(api, command.release);
        return undefined;
      },
    };
    expect(await new ReleaseSession(deps).run(text, ports)).toBe('done');
    expect(steps).toEqual(['answer status']);
    expect(reads).toEqual([text.includes('/') ? 'get web/unicorn' : 'list all']);
  });
});

describe('ReleaseOperations: each plan is read and built once', () => {
  it('an upgrade with a preview: the release, its history, freezes and Teams read once; one preview; no second read', async () => {
    const { ReleaseOperations } = await import('../../../src/session/execute/operations.js');
    const reads: string[] = [];
    const read =
      <T>(name: string, value: T) =>
      async () => (reads.push(name), value);
    const ops = new ReleaseOperations({
      api: { list: read('releases', { items: [release()] }), get: read('release', release()) } as never,
      storage: { history: read('history', summarizeHistory([])) },
      freezes: { list: read('freezes', { items: [] }) } as never,
      teams: { list: read('teams', { items: [] }) },
      events: {} as never,
      log: {} as never,
      now: () => new Date(0),
      timeZone: 'UTC',
      previews: { preview: read('preview', { ok: true as const, from: '1.0.0', to: '2.0.0', lines: ['~ Deployment web/unicorn'], rest: [] }) },
    });
    const drafted = await ops.draft({ verb: 'upgrade', release: { namespace: 'web', name: 'unicorn' }, version: '2.0.0' }, { id: 'kube:alice' });
    if (!drafted.ok) throw new Error(drafted.message);
    const action = await ops.plan(drafted.draft);
    // web/unicorn is read by name (findRelease), not with its namespace's list.
    expect(reads.sort()).toEqual(['freezes', 'history', 'preview', 'release', 'teams']);
    expect(action.plan.lines).toContain('~ Deployment web/unicorn');
    expect(JSON.parse(JSON.stringify(action))).toEqual(action); // plain data: it waits in Redis for its Confirm
  });
});
