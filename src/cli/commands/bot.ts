import { startBot } from '../../bot/slack/app.js';
import { readBotConfig } from '../../bot/slack/config.js';
import { createLogger } from '../../core/log.js';
import { startTracing } from '../../core/tracing/tracing.js';
import { untilSignal } from './until-signal.js';

/** `helmcrew bot`: the /release Slack bot alone. */
export async function botCommand(): Promise<number> {
  const config = readBotConfig();
  const log = createLogger('bot');
  const tracing = await startTracing('bot', log);
  const bot = await startBot(config, log);
  await untilSignal(log, () => bot.stop().finally(() => tracing.stop()));
  return 0;
}
