import { execa, type ResultPromise } from 'execa';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { CONTROLLER_RIGHTS_SETTINGS } from '../../src/dev/dev-settings.js';
import { OtlpReceiver, type ReceivedSpan } from '../../src/dev/otlp-receiver/index.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { eventually } from '../support/eventually.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { createSigningSecret, createTeam, deleteTeams, randomKey, TEST_LABEL } from '../support/notify-fixtures.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Issue 34: `helmcrew run` with OTEL_EXPORTER_OTLP_ENDPOINT sends its traces to a local OTLP/HTTP
 * receiver: the install's reconcile pass is one trace (a span per stage, helm's install below the
 * act stage with its verb and duration), the delivery of its notification another, and the log
 * lines written during the pass carry its trace id.
 */
describe('OpenTelemetry traces over OTLP/HTTP', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const run = uniqueName('hc-traces');
  const key = randomKey('traces');
  const otlp = new OtlpReceiver();
  const hook = new WebhookReceiver({ '/hook': key });
  let namespace: string;
  let logFile: string;
  let child: ResultPromise;

  beforeAll(async () => {
    await Promise.all([otlp.start(), hook.start()]);
    namespace = await freshNamespace(kubeConfig, 'traces');
    await createSigningSecret(kube, namespace, 'hook', key);
    await createTeam(kube, run, `${run}-team`, {
      subscriptions: [{ namespaces: [namespace] }],
      channels: [{ webhook: { url: hook.url('/hook'), secretRef: { namespace, name: 'hook' } } }],
    });
    const dir = await mkdtemp(join(tmpdir(), 'helmcrew-traces-'));
    logFile = join(dir, 'run.log');
    child = execa(process.execPath, [join(REPO_ROOT, 'bin/helmcrew.js'), 'run'], {
      env: {
        KUBECONFIG: env.kubeconfig,
        REDIS_URL: env.redisUrl,
        HELM_BIN: env.helmBin,
        WATCH_NAMESPACES: namespace,
        ...CONTROLLER_RIGHTS_SETTINGS,
        HELMCREW_QUEUE_PREFIX: run,
        HELMCREW_WORK_DIR: join(dir, 'work'),
        HELMCREW_TEAM_SELECTOR: `${TEST_LABEL}=${run}`,
        HELMCREW_TEAM_REFRESH_MS: '500',
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint(),
        // The SDK's batch delay (5 s by default), so the test waits on spans, not on a timer.
        OTEL_BSP_SCHEDULE_DELAY: '200',
        LOG_LEVEL: 'info',
      },
      stdout: 'ignore',
      stderr: { file: logFile },
      reject: false,
    });
  });
  afterAll(async () => {
    child.kill('SIGTERM');
    await child;
    await Promise.all([otlp.stop(), hook.stop()]);
    await deleteTeams(kube, run);
    await deleteNamespace(kubeConfig, namespace);
  });

  it('an install is one trace of stages with helm below; its delivery is a trace of its own; the log names the trace', async () => {
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'traced', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' } }),
    );
    await waitForReconciled(kubeConfig, namespace, 'traced', generation);

    // The pass that installed: its root span is exported last, when the pass ended.
    const pass = await eventually(
      () => {
        const span = otlp.spans.find(
          (s) => s.name === 'reconcile' && s.attributes['helmcrew.release'] === `${namespace}/traced` && s.attributes['helmcrew.action'] === 'install',
        );
        if (!span) throw new Error(`no install pass yet; names: ${[...new Set(otlp.spans.map((s) => s.name))].join(', ')}`);
        return span;
      },
      { timeoutMs: 30_000 },
    );
    const helmInstall = otlp.trace(pass.traceId).find((s) => s.name === 'helm install')!;
    expect(otlp.requests.every((r) => r.contentType.startsWith('application/json') && r.status === 200)).toBe(true);
    expect(helmInstall.service).toBe('helmcrew');
    expect(helmInstall.attributes).toMatchObject({ 'helm.verb': 'install', 'helm.command': 'install', 'helm.result': 'success' });
    expect(helmInstall.endNs - helmInstall.startNs).toBeGreaterThan(0n);

    // helm's span is the act stage's child, which is the pass's: one trace from the pass down.
    const parentOf = (span: ReceivedSpan) => otlp.spans.find((s) => s.traceId === span.traceId && s.spanId === span.parentSpanId);
    const act = parentOf(helmInstall)!;
    expect(act.name).toBe('reconcile.act');
    expect(parentOf(act)).toBe(pass);
    expect(pass).toMatchObject({
      name: 'reconcile',
      parentSpanId: '',
      attributes: { 'helmcrew.release': `${namespace}/traced`, 'helmcrew.action': 'install' },
    });
    const stages = otlp.children(pass).map((s) => s.name);
    expect(stages).toEqual(expect.arrayContaining(['reconcile.gate', 'reconcile.lifecycle', 'reconcile.desired', 'reconcile.decide', 'reconcile.act']));
    expect(otlp.children(pass).find((s) => s.name === 'reconcile.decide')!.attributes['helmcrew.decision']).toBe('install');
    expect(helmInstall.startNs).toBeGreaterThanOrEqual(act.startNs);
    expect(helmInstall.endNs).toBeLessThanOrEqual(pass.endNs);

    // The notification's delivery: a trace of its own, naming the provider and the event, not the URL.
    await hook.waitFor(() => hook.delivered('/hook').some((r) => r.json.event === 'InstallSucceeded'), 30_000, 'the install to be heard');
    const delivery = await eventually(
      () => {
        const span = otlp.spans.find((s) => s.name === 'notify.deliver' && s.attributes['helmcrew.event'] === 'InstallSucceeded');
        if (!span) throw new Error('no delivery span yet');
        return span;
      },
      { timeoutMs: 30_000 },
    );
    expect(delivery).toMatchObject({ parentSpanId: '', attributes: { 'helmcrew.provider': 'webhook', 'helmcrew.result': 'success' } });
    expect(delivery.traceId).not.toBe(pass.traceId);
    expect(JSON.stringify(otlp.spans.map((s) => s.attributes))).not.toContain(hook.url('/hook'));

    // The log line helm's run wrote carries the pass's trace id.
    const lines = (await readFile(logFile, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const helmLine = lines.find((l) => l.msg === 'helm finished' && l.release === `${namespace}/traced` && l.action === 'install');
    expect(helmLine).toMatchObject({ trace_id: pass.traceId, span_id: helmInstall.spanId });
  });
});
