// The /release bot in front of a fleet (issue 36: acknowledgement p99 and the bot's memory with the
// fleet on): `helmcrew bot` compiled, as the image runs it, in a process of its own with every
// agent's key (HELMCREW_FLEET_KEYS_DIR), its own cluster the fleet's first; signed
// `status … --cluster NAME` commands at a steady rate, round-robin over the clusters. The bot's own
// cluster is answered from its kubeconfig, every other through that cluster's agent (a signed
// question on the shared Redis).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { startFakeSlack } from '../../src/dev/fake-slack/index.js';
import { freePort } from '../../src/dev/free-port.js';
import { createTeam, deleteTeam, randomSuffix } from '../../src/dev/harness/index.js';
import type { Cleanup } from './cleanup.js';
import { spawnPart } from './controller-child.js';
import type { BenchEnv } from './environment.js';
import { currentRssKb, peakRssOfLifetimeKb, startSampler } from './proc-sampler.js';
import { sendSlashCommands, type SlashLoad } from './slash-load.js';

export interface FleetBotRun {
  load: SlashLoad;
  startupMs: number;
  /** RSS after start-up and a 2-s settle, the peak sampled under the commands, and the lifetime peak (VmHWM). */
  rssKb: { idle: number; peakUnderLoad: number; lifetimePeak: number };
}

export async function fleetBotLoad(opts: {
  /** The compiled CLI (dist/cli/main.js). */
  cli: string;
  /** node's own flags for the bot (--cpu-prof …), before the script. */
  nodeArgs?: string[];
  /** The bot's own cluster's bench environment (its kubeconfig, Redis). */
  home: { name: string; be: BenchEnv };
  agents: ReadonlyArray<{ cluster: string; key: string }>;
  prefix: string;
  namespace: string;
  releases: readonly string[];
  rate: number;
  seconds: number;
  /** The image's environment (NODE_OPTIONS, MALLOC_ARENA_MAX…), as the agents get it. */
  imageEnv: Record<string, string>;
  cleanup: Cleanup;
}): Promise<FleetBotRun> {
  const { home, cleanup } = opts;
  const dir = join(home.be.dir, 'fleet-bot');
  const keysDir = join(dir, 'keys');
  await mkdir(keysDir, { recursive: true });
  for (const agent of opts.agents) await writeFile(join(keysDir, agent.cluster), `${agent.key}\n`);
  const kube = makeKubeClients(home.be.kubeConfig);
  const team = `bench-fleet-${randomSuffix()}`;
  // Teams live in the bot's own cluster; a permission without clusters holds in every one.
  await createTeam(kube, team, { members: { slackUsers: ['UBENCH'] }, permissions: [{ namespaces: [opts.namespace], verbs: ['status'] }] });
  cleanup.add(`delete Team ${team}`, () => deleteTeam(kube, team));
  const slack = await startFakeSlack({ tokens: ['xoxb-bench'], users: [{ id: 'UBENCH', name: 'bench' }], channels: [{ id: 'C0BENCH', name: 'bench' }] });
  cleanup.add('stop the fake Slack', () => slack.stop());
  const secret = 'bench-signing-secret';
  const port = await freePort();
  const bot = await spawnPart({
    what: 'bot',
    entry: [...(opts.nodeArgs ?? []), opts.cli, 'bot'],
    logFile: join(dir, 'bot.log'),
    env: {
      ...opts.imageEnv,
      SLACK_BOT_TOKEN: 'xoxb-bench',
      SLACK_SIGNING_SECRET: secret,
      SLACK_API_URL: slack.apiUrl,
      PORT: String(port),
      REDIS_URL: home.be.env.redisUrl,
      KUBECONFIG: home.be.env.kubeconfig,
      HELMCREW_QUEUE_PREFIX: opts.prefix,
      HELMCREW_CLUSTER_NAME: home.name,
      HELMCREW_FLEET_KEYS_DIR: keysDir,
      LOG_LEVEL: 'info',
    },
  });
  const stopBot = cleanup.add(`stop the bot (${bot.pid})`, () => bot.stop());
  try {
    await sleep(2000);
    const idle = currentRssKb(bot.pid) ?? NaN;
    const sampler = startSampler(bot.pid, 250);
    const load = await sendSlashCommands({
      slack,
      url: `http://127.0.0.1:${port}/slack/events`,
      secret,
      user: 'UBENCH',
      channel: 'C0BENCH',
      rate: opts.rate,
      seconds: opts.seconds,
      command: (i) => {
        const cluster = opts.agents[i % opts.agents.length]!.cluster;
        const release = opts.releases[Math.floor(i / opts.agents.length) % opts.releases.length]!;
        return { text: `status ${opts.namespace}/${release} --cluster ${cluster}`, label: cluster === home.name ? 'home' : 'remote' };
      },
    });
    const sampled = sampler.stop();
    return { load, startupMs: bot.startupMs, rssKb: { idle, peakUnderLoad: sampled.peakRssKb, lifetimePeak: peakRssOfLifetimeKb(bot.pid) ?? NaN } };
  } finally {
    stopBot();
    await bot.stop(10_000);
  }
}
