import { describe, expect, it } from 'vitest';
import { authorizeAction } from '../../../src/session/authz/authorize-action.js';
import type { TeamPolicy } from '../../../src/session/authz/policy-types.js';
import { authzTargets, authzVerb } from '../../../src/session/authz/targets.js';
import type { ReleaseOperations } from '../../../src/session/execute/operations.js';
import { parseReleaseCommand } from '../../../src/session/grammar/parse.js';
import type { MutatingCommand } from '../../../src/session/grammar/command.js';
import { freezeName } from '../../../src/session/plan/freeze.js';
import { clustersTakenIn, prepareFleetFreeze, prepareFleetUnfreeze } from '../../../src/session/fleet/fleet-freeze-plan.js';
import type { FleetRouting } from '../../../src/session/flow/fleet-routing.js';
import type { SessionPorts } from '../../../src/session/flow/ports.js';
import { ReleaseSession } from '../../../src/session/flow/release-session.js';
import { summarizeHistory } from '../../../src/core/helm-storage/release-storage.js';
import type { FleetFreeze } from '../../../src/core/fleet/fleet-freezes.js';
import { memoryLogger } from '../../support/notify-fixtures.js';

/** `/release freeze cluster:…` and lifting it: the grammar, the plan, who may, and the session writing the fleet's record. */

const freezeCommand = (text: string) => {
  const parsed = parseReleaseCommand(text);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.command as Extract<MutatingCommand, { verb: 'freeze' }>;
};
const NOW = new Date('2026-11-26T17:00:00Z');

describe('freeze cluster:<glob>: the grammar', () => {
  it('reads a cluster name or glob as a scope of its own', () => {
    expect(freezeCommand('freeze cluster:prod-* --reason "black friday" --for 2h')).toMatchObject({
      verb: 'freeze',
      scope: { kind: 'clusters', clusters: 'prod-*' },
      reason: 'black friday',
      end: { kind: 'for', ms: 2 * 3600_000 },
    });
    expect(freezeCommand('freeze cluster:Edge --reason x').scope).toEqual({ kind: 'clusters', clusters: 'edge' });
  });

  it('refuses what cannot name a cluster, saying how to write one', () => {
    const parsed = parseReleaseCommand('freeze cluster:prod/eu --reason x');
    expect(parsed).toMatchObject({ ok: false, error: { code: 'invalid-scope' } });
    expect(!parsed.ok && parsed.error.message).toContain('write cluster:<name> or a glob like cluster:prod-*');
    expect(parseReleaseCommand('freeze cluster: --reason x').ok).toBe(false);
  });

  it('names the freeze after its clusters', () => {
    expect(freezeName({ kind: 'clusters', clusters: 'prod-*' }, '7f3a')).toBe('cluster-prod-7f3a');
    expect(freezeName({ kind: 'clusters', clusters: '*-eu' }, '7f3a')).toBe('cluster-eu-7f3a');
    expect(freezeName({ kind: 'clusters', clusters: '*' }, '7f3a')).toBe('cluster-all-7f3a');
  });
});

