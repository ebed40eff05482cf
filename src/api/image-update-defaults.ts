/**
 * Defaults the controller applies to `spec.imageUpdates` and `spec.approval`. In a file without
 * typebox: the web pages read it (core/proposals/promotion.ts) and need no schema, and typebox's
 * module graph is ~7 MiB of RSS (docs/performance.md).
 */
export const IMAGE_UPDATE_DEFAULTS = { interval: '5m', expireAfter: '24h' } as const;
