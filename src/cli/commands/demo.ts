import { join } from 'node:path';
import { execa } from 'execa';
import { tellChatStory } from '../../demo/chat-story.js';
import { tellUnicornStory } from '../../demo/unicorn-story.js';
import { devUp } from '../../dev/environment.js';
import { loadKubeConfig } from '../../controller/kube/client.js';
import { startController } from '../../controller/controller.js';
import { readControllerConfig } from '../../config.js';
import { createLogger } from '../../log.js';

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

  const controller = await startController(
    readControllerConfig({
      KUBECONFIG: env.kubeconfig,
      REDIS_URL: env.redisUrl,
      HELM_BIN: env.helmBin,
      WATCH_NAMESPACES: DEMO_NAMESPACE,
      HELMCREW_QUEUE_PREFIX: `helmcrew-demo-${process.pid}`,
    }),
    createLogger('controller', process.env.LOG_LEVEL ?? 'info', logFile),
  );
  say(`controller started (its log: ${logFile})`);
  try {
    await tellUnicornStory({ kubeConfig, chartRepoUrl: env.chartRepoUrl, namespace: DEMO_NAMESPACE, say });
    await tellChatStory({ kubeConfig, kubeconfigPath: env.kubeconfig, redisUrl: env.redisUrl, namespace: DEMO_NAMESPACE, say, log: createLogger('bot', process.env.LOG_LEVEL ?? 'warn') });
    const table = await execa(env.kubectlBin, ['--kubeconfig', env.kubeconfig, 'get', 'helmreleases', '-n', DEMO_NAMESPACE], { reject: false });
    say(`\n$ kubectl get helmreleases -n ${DEMO_NAMESPACE}\n${table.stdout}${table.stderr}`);
    say(`\nThe environment stays up: eval "$(npx helmcrew dev env)" and look around; npx helmcrew dev down stops it.`);
  } finally {
    await controller.stop();
  }
  return 0;
}
