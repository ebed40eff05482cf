import { describe, expect, it } from 'vitest';
import { authorize, authorizeApproval, teamsOf } from '../../../src/session/authz/authorize.js';
import type { AuthzTarget, PermissionVerb, Subject, TeamPolicy } from '../../../src/session/authz/policy-types.js';
import { matching } from './matchers.js';

const teams: TeamPolicy[] = [
  {
    name: 'frontend',
    members: { slackUsers: ['UALICE'], slackUserGroups: ['SONCALL'] },
    permissions: [
      { verbs: ['status', 'history', 'suspend', 'resume', 'rollback'], namespaces: ['prod', 'staging'] },
      { verbs: ['upgrade'], namespaces: ['staging'] },
      { verbs: ['upgrade'], namespaces: ['prod'], requireApproval: true },
      { verbs: ['freeze', 'unfreeze'], namespaces: ['staging'] },
    ],
  },
  {
    name: 'payments',
    members: { slackUsers: ['UBOB'] },
    permissions: [{ verbs: ['rollback', 'upgrade'], namespaces: ['prod'], charts: ['billing'], requireApproval: true }],
  },
  { name: 'sre', members: { slackUserGroups: ['SSRE'] }, permissions: [{ verbs: ['freeze', 'unfreeze', 'list'] }] },
  { name: 'platform', members: { slackUsers: ['UPAT'] }, permissions: [{ verbs: ['freeze-all', 'freeze', 'unfreeze'] }] },
  { name: 'checkout', members: { slackUsers: ['UDAN'] }, permissions: [{ verbs: ['freeze', 'unfreeze'], namespaces: ['checkout'] }] },
  {
    name: 'web-owner',
    members: { slackUsers: ['UCAROL'] },
    permissions: [
      { verbs: ['rollback'], releases: ['prod/unicorn'] },
      { verbs: ['upgrade'], namespaces: ['*'], releases: ['dragon'] },
    ],
  },
];

const user = (slackUser: string, slackUserGroups: string[] = []): Subject => ({ slackUser, slackUserGroups });
const release = (namespace: string, name: string, chart = name): AuthzTarget => ({ kind: 'release', namespace, name, chart });
const alice = user('UALICE');

