import { execa } from 'execa';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { renderChart } from '../support/chart.js';
import { testEnv } from '../support/fixtures.js';

/** Debian's promtool (package prometheus; scripts/setup.sh installs it). */
const PROMTOOL = '/usr/bin/promtool';
const RELEASE = 'hc';
const NAMESPACE = 'helmcrew';
/** The labels Prometheus gives every series the chart's ServiceMonitor scrapes. */
const SCRAPED = `job="${RELEASE}-metrics", namespace="${NAMESPACE}"`;
/** The same series from another helmcrew installation: the rules must not hear it. */
const OTHER = `job="other-metrics", namespace="other"`;

type Series = { series: string; values: string };
type AlertCase = {
  /** What the input is, in words (promtool prints the test's name when it fails). */
  name: string;
  series: Series[];
  /** Minutes after the first sample. */
  at: number;
  /** Empty: the alert must stay silent. */
  alerts: { exp_labels: Record<string, string>; exp_annotations: Record<string, string> }[];
};

/**
 * For each alert the chart ships: the input it is written for (it fires, with its labels and
 * rendered annotations) and healthy inputs (it stays silent). Samples every minute.
 */
const CASES: Record<string, AlertCase[]> = {
  HelmcrewReleasesNotReady: [
    {
      name: 'two releases not Ready for 35 minutes',
      series: [
        { series: `helmcrew_releases{${SCRAPED}, pod="a", ready="false"}`, values: '2x40' },
        { series: `helmcrew_releases{${SCRAPED}, pod="a", ready="true"}`, values: '8x40' },
      ],
      at: 35,
      alerts: [
        {
          exp_labels: { severity: 'warning' },
          exp_annotations: {
            summary: '2 HelmRelease(s) not Ready for 30m',
            description: "kubectl get helmreleases -A shows which, and status.conditions why (helm's error, a freeze, a missing dependency).",
          },
        },
      ],
    },
    {
      name: 'every release Ready',
      series: [
        { series: `helmcrew_releases{${SCRAPED}, pod="a", ready="false"}`, values: '0x40' },
        { series: `helmcrew_releases{${SCRAPED}, pod="a", ready="true"}`, values: '10x40' },
      ],
      at: 35,
      alerts: [],
    },
    {
      name: 'a release not Ready for 20 minutes only (an upgrade waiting on its pods)',
      series: [{ series: `helmcrew_releases{${SCRAPED}, pod="a", ready="false"}`, values: '0x15 1x25' }],
      at: 35,
      alerts: [],
    },
    {
      name: "another installation's releases not Ready",
      series: [{ series: `helmcrew_releases{${OTHER}, pod="a", ready="false"}`, values: '3x40' }],
      at: 35,
      alerts: [],
    },
  ],
  HelmcrewQueueBackingUp: [
    {
      name: 'the oldest waiting reconcile job ages a minute a minute for 25 minutes',
      series: [
        { series: `helmcrew_queue_oldest_waiting_job_age_seconds{${SCRAPED}, pod="a", queue="reconcile"}`, values: '0+60x30' },
        { series: `helmcrew_queue_oldest_waiting_job_age_seconds{${SCRAPED}, pod="b", queue="reconcile"}`, values: '0+60x30' },
        { series: `helmcrew_queue_oldest_waiting_job_age_seconds{${SCRAPED}, pod="a", queue="notify"}`, values: '2x30' },
      ],
      at: 25,
      alerts: [
        {
          exp_labels: { severity: 'warning', queue: 'reconcile' },
          exp_annotations: {
            summary: 'helmcrew queue reconcile: the oldest waiting job is 25m 0s old',
            description:
              'Work arrives faster than it is done: too few replicas or too little concurrency, helm slowed by the API server, or workers not running (helmcrew_queue_jobs by state).',
          },
        },
      ],
    },
    {
      name: 'jobs wait seconds and are taken',
      series: [
        {
          series: `helmcrew_queue_oldest_waiting_job_age_seconds{${SCRAPED}, pod="a", queue="reconcile"}`,
          values: '0 5 0 12 3 0 0 8 1 0 0 4 0 0 2 0 0 9 0 0 1 0 0 3 0 0 0',
        },
      ],
      at: 25,
      alerts: [],
    },
    {
      name: 'one slow burst over the threshold for 5 minutes',
      series: [{ series: `helmcrew_queue_oldest_waiting_job_age_seconds{${SCRAPED}, pod="a", queue="reconcile"}`, values: '0x10 700 760 820 880 940 0x12' }],
      at: 25,
      alerts: [],
    },
  ],
  HelmcrewNotificationsFailing: [
    {
      name: 'a third of deliveries permanently refused for 40 minutes',
      series: [
        { series: `helmcrew_notify_deliveries_total{${SCRAPED}, pod="a", provider="slack", result="success"}`, values: '0+10x60' },
        { series: `helmcrew_notify_deliveries_total{${SCRAPED}, pod="a", provider="webhook", result="permanent"}`, values: '0+5x60' },
      ],
      at: 40,
      alerts: [
        {
          exp_labels: { severity: 'warning' },
          exp_annotations: {
            summary: "33.33% of helmcrew's notification deliveries fail",
            description:
              "A Team's channel status (kubectl get teams -o yaml) names the provider's error: a revoked token, a deleted channel, a webhook answering 4xx.",
          },
        },
      ],
    },
    {
      name: 'one delivery in a hundred refused, retries not counted as failures',
      series: [
        { series: `helmcrew_notify_deliveries_total{${SCRAPED}, pod="a", provider="slack", result="success"}`, values: '0+99x60' },
        { series: `helmcrew_notify_deliveries_total{${SCRAPED}, pod="a", provider="slack", result="retryable"}`, values: '0+50x60' },
        { series: `helmcrew_notify_deliveries_total{${SCRAPED}, pod="a", provider="webhook", result="permanent"}`, values: '0+1x60' },
      ],
      at: 40,
      alerts: [],
    },
    {
      name: 'nothing delivered at all',
      series: [{ series: `helmcrew_notify_deliveries_total{${SCRAPED}, pod="a", provider="slack", result="success"}`, values: '0x60' }],
      at: 40,
      alerts: [],
    },
  ],
  HelmcrewNoLeader: [
    {
      name: 'both controller replicas report 0 for 10 minutes',
      series: [
        { series: `up{${SCRAPED}, pod="a"}`, values: '1x15' },
        { series: `up{${SCRAPED}, pod="b"}`, values: '1x15' },
        { series: `helmcrew_leader{${SCRAPED}, pod="a"}`, values: '0x15' },
        { series: `helmcrew_leader{${SCRAPED}, pod="b"}`, values: '0x15' },
      ],
      at: 10,
      alerts: [
        {
          exp_labels: { severity: 'critical' },
          exp_annotations: {
            summary: 'No helmcrew controller holds the lease: HelmRelease changes are not picked up',
            description:
              'Every controller replica reports helmcrew_leader 0: they cannot reach the API server or renew the Lease helmcrew-controller-leader, or no controller runs (notify and the bot still answer).',
          },
        },
      ],
    },
    {
      // parts.split: notify and the bot answer on the same metrics Service; every controller crash-loops.
      name: 'no controller answers while notify and the bot do',
      series: [
        { series: `up{${SCRAPED}, pod="notify"}`, values: '1x15' },
        { series: `up{${SCRAPED}, pod="bot"}`, values: '1x15' },
        { series: `up{${SCRAPED}, pod="controller"}`, values: '0x15' },
      ],
      at: 10,
      alerts: [
        {
          exp_labels: { severity: 'critical' },
          exp_annotations: {
            summary: 'No helmcrew controller holds the lease: HelmRelease changes are not picked up',
            description:
              'Every controller replica reports helmcrew_leader 0: they cannot reach the API server or renew the Lease helmcrew-controller-leader, or no controller runs (notify and the bot still answer).',
          },
        },
      ],
    },
    {
      name: 'one replica leads, the other follows',
      series: [
        { series: `up{${SCRAPED}, pod="a"}`, values: '1x15' },
        { series: `helmcrew_leader{${SCRAPED}, pod="a"}`, values: '1x15' },
        { series: `helmcrew_leader{${SCRAPED}, pod="b"}`, values: '0x15' },
      ],
      at: 10,
      alerts: [],
    },
    {
      name: 'a lease handed over within two minutes',
      series: [
        { series: `up{${SCRAPED}, pod="a"}`, values: '1x15' },
        { series: `helmcrew_leader{${SCRAPED}, pod="a"}`, values: '1x4 0x11' },
        { series: `helmcrew_leader{${SCRAPED}, pod="b"}`, values: '0x6 1x9' },
      ],
      at: 10,
      alerts: [],
    },
    {
      name: 'nothing answers at all (HelmcrewDown says it, once)',
      series: [{ series: `up{${SCRAPED}, pod="a"}`, values: '0x15' }],
      at: 10,
      alerts: [],
    },
  ],
  HelmcrewDown: [
    {
      name: 'the only process does not answer for 10 minutes',
      series: [{ series: `up{${SCRAPED}, pod="a"}`, values: '0x15' }],
      at: 10,
      alerts: [
        {
          exp_labels: { severity: 'critical' },
          exp_annotations: {
            summary: 'No helmcrew process answers on /metrics',
            description: 'kubectl get pods -l app.kubernetes.io/name=helmcrew; the pod logs say why it does not start (a bad setting is one line).',
          },
        },
      ],
    },
    {
      name: 'no target scraped at all (the Deployment scaled to 0)',
      series: [{ series: `up{${OTHER}, pod="a"}`, values: '1x15' }],
      at: 10,
      alerts: [
        {
          exp_labels: { severity: 'critical' },
          exp_annotations: {
            summary: 'No helmcrew process answers on /metrics',
            description: 'kubectl get pods -l app.kubernetes.io/name=helmcrew; the pod logs say why it does not start (a bad setting is one line).',
          },
        },
      ],
    },
    {
      name: 'one of two replicas answers',
      series: [
        { series: `up{${SCRAPED}, pod="a"}`, values: '0x15' },
        { series: `up{${SCRAPED}, pod="b"}`, values: '1x15' },
      ],
      at: 10,
      alerts: [],
    },
    {
      name: 'a restart of two minutes',
      series: [{ series: `up{${SCRAPED}, pod="a"}`, values: '1x4 0 0 1x9' }],
      at: 10,
      alerts: [],
    },
  ],
};

