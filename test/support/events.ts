// The harness's Event wait (src/dev/harness/events.ts), where the tests have always imported it.
export { waitForEvents } from '../../src/dev/harness/index.js';
