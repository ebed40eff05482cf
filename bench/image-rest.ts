// Image watching at rest (issue 35): N in-sync releases, each keeping one of R image repositories
// current (spec.imageUpdates, with a digestPath) behind spec.approval, on the local OCI registry
// (Debian's docker-registry) through a counting proxy on 127.0.0.1 that asks for bearer tokens as
// GHCR or Docker Hub do. One real install, its record copied to the other names (seed-records.ts),
// a compiled controller child; then R seconds at rest, and one change: a new tag pushed to one
// repository. Reported: tag lists, digest requests and token requests per repository per
// interval; helm processes and HelmRelease writes; the controller's CPU and RSS; the proposals the
// new tag opened and how long they took. The point: one tag list per repository per interval
// however many releases watch it, and nothing else moves at rest.
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api } from '@kubernetes/client-node';
import { parseDuration } from '../src/api/duration.js';
import type { HelmReleaseSpec } from '../src/api/helmrelease.js';
import { clusterKey } from '../src/core/fleet/cluster-keys.js';
import { ProposalStore } from '../src/core/proposals/proposal-store.js';
import type { Proposal } from '../src/core/proposals/proposal.js';
import { connectRedis } from '../src/core/redis.js';
import { createNamespace, deleteNamespaceFully, randomSuffix } from '../src/dev/harness/index.js';
import { diffCounts, readApiRequests, summarizeRequests } from './lib/api-metrics.js';
import type { Benchmark } from './lib/benchmark.js';
import { helmcrewBurst, helmcrewRest, names } from './lib/burst-phases.js';
import { buildCompiled, spawnController } from './lib/controller-child.js';
import { countBy, createCountingHelm } from './lib/counting-helm.js';
import { startBenchEnv } from './lib/environment.js';
import { formatEnv, imageControllerEnv } from './lib/image-env.js';
import { loadavgString } from './lib/machine.js';
import { pushImageTag } from './lib/oci-push.js';
import { currentRssKb, peakRssOfLifetimeKb } from './lib/proc-sampler.js';
import { perRepository, tallyRegistryRequests } from './lib/registry-counts.js';
import { startRegistryProxy } from './lib/registry-proxy.js';
import type { Table } from './lib/result.js';
import { say } from './lib/say.js';
import { cloneReleaseRecord } from './lib/seed-records.js';
import { fmtMiB, fmtMs, fmtS } from './lib/stats.js';

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

