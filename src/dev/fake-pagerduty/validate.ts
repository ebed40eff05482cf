/**
 * What PagerDuty's Events API v2 checks before it accepts an alert event (developer docs,
 * "Send an Alert Event" and "Events API v2 Overview"): the fields, their kinds and lengths.
 * Returns the errors PagerDuty would list in its 400 answer; empty when the event is valid. Pure.
 */

const ACTIONS = ['trigger', 'acknowledge', 'resolve'];
const SEVERITIES = ['critical', 'error', 'warning', 'info'];
/** Events API payloads are limited to 512 KB. */
export const MAX_EVENT_BYTES = 512 * 1024;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

export function validateEvent(event: unknown): string[] {
  if (!isObject(event)) return ['Event object is not a JSON object'];
  const errors: string[] = [];
  if (typeof event.routing_key !== 'string' || event.routing_key.length !== 32) errors.push("Length of 'routing_key' is incorrect (should be 32 characters)");
  if (!ACTIONS.includes(event.event_action as string)) errors.push("'event_action' is missing or invalid (must be trigger, acknowledge or resolve)");
  if (event.dedup_key !== undefined && (typeof event.dedup_key !== 'string' || event.dedup_key.length > 255)) {
    errors.push("'dedup_key' must be a string of at most 255 characters");
  }
  if (event.event_action === 'trigger') errors.push(...payloadErrors(event.payload));
  else if (event.event_action !== undefined && !nonEmpty(event.dedup_key)) errors.push(`'dedup_key' is required for ${event.event_action as string} events`);
  for (const [field, required] of [
    ['links', 'href'],
    ['images', 'src'],
  ] as const) {
    const list = event[field];
    if (list === undefined) continue;
    if (!Array.isArray(list) || !list.every((item) => isObject(item) && nonEmpty(item[required])))
      errors.push(`'${field}' must be a list of objects with '${required}'`);
  }
  return errors;
}

function payloadErrors(payload: unknown): string[] {
  if (!isObject(payload)) return ["'payload' is required for trigger events"];
  const errors: string[] = [];
  if (!nonEmpty(payload.summary)) errors.push("'payload.summary' is missing or blank");
  else if (payload.summary.length > 1024) errors.push("'payload.summary' is longer than 1024 characters");
  if (!nonEmpty(payload.source)) errors.push("'payload.source' is missing or blank");
  if (!SEVERITIES.includes(payload.severity as string)) errors.push("'payload.severity' must be one of critical, error, warning, info");
  if (payload.timestamp !== undefined && (typeof payload.timestamp !== 'string' || !Number.isFinite(Date.parse(payload.timestamp)))) {
    errors.push("'payload.timestamp' is not an ISO 8601 timestamp");
  }
  for (const field of ['component', 'group', 'class']) {
    if (payload[field] !== undefined && typeof payload[field] !== 'string') errors.push(`'payload.${field}' must be a string`);
  }
  if (payload.custom_details !== undefined && !isObject(payload.custom_details)) errors.push("'payload.custom_details' must be an object");
  return errors;
}
