/**
 * The Slack messages a run produced, as a newcomer would read them in the channel: one line per
 * message (its outcome, its summary, how often it was edited, its buttons) and its thread
 * replies under it. Pure: it reads the local fake Slack's record.
 */
import type { FakeMessage } from '../dev/fake-slack/index.js';
import { PHASE_COLOR, type Phase } from '../notify/providers/slack/render.js';

const PHASE_MARK: Record<Phase, string> = { 'in-progress': '…', succeeded: '✔', failed: '✘', info: 'ℹ' };

/** Slack's entities back to characters, for a terminal. */
function unescape(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

function attachment(message: FakeMessage): { color?: string; blocks?: unknown[] } | undefined {
  return message.attachments?.[0] as { color?: string; blocks?: unknown[] } | undefined;
}

function phaseOfColor(color: string | undefined): Phase | undefined {
  return (Object.keys(PHASE_COLOR) as Phase[]).find((p) => PHASE_COLOR[p] === color);
}

function buttonLabels(message: FakeMessage): string[] {
  const blocks = [...(message.blocks ?? []), ...(attachment(message)?.blocks ?? [])] as Array<{ type?: string; elements?: Array<{ type?: string; text?: { text?: string } }> }>;
  return blocks.filter((b) => b.type === 'actions').flatMap((b) => (b.elements ?? []).filter((e) => e.type === 'button').map((e) => e.text?.text ?? '?'));
}

/** One message as a line: outcome mark, summary, edits, buttons. */
export function messageLine(message: FakeMessage): string {
  const phase = phaseOfColor(attachment(message)?.color);
  const edits = message.edits.length ? ` (edited ${message.edits.length}×)` : '';
  const buttons = buttonLabels(message);
  return `${phase ? PHASE_MARK[phase] : '•'} ${unescape(message.text)}${edits}${buttons.length ? `  [${buttons.join('] [')}]` : ''}`;
}

export function slackTranscript(channelName: string, messages: readonly FakeMessage[], repliesOf: (ts: string) => readonly FakeMessage[]): string[] {
  const lines = [`#${channelName}: ${messages.length} message${messages.length === 1 ? '' : 's'}`];
  for (const message of messages) {
    lines.push(`  ${messageLine(message)}`);
    for (const reply of repliesOf(message.ts)) {
      const text = unescape(reply.text).replace(/\s+/g, ' ');
      lines.push(`      ↳ ${text.length > 140 ? `${text.slice(0, 139)}…` : text}`);
    }
  }
  return lines;
}
