import { createInterface } from 'node:readline/promises';
import { kubeActorId } from '../../bot/execute/kube-identity.js';
import { QueuedPreviews } from '../../bot/execute/preview-client.js';
import { releaseOperations } from '../../bot/execute/wiring.js';
import { renderPlan } from '../../bot/render/text.js';
import { readSessionConfig } from '../../bot/session/config.js';
import type { SessionEnd, SessionPorts } from '../../bot/session/ports.js';
import { ReleaseSession } from '../../bot/session/release-session.js';
import { apiErrorMessage, apiStatusCode } from '../../core/kube/errors.js';
import { loadKubeConfig } from '../../core/kube/client.js';
import { createLogger, logLevel } from '../../core/log.js';
import { connectRedis } from '../../core/redis.js';
import { RequesterLedger } from '../../core/requests/requester-ledger.js';

const OPTIONS = new Set(['--yes', '-y', '--no-wait']);
const EXIT: Record<SessionEnd, number> = { done: 0, 'bad-input': 2, 'not-done': 1 };

/**
 * `helmcrew release …`: the `/release` session from a terminal, acting as the kubeconfig user
 * (so Kubernetes RBAC decides what it may do): the same flow and configuration as Slack, with
 * the terminal's ports — stdout and stderr, a y/N prompt, no second person for --break-glass.
 */
export async function releaseCommand(args: string[]): Promise<number> {
  const yes = args.includes('--yes') || args.includes('-y');
  // The shell already split the words; quote those with spaces so the grammar sees them whole.
  const line = args
    .filter((a) => !OPTIONS.has(a))
    .map((a) => (/\s/.test(a) && !a.includes('"') ? `"${a}"` : a))
    .join(' ');
  // A typo is answered before anything is read: no kubeconfig or Redis is needed to be told of it.
  const inputError = ReleaseSession.inputError(line);
  if (inputError) {
    console.error(`helmcrew release: ${inputError}`);
    return EXIT['bad-input'];
  }
  const config = readSessionConfig();
  const kubeConfig = loadKubeConfig(config.kubeconfig);
  let actor: Promise<{ id: string; name: string }> | undefined;
  // With REDIS_URL the controller answers what a change would do; without it plans show the rest.
  const previewConnection = config.redisUrl ? connectRedis(config.redisUrl) : undefined;
  const previews = previewConnection ? new QueuedPreviews(previewConnection, config.keyPrefix, config.previewTimeoutMs) : undefined;
  const parts = releaseOperations(kubeConfig, createLogger('release', logLevel('warn')), 'helmcrew-cli', {
    previews,
    // Who asked, for the controller's reports: the API server's answer about this kubeconfig's user.
    ...(previewConnection ? { requesters: new RequesterLedger(previewConnection, config.keyPrefix) } : {}),
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
        if (yes || (await ask('Go ahead? [y/N] '))) return 'yes';
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
    awaitOutcome: !args.includes('--no-wait'),
  };
  try {
    return EXIT[await session.run(line, ports)];
  } catch (error) {
    if (apiStatusCode(error) === undefined) throw error;
    console.error(`helmcrew release: the API server refused: ${apiErrorMessage(error)}`);
    return 1;
  } finally {
    await previews?.close();
    previewConnection?.disconnect();
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
