export * from './fake-slack.js';
export type { FakeOidcClient } from './oidc.js';
export { checkMessage, checkBlocks } from './block-limits.js';
export { DEFAULT_RATE_LIMITS, RateLimiter } from './rate-limits.js';
export { buttonClick, postSigned, slackSignature, slashCommand, type SlackRequest } from './requests.js';
export { FAKE_APP_ID, type EnvelopeAck, type EnvelopeType } from './socket-mode.js';
