// Acknowledgement latency of the /release bot: signed slash commands POSTed to Bolt's HTTP
// receiver at a steady rate (default 20 per second), the time until Bolt's HTTP response (the
// ack Slack waits at most 3 s for), and the time until the full answer reaches response_url.
// Real Bolt, real Redis (plans), real API server (releases, Teams); the local fake Slack.
// Two commands of three are `status` (reads the API server after the ack), one of three is
// `resume` (plan → stored in Redis → ephemeral plan with a Confirm button).
import { startBot } from '../src/bot/slack/app.js';
import { readBotConfig } from '../src/bot/slack/config.js';
import { makeKubeClients } from '../src/core/kube/client.js';
import { freePort } from '../src/dev/free-port.js';
import { startFakeSlack } from '../src/dev/fake-slack/index.js';
import { applyHelmRelease, createNamespace, createTeam, deleteTeam, helmReleaseObject, randomSuffix } from '../src/dev/harness/index.js';
import type { Benchmark } from './lib/benchmark.js';
import { startBenchEnv } from './lib/environment.js';
import { formatFacts, loadavgString, machineFacts } from './lib/machine.js';
import { log, say } from './lib/say.js';
import { sendSlashCommands, slashLoadRows } from './lib/slash-load.js';
import { pct } from './lib/stats.js';

const fmt = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `n=${sorted.length} p50 ${pct(sorted, 0.5).toFixed(1)} ms, p90 ${pct(sorted, 0.9).toFixed(1)} ms, p99 ${pct(sorted, 0.99).toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms`;
};

export const benchmark: Benchmark = {
  usage: '[--rate 20] [--seconds 30]',
  options: { rate: { type: 'string' }, seconds: { type: 'string' } },
  maxSeconds: 300,
  async run(args, cleanup) {
    const rate = args.int('rate', 20);
    const seconds = args.int('seconds', 30);
    const loadBefore = loadavgString();
    const { env, kubeConfig } = await startBenchEnv(cleanup, args.optional('state-dir'));
    say(formatFacts({ ...machineFacts(env.helmBin), loadavg: loadBefore }));
    const kube = makeKubeClients(kubeConfig);
    const namespace = await createNamespace(kubeConfig, 'bench-ack');
    await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, suspend: true }),
    );
    const team = `bench-${randomSuffix()}`;
    await createTeam(kube, team, { members: { slackUsers: ['UBENCH'] }, permissions: [{ namespaces: [namespace], verbs: ['status', 'resume'] }] });
    cleanup.add(`delete Team ${team}`, () => deleteTeam(kube, team));

    const slack = await startFakeSlack({ tokens: ['xoxb-bench'], users: [{ id: 'UBENCH', name: 'bench' }], channels: [{ id: 'C0BENCH', name: 'bench' }] });
    cleanup.add('stop the fake Slack', () => slack.stop());
    const secret = 'bench-signing-secret';
    const config = readBotConfig({
      SLACK_BOT_TOKEN: 'xoxb-bench',
      SLACK_SIGNING_SECRET: secret,
      SLACK_API_URL: slack.apiUrl,
      PORT: String(await freePort()),
      REDIS_URL: env.redisUrl,
      KUBECONFIG: env.kubeconfig,
      HELMCREW_QUEUE_PREFIX: `bench-ack-${randomSuffix()}`,
    });
    const bot = await startBot(config, log);
    cleanup.add('stop the bot', () => bot.stop());
    const url = `http://127.0.0.1:${bot.port}/slack/events`;

    say(`sending ${rate * seconds} signed slash commands at ${rate}/s to ${url}`);
    // Two of three `status`, one of three `resume`.
    const load = await sendSlashCommands({
      slack,
      url,
      secret,
      user: 'UBENCH',
      channel: 'C0BENCH',
      rate,
      seconds,
      command: (i) => {
        const verb = i % 3 === 2 ? 'resume' : 'status';
        return { text: `${verb} ${namespace}/unicorn`, label: verb };
      },
    });
    const { total, sendSeconds, acksMs: acks, failures } = load;
    say(`sent ${total} in ${sendSeconds.toFixed(1)} s (${(total / sendSeconds).toFixed(1)}/s); load average ${loadavgString()}`);
    say(
      `ack (HTTP response): ${fmt(acks)}; over 3 s: ${acks.filter((ms) => ms > 3000).length}; failed: ${failures.length}${failures.length ? ` (${[...new Set(failures)].join(', ')})` : ''}`,
    );
    say(`full answer on response_url: ${fmt(load.answeredMs())}; missing: ${total - load.answeredMs().length}`);
    return {
      tables: [
        {
          title: `/release acknowledgements: ${total} signed slash commands at ${rate}/s (two of three \`status\`, one of three \`resume\`)`,
          columns: ['', 'n', 'p50', 'p90', 'p99', 'max', 'over 3 s / failed / missing'],
          rows: slashLoadRows(load, [
            { label: 'status', title: 'full answer on response_url, `status`' },
            { label: 'resume', title: 'full answer on response_url, `resume`' },
          ]),
          notes: [
            `Sent in ${sendSeconds.toFixed(1)} s (${(total / sendSeconds).toFixed(1)}/s). Slack waits at most 3 s for the ack.`,
            "`resume` answers after a controller's dry-run preview; no controller runs here, so its full answer includes the preview time-out (HELMCREW_PREVIEW_TIMEOUT_SECONDS, 20 s).",
          ],
        },
      ],
      data: {
        rate,
        seconds,
        total,
        sendSeconds,
        failures,
        acksMs: acks,
        statusAnswersMs: load.answeredMs('status'),
        resumeAnswersMs: load.answeredMs('resume'),
      },
    };
  },
};
