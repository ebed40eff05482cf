import { readControllerConfig } from '../../controller/config.js';
import { createLogger } from '../../core/log.js';
import { startControllerWithNotify } from '../compose/controller-with-notify.js';
import { untilSignal } from './until-signal.js';

/** `helmcrew controller`: the reconciler alone; replicas share the queue. */
export async function controllerCommand(): Promise<number> {
  const config = readControllerConfig();
  const log = createLogger('controller');
  const controller = await startControllerWithNotify(config, log);
  await untilSignal(log, () => controller.stop(), config.shutdownGraceMs);
  return 0;
}
