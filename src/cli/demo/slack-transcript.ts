/**
 * The Slack messages a run produced, as a newcomer would read them in the channel: one line per
 * message (its outcome, its summary, how often it was edited, its buttons), its thread replies
 * under it, and the ephemeral answers only one person saw, in their place. Pure: it reads the
 * local fake Slack's record.
 */
import type { EphemeralMessage, FakeMessage } from '../../dev/fake-slack/index.js';
import { PHASE_COLOR, type Phase } from '../../notify/providers/slack/render.js';

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

function buttonLabels(message: Pick<FakeMessage, 'blocks' | 'attachments'>): string[] {
  const blocks = [...(message.blocks ?? []), ...(attachment(message as FakeMessage)?.blocks ?? [])] as Array<{
    type?: string;
    elements?: Array<{ type?: string; text?: { text?: string } }>;
  }>;
  return blocks.filter((b) => b.type === 'actions').flatMap((b) => (b.elements ?? []).filter((e) => e.type === 'button').map((e) => e.text?.text ?? '?'));
}

/** One message as a line: outcome mark, summary, edits, buttons. */
export function messageLine(message: FakeMessage): string {
  const phase = phaseOfColor(attachment(message)?.color);
  const edits = message.edits.length ? ` (edited ${message.edits.length}×)` : '';
  const buttons = buttonLabels(message);
  return `${phase ? PHASE_MARK[phase] : '•'} ${unescape(message.text)}${edits}${buttons.length ? `  [${buttons.join('] [')}]` : ''}`;
}

/** An answer only `user` saw (a plan, a confirmation): who sees it, its text and its buttons. */
export function ephemeralLine(message: EphemeralMessage): string {
  const buttons = buttonLabels(message);
  return `(only <@${message.user}> sees) ${unescape(message.text)}${buttons.length ? `  [${buttons.join('] [')}]` : ''}`;
}

/** A multi-line message keeps its later lines under its first. */
function indentLines(text: string, pad: string): string {
  return text.replace(/\n/g, `\n${pad}`);
}

export function slackTranscript(
  channelName: string,
  messages: readonly FakeMessage[],
  repliesOf: (ts: string) => readonly FakeMessage[],
  ephemerals: readonly EphemeralMessage[] = [],
): string[] {
  const ephemeralCount = ephemerals.length ? ` and ${ephemerals.length} seen by one person only` : '';
  const lines = [`#${channelName}: ${messages.length} message${messages.length === 1 ? '' : 's'}${ephemeralCount}`];
  // Slack's ts order is the order things appeared in (the fake's ts grow across both kinds).
  const entries = [
    ...messages.map((m) => ({ ts: m.ts, line: messageLine(m), replies: repliesOf(m.ts) })),
    ...ephemerals.map((e) => ({ ts: e.messageTs, line: ephemeralLine(e), replies: [] as readonly FakeMessage[] })),
  ].sort((a, b) => a.ts.localeCompare(b.ts));
  for (const { line, replies } of entries) {
    lines.push(`  ${indentLines(line, '    ')}`);
    for (const reply of replies) {
      const text = unescape(reply.text).replace(/\s+/g, ' ');
      // A reply also sent to the channel is seen there too (notify's outcome when edits are backed up).
      lines.push(`      ↳ ${reply.broadcast ? '(also sent to the channel) ' : ''}${text.length > 140 ? `${text.slice(0, 139)}…` : text}`);
    }
  }
  return lines;
}
