import { readControllerConfig } from '../../controller/config.js';
import { startControllerWithNotify } from '../compose/controller-with-notify.js';
import { createLogger } from '../../core/log.js';

export async function controllerCommand(): Promise<number> {
  const config = readControllerConfig();
  const log = createLogger('controller');
  const controller = await startControllerWithNotify(config, log);
  await new Promise<void>((resolve) => {
    const shutdown = (signal: string) => {
      log.info({ signal }, 'stopping: letting in-flight reconciles finish');
      controller.stop().finally(resolve);
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
  return 0;
}
