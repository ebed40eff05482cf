// Verified charts at rest (issue 48): N in-sync releases of one signed OCI chart with
// spec.chart.verify on (cosign, or notation), on the local registry through a counting proxy. One
// real install, its record copied to the other names (seed-records.ts), a compiled controller
// child whose cosign and notation-verify are counting wrappers; then R seconds at rest. Reported:
// the registry's requests by kind (signature fetches apart from the chart's own tag lookups),
// cosign / notation-verify processes, helm processes, checks done and the controller's CPU — for
// the adopt burst (where the one check per digest shows) and at rest (where none should run).
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api } from '@kubernetes/client-node';
import { parseDuration } from '../src/api/duration.js';
import type { HelmReleaseSpec } from '../src/api/helmrelease.js';
import { createNamespace, deleteNamespaceFully, randomSuffix } from '../src/dev/harness/index.js';
import { pushChart } from '../src/dev/oci-registry.js';
import { toolchainPaths } from '../src/dev/paths.js';
import { cosignKeyPair, cosignSign, ociReference } from '../test/support/cosign.js';
import { notationSign, notationSigner, trustPolicy } from '../test/support/notation.js';
import { unicornArchive } from '../test/support/oci.js';
import type { Benchmark } from './lib/benchmark.js';
import { helmcrewBurst, helmcrewRest, names } from './lib/burst-phases.js';
import { buildCompiled, spawnController } from './lib/controller-child.js';
import { createCountingHelm } from './lib/counting-helm.js';
import { startBenchEnv } from './lib/environment.js';
import { loadavgString } from './lib/machine.js';
import { startRegistryProxy } from './lib/registry-proxy.js';
import type { Table } from './lib/result.js';
import { say } from './lib/say.js';
import { cloneReleaseRecord } from './lib/seed-records.js';
import { tallyVerifyRequests } from './lib/signature-requests.js';
import { fmtS } from './lib/stats.js';

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** A wrapper that logs one line per run (its first argument) and runs `real`: the processes the controller spawned. */
async function countingTool(dir: string, name: string, real: string): Promise<{ bin: string; runs: () => Promise<number> }> {
  const bin = join(dir, name);
  const log = join(dir, `${name}-invocations.log`);
  await writeFile(log, '');
  await writeFile(bin, `#!/bin/bash\nprintf '%s\\n' "\${1:-?}" >> ${JSON.stringify(log)}\nexec ${JSON.stringify(real)} "$@"\n`);
  await chmod(bin, 0o755);
  return { bin, runs: async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean).length };
}

