import { ConfigError, type Env } from '../config/parsers.js';
import { declareEnv } from '../config/registry.js';

/**
 * OpenTelemetry's own variables, read by every part: tracing is on when an OTLP/HTTP endpoint is
 * set, and off (nothing loaded, nothing recorded) when not. The SDK itself also reads OTEL_BSP_*
 * (batching), OTEL_TRACES_SAMPLER(_ARG) and OTEL_EXPORTER_OTLP(_TRACES)_HEADERS.
 */
export const TRACING_ENV = declareEnv(['controller', 'notify', 'bot'], {
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: {
    defaultText: 'none',
    meaning:
      'the OTLP/HTTP traces URL, used as it is (`http://collector:4318/v1/traces`); set, or `OTEL_EXPORTER_OTLP_ENDPOINT`: traces on ([operations](operations.md#traces))',
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    defaultText: 'none (traces off)',
    meaning: 'the OTLP/HTTP base URL (`http://collector:4318`), `/v1/traces` added; unset with the one above: no trace is recorded and the SDK is not loaded',
  },
  OTEL_SERVICE_NAME: {
    defaultText: '`helmcrew-<part>`',
    meaning: 'the traces’ `service.name` (`helmcrew-controller`, `helmcrew-notify`, `helmcrew-bot`, `helmcrew` for `run`)',
  },
});

export interface TracingConfig {
  /** Where spans are POSTed (OTLP/HTTP, JSON). */
  url: string;
  serviceName: string;
}

/** The traces URL, or undefined when tracing is off; a malformed URL stops start-up. Pure. */
export function readTracingConfig(env: Env, part: string): TracingConfig | undefined {
  const vars = TRACING_ENV.in(env);
  const traces = vars.raw('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')?.trim();
  const base = vars.raw('OTEL_EXPORTER_OTLP_ENDPOINT')?.trim();
  const url = traces || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
  if (!url) return undefined;
  const name = traces ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(`${name} must be an http(s) URL, got ${parsed.protocol}`);
  return { url, serviceName: vars.raw('OTEL_SERVICE_NAME')?.trim() || (part === 'run' ? 'helmcrew' : `helmcrew-${part}`) };
}

/** Whether tracing will be on for this environment: cheap, for the logger's choice of a trace-id mixin. */
export function tracingWanted(env: Env): boolean {
  const vars = TRACING_ENV.in(env);
  return Boolean(vars.raw('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')?.trim() || vars.raw('OTEL_EXPORTER_OTLP_ENDPOINT')?.trim());
}
