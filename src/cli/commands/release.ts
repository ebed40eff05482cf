import { createInterface } from 'node:readline/promises';
import { awaitOutcomes } from '../../bot/execute/await-outcome.js';
import { kubeActorId } from '../../bot/execute/kube-identity.js';
import { isQuery, runQuery } from '../../bot/execute/queries.js';
import { releaseOperations } from '../../bot/execute/wiring.js';
import { QueuedPreviews } from '../../bot/execute/preview-client.js';
import { connectRedis } from '../../core/redis.js';
import { isMutating } from '../../bot/grammar/command.js';
import { parseReleaseCommand } from '../../bot/grammar/parse.js';
import { renderPlan } from '../../bot/render/text.js';
import { apiErrorMessage, apiStatusCode } from '../../core/kube/errors.js';
import { loadKubeConfig } from '../../core/kube/client.js';
import { createLogger, logLevel } from '../../core/log.js';
import { SHARED_ENV } from '../../core/config/env.js';

const OPTIONS = new Set(['--yes', '-y', '--no-wait']);

/**
 * `helmcrew release …`: the `/release` grammar from a terminal, acting as the kubeconfig user
 * (so Kubernetes RBAC decides what it may do), through the same execution code as Slack.
 */
export async function releaseCommand(args: string[]): Promise<number> {
  const yes = args.includes('--yes') || args.includes('-y');
  const wait = !args.includes('--no-wait');
  // The shell already split the words; quote those with spaces so the grammar sees them whole.
  const line = args
    .filter((a) => !OPTIONS.has(a))
    .map((a) => (/\s/.test(a) && !a.includes('"') ? `"${a}"` : a))
    .join(' ');
  const parsed = parseReleaseCommand(line);
  if (!parsed.ok) {
    console.error(`helmcrew release: ${parsed.error.message}`);
    return 2;
  }
  const command = parsed.command;
  const kubeConfig = loadKubeConfig();
  const actor = { id: await kubeActorId(kubeConfig) };
  // With REDIS_URL the controller answers what a change would do; without it plans show the rest.
  const shared = SHARED_ENV.in(process.env);
  const redisUrl = shared.raw('REDIS_URL');
  const previewConnection = redisUrl ? connectRedis(redisUrl) : undefined;
  const previews = previewConnection ? new QueuedPreviews(previewConnection, shared.text('HELMCREW_QUEUE_PREFIX'), 20_000) : undefined;
  const { api, freezes, storage, ops } = releaseOperations(kubeConfig, createLogger('release', logLevel('warn')), 'helmcrew-cli', { previews });
  try {
    if (command.verb === 'whoami') {
      console.log(`${actor.id} (context ${kubeConfig.getCurrentContext()}); Kubernetes RBAC decides what you may do`);
      return 0;
    }
    if (isQuery(command)) {
      console.log(await runQuery(command, { api, storage, freezes, previews }));
      return 0;
    }
    if (!isMutating(command)) return 2;
    if ((command.verb === 'upgrade' || command.verb === 'rollback') && command.breakGlass) {
      // The two-person rule needs a second person to approve: only Slack has one.
      console.error('helmcrew release: --break-glass needs a second person to approve; ask for it with /release in Slack');
      return 2;
    }
    const prepared = await ops.prepare(command, actor);
    if (!prepared.ok) {
      console.error(`helmcrew release: ${prepared.message}`);
      return 1;
    }
    const action = await ops.withPreview(prepared.action);
    console.log(renderPlan(action.plan));
    if (!action.plan.doable) return 1;
    if (!yes && !(await confirm('Go ahead? [y/N] '))) {
      console.error('cancelled; nothing changed');
      return 1;
    }
    const applied = await ops.apply(action, actor);
    console.log(applied.summary);
    if (!wait) return 0;
    const outcomes = await awaitOutcomes(api, action, applied.requestId, 180_000);
    for (const outcome of outcomes) console.log(outcome.message);
    return outcomes.every((o) => o.done && o.succeeded) ? 0 : 1;
  } catch (error) {
    if (apiStatusCode(error) === undefined) throw error;
    console.error(`helmcrew release: the API server refused: ${apiErrorMessage(error)}`);
    return 1;
  } finally {
    await previews?.close();
    previewConnection?.disconnect();
  }
}

async function confirm(question: string): Promise<boolean> {
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
