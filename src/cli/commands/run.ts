import type { RunningBot } from '../../bot/slack/app.js';
import { BOT_ENV, readBotConfig } from '../../bot/slack/config.js';
import { SHARED_ENV } from '../../core/config/env.js';
import { readControllerConfig } from '../../controller/config.js';
import { readNotifyConfig } from '../../notify/config.js';
import { startControllerWithNotify } from '../compose/controller-with-notify.js';
import { createLogger } from '../../core/log.js';
import { startNotify } from '../../notify/notify.js';
import { startTracing } from '../../core/tracing/tracing.js';
import { untilSignal } from './until-signal.js';
import { newMetricsRegistry } from '../../core/metrics/registry.js';
import { readWebConfig, WEB_ENV } from '../../web/server/config.js';

/**
 * The bot runs in `helmcrew run` when Slack can reach it: a bot token plus Socket Mode's app token
 * or HTTP mode's signing secret. A bot token alone means Slack notifications only.
 */
export function botWanted(env: Record<string, string | undefined>): boolean {
  const bot = BOT_ENV.in(env);
  return !!SHARED_ENV.in(env).raw('SLACK_BOT_TOKEN') && !!(bot.raw('SLACK_APP_TOKEN') || bot.raw('SLACK_SIGNING_SECRET'));
}

/**
 * `helmcrew run`: the controller and notify in one process, the default in-cluster install, and
 * the `/release` bot when Slack is configured for it (see botWanted).
 */
export async function runCommand(): Promise<number> {
  const controllerConfig = readControllerConfig();
  const notifyConfig = readNotifyConfig();
  // Read every configuration before starting anything, so a bad value stops start-up at once.
  const botConfig = botWanted(process.env) ? readBotConfig() : undefined;
  // The web pages when HELMCREW_WEB_LISTEN is set; their settings are checked before anything starts.
  const webConfig = WEB_ENV.in(process.env).raw('HELMCREW_WEB_LISTEN') ? readWebConfig() : undefined;
  // One registry for the process: the controller's health server serves every part's metrics and readiness.
  const registry = newMetricsRegistry();
  // One tracer for the process: every part's spans under service.name `helmcrew` (OTEL_SERVICE_NAME).
  const tracing = await startTracing('run', createLogger('run'));
  const controller = await startControllerWithNotify(controllerConfig, createLogger('controller'), registry);
  const notify = await startNotify(notifyConfig, createLogger('notify'), { registry });
  for (const check of notify.readiness) controller.health?.addCheck(check);
  let bot: RunningBot | undefined;
  let web: { stop(): Promise<void> } | undefined;
  try {
    // Loaded only when wanted: the bot brings Bolt and @kubernetes/client-node (~85 MiB of RSS).
    if (botConfig) bot = await (await import('../../bot/slack/app.js')).startBot(botConfig, createLogger('bot'), { registry });
    for (const check of bot?.readiness ?? []) controller.health?.addCheck(check);
    if (webConfig) web = await (await import('./web.js')).startWeb(webConfig, createLogger('web'), undefined, process.env, registry);
  } catch (error) {
    await Promise.all([controller.stop(), notify.stop(), bot?.stop()]);
    await tracing.stop();
    throw error;
  }
  await untilSignal(
    createLogger('run'),
    async () => {
      await Promise.all([controller.stop(), notify.stop(), bot?.stop(), web?.stop()]);
      await tracing.stop();
    },
    controllerConfig.shutdownGraceMs,
  );
  return 0;
}
