// Kept for branches written before test/support/eventually.ts; import from there.
export { waitForReadyCondition as waitForReadyReason } from './eventually.js';
