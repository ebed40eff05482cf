import type { Freeze } from '../../../src/api/freeze.js';
import type { HelmRelease } from '../../../src/api/helmrelease.js';
import type { Condition } from '../../../src/api/helmrelease-status.js';
import type { Proposal } from '../../../src/core/proposals/proposal.js';
import type { TeamPolicy } from '../../../src/session/authz/policy-types.js';

export const HOSTILE = '<script>alert(1)</script>';
export const HOSTILE_ATTR = '"><img src=x onerror=alert(2)>';

const AT = '2026-11-28T10:00:00Z';

export function release(
  name: string,
  namespace: string,
  opts: { ready?: 'True' | 'False'; conditions?: Partial<Condition>[]; suspend?: boolean; values?: Record<string, unknown>; chart?: string } = {},
): HelmRelease {
  const conditions: Condition[] = [
    ...(opts.ready
      ? [
          {
            type: 'Ready',
            status: opts.ready,
            reason: opts.ready === 'True' ? 'InSync' : 'UpgradeFailed',
            message: `ready ${opts.ready}`,
            lastTransitionTime: AT,
          },
        ]
      : []),
    ...(opts.conditions ?? []).map((c) => ({ type: 'Ready', status: 'True' as const, reason: 'X', message: '', lastTransitionTime: AT, ...c })),
  ];
  return {
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name, namespace, generation: 1 },
    spec: {
      chart: { repository: 'https://charts.example', name: opts.chart ?? 'app', version: '1.0.0' },
      ...(opts.suspend ? { suspend: true } : {}),
      ...(opts.values ? { values: opts.values } : {}),
    },
    status: { conditions },
  };
}

export function freeze(name: string, scope: Freeze['spec']['scope'], extra: Partial<Freeze['spec']> = {}): Freeze {
  return {
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'Freeze',
    metadata: { name },
    spec: { scope, reason: 'release train', setBy: 'slack:U1', ...extra },
  };
}

export function proposal(namespace: string, name: string, extra: Partial<Proposal> = {}): Proposal {
  return {
    id: `p-${name}`,
    kind: 'image',
    release: { cluster: 'default', namespace, name },
    values: [{ valuesPath: 'image.tag', from: '1.0', to: '1.1' }],
    summary: `image shop/web 1.0 → 1.1`,
    subject: `${namespace}/${name}/image`,
    facts: { required: 2, expiresAt: Date.parse('2026-12-01T00:00:00Z') },
    state: { phase: 'open', approvers: ['slack:U7'] },
    createdAt: Date.parse('2026-11-28T09:00:00Z'),
    diff: ['~ Deployment web: image 1.0 → 1.1'],
    ...extra,
  };
}

export const ANA = { slackUser: 'UANA', slackUserGroups: [] };
export const TEAMS: TeamPolicy[] = [
  { name: 'shop', members: { slackUsers: ['UANA'] }, permissions: [{ verbs: ['status', 'list'], namespaces: ['shop'] }] },
  { name: 'ops', members: { slackUsers: ['UOPS'] }, permissions: [{ verbs: ['status', 'list'] }] },
  { name: 'pay', members: { slackUsers: ['UANA'] }, permissions: [{ verbs: ['status'], namespaces: ['pay'], releases: ['api'] }] },
];
export const NOW = new Date('2026-11-28T12:00:00Z');
