// The cluster helpers the demo and the tests have always imported from here; they live in the
// harness (src/dev/harness/), which dev, the tests and the benchmarks share.
export { applyHelmRelease, deploymentAvailable, ensureNamespace, helmReleaseObject, servedColor, waitForReconciled } from './harness/index.js';