describe('freeze cluster:<glob>: the plan and who may', () => {
  const actor = { id: 'slack:UALICE', channel: 'C1' };

  it('names the clusters of the fleet it takes in now, and ends when --for says', () => {
    const action = prepareFleetFreeze(
      freezeCommand('freeze cluster:prod-* --reason release --for 2h'),
      ['prod-eu', 'staging', 'prod-us'],
      actor,
      NOW,
      'UTC',
      'cluster-prod-1a2b',
    );
    expect(action.fleetFreeze).toMatchObject({
      clusters: ['prod-*'],
      freeze: {
        metadata: { name: 'cluster-prod-1a2b' },
        spec: { scope: { all: true }, reason: 'release', setBy: 'slack:UALICE', until: '2026-11-26T19:00:00Z' },
      },
    });
    expect(action.freeze).toBeUndefined();
    expect(action.plan.doable).toBe(true);
    expect(action.plan.lines).toContain('takes in 2 clusters of the fleet now: prod-eu, prod-us');
    expect(action.plan.lines).toContain('ends by itself at 2026-11-26T19:00:00Z');
    const none = prepareFleetFreeze(freezeCommand('freeze cluster:qa --reason x'), ['home'], actor, NOW, 'UTC', 'cluster-qa-1a2b');
    expect(none.plan.lines[1]).toBe('takes in no cluster of the fleet now (known: home); a cluster that joins and matches is held');
    expect(clustersTakenIn(['*'], ['b', 'a', 'a'])).toEqual(['a', 'b']);
  });

  it('a bad window makes a plan that cannot be confirmed', () => {
    const action = prepareFleetFreeze(freezeCommand('freeze cluster:prod-* --reason x --window "99 * * * *" --for 1h'), ['prod-eu'], actor, NOW, 'UTC', 'n');
    expect(action.plan.doable).toBe(false);
  });

  it('is authorized as freeze-all on everything of the glob; a permission on prod-eu alone does not grant prod-*', () => {
    const action = prepareFleetFreeze(freezeCommand('freeze cluster:prod-* --reason x'), ['prod-eu'], actor, NOW, 'UTC', 'n');
    expect(authzTargets(action)).toEqual([{ kind: 'all', cluster: 'prod-*' }]);
    expect(authzVerb(action)).toBe('freeze-all');
    const teams = (clusters: string[]): TeamPolicy[] => [
      { name: 'ops', members: { slackUsers: ['UOPS'] }, permissions: [{ verbs: ['freeze-all'], clusters }] },
    ];
    const ops = { slackUser: 'UOPS', slackUserGroups: [] };
    expect(authorizeAction(ops, action, teams(['prod-*'])).allowed).toBe(true);
    expect(authorizeAction(ops, action, teams(['*'])).allowed).toBe(true);
    expect(authorizeAction(ops, action, teams(['prod-eu'])).allowed).toBe(false);
    const lift = prepareFleetUnfreeze({ verb: 'unfreeze', name: 'n' }, action.fleetFreeze!, ['prod-eu'], NOW);
    expect(authzTargets(lift)).toEqual([{ kind: 'all', cluster: 'prod-*' }]);
    expect(authorizeAction(ops, lift, teams(['prod-eu'])).allowed).toBe(false);
  });
});

