import { readControllerConfig, readNotifyConfig } from '../../config.js';
import { startController } from '../../controller/controller.js';
import { createLogger } from '../../log.js';
import { startNotify } from '../../notify/notify.js';
import { untilSignal } from './until-signal.js';

/** `helmcrew run`: the controller and notify in one process, the default in-cluster install. */
export async function runCommand(): Promise<number> {
  const controllerConfig = readControllerConfig();
  const notifyConfig = readNotifyConfig();
  const controller = await startController(controllerConfig, createLogger('controller'));
  const notify = await startNotify(notifyConfig, createLogger('notify'));
  await untilSignal(createLogger('run'), async () => {
    await Promise.all([controller.stop(), notify.stop()]);
  });
  return 0;
}
