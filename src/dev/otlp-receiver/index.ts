export * from './otlp-receiver.js';
export * from './otlp-json.js';
