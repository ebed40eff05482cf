// Signed slash commands POSTed to the bot's HTTP receiver at a steady rate: the time to Bolt's
// HTTP response (the ack Slack waits at most 3 s for) and to the first answer on response_url.
// ack-latency and the fleet bench both drive the bot with it.
import { postSigned, slashCommand, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { pct } from './stats.js';

export interface SlashLoad {
  total: number;
  sendSeconds: number;
  acksMs: number[];
  failures: string[];
  /** Time from sending to the first response_url post, of the commands with this label (all without). */
  answeredMs: (label?: string) => number[];
  sentCount: (label: string) => number;
}

export async function sendSlashCommands(opts: {
  slack: FakeSlack;
  url: string;
  secret: string;
  user: string;
  channel: string;
  rate: number;
  seconds: number;
  /** The i-th command's text, and a label its answers are grouped by. */
  command: (i: number) => { text: string; label: string };
  answerTimeoutMs?: number;
}): Promise<SlashLoad> {
  const total = opts.rate * opts.seconds;
  const acksMs: number[] = [];
  const failures: string[] = [];
  const sentAt = new Map<string, { at: number; label: string }>();
  const started = performance.now();
  const inflight: Array<Promise<void>> = [];
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / opts.rate - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const { text, label } = opts.command(i);
    const request = slashCommand(opts.slack, text, opts.user, opts.channel);
    // The fake stamps response_url posts with Date.now().
    sentAt.set(request.responseUrl, { at: Date.now(), label });
    inflight.push(
      postSigned(opts.url, request.form, { secret: opts.secret }).then(
        (r) => void (r.status === 200 ? acksMs.push(r.ms) : failures.push(`HTTP ${r.status}`)),
        (error: Error) => void failures.push(error.message),
      ),
    );
  }
  await Promise.all(inflight);
  const sendSeconds = (performance.now() - started) / 1000;
  const answeredMs = (label?: string) =>
    [...sentAt].flatMap(([responseUrl, sent]) =>
      label !== undefined && sent.label !== label
        ? []
        : (opts.slack
            .responseUrl(responseUrl)
            ?.posts.slice(0, 1)
            .map((post) => post.at - sent.at) ?? []),
    );
  const deadline = Date.now() + (opts.answerTimeoutMs ?? 30_000);
  while (answeredMs().length < total && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  const sentCount = (label: string) => [...sentAt.values()].filter((s) => s.label === label).length;
  return { total, sendSeconds, acksMs, failures, answeredMs, sentCount };
}

/** A table row: label, n, p50, p90, p99, max (ms), and what the caller adds. */
export function latencyRow(label: string, values: number[], tail: string): Array<string | number | null> {
  const sorted = [...values].sort((a, b) => a - b);
  const q = (p: number) => (sorted.length ? `${pct(sorted, p).toFixed(1)} ms` : null);
  return [label, sorted.length, q(0.5), q(0.9), q(0.99), sorted.length ? `${sorted.at(-1)!.toFixed(1)} ms` : null, tail];
}

/** The ack row and one answer row per label, as ack-latency and the fleet bench print them. */
export function slashLoadRows(load: SlashLoad, labels: ReadonlyArray<{ label: string; title: string }>): Array<Array<string | number | null>> {
  return [
    latencyRow('ack (HTTP response)', load.acksMs, `${load.acksMs.filter((ms) => ms > 3000).length} / ${load.failures.length}`),
    ...labels.map(({ label, title }) => latencyRow(title, load.answeredMs(label), `${load.sentCount(label) - load.answeredMs(label).length} missing`)),
  ];
}
