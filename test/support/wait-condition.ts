// Kept for branches written before test/support/eventually.ts; import from there.
export { waitForGone, waitForReadyReason } from './eventually.js';
