import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { API_GROUP, API_VERSION, TEAM_KIND, TEAM_PLURAL } from '../../src/api/vocabulary.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { apiErrorMessage, apiStatusCode } from '../../src/core/kube/errors.js';
import { testEnv, uniqueName } from '../support/fixtures.js';

/** Issue 6: the API server refuses malformed Teams and names the field; a well-formed Team is stored as given. */
describe('the Team API', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);

  const create = (name: string, spec: unknown) =>
    kube.custom.createClusterCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: TEAM_PLURAL,
      body: { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: TEAM_KIND, metadata: { name }, ...(spec === undefined ? {} : { spec }) },
    });
  const remove = (name: string) =>
    kube.custom.deleteClusterCustomObject({ group: API_GROUP, version: API_VERSION, plural: TEAM_PLURAL, name }).catch(() => undefined);

  const hook = { url: 'https://hooks.example.test/helmcrew', secretRef: { namespace: 'ops', name: 'hook' } };

  it.each([
    { name: 'no-spec', spec: undefined, want: /spec: Required value/ },
    { name: 'lower-user', spec: { members: { slackUsers: ['u0123'] } }, want: /spec.members.slackUsers\[0\]: Invalid value: "u0123"/ },
    { name: 'bad-group', spec: { members: { slackUserGroups: ['U0456'] } }, want: /spec.members.slackUserGroups\[0\]: Invalid value: "U0456"/ },
    { name: 'bad-channel', spec: { channels: [{ slack: 'frontend' }] }, want: /spec.channels\[0\].slack: Invalid value: "frontend"/ },
    {
      name: 'both-kinds',
      spec: { channels: [{ slack: '#frontend', webhook: hook }] },
      want: /spec.channels\[0\]: Invalid value.*exactly one of slack, webhook, pagerduty, msteams, alertmanager, incidentio or googlechat/,
    },
    {
      name: 'no-kind',
      spec: { channels: [{}] },
      want: /spec.channels\[0\]: Invalid value.*exactly one of slack, webhook, pagerduty, msteams, alertmanager, incidentio or googlechat/,
    },
    {
      name: 'hook-and-pd',
      spec: { channels: [{ webhook: hook, pagerduty: { secretRef: hook.secretRef } }] },
      want: /spec.channels\[0\]: Invalid value.*exactly one of slack, webhook, pagerduty, msteams, alertmanager, incidentio or googlechat/,
    },
    {
      name: 'am-and-slack',
      spec: { channels: [{ slack: '#frontend', alertmanager: { url: 'http://alertmanager.test:9093' } }] },
      want: /spec.channels\[0\]: Invalid value.*exactly one of slack, webhook, pagerduty, msteams, alertmanager, incidentio or googlechat/,
    },
    { name: 'am-ftp', spec: { channels: [{ alertmanager: { url: 'ftp://alertmanager.test/' } }] }, want: /spec.channels\[0\].alertmanager.url: Invalid value/ },
    { name: 'pd-no-secret', spec: { channels: [{ pagerduty: {} }] }, want: /spec.channels\[0\].pagerduty.secretRef: Required value/ },
    {
      name: 'inc-and-chat',
      spec: {
        channels: [
          { incidentio: { url: 'https://api.incident.io/v2/alert_events/http/01A', secretRef: hook.secretRef }, googlechat: { secretRef: hook.secretRef } },
        ],
      },
      want: /spec.channels\[0\]: Invalid value.*exactly one of slack, webhook, pagerduty, msteams, alertmanager, incidentio or googlechat/,
    },
    {
      name: 'inc-no-secret',
      spec: { channels: [{ incidentio: { url: 'https://api.incident.io/v2/alert_events/http/01A' } }] },
      want: /spec.channels\[0\].incidentio.secretRef: Required value/,
    },
    { name: 'chat-no-secret', spec: { channels: [{ googlechat: {} }] }, want: /spec.channels\[0\].googlechat.secretRef: Required value/ },
    { name: 'ftp-hook', spec: { channels: [{ webhook: { ...hook, url: 'ftp://x.test/' } }] }, want: /spec.channels\[0\].webhook.url: Invalid value/ },
    { name: 'no-secret', spec: { channels: [{ webhook: { url: hook.url } }] }, want: /spec.channels\[0\].webhook.secretRef: Required value/ },
    {
      name: 'secret-no-ns',
      spec: { channels: [{ webhook: { url: hook.url, secretRef: { name: 'hook' } } }] },
      want: /spec.channels\[0\].webhook.secretRef.namespace: Required value/,
    },
    {
      name: 'bad-event',
      spec: { subscriptions: [{ events: ['UpgradeExploded'] }] },
      want: /spec.subscriptions\[0\].events\[0\]: Unsupported value: "UpgradeExploded"/,
    },
    { name: 'bad-severity', spec: { subscriptions: [{ severity: 'warning' }] }, want: /spec.subscriptions\[0\].severity: Unsupported value: "warning"/ },
    {
      name: 'bad-release',
      spec: { subscriptions: [{ releases: ['prod/Unicorn'] }] },
      want: /spec.subscriptions\[0\].releases\[0\]: Invalid value: "prod\/Unicorn"/,
    },
    {
      name: 'bad-operator',
      spec: { subscriptions: [{ selector: { matchExpressions: [{ key: 'tier', operator: 'Like' }] } }] },
      want: /spec.subscriptions\[0\].selector.matchExpressions\[0\].operator: Unsupported value: "Like"/,
    },
    { name: 'bad-verb', spec: { permissions: [{ verbs: ['delete'] }] }, want: /spec.permissions\[0\].verbs\[0\]: Unsupported value: "delete"/ },
    {
      name: 'no-verbs',
      spec: { permissions: [{ namespaces: ['prod'], verbs: [] }] },
      want: /spec.permissions\[0\].verbs: Invalid value.*should have at least 1 items/,
    },
    {
      name: 'approval-yes',
      spec: { permissions: [{ verbs: ['rollback'], requireApproval: 'yes' }] },
      want: /spec.permissions\[0\].requireApproval: Invalid value: "string"/,
    },
  ])('$name is refused: $want', async ({ name, spec, want }) => {
    const teamName = uniqueName(`bad-${name}`);
    const error = await create(teamName, spec).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (error === undefined) await remove(teamName);
    expect(error, 'the API server accepted a malformed Team').toBeDefined();
    expect(apiStatusCode(error)).toBe(422);
    expect(apiErrorMessage(error)).toMatch(want);
  });

  it('a well-formed Team (the example of DESIGN.md) is stored as given, without a namespace', async () => {
    const name = uniqueName('frontend');
    const spec = {
      members: { slackUsers: ['U0123', 'W0999'], slackUserGroups: ['S0456'] },
      channels: [
        { slack: '#frontend-releases' },
        { slack: 'C0123ABC' },
        { webhook: { ...hook, secretRef: { ...hook.secretRef, key: 'hmac' } } },
        { pagerduty: { secretRef: { namespace: 'ops', name: 'pagerduty' } } },
        { msteams: { secretRef: { namespace: 'ops', name: 'teams', key: 'workflow-url' } } },
        {
          incidentio: { url: 'https://api.incident.io/v2/alert_events/http/01GW2G3V0S59R238FAHPDS1R66', secretRef: { namespace: 'ops', name: 'incident-io' } },
        },
        { googlechat: { secretRef: { namespace: 'ops', name: 'google-chat' } } },
      ],
      subscriptions: [
        { charts: ['frontend'], events: ['UpgradeSucceeded', 'UpgradeFailed', 'RollbackSucceeded'] },
        { namespaces: ['prod'], severity: 'error' },
        {
          releases: ['unicorn', 'web/unicorn'],
          selector: { matchLabels: { tier: 'web' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] },
        },
      ],
      permissions: [
        { namespaces: ['prod', 'staging'], verbs: ['status', 'history', 'suspend', 'resume', 'rollback'], requireApproval: true },
        { namespaces: ['staging'], verbs: ['upgrade'] },
      ],
    };
    try {
      const created = (await create(name, spec)) as { metadata: { namespace?: string }; spec: unknown };
      expect(created.metadata.namespace).toBeUndefined();
      expect(created.spec).toEqual(spec);
    } finally {
      await remove(name);
    }
  });

  it('kubectl get teams shows channels, subscriptions and the last delivery', async () => {
    const name = uniqueName('oncall');
    await create(name, {
      channels: [{ slack: '#oncall' }, { webhook: hook }],
      subscriptions: [{ namespaces: ['prod'], severity: 'error' }, { charts: ['unicorn'] }],
    });
    try {
      const table = await execa(env.kubectlBin, ['--kubeconfig', env.kubeconfig, 'get', 'teams', name], { reject: false });
      expect(table.exitCode, table.stderr).toBe(0);
      const [header, row] = table.stdout.split('\n');
      expect(header).toMatch(/^NAME\s+READY\s+SLACK\s+NAMESPACES\s+CHARTS\s+LAST DELIVERY\s+AGE$/);
      expect(row).toMatch(new RegExp(`^${name}\\s+\\s*#oncall\\s+\\["prod"\\]\\s+\\["unicorn"\\]`));
      const wide = await execa(env.kubectlBin, ['--kubeconfig', env.kubeconfig, 'get', 'teams', name, '-o', 'wide'], { reject: false });
      expect(wide.stdout.split('\n')[0]).toMatch(/WEBHOOKS/);
      expect(wide.stdout).toMatch(/\bhook\b/);
    } finally {
      await remove(name);
    }
  });
});
