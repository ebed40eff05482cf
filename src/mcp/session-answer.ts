import type { AssistantAnswer } from '../session/flow/assistant-ports.js';
import type { ToolAnswer } from './call-guard.js';
import { untrusted } from './untrusted.js';

/**
 * Pure: what the release session said, as a tool's answer. A query's answer and a plan carry text
 * from the cluster (untrusted); the session's own words (refusals, input errors) stand outside the
 * marker, but any release name in them is the person's input, not the cluster's.
 */
export function toolAnswerOf(answer: AssistantAnswer, planText?: string): ToolAnswer {
  const input = answer.messages.filter((m) => m.kind === 'input');
  if (input.length > 0) return { text: input.map((m) => m.text).join('\n'), outcome: 'bad-input' };
  const stopped = answer.messages.filter((m) => m.kind === 'stopped');
  const parts = [
    ...stopped.map((m) => m.text),
    ...answer.messages.filter((m) => m.kind === 'info').map((m) => m.text),
    ...answer.messages.filter((m) => m.kind === 'answer').map((m) => untrusted(m.text)),
    ...(planText ? [untrusted(planText)] : []),
  ];
  const refused = stopped.some((m) => m.text.startsWith('Refused'));
  return { text: parts.join('\n') || 'no answer', outcome: refused ? 'refused' : stopped.length > 0 && !answer.plan ? 'refused' : 'ok' };
}
