import { readControllerConfig } from '../../controller/config.js';
import { createLogger } from '../../core/log.js';
import { startControllerWithNotify } from '../compose/controller-with-notify.js';
import { startTracing } from '../../core/tracing/tracing.js';
import { untilSignal } from './until-signal.js';

/** `helmcrew controller`: the reconciler alone; replicas share the queue. */
export async function controllerCommand(): Promise<number> {
  const config = readControllerConfig();
  const log = createLogger('controller');
  const tracing = await startTracing('controller', log);
  const controller = await startControllerWithNotify(config, log);
  await untilSignal(log, () => controller.stop().finally(() => tracing.stop()), config.shutdownGraceMs);
  return 0;
}
