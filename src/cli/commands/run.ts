import { startBot, type RunningBot } from '../../bot/slack/app.js';
import { readBotConfig } from '../../bot/slack/config.js';
import { readControllerConfig } from '../../config.js';
import { startController } from '../../controller/controller.js';
import { createLogger } from '../../log.js';

/** `helmcrew run`: the controller, plus the `/release` bot when Slack is configured (SLACK_BOT_TOKEN). */
export async function runCommand(): Promise<number> {
  const config = readControllerConfig();
  // Read the bot's configuration before starting anything, so a bad value stops start-up at once.
  const botConfig = process.env.SLACK_BOT_TOKEN ? readBotConfig() : undefined;
  const log = createLogger('controller');
  const controller = await startController(config, log);
  let bot: RunningBot | undefined;
  try {
    if (botConfig) bot = await startBot(botConfig, createLogger('bot'));
  } catch (error) {
    await controller.stop();
    throw error;
  }
  await new Promise<void>((resolve) => {
    const shutdown = (signal: string) => {
      log.info({ signal }, 'stopping: letting in-flight reconciles finish');
      Promise.allSettled([controller.stop(), bot?.stop()]).finally(() => resolve());
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
  return 0;
}
