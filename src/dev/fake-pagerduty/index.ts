export { FakePagerDuty, type FakePagerDutyOptions, type FakeRequest } from './fake-pagerduty.js';
export { AlertBook, type AppliedEvent, type FakeAlert } from './alerts.js';
export { MAX_EVENT_BYTES, validateEvent } from './validate.js';