export const benchmark: Benchmark = {
  usage: '[--releases 1000] [--provider cosign|notation|none] [--interval 30s] [--rest-seconds 90] [--concurrency 4]',
  options: {
    releases: { type: 'string' },
    provider: { type: 'string' },
    interval: { type: 'string' },
    'rest-seconds': { type: 'string' },
    concurrency: { type: 'string' },
  },
  maxSeconds: 3600,
  async run(args, cleanup) {
    const n = args.int('releases', 1000);
    const provider = args.string('provider', 'cosign');
    // none: the same releases without spec.chart.verify, the baseline the figures with verify are read against.
    if (provider !== 'cosign' && provider !== 'notation' && provider !== 'none')
      throw new Error(`--provider must be cosign, notation or none, got "${provider}"`);
    const interval = args.string('interval', '30s');
    parseDuration(interval);
    const restSeconds = args.int('rest-seconds', 90);
    const concurrency = args.int('concurrency', 4);
    const loadStart = loadavgString();
    say(`verify-rest: N=${n}, verify ${provider}, interval ${interval}, rest ${restSeconds}s; load ${loadStart}`);

    const be = await startBenchEnv(cleanup, args.optional('state-dir'));
    const entry = await buildCompiled(join(be.dir, 'build'));
    const dir = await mkdtemp(join(be.dir, `verify-rest-n${n}-`));
    const upstream = new URL(be.env.ociRegistry.url.replace(/^oci:/, 'http:'));
    const proxy = await startRegistryProxy({ upstream: upstream.origin, bearer: false, tokenSeconds: 60 });
    cleanup.add('stop the registry proxy', () => proxy.stop());

    // The chart pushed and signed straight at the registry (not counted); the controller reaches it through the proxy.
    const path = `bench-verify-${randomSuffix()}`;
    await pushChart({ archive: unicornArchive(be.env, '1.0.0'), url: `oci://${upstream.host}/${path}`, helmBin: be.env.helmBin });
    const ref = await ociReference(`oci://${upstream.host}/${path}/unicorn`, '1.0.0');
    const namespace = await createNamespace(be.kubeConfig, `bench-verify-n${n}`);
    const forgetNs = cleanup.add(`delete namespace ${namespace}`, async () => void (await deleteNamespaceFully(be.kubeConfig, namespace, 900_000)));
    const core = be.kubeConfig.makeApiClient(CoreV1Api);
    if (provider === 'cosign') {
      const pair = await cosignKeyPair();
      await cosignSign(pair, ref);
      await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'chart-keys' }, stringData: { 'cosign.pub': pair.publicKey } } });
    } else if (provider === 'notation') {
      const signer = await notationSigner('Bench', 'chart-signer');
      await notationSign(signer, ref);
      await core.createNamespacedSecret({
        namespace,
        body: { metadata: { name: 'chart-keys' }, stringData: { 'trustpolicy.json': trustPolicy(), 'ca.crt': signer.caPem } },
      });
    }
    say(
      `  unicorn 1.0.0 (${ref.split('@')[1]!.slice(0, 19)}…) ${provider === 'none' ? 'unsigned' : `signed with ${provider}`}, behind the proxy ${proxy.host}`,
    );

    const helm = await createCountingHelm(dir, be.env.helmBin);
    const cosign = await countingTool(dir, 'cosign', toolchainPaths().cosign);
    const notation = await countingTool(dir, 'notation-verify', toolchainPaths().notationVerify);
    const ctl = await spawnController({
      env: be.env,
      entry,
      helmBin: helm.bin,
      namespace,
      prefix: `bench-verify-${randomSuffix()}`,
      concurrency,
      workDir: join(dir, 'work'),
      logFile: join(dir, 'controller.log'),
      extraEnv: { HELMCREW_NAMESPACE: 'default', COSIGN_BIN: cosign.bin, NOTATION_VERIFY_BIN: notation.bin },
    });
    const forgetCtl = cleanup.add(`stop controller ${ctl.pid}`, () => ctl.stop());
    say(`  controller pid ${ctl.pid} up in ${fmtS(ctl.startupMs)}; namespace ${namespace}; log ${ctl.logFile}`);
    const c = { namespace, pid: ctl.pid, helm, logFile: ctl.logFile };
    const spec = (): HelmReleaseSpec => ({
      chart: {
        repository: `oci://${proxy.host}/${path}`,
        name: 'unicorn',
        version: '1.0.0',
        insecure: true,
        ...(provider === 'none' ? {} : { verify: { provider, secretRef: { name: 'chart-keys' } } }),
      },
      interval,
      install: { disableWait: true },
    });
    const tools = async () => ({ cosign: await cosign.runs(), notation: await notation.runs() });

    const all = names(n);
    const install = await helmcrewBurst(be, c, 'install', all.slice(0, 1), spec, 600_000);
    if (install.done !== 1) throw new Error(`the first install did not become ready; see ${ctl.logFile}`);
    await cloneReleaseRecord(be.kubeConfig, namespace, all[0]!, all.slice(1));
    const adoptFrom = proxy.requests.length;
    const toolsBeforeAdopt = await tools();
    const adopt = await helmcrewBurst(be, c, 'adopt', all, spec, 2_400_000);
    const adoptRegistry = tallyVerifyRequests(proxy.requests.slice(adoptFrom));
    const toolsAfterAdopt = await tools();
    say(
      `  ${adopt.done}/${n} releases in sync after ${fmtS(adopt.wallMs)}; registry ${JSON.stringify(adoptRegistry)}; tools ${JSON.stringify(toolsAfterAdopt)}`,
    );
    if (adopt.done !== n) throw new Error(`only ${adopt.done} of ${n} releases became ready; see ${ctl.logFile}`);
    const installRegistry = tallyVerifyRequests(proxy.requests.slice(0, adoptFrom));
    await sleep(5000);

    // At rest.
    const from = proxy.requests.length;
    const toolsBefore = await tools();
    const rest = await helmcrewRest(be, c, restSeconds);
    const toolsAfter = await tools();
    const window = tallyVerifyRequests(proxy.requests.slice(from));
    const passes = sum(Object.values(rest.reconciled));
    const ran = { cosign: toolsAfter.cosign - toolsBefore.cosign, notation: toolsAfter.notation - toolsBefore.notation };
    say(
      `  rest ${restSeconds}s: ${passes} checks ${JSON.stringify(rest.reconciled)}; registry ${JSON.stringify(window)}; tools ${JSON.stringify(ran)}; helm ${JSON.stringify(rest.helm)}; ctl CPU ${rest.ctlCpuS.toFixed(2)} s`,
    );

    await ctl.stop();
    forgetCtl();
    await deleteNamespaceFully(be.kubeConfig, namespace, 900_000);
    forgetNs();

    const intervals = restSeconds / (parseDuration(interval) / 1000);
    const row = (label: string, r: Record<string, number>, t: { cosign: number; notation: number }, helmRuns: number, checks: string, cpu: string) => [
      label,
      r.signature!,
      r.blob!,
      r['manifest-by-digest']!,
      `${r['tag-list']} / ${r['tag-manifest']}`,
      r.other!,
      `${t.cosign} / ${t.notation}`,
      helmRuns,
      checks,
      cpu,
    ];
    const table: Table = {
      title: `${n} releases of one ${provider === 'none' ? 'OCI chart without spec.chart.verify (the baseline)' : `${provider}-signed OCI chart with spec.chart.verify`}, interval ${interval}: the adopt burst, then ${restSeconds} s at rest (${intervals.toFixed(1)} intervals)`,
      columns: [
        'phase',
        'signature fetches (referrers, sha256-… tags)',
        'blobs',
        'manifests by digest',
        'tag lists / tag manifests',
        'other',
        'cosign / notation-verify processes',
        'helm processes',
        'checks done',
        'controller CPU s',
      ],
      rows: [
        row('first install (1 release)', installRegistry, toolsBeforeAdopt, sum(Object.values(install.helm)), '1', '—'),
        row(
          `adopt (${n} releases)`,
          adoptRegistry,
          { cosign: toolsAfterAdopt.cosign - toolsBeforeAdopt.cosign, notation: toolsAfterAdopt.notation - toolsBeforeAdopt.notation },
          sum(Object.values(adopt.helm)),
          `${adopt.done} in ${fmtS(adopt.wallMs)}`,
          (adopt.cpuS.ctl ?? NaN).toFixed(2),
        ),
        row(`at rest (${restSeconds} s)`, window, ran, sum(Object.values(rest.helm)), `${passes} ${JSON.stringify(rest.reconciled)}`, rest.ctlCpuS.toFixed(2)),
      ],
      notes: [
        `Counted by a proxy on 127.0.0.1 in front of the local registry (Debian's docker-registry 2.8: no referrers API, so cosign and notation read the referrers tag schema). cosign and notation-verify are counting wrappers around the toolchain's binaries; helm through the counting helm. Seeded: one real install, its record copied to ${n - 1} names (bench/lib/seed-records.ts).`,
        `Controller compiled by tsc, concurrency ${concurrency}; load average ${loadStart} at the start. Largest API rows at rest: ${rest.requests.top.slice(0, 4).join('; ')}.`,
      ],
    };
    return {
      tables: [table],
      data: {
        releases: n,
        provider,
        interval,
        restSeconds,
        concurrency,
        install: { registry: installRegistry, tools: toolsBeforeAdopt, helm: install.helm },
        adopt: { wallMs: adopt.wallMs, registry: adoptRegistry, tools: toolsAfterAdopt, helm: adopt.helm, ctlCpuS: adopt.cpuS.ctl ?? null },
        rest: {
          registry: window,
          tools: ran,
          helm: rest.helm,
          reconciled: rest.reconciled,
          ctlCpuS: rest.ctlCpuS,
          requests: rest.requests,
          sampled: rest.sampled,
        },
      },
    };
  },
};