describe('authorize (default deny)', () => {
  it.each<{ name: string; who: Subject; verb: PermissionVerb; target: AuthzTarget; want: object }>([
    {
      name: 'member by user id, verb and namespace granted',
      who: alice,
      verb: 'rollback',
      target: release('prod', 'unicorn'),
      want: { allowed: true, teams: ['frontend'], requireApproval: false },
    },
    {
      name: 'member by user group',
      who: user('UDAVE', ['SONCALL']),
      verb: 'suspend',
      target: release('staging', 'unicorn'),
      want: { allowed: true, teams: ['frontend'] },
    },
    {
      name: 'in no team',
      who: user('UMALLORY'),
      verb: 'status',
      target: release('prod', 'unicorn'),
      want: { allowed: false, reason: matching(/you are in no Team/) },
    },
    {
      name: 'verb granted by no team',
      who: alice,
      verb: 'diff',
      target: release('prod', 'unicorn'),
      want: { allowed: false, reason: matching(/none of your Teams \(frontend\) grants "diff"/) },
    },
    {
      name: 'namespace not granted',
      who: alice,
      verb: 'rollback',
      target: release('dev', 'unicorn'),
      want: { allowed: false, reason: matching(/grant "rollback" only for frontend: namespaces prod, staging/) },
    },
    {
      name: 'upgrade in staging: no approval',
      who: alice,
      verb: 'upgrade',
      target: release('staging', 'unicorn'),
      want: { allowed: true, requireApproval: false },
    },
    {
      name: 'upgrade in prod: two-person rule',
      who: alice,
      verb: 'upgrade',
      target: release('prod', 'unicorn'),
      want: { allowed: true, requireApproval: true },
    },
    {
      name: 'chart restriction met',
      who: user('UBOB'),
      verb: 'rollback',
      target: release('prod', 'pay', 'billing'),
      want: { allowed: true, requireApproval: true },
    },
    {
      name: 'chart restriction not met',
      who: user('UBOB'),
      verb: 'rollback',
      target: release('prod', 'unicorn'),
      want: { allowed: false, reason: matching(/charts billing/) },
    },
    { name: 'release by namespace/name', who: user('UCAROL'), verb: 'rollback', target: release('prod', 'unicorn'), want: { allowed: true } },
    {
      name: 'same name, other namespace',
      who: user('UCAROL'),
      verb: 'rollback',
      target: release('staging', 'unicorn'),
      want: { allowed: false, reason: matching(/releases prod\/unicorn/) },
    },
    { name: 'bare release name in any namespace ("*")', who: user('UCAROL'), verb: 'upgrade', target: release('qa', 'dragon'), want: { allowed: true } },
    { name: 'freeze a granted namespace', who: alice, verb: 'freeze', target: { kind: 'namespace', namespace: 'staging' }, want: { allowed: true } },
    { name: 'freeze another namespace', who: alice, verb: 'freeze', target: { kind: 'namespace', namespace: 'prod' }, want: { allowed: false } },
    {
      name: 'freeze all needs the explicit freeze-all grant',
      who: alice,
      verb: 'freeze-all',
      target: { kind: 'all' },
      want: { allowed: false, reason: matching(/none of your Teams \(frontend\) grants "freeze-all"/) },
    },
    {
      name: 'an unrestricted freeze rule is not a whole-cluster freeze',
      who: user('UERIN', ['SSRE']),
      verb: 'freeze-all',
      target: { kind: 'all' },
      want: { allowed: false, reason: matching(/grants "freeze-all"/) },
    },
    { name: 'platform freezes all by name', who: user('UPAT'), verb: 'freeze-all', target: { kind: 'all' }, want: { allowed: true, teams: ['platform'] } },
    { name: "a Team's members freeze their own Team", who: user('UDAN'), verb: 'freeze', target: { kind: 'team', team: 'checkout' }, want: { allowed: true } },
    {
      name: "not another Team's releases with a narrowed rule",
      who: user('UDAN'),
      verb: 'freeze',
      target: { kind: 'team', team: 'frontend' },
      want: { allowed: false, reason: matching(/on team frontend's releases/) },
    },
    {
      name: "an unrestricted rule freezes any Team's releases",
      who: user('UERIN', ['SSRE']),
      verb: 'freeze',
      target: { kind: 'team', team: 'frontend' },
      want: { allowed: true },
    },
    {
      name: 'a chart everywhere needs every namespace',
      who: user('UDAN'),
      verb: 'freeze',
      target: { kind: 'chart', chart: 'redis' },
      want: { allowed: false },
    },
    {
      name: 'sre freezes a chart everywhere',
      who: user('UERIN', ['SSRE']),
      verb: 'freeze',
      target: { kind: 'chart', chart: 'redis' },
      want: { allowed: true },
    },
    {
      name: 'a release-scoped rule does not grant a whole namespace',
      who: user('UCAROL'),
      verb: 'rollback',
      target: { kind: 'namespace', namespace: 'prod' },
      want: { allowed: false },
    },
    { name: 'list everything (sre)', who: user('UERIN', ['SSRE']), verb: 'list', target: { kind: 'all' }, want: { allowed: true } },
    {
      name: 'rules of two teams: the one without approval wins',
      who: user('UBOB', ['SONCALL']),
      verb: 'rollback',
      target: release('prod', 'pay', 'billing'),
      want: { allowed: true, teams: ['frontend', 'payments'], requireApproval: false },
    },
    { name: 'a group id is not a user id', who: user('SONCALL'), verb: 'status', target: release('prod', 'unicorn'), want: { allowed: false } },
  ])('$name', ({ who, verb, target, want }) => {
    expect(authorize(who, verb, target, teams)).toMatchObject(want);
  });

  it('no Teams at all: everything is refused', () => {
    expect(authorize(alice, 'status', release('prod', 'unicorn'), [])).toMatchObject({ allowed: false });
  });
});

describe('authorizeApproval (two-person rule)', () => {
  const prodUpgrade = release('prod', 'unicorn');
  it.each([
    {
      name: 'the requester cannot approve their own request',
      requester: alice,
      approver: alice,
      want: { allowed: false, reason: matching(/second, different person/) },
    },
    { name: 'the same user with other groups is still the same person', requester: alice, approver: user('UALICE', ['SSRE']), want: { allowed: false } },
    { name: 'another authorized member approves', requester: alice, approver: user('UDAVE', ['SONCALL']), want: { allowed: true } },
    {
      name: 'another person without the permission cannot',
      requester: alice,
      approver: user('UERIN', ['SSRE']),
      want: { allowed: false, reason: matching(/^you may not approve upgrade/) },
    },
    { name: 'a stranger cannot', requester: alice, approver: user('UMALLORY'), want: { allowed: false } },
  ])('$name', ({ requester, approver, want }) => {
    expect(authorizeApproval(requester, approver, 'upgrade', prodUpgrade, teams)).toMatchObject(want);
  });
});

describe('authorize per cluster (a fleet)', () => {
  const fleetTeams: TeamPolicy[] = [
    {
      name: 'web',
      members: { slackUsers: ['UWEB'] },
      permissions: [
        { verbs: ['status', 'history'], releases: ['web'] },
        { verbs: ['rollback'], releases: ['web'], clusters: ['staging-*'] },
      ],
    },
    { name: 'fleet-ops', members: { slackUsers: ['UOPS'] }, permissions: [{ verbs: ['freeze-all'], clusters: ['prod-*'] }] },
    { name: 'old', members: { slackUsers: ['UOLD'] }, permissions: [{ verbs: ['rollback'], namespaces: ['web'] }] },
  ];
  const web = (cluster?: string): AuthzTarget => ({ kind: 'release', namespace: 'web', name: 'web', chart: 'web', ...(cluster ? { cluster } : {}) });

  it('a permission limited to staging-* grants a rollback in staging-eu and refuses it in prod-eu, saying where it is granted', () => {
    expect(authorize(user('UWEB'), 'rollback', web('staging-eu'), fleetTeams)).toMatchObject({ allowed: true, teams: ['web'] });
    const refused = authorize(user('UWEB'), 'rollback', web('prod-eu'), fleetTeams);
    expect(refused).toEqual({
      allowed: false,
      reason:
        'you may not rollback web/web (chart web) in cluster prod-eu: your Teams grant "rollback" only for web: every namespace, releases web, clusters staging-*',
    });
  });

  it('a permission without clusters grants in every cluster, and a target without one (a single cluster) is `default`', () => {
    expect(authorize(user('UWEB'), 'status', web('prod-eu'), fleetTeams).allowed).toBe(true);
    expect(authorize(user('UOLD'), 'rollback', web('prod-eu'), fleetTeams).allowed).toBe(true);
    expect(authorize(user('UOLD'), 'rollback', web(), fleetTeams).allowed).toBe(true);
    expect(authorize(user('UWEB'), 'rollback', web(), fleetTeams).allowed).toBe(false);
  });

  it('a fleet freeze on a glob needs a permission that covers every cluster the glob names', () => {
    const all = (cluster: string): AuthzTarget => ({ kind: 'all', cluster });
    expect(authorize(user('UOPS'), 'freeze-all', all('prod-*'), fleetTeams).allowed).toBe(true);
    expect(authorize(user('UOPS'), 'freeze-all', all('prod-eu'), fleetTeams).allowed).toBe(true);
    expect(authorize(user('UOPS'), 'freeze-all', all('*'), fleetTeams).allowed).toBe(false);
    expect(authorize(user('UOPS'), 'freeze-all', all('staging-*'), fleetTeams).allowed).toBe(false);
  });
});

describe('teamsOf: web members by verified email and by the provider’s groups', () => {
  const web: TeamPolicy[] = [
    { name: 'by-email', members: { emails: ['Ana@Example.org'] }, permissions: [] },
    { name: 'by-group', members: { groups: ['platform-oncall'] }, permissions: [] },
    { name: 'by-slack', members: { slackUsers: ['UALICE'], slackUserGroups: ['SONCALL'] }, permissions: [] },
  ];
  it.each<{ name: string; who: Subject; want: string[] }>([
    { name: 'a verified email, matched case-insensitively', who: { slackUserGroups: [], email: 'ana@example.org' }, want: ['by-email'] },
    { name: 'another email', who: { slackUserGroups: [], email: 'eve@example.org' }, want: [] },
    { name: 'a group of the provider', who: { slackUserGroups: [], groups: ['platform-oncall'] }, want: ['by-group'] },
    { name: 'a group matched exactly (case counts)', who: { slackUserGroups: [], groups: ['Platform-Oncall'] }, want: [] },
    { name: 'email and group together', who: { slackUserGroups: [], email: 'ana@example.org', groups: ['platform-oncall'] }, want: ['by-email', 'by-group'] },
    { name: 'no Slack user: not a member by slackUsers', who: { slackUserGroups: [] }, want: [] },
    { name: 'a Slack user signed in on the web', who: { slackUser: 'UALICE', slackUserGroups: [] }, want: ['by-slack'] },
  ])('$name', ({ who, want }) => {
    expect(teamsOf(who, web).map((team) => team.name)).toEqual(want);
  });

  it('an OIDC person in no Team is refused naming their email', () => {
    expect(authorize({ slackUserGroups: [], email: 'eve@example.org' }, 'status', release('prod', 'unicorn'), teams)).toEqual({
      allowed: false,
      reason: 'you may not status prod/unicorn (chart unicorn): you are in no Team (neither your email eve@example.org nor your groups are members of one)',
    });
  });

  it('two web people without a Slack user are not the same person (two-person rule)', () => {
    const a: Subject = { slackUserGroups: [], email: 'a@example.org' };
    const b: Subject = { slackUserGroups: [], email: 'A@example.org' };
    expect(authorizeApproval(a, b, 'status', release('prod', 'unicorn'), [])).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('a second, different person'),
    });
    expect(authorizeApproval(a, { slackUserGroups: [], email: 'c@example.org' }, 'status', release('prod', 'unicorn'), [])).toMatchObject({
      reason: expect.stringContaining('you may not approve'),
    });
  });
});
