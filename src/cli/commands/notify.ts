import { readNotifyConfig } from '../../notify/config.js';
import { createLogger } from '../../core/log.js';
import { startNotify } from '../../notify/notify.js';
import { startTracing } from '../../core/tracing/tracing.js';
import { untilSignal } from './until-signal.js';

/** `helmcrew notify`: routes and delivers notifications; replicas share the queue. */
export async function notifyCommand(): Promise<number> {
  const config = readNotifyConfig();
  const log = createLogger('notify');
  const tracing = await startTracing('notify', log);
  const notify = await startNotify(config, log);
  await untilSignal(log, () => notify.stop().finally(() => tracing.stop()));
  return 0;
}
