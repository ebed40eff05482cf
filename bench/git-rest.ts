// Git charts at rest: what N in-sync releases on one Git repository cost per interval. One real
// install from a loopback git server (smart HTTP, src/dev/git-server.ts), its release record copied
// to the other N-1 names (lib/seed-records.ts: the chart-digest label with the commit comes along),
// a compiled controller child whose git is a counting wrapper, then R seconds at rest. Reported:
// git processes by subcommand, the git server's ref advertisements, API requests per reconciled
// pass. The point: one `git ls-remote` per repository per interval, not per release.
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createNamespace, deleteNamespaceFully, randomSuffix } from '../src/dev/harness/index.js';
import { startGitHttpServer } from '../src/dev/git-server.js';
import { createChartGitRepo } from '../src/dev/git-repos.js';
import type { Benchmark } from './lib/benchmark.js';
import { buildCompiled, spawnController } from './lib/controller-child.js';
import { countBy, createCountingHelm } from './lib/counting-helm.js';
import { startBenchEnv } from './lib/environment.js';
import { helmcrewBurst, helmcrewRest, names } from './lib/burst-phases.js';
import { currentCommit, formatFacts, loadavgString, machineFacts } from './lib/machine.js';
import { say } from './lib/say.js';
import { cloneReleaseRecord } from './lib/seed-records.js';
import { fmtS } from './lib/stats.js';
import type { HelmReleaseSpec } from '../src/api/helmrelease.js';

/** A git that logs its subcommand (the first argument after the `-c key=value` pairs) and runs the real one. */
async function countingGit(dir: string): Promise<{ bin: string; subcommands: () => Promise<string[]> }> {
  const bin = join(dir, 'git');
  const log = join(dir, 'git-invocations.log');
  await writeFile(log, '');
  await writeFile(
    bin,
    `#!/usr/bin/env bash
args=("$@"); i=0
while [[ "\${args[$i]:-}" == -c ]]; do i=$((i+2)); done
printf '%s\\n' "\${args[$i]:-?}" >> ${JSON.stringify(log)}
exec /usr/bin/git "$@"
`,
  );
  await chmod(bin, 0o755);
  return { bin, subcommands: async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean) };
}

export const benchmark: Benchmark = {
  usage: '[--releases 100] [--interval 10s] [--rest-seconds 60] [--concurrency 4]',
  options: { releases: { type: 'string' }, interval: { type: 'string' }, 'rest-seconds': { type: 'string' }, concurrency: { type: 'string' } },
  maxSeconds: 1800,
  async run(args, cleanup) {
    const n = args.int('releases', 100);
    const interval = args.string('interval', '10s');
    const restSeconds = args.int('rest-seconds', 60);
    const loadBefore = loadavgString();
    say(`git-rest: N=${n}, interval ${interval}, rest ${restSeconds}s; load ${loadBefore}`);
    const be = await startBenchEnv(cleanup, args.optional('state-dir'));
    const entry = await buildCompiled(join(be.dir, 'build'));
    const dir = await mkdtemp(join(be.dir, `git-rest-n${n}-`));
    const repos = await mkdtemp(join(dir, 'repos-'));
    await createChartGitRepo(repos, 'charts');
    const server = await startGitHttpServer(repos);
    cleanup.add('stop the git server', () => server.stop());
    const git = await countingGit(dir);
    const helm = await createCountingHelm(dir, be.env.helmBin);
    const namespace = await createNamespace(be.kubeConfig, `bench-git-n${n}`);
    const forgetNs = cleanup.add(`delete namespace ${namespace}`, async () => void (await deleteNamespaceFully(be.kubeConfig, namespace, 600_000)));
    const ctl = await spawnController({
      env: be.env,
      entry,
      helmBin: helm.bin,
      namespace,
      prefix: `bench-git-${randomSuffix()}`,
      concurrency: args.int('concurrency', 4),
      workDir: join(dir, 'work'),
      logFile: join(dir, 'controller.log'),
      extraEnv: { HELMCREW_NAMESPACE: 'default', HELMCREW_GIT_BIN: git.bin },
    });
    const forgetCtl = cleanup.add(`stop controller ${ctl.pid}`, () => ctl.stop());
    const c = { namespace, pid: ctl.pid, helm, logFile: ctl.logFile };
    const spec = (): HelmReleaseSpec => ({
      chart: { name: 'unicorn', git: { url: `${server.url}/charts.git`, ref: { branch: 'main' }, path: 'charts/unicorn' } },
      interval,
      install: { disableWait: true },
    });
    const all = names(n);
    await helmcrewBurst(be, c, 'install', all.slice(0, 1), spec, 600_000);
    await cloneReleaseRecord(be.kubeConfig, namespace, all[0]!, all.slice(1));
    const adopt = await helmcrewBurst(be, c, 'adopt', all, spec, 1_200_000);
    say(`  ${n} releases in sync after ${fmtS(adopt.wallMs)} (${adopt.done} done, helm ${JSON.stringify(adopt.helm)})`);
    await sleep(5000);

    const gitBefore = (await git.subcommands()).length;
    const refsBefore = server.requests.refs;
    const rest = await helmcrewRest(be, c, restSeconds);
    const gitRest = countBy((await git.subcommands()).slice(gitBefore));
    const refs = server.requests.refs - refsBefore;
    const passes = Object.values(rest.reconciled).reduce((a, b) => a + b, 0);
    say(`  rest: git ${JSON.stringify(gitRest)}, ref advertisements ${refs}, passes ${passes}, reads ${rest.requests.reads}`);

    await ctl.stop();
    forgetCtl();
    await deleteNamespaceFully(be.kubeConfig, namespace, 600_000);
    forgetNs();
    const intervals = restSeconds / (parseFloat(interval) || 1);
    const per = (x: number, d: number) => (d > 0 ? (x / d).toFixed(3) : 'n/a');
    const lines = [
      `## git-rest: ${n} in-sync releases on one Git repository, ${restSeconds} s at rest (interval ${interval})`,
      '',
      '```',
      `${formatFacts({ ...machineFacts(be.env.helmBin), loadavg: loadBefore })}`,
      `code:        ${currentCommit()}`,
      `command:     npm run bench -- git-rest ${args.raw.join(' ')}`.trimEnd(),
      '```',
      '',
      '| reconciled passes | git processes (by subcommand) | ls-remote per interval | ref advertisements served | API reads (per pass) | API writes | helm | controller CPU s | largest rows (verb resource count) |',
      '|---|---|---|---|---|---|---|---|---|',
      `| ${passes} | ${JSON.stringify(gitRest)} | ${per(gitRest['ls-remote'] ?? 0, intervals)} | ${refs} | ${rest.requests.reads} (${per(rest.requests.reads, passes)}) | ${rest.requests.writes} | ${JSON.stringify(rest.helm)} | ${rest.ctlCpuS.toFixed(2)} | ${rest.requests.top.join('; ')} |`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  },
};
