import type { ControllerConfig } from '../../controller/config.js';
import { startController, type RunningController } from '../../controller/controller.js';
import { createLogger, type Logger } from '../../core/log.js';
import type { Registry } from '../../core/metrics/registry.js';
import { NotifyPublisher } from '../../notify/publish/publisher.js';

/**
 * The one place the controller meets notify: every happening the controller records also goes to
 * notify's durable queue, on the controller's own Redis connection.
 */
export function startControllerWithNotify(config: ControllerConfig, log: Logger = createLogger('controller'), registry?: Registry): Promise<RunningController> {
  return startController(config, {
    log,
    registry,
    notifications: (connection, prefix, sinkLog) => new NotifyPublisher({ connection, prefix, log: sinkLog }),
  });
}
