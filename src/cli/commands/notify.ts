import { readNotifyConfig } from '../../notify/config.js';
import { createLogger } from '../../core/log.js';
import { startNotify } from '../../notify/notify.js';
import { untilSignal } from './until-signal.js';

/** `helmcrew notify`: routes and delivers notifications; replicas share the queue. */
export async function notifyCommand(): Promise<number> {
  const config = readNotifyConfig();
  const log = createLogger('notify');
  const notify = await startNotify(config, log);
  await untilSignal(log, () => notify.stop());
  return 0;
}
