import { startBot } from '../../bot/slack/app.js';
import { readBotConfig } from '../../bot/slack/config.js';
import { createLogger } from '../../core/log.js';

export async function botCommand(): Promise<number> {
  const config = readBotConfig();
  const log = createLogger('bot');
  const bot = await startBot(config, log);
  await new Promise<void>((resolve) => {
    const shutdown = (signal: string) => {
      log.info({ signal }, 'stopping the bot');
      bot.stop().finally(resolve);
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
  return 0;
}