export const benchmark: Benchmark = {
  usage:
    '[--releases 200] [--repositories 20] [--interval 10s (imageUpdates)] [--release-interval 1m] [--tick-ms 1000] [--rest-seconds 60] [--auth bearer|none] [--token-seconds 60] [--credentials secret|none] [--approvals 2] [--concurrency 4]',
  options: {
    releases: { type: 'string' },
    repositories: { type: 'string' },
    interval: { type: 'string' },
    'release-interval': { type: 'string' },
    'tick-ms': { type: 'string' },
    'rest-seconds': { type: 'string' },
    auth: { type: 'string' },
    'token-seconds': { type: 'string' },
    credentials: { type: 'string' },
    approvals: { type: 'string' },
    concurrency: { type: 'string' },
  },
  maxSeconds: 900,
  async run(args, cleanup) {
    const n = args.int('releases', 200);
    const r = args.int('repositories', 20);
    const interval = args.string('interval', '10s');
    const intervalMs = parseDuration(interval);
    const releaseInterval = args.string('release-interval', '1m');
    parseDuration(releaseInterval);
    const tickMs = args.int('tick-ms', 1000);
    const restSeconds = args.int('rest-seconds', 60);
    const auth = args.string('auth', 'bearer');
    if (auth !== 'bearer' && auth !== 'none') throw new Error(`--auth must be bearer or none, got "${auth}"`);
    const tokenSeconds = args.int('token-seconds', 60);
    if (auth === 'bearer' && tokenSeconds <= 10) throw new Error('--token-seconds must be over 10 (the client renews a token 10 s before it expires)');
    const credentials = args.string('credentials', 'secret');
    if (credentials !== 'secret' && credentials !== 'none') throw new Error(`--credentials must be secret or none, got "${credentials}"`);
    const approvals = args.int('approvals', 2);
    const concurrency = args.int('concurrency', 4);
    if (r > n) throw new Error(`--repositories (${r}) must not exceed --releases (${n})`);
    const loadStart = loadavgString();
    say(
      `image-rest: N=${n} releases on R=${r} repositories, image interval ${interval}, tick ${tickMs} ms, rest ${restSeconds}s, auth ${auth}; load ${loadStart}`,
    );

    const be = await startBenchEnv(cleanup, args.optional('state-dir'));
    const entry = await buildCompiled(join(be.dir, 'build'));
    const dir = await mkdtemp(join(be.dir, `image-rest-n${n}-`));
    const upstream = new URL(be.env.ociRegistry.url.replace(/^oci:/, 'http:'));
    const proxy = await startRegistryProxy({ upstream: upstream.origin, bearer: auth === 'bearer', tokenSeconds });
    cleanup.add('stop the registry proxy', () => proxy.stop());

    // R repositories, each with the same 1.0.0 (one digest): the seeded records' values hold it.
    const base = `bench-img-${randomSuffix()}`;
    const repositories = Array.from({ length: r }, (_, i) => `${base}/app-${String(i + 1).padStart(2, '0')}`);
    let digest = '';
    for (const repository of repositories) digest = await pushImageTag(upstream.host, repository, '1.0.0', 'bench image 1.0.0');
    say(`  ${r} repositories with 1.0.0 (${digest.slice(0, 19)}…) behind the proxy ${proxy.host}`);
    const repositoryOf = (index: number) => repositories[index % r]!;

    const helm = await createCountingHelm(dir, be.env.helmBin);
    const namespace = await createNamespace(be.kubeConfig, `bench-img-n${n}`);
    const forgetNs = cleanup.add(`delete namespace ${namespace}`, async () => void (await deleteNamespaceFully(be.kubeConfig, namespace, 600_000)));
    // As a private registry is watched: one login Secret in the namespace, named by every release (the proxy takes any login).
    if (credentials === 'secret')
      await be.kubeConfig.makeApiClient(CoreV1Api).createNamespacedSecret({
        namespace,
        body: { metadata: { name: 'registry-login' }, stringData: { username: 'bench', password: 'bench-password' } },
      });
    const prefix = `bench-img-${randomSuffix()}`;
    const imageEnv = imageControllerEnv();
    const ctl = await spawnController({
      env: be.env,
      entry,
      helmBin: helm.bin,
      namespace,
      prefix,
      concurrency,
      workDir: join(dir, 'work'),
      logFile: join(dir, 'controller.log'),
      extraEnv: { ...imageEnv, HELMCREW_NAMESPACE: 'default', HELMCREW_PROPOSALS_TICK_MS: String(tickMs) },
    });
    const forgetCtl = cleanup.add(`stop controller ${ctl.pid}`, () => ctl.stop());
    say(`  controller pid ${ctl.pid} up in ${fmtS(ctl.startupMs)}; namespace ${namespace}; log ${ctl.logFile}`);
    await sleep(2000);
    const idleRssKb = currentRssKb(ctl.pid) ?? NaN;
    const redis = connectRedis(be.env.redisUrl);
    cleanup.add('disconnect from Redis', async () => void redis.disconnect());
    const store = new ProposalStore(redis, clusterKey(prefix, 'proposals'));

    const all = names(n);
    const indexOf = new Map(all.map((name, i) => [name, i]));
    // The same values for every release (the copied record holds them); only the watched repository differs.
    const spec = (name: string): HelmReleaseSpec => ({
      chart: { repository: be.env.chartRepoUrl, name: 'unicorn', version: '1.0.0' },
      interval: releaseInterval,
      values: { replicaCount: 0, image: { tag: '1.0.0', digest } },
      imageUpdates: [
        {
          repository: `${proxy.host}/${repositoryOf(indexOf.get(name)!)}`,
          policy: { semver: '1.x' },
          valuesPath: 'image.tag',
          digestPath: 'image.digest',
          interval,
          insecure: true,
          ...(credentials === 'secret' ? { secretRef: { name: 'registry-login' } } : {}),
        },
      ],
      approval: { required: approvals, expireAfter: '1h' },
    });
    const c = { namespace, pid: ctl.pid, helm, logFile: ctl.logFile };
    const install = await helmcrewBurst(be, c, 'install', all.slice(0, 1), spec, 600_000);
    if (install.done !== 1) throw new Error(`the first install did not become ready; see ${ctl.logFile}`);
    await cloneReleaseRecord(be.kubeConfig, namespace, all[0]!, all.slice(1));
    const adopt = await helmcrewBurst(be, c, 'adopt', all, spec, 900_000);
    say(`  ${adopt.done}/${n} releases in sync after ${fmtS(adopt.wallMs)} (helm ${JSON.stringify(adopt.helm)})`);
    if (adopt.done !== n) throw new Error(`only ${adopt.done} of ${n} releases became ready; see ${ctl.logFile}`);
    // Every repository listed and every token fetched once before the window opens.
    await sleep(intervalMs + 2 * tickMs + 2000);

    // At rest.
    const from = proxy.requests.length;
    const proposalsBefore = (await store.list()).length;
    const apiAtRest = readApiRequests(be.env.kubectlBin, be.env.kubeconfig);
    const rest = await helmcrewRest(be, c, restSeconds);
    const secretReads = diffCounts(apiAtRest, readApiRequests(be.env.kubectlBin, be.env.kubeconfig)).get('GET secrets') ?? 0;
    const window = tallyRegistryRequests(proxy.requests.slice(from));
    const proposalsAtRest = (await store.list()).length - proposalsBefore;
    const watched = repositories;
    const lists = perRepository(window.listsByRepository, watched, restSeconds, intervalMs / 1000);
    const digests = perRepository(window.digestsByRepository, watched, restSeconds, intervalMs / 1000);
    const passes = sum(Object.values(rest.reconciled));
    say(
      `  rest ${restSeconds}s: lists ${lists.total} (per repository ${lists.min}–${lists.max}), digests ${digests.total}, tokens ${window.answered.token}, 401 ${window.challenged}; helm ${JSON.stringify(rest.helm)}; HelmRelease writes ${rest.requests.helmReleaseWrites}; ctl CPU ${rest.ctlCpuS.toFixed(2)} s`,
    );

    // One change: a new tag (its own content, a new digest) in the first repository.
    const changed = repositories[0]!;
    const watchers = all.filter((name) => repositoryOf(indexOf.get(name)!) === changed);
    const apiBefore = readApiRequests(be.env.kubectlBin, be.env.kubeconfig);
    const helmBefore = (await helm.invocations()).length;
    const changeFrom = proxy.requests.length;
    const idsBefore = new Set((await store.list()).map((p) => p.id));
    await pushImageTag(upstream.host, changed, '1.1.0', `bench image 1.1.0 ${Date.now()}`);
    const pushedAt = Date.now();
    const openedAt = new Map<string, number>();
    const deadline = pushedAt + 2 * intervalMs + 60_000;
    while (openedAt.size < watchers.length && Date.now() < deadline) {
      for (const p of await store.list())
        if (!idsBefore.has(p.id) && p.state.phase === 'open' && !openedAt.has(p.release.name)) openedAt.set(p.release.name, Date.now() - pushedAt);
      await sleep(100);
    }
    // One more interval: a release that proposes twice, or a repository that did not change, shows here.
    await sleep(intervalMs + 2 * tickMs);
    const proposals: Proposal[] = (await store.list()).filter((p) => !idsBefore.has(p.id));
    const changeSeconds = (Date.now() - pushedAt) / 1000;
    const changeApi = summarizeRequests(diffCounts(apiBefore, readApiRequests(be.env.kubectlBin, be.env.kubeconfig)));
    const changeHelm = countBy((await helm.invocations()).slice(helmBefore));
    const changeRegistry = tallyRegistryRequests(proxy.requests.slice(changeFrom));
    const events = await be.kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: 'reason=ProposalOpened' });
    const openedEvents = sum(events.items.map((e) => e.count ?? 1));
    const times = [...openedAt.values()].sort((a, b) => a - b);
    const watcherSet = new Set(watchers);
    const asExpected = proposals.filter(
      (p) => watcherSet.has(p.release.name) && p.state.phase === 'open' && p.facts.required === approvals && p.values.some((v) => v.to === '1.1.0'),
    );
    say(
      `  change: ${proposals.length} proposals (${asExpected.length} open for 1.1.0 on the ${watchers.length} watching releases), first ${fmtMs(times[0] ?? NaN)}, last ${fmtMs(times.at(-1) ?? NaN)}; helm ${JSON.stringify(changeHelm)}; HelmRelease writes ${changeApi.helmReleaseWrites}`,
    );

    const hwmKb = peakRssOfLifetimeKb(ctl.pid) ?? NaN;
    await ctl.stop();
    forgetCtl();
    await deleteNamespaceFully(be.kubeConfig, namespace, 600_000);
    forgetNs();

    const fixed = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
    const intervals = restSeconds / (intervalMs / 1000);
    const restTable: Table = {
      title: `At rest: ${n} releases watching ${r} image repositories (${Math.floor(n / r)}–${Math.ceil(n / r)} each), ${restSeconds} s = ${fixed(intervals, 1)} intervals of ${interval} (tick ${tickMs} ms)`,
      columns: ['requests to the registry', 'in the window', 'per repository: fewest – most', 'per repository per interval', 'at most one per interval allows'],
      rows: [
        ['tag lists', lists.total, `${lists.min} – ${lists.max}`, fixed(lists.perRepositoryPerInterval), lists.allowedMax],
        ['digests (HEAD manifest)', digests.total, `${digests.min} – ${digests.max}`, fixed(digests.perRepositoryPerInterval), digests.allowedMax],
        ['tokens', window.answered.token, '—', fixed(window.answered.token / (r * intervals)), '—'],
        ['refused 401 (a token expired: asked again)', window.challenged, '—', fixed(window.challenged / (r * intervals)), '—'],
        ['other', window.answered.other, '—', '—', '—'],
      ],
      notes: [
        `Counted by a proxy on 127.0.0.1 in front of the local registry (Debian's docker-registry), ${auth === 'bearer' ? `asking for bearer tokens that live ${tokenSeconds} s (the client renews one 10 s before it expires)` : 'without authentication'}. A repository is listed when its interval has passed at a tick, so the period is the interval rounded up to the tick.`,
        `Each release: spec.imageUpdates with policy semver 1.x, valuesPath image.tag, digestPath image.digest, insecure (loopback)${credentials === 'secret' ? ', secretRef (one login Secret in the namespace)' : ''}; spec.approval.required ${approvals}. Seeded: one real install of unicorn 1.0.0, its record copied to ${n - 1} names (bench/lib/seed-records.ts), the same values for all (tag 1.0.0 and its digest, the same in every repository).`,
      ],
    };
    const controllerTable: Table = {
      title: `At rest: the controller and the cluster over the same ${restSeconds} s`,
      columns: [
        'helm processes',
        'HelmRelease writes (status)',
        'API reads / writes (all clients)',
        'Secret reads (GET secrets)',
        'proposals opened',
        'checks done',
        'controller CPU s (per interval)',
        'controller RSS idle (before releases) / at rest peak / lifetime peak',
        'adopt wall',
      ],
      rows: [
        [
          sum(Object.values(rest.helm)),
          `${rest.requests.helmReleaseWrites} (${rest.requests.helmReleaseStatusWrites})`,
          `${rest.requests.reads} / ${rest.requests.writes}`,
          secretReads,
          proposalsAtRest,
          `${passes} ${JSON.stringify(rest.reconciled)}`,
          `${rest.ctlCpuS.toFixed(2)} (${fixed(rest.ctlCpuS / intervals)})`,
          `${fmtMiB(idleRssKb)} / ${fmtMiB(rest.sampled.peakRssKb)} / ${fmtMiB(hwmKb)}`,
          fmtS(adopt.wallMs),
        ],
      ],
      notes: [
        `Controller compiled by tsc, ${formatEnv(imageEnv)}, concurrency ${concurrency}, HELMCREW_PROPOSALS_TICK_MS=${tickMs}; releases' spec.interval ${releaseInterval}. Largest API rows: ${rest.requests.top.slice(0, 5).join('; ')}.`,
      ],
    };
    const changeTable: Table = {
      title: `One change: tag 1.1.0 (a new digest) pushed to ${changed.split('/').at(-1)}, watched by ${watchers.length} releases`,
      columns: [
        'proposals opened (expected)',
        'open, approvals required, for 1.1.0',
        'ProposalOpened events',
        'push → first open',
        'push → all open',
        'helm processes',
        'HelmRelease writes',
        'tag lists of that repository',
      ],
      rows: [
        [
          `${proposals.length} (${watchers.length})`,
          `${asExpected.length} (${approvals} each)`,
          openedEvents,
          times.length ? fmtMs(times[0]!) : 'none',
          times.length === watchers.length ? fmtMs(times.at(-1)!) : `${times.length} of ${watchers.length} by ${fmtS(deadline - pushedAt)}`,
          sum(Object.values(changeHelm)),
          changeApi.helmReleaseWrites,
          changeRegistry.listsByRepository[changed] ?? 0,
        ],
      ],
      notes: [
        `Timed from the manifest PUT's answer to the proposal's state in Redis (polled every 100 ms), then watched for ${changeSeconds.toFixed(0)} s in all: a second proposal per release, or one on a repository that did not change, would count here. The wait is up to one interval (${interval}) plus a tick.`,
      ],
    };
    return {
      tables: [restTable, controllerTable, changeTable],
      data: {
        releases: n,
        repositories: r,
        interval,
        tickMs,
        restSeconds,
        auth,
        tokenSeconds,
        credentials,
        secretReads,
        approvals,
        rest: {
          registry: window,
          lists,
          digests,
          helm: rest.helm,
          requests: rest.requests,
          reconciled: rest.reconciled,
          ctlCpuS: rest.ctlCpuS,
          sampled: rest.sampled,
        },
        idleRssKb,
        hwmKb,
        adopt: { wallMs: adopt.wallMs, helm: adopt.helm },
        change: {
          repository: changed,
          watchers: watchers.length,
          proposals: proposals.length,
          asExpected: asExpected.length,
          openedEvents,
          openedAfterMs: times,
          helm: changeHelm,
          helmReleaseWrites: changeApi.helmReleaseWrites,
          registry: changeRegistry,
        },
      },
    };
  },
};
