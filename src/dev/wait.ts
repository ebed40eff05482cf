// Polling for start-up: an HTTP(S) probe, and a wait loop that reports progress and fails fast,
// with the log file, when the process it waits for has died.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../core/log.js';
import { diedError, isAlive, type StartedProcess } from './processes.js';

export interface TlsMaterial {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  /** For components that serve a self-signed cert (controller-manager, scheduler). */
  insecure?: boolean;
}

export interface ProbeResult {
  status: number;
  body: string;
}

/** One GET; resolves with status and body, rejects on connection errors or after `timeoutMs`. */
export function httpGet(url: string, tls: TlsMaterial = {}, timeoutMs = 2000): Promise<ProbeResult> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const options = { method: 'GET', timeout: timeoutMs };
    const onResponse = (res: import('node:http').IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    };
    const req =
      u.protocol === 'https:'
        ? httpsRequest(u, { ...options, ca: tls.ca, cert: tls.cert, key: tls.key, rejectUnauthorized: !tls.insecure }, onResponse)
        : httpRequest(u, options, onResponse);
    req.on('timeout', () => req.destroy(new Error(`timed out after ${timeoutMs}ms`)));
    req.on('error', reject);
    req.end();
  });
}

export interface WaitOptions {
  /** What we wait for, for progress lines and errors: "kube-apiserver /readyz". */
  label: string;
  log: Logger;
  timeoutMs: number;
  /** Processes that must stay alive meanwhile; if one dies we stop waiting and show its log. */
  watch?: StartedProcess[];
  intervalMs?: number;
}

/**
 * Polls `check` until it returns true. `check` may return a string to say why it is not ready
 * yet; the latest reason appears in progress lines (every 5s) and in the timeout error.
 */
export async function waitFor(check: () => Promise<true | string>, opts: WaitOptions): Promise<void> {
  const started = Date.now();
  const interval = opts.intervalMs ?? 100;
  let lastReport = started;
  let reason: string;
  for (;;) {
    for (const proc of opts.watch ?? []) {
      if (!isAlive(proc)) throw await diedError(proc, `while waiting for ${opts.label}`);
    }
    try {
      const result = await check();
      if (result === true) return;
      reason = result;
    } catch (err) {
      reason = err instanceof Error ? err.message : String(err);
    }
    const elapsed = Date.now() - started;
    if (elapsed > opts.timeoutMs) {
      const logs = (opts.watch ?? []).map((p) => p.logFile).join(', ');
      throw new Error(`timed out after ${Math.round(elapsed / 1000)}s waiting for ${opts.label}: ${reason}` + (logs ? `; see ${logs}` : ''));
    }
    if (Date.now() - lastReport >= 5000) {
      lastReport = Date.now();
      opts.log.info({ waited: `${Math.round(elapsed / 1000)}s`, reason }, `waiting for ${opts.label}`);
    }
    await sleep(interval);
  }
}