/**
 * Issue 34: the chart's PrometheusRule (`metrics.prometheusRule`) rendered by the pinned helm and
 * evaluated by Debian's real `promtool test rules`: series in, alerts out. Each shipped alert fires
 * on the input it is written for, with its labels and rendered annotations, and stays silent on
 * healthy inputs; an alert added to the chart without cases here fails the coverage check.
 */
describe('the chart’s alert rules, evaluated by promtool', () => {
  const { env } = testEnv();
  let dir: string;
  let shipped: string[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'helmcrew-rules-'));
    const { docs } = await renderChart(env, ['metrics.prometheusRule.enabled=true'], { release: RELEASE, namespace: NAMESPACE });
    const rule = docs.find((d) => d.kind === 'PrometheusRule');
    expect(rule, 'the chart renders a PrometheusRule').toBeDefined();
    const groups = (rule!.spec as { groups: { name: string; rules: { alert?: string }[] }[] }).groups;
    shipped = groups.flatMap((g) => g.rules.map((r) => r.alert).filter((a): a is string => !!a));
    // The Operator's spec.groups is Prometheus' own rule file format.
    await writeFile(join(dir, 'rules.yaml'), stringify({ groups }));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('every shipped alert has a firing and a silent case', () => {
    expect(shipped.length).toBeGreaterThan(0);
    expect(Object.keys(CASES).sort()).toEqual([...shipped].sort());
    for (const [alert, cases] of Object.entries(CASES)) {
      expect(
        cases.some((c) => c.alerts.length > 0),
        `${alert} fires somewhere`,
      ).toBe(true);
      expect(
        cases.some((c) => c.alerts.length === 0),
        `${alert} stays silent somewhere`,
      ).toBe(true);
    }
  });

  it('promtool checks the rules and each alert fires on its input, and only there', async () => {
    const check = await execa(PROMTOOL, ['check', 'rules', join(dir, 'rules.yaml')], { reject: false });
    expect(check.exitCode, check.stdout + check.stderr).toBe(0);
    const tests = Object.entries(CASES).flatMap(([alert, cases]) =>
      cases.map((c) => ({
        name: `${alert}: ${c.name}`,
        interval: '1m',
        input_series: c.series,
        alert_rule_test: [{ alertname: alert, eval_time: `${c.at}m`, exp_alerts: c.alerts }],
      })),
    );
    await writeFile(join(dir, 'tests.yaml'), stringify({ rule_files: ['rules.yaml'], evaluation_interval: '1m', tests }));
    const run = await execa(PROMTOOL, ['test', 'rules', join(dir, 'tests.yaml')], { cwd: dir, reject: false });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('SUCCESS');
  });
});
