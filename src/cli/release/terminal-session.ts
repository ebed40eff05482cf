import { createInterface } from 'node:readline/promises';
import { kubeActorId } from '../../session/execute/kube-identity.js';
import { releaseOperations } from '../../session/execute/wiring.js';
import { renderPlan } from '../../session/render/text.js';
import type { SessionConfig } from '../../session/flow/config.js';
import type { SessionEnd, SessionPorts } from '../../session/flow/ports.js';
import { ReleaseSession } from '../../session/flow/release-session.js';
import { apiErrorMessage, apiStatusCode } from '../../core/kube/errors.js';
import { loadKubeConfig, makeKubeClients } from '../../core/kube/client.js';
import { createLogger, logLevel } from '../../core/log.js';

const EXIT: Record<SessionEnd, number> = { done: 0, 'bad-input': 2, 'not-done': 1 };

/**
 * The terminal's ports on the one `/release` session (session/flow): stdout and stderr, a y/N
 * prompt, no second person for --break-glass; the kubeconfig user acts, so Kubernetes RBAC decides
 * what it may do. `line` is the command as the grammar reads it (commands/release.ts checked it).
 */
export async function runTerminalSession(line: string, config: SessionConfig, options: { yes: boolean; wait: boolean }): Promise<number> {
  const kubeConfig = loadKubeConfig(config.kubeconfig);
  let actor: Promise<{ id: string; name: string }> | undefined;
  // With REDIS_URL the controller answers what a change would do; without it plans show the rest.
  // Redis and BullMQ are loaded only then.
  const redis = config.redisUrl ? await previewParts(config.redisUrl, config) : undefined;
  const parts = releaseOperations(makeKubeClients(kubeConfig), createLogger('release', logLevel('warn')), 'helmcrew-cli', {
    previews: redis?.previews,
    // Who asked, for the controller's reports: the API server's answer about this kubeconfig's user.
    ...(redis ? { requesters: redis.requesters } : {}),
    timeZone: config.timeZone,
  });
  const session = new ReleaseSession({ ...parts, outcomeTimeoutMs: config.outcomeTimeoutMs });
  const ports: SessionPorts = {
    actor: () => (actor ??= kubeActorId(kubeConfig).then((id) => ({ id, name: id.replace(/^kube:/, '') }))),
    reply: {
      say: async (text, kind) => (kind === 'info' ? console.log(text) : console.error(`helmcrew release: ${text}`)),
      answer: async (_, output) => console.log(output),
      plan: async (plan) => console.log(renderPlan(plan)),
    },
    // Kubernetes RBAC decides, at the API server.
    gate: { query: async () => undefined, action: async () => ({ allowed: true, teams: [], requireApproval: false }) },
    confirm: {
      ask: async (action) => {
        console.log(renderPlan(action.plan));
        if (options.yes || (await ask('Go ahead? [y/N] '))) return 'yes';
        console.error('cancelled; nothing changed');
        return 'no';
      },
    },
    progress: () => ({
      started: async (action) => action,
      failed: async () => undefined,
      applied: async (summary) => console.log(summary),
      finished: async (outcomes) => outcomes.forEach((outcome) => console.log(outcome.message)),
    }),
    whoami: async () => console.log(`${(await ports.actor()).id} (context ${kubeConfig.getCurrentContext()}); Kubernetes RBAC decides what you may do`),
    notifyMe: async () => console.log("direct messages are Slack's (/release notify on|off); the terminal shows the outcome as it waits"),
    secondPerson: false,
    awaitOutcome: options.wait,
  };
  try {
    return EXIT[await session.run(line, ports)];
  } catch (error) {
    if (apiStatusCode(error) === undefined) throw error;
    console.error(`helmcrew release: the API server refused: ${apiErrorMessage(error)}`);
    return 1;
  } finally {
    await redis?.close();
  }
}

async function ask(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: false });
  try {
    const answer = await rl.question(question);
    return /^y(es)?$/i.test(answer.trim());
  } catch {
    return false;
  } finally {
    rl.close();
  }
}

/** With REDIS_URL: previews asked of the controller over the queue, and the ledger of who asked. */
async function previewParts(url: string, config: SessionConfig) {
  const [{ connectRedis }, { QueuedPreviews }, { RequesterLedger }] = await Promise.all([
    import('../../core/redis.js'),
    import('../../session/execute/preview-client.js'),
    import('../../core/requests/requester-ledger.js'),
  ]);
  const connection = connectRedis(url);
  const previews = new QueuedPreviews(connection, config.keyPrefix, config.previewTimeoutMs);
  return {
    previews,
    requesters: new RequesterLedger(connection, config.keyPrefix),
    close: async () => {
      await previews.close();
      connection.disconnect();
    },
  };
}