describe('freeze cluster:<glob>: the session', () => {
  function world(options: { fleet: boolean } = { fleet: true }) {
    const steps: string[] = [];
    const records = new Map<string, FleetFreeze>();
    const ops = {
      log: memoryLogger('bot').log,
      timeZone: 'UTC',
      draft: async () => ({ ok: false, message: 'the cluster path was taken' }),
      recordRefusal: async () => void steps.push('refusal recorded'),
    } as unknown as ReleaseOperations;
    const local = {
      ops,
      api: { list: async () => ({ items: [] }), get: async () => undefined as never },
      freezes: { list: async () => ({ items: [] }) },
      storage: { history: async () => summarizeHistory([]) },
    };
    const fleet: FleetRouting = {
      own: 'home',
      members: async () => [
        { name: 'home', own: true },
        { name: 'edge', own: false },
      ],
      route: async () => ({ ok: true, deps: local }),
      clusters: async () => ['edge', 'edge-2', 'home'],
      freezes: {
        list: async () => [...records.values()],
        create: async (record) => (records.has(record.freeze.metadata.name) ? false : (records.set(record.freeze.metadata.name, record), true)),
        delete: async (name) => records.delete(name),
      },
    };
    let allowed = true;
    const ports: SessionPorts = {
      actor: async () => ({ id: 'slack:UALICE' }),
      reply: {
        say: async (text, kind) => void steps.push(`say ${kind}: ${text}`),
        answer: async (verb, output) => void steps.push(`answer ${verb}: ${output}`),
        plan: async (plan) => void steps.push(`show ${plan.title}`),
      },
      gate: {
        query: async () => undefined,
        action: async (action) =>
          allowed
            ? { allowed: true, teams: [], requireApproval: false }
            : { allowed: false, reason: `no ${authzVerb(action)} in ${authzTargets(action)[0]!.cluster}` },
      },
      confirm: { ask: async (action) => (steps.push(`ask ${action.plan.title}: ${action.plan.lines[1]}`), 'yes') },
      progress: () => ({
        started: async (action) => action,
        failed: async () => undefined,
        applied: async (summary) => void steps.push(`applied ${summary}`),
        finished: async (outcomes) => void steps.push(`finished ${outcomes.map((o) => `${o.succeeded}`).join()}`),
      }),
      whoami: async () => undefined,
      secondPerson: true,
      awaitOutcome: true,
    };
    const session = new ReleaseSession({
      ...local,
      outcomeTimeoutMs: 1000,
      clock: { now: () => NOW.getTime(), sleep: async () => undefined },
      ...(options.fleet ? { fleet } : {}),
    });
    return { steps, records, session, ports, refuse: () => (allowed = false) };
  }

  it('plans with the clusters it takes in, writes the fleet record on confirm, lists it, and unfreeze lifts it', async () => {
    const { steps, records, session, ports } = world();
    expect(await session.run('freeze cluster:edge* --reason maintenance --for 2h', ports)).toBe('done');
    const [name] = [...records.keys()];
    expect(name).toMatch(/^cluster-edge-[0-9a-f]{4}$/);
    expect(records.get(name!)).toMatchObject({ clusters: ['edge*'], freeze: { spec: { reason: 'maintenance', until: '2026-11-26T19:00:00Z' } } });
    expect(steps).toEqual([
      `ask freeze clusters edge* (${name}): takes in 2 clusters of the fleet now: edge, edge-2`,
      `applied fleet freeze ${name} holds clusters edge* until 2026-11-26T19:00:00Z (unfreeze with /release unfreeze ${name})`,
      'finished true',
    ]);
    steps.length = 0;
    await session.run('freezes', ports);
    expect(steps[0]).toContain(`fleet freezes:\n${name}  ACTIVE  clusters edge* until 2026-11-26T19:00:00Z by slack:UALICE: maintenance`);
    steps.length = 0;
    expect(await session.run(`unfreeze ${name}`, ports)).toBe('done');
    expect(records.size).toBe(0);
    expect(steps[0]).toBe(`ask unfreeze ${name} (fleet): takes in 2 clusters of the fleet now: edge, edge-2`);
    expect(steps[1]).toContain(`fleet freeze ${name} lifted`);
  });

  it('an unfreeze of a name the fleet does not have goes to the cluster, as ever', async () => {
    const { steps, session, ports } = world();
    expect(await session.run('unfreeze prod-7f3a', ports)).toBe('not-done');
    expect(steps).toEqual(['say stopped: the cluster path was taken (cluster home)']);
  });

  it('refused: nothing is written and the refusal is recorded', async () => {
    const { steps, records, session, ports, refuse } = world();
    refuse();
    expect(await session.run('freeze cluster:edge* --reason x', ports)).toBe('not-done');
    expect(records.size).toBe(0);
    expect(steps).toEqual(['refusal recorded', 'say stopped: Refused: no freeze-all in edge*. Nothing changed.']);
  });

  it('without a fleet, freeze cluster:… says it needs one', async () => {
    const { steps, session, ports } = world({ fleet: false });
    expect(await session.run('freeze cluster:edge* --reason x', ports)).toBe('bad-input');
    expect(steps).toEqual(['say input: freeze cluster:… needs a fleet: this bot drives only its own cluster (HELMCREW_FLEET_KEYS_DIR is not set)']);
  });
});
