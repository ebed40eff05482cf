import { join } from 'node:path';
import { execa } from 'execa';
import { startDemoSlack } from '../demo/demo-slack.js';
import { signInOnce, startDemoWeb } from '../demo/demo-web.js';
import type { FakeSlack } from '../../dev/fake-slack/index.js';
import { tellChatStory } from '../demo/chat-story.js';
import { tellUnicornStory } from '../demo/unicorn-story.js';
import { devUp } from '../../dev/environment.js';
import { loadKubeConfig } from '../../core/kube/client.js';
import { startControllerWithNotify } from '../compose/controller-with-notify.js';
import { readControllerConfig } from '../../controller/config.js';
import { createLogger, logLevel } from '../../core/log.js';
import { DEV_CONTROLLER_SETTINGS } from '../../dev/dev-settings.js';

const DEMO_NAMESPACE = 'unicorn-demo';

/** `helmcrew demo`: the local environment (with the CRD), a controller, and the unicorn story. */
export async function demoCommand(): Promise<number> {
  const say = (line: string) => console.log(line);
  say('helmcrew demo: a unicorn web page, pink → blue → green → broken → green, then from chat: rollback to blue, resume to green\n');
  const env = await devUp({ log: createLogger('dev', 'warn') });
  // The controller's JSON lines would land in the middle of the story: they go to a file.
  const logFile = join(env.stateDir, 'logs', 'demo-controller.log');
  say(`environment: Kubernetes at ${env.kubeconfig}, Redis ${env.redisUrl}, charts ${env.chartRepoUrl}`);
  const kubeConfig = loadKubeConfig(env.kubeconfig);

  const queuePrefix = `helmcrew-demo-${process.pid}`;
  const controller = await startControllerWithNotify(
    readControllerConfig({
      KUBECONFIG: env.kubeconfig,
      REDIS_URL: env.redisUrl,
      HELM_BIN: env.helmBin,
      KUSTOMIZE_BIN: env.kustomizeBin,
      SOPS_BIN: env.sopsBin,
      COSIGN_BIN: env.cosignBin,
      NOTATION_VERIFY_BIN: env.notationVerifyBin,
      WATCH_NAMESPACES: DEMO_NAMESPACE,
      // Given explicitly, as an operator would: the environment's loopback chart server, and the
      // controller's own rights for the demo's namespace (the safe default would act as its
      // namespace's helmcrew-release ServiceAccount).
      ...DEV_CONTROLLER_SETTINGS,
      HELMCREW_CLUSTER_SCOPE_NAMESPACES: DEMO_NAMESPACE,
      HELMCREW_QUEUE_PREFIX: queuePrefix,
    }),
    createLogger('controller', logLevel(), logFile),
  );
  say(`controller started (its log: ${logFile})`);
  // Slack is one local fake: notify and the /release bot talk to it; what it recorded is shown.
  const slack = await startDemoSlack({
    kubeConfig,
    kubeconfigPath: env.kubeconfig,
    redisUrl: env.redisUrl,
    queuePrefix,
    namespace: DEMO_NAMESPACE,
    log: createLogger('notify', logLevel(), join(env.stateDir, 'logs', 'demo-notify.log')),
  });
  say(
    `notify started: Team unicorn-team hears ${DEMO_NAMESPACE} in #unicorn-releases, Team unicorn-oncall its failures in #oncall (local fake Slack at ${slack.slack.origin})`,
  );
  try {
    await tellUnicornStory({
      kubeConfig,
      chartRepoUrl: env.chartRepoUrl,
      namespace: DEMO_NAMESPACE,
      say,
      afterStep: (_step, index) => slack.sayNewMessages(say, index + 1),
    });
    // notify's operations in the team channel: five story steps, the rollback, then the resume,
    // whose message goes on to show the upgrade it starts. The transcript is read once all have arrived.
    const operationsAfter = { rollback: 6, resume: 7 } as const;
    await tellChatStory({
      kubeConfig,
      queuePrefix,
      kubeconfigPath: env.kubeconfig,
      redisUrl: env.redisUrl,
      namespace: DEMO_NAMESPACE,
      say,
      log: createLogger('bot', logLevel('warn')),
      slack: slack.slack,
      afterAction: (action) => slack.sayNewMessages(say, operationsAfter[action]),
    });
    const table = await execa(env.kubectlBin, ['--kubeconfig', env.kubeconfig, 'get', 'hcr', '-n', DEMO_NAMESPACE], { reject: false });
    say(`\n$ kubectl get hcr -n ${DEMO_NAMESPACE}\n${table.stdout}${table.stderr}`);
    say('\nWhat Slack shows (notify: one message per release operation, edited in place, details in threads; the bot: #incident):');
    slack.sayTranscript(say);
    await showReleasePages({ kubeconfig: env.kubeconfig, redisUrl: env.redisUrl, queuePrefix, slack: slack.slack, say, stateDir: env.stateDir });
    say(`\nThe environment stays up: eval "$(npx helmcrew dev env)" and look around; npx helmcrew dev down stops it.`);
  } finally {
    await slack.stop();
    await controller.stop();
  }
  return 0;
}

/**
 * The release pages, signed in once to show the sign-in works; on a terminal they stay up until
 * Ctrl-C (the fake Slack with them), elsewhere (CI, a pipe) the demo ends after the check.
 */
async function showReleasePages(opts: {
  kubeconfig: string;
  redisUrl: string;
  queuePrefix: string;
  slack: FakeSlack;
  say: (line: string) => void;
  stateDir: string;
}) {
  const { say } = opts;
  const web = await startDemoWeb({ ...opts, log: createLogger('web', logLevel(), join(opts.stateDir, 'logs', 'demo-web.log')) });
  try {
    const signedIn = await signInOnce(web.url, web.user);
    // The fleet page links the release: /releases/-/unicorn-demo/unicorn (mustache writes / as &#x2F;).
    const shows = signedIn.ok && signedIn.fleet.replace(/&#x2F;/g, '/').includes(`/releases/-/${DEMO_NAMESPACE}/unicorn`);
    say(`\nThe release pages: ${web.url}`);
    say(`  sign in: ${web.signInUrl} — Sign in with Slack (the local fake Slack: pick alice, ${web.user}, a member of unicorn-oncall)`);
    say(
      `  checked: ${shows ? `signed in as alice, the fleet page lists ${DEMO_NAMESPACE}/unicorn` : `the sign-in did not work: ${signedIn.ok ? 'the fleet page lacks the release' : signedIn.why}`}`,
    );
    if (process.stdout.isTTY && process.stdin.isTTY) {
      say('  the pages stay up until Ctrl-C');
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    }
  } finally {
    await web.stop();
  }
}
