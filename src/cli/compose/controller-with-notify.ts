import type { ControllerConfig } from '../../controller/config.js';
import { startController, type RunningController } from '../../controller/controller.js';
import { createLogger, type Logger } from '../../core/log.js';
import type { Registry } from '../../core/metrics/registry.js';
import { RequesterStampingSink } from '../../core/events/requester-sink.js';
import { RequesterLedger } from '../../core/requests/requester-ledger.js';
import { NotifyPublisher } from '../../notify/publish/publisher.js';

/**
 * The one place the controller meets notify: every happening the controller records also goes to
 * notify's durable queue, on the controller's own Redis connection, with who asked for it when
 * someone did (the bot's and the terminal's records in the same Redis).
 */
export function startControllerWithNotify(config: ControllerConfig, log: Logger = createLogger('controller'), registry?: Registry): Promise<RunningController> {
  return startController(config, {
    log,
    registry,
    notifications: (connection, prefix, sinkLog) => {
      const publisher = new NotifyPublisher({ connection, prefix, log: sinkLog });
      const stamped = new RequesterStampingSink(new RequesterLedger(connection, prefix), publisher, sinkLog);
      return { record: (...args) => stamped.record(...args), close: () => publisher.close() };
    },
  });
}
