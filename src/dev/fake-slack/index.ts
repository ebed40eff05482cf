export * from './fake-slack.js';
export { checkMessage, checkBlocks } from './block-limits.js';
export { DEFAULT_RATE_LIMITS, RateLimiter } from './rate-limits.js';
