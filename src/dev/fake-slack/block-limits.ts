/**
 * Slack's documented message and Block Kit limits, as pure checks. The fake answers with the
 * error codes and `[ERROR] … [json-pointer:…]` messages Slack itself sends, so a renderer that
 * breaks a limit fails here the way it would fail in production.
 */

export const MAX_TEXT_CHARS = 40_000;
export const MAX_BLOCKS = 50;
export const MAX_ATTACHMENTS = 100;
export const MAX_SECTION_TEXT = 3000;
export const MAX_FIELD_TEXT = 2000;
export const MAX_FIELDS = 10;
export const MAX_HEADER_TEXT = 150;
export const MAX_CONTEXT_ELEMENTS = 10;
export const MAX_ACTION_ELEMENTS = 25;
export const MAX_BUTTON_TEXT = 75;
export const MAX_ID = 255;
export const MAX_BUTTON_VALUE = 2000;
export const MAX_MARKDOWN_BLOCK_TEXT = 12_000;

export interface MessageFailure {
  error: 'no_text' | 'msg_too_long' | 'invalid_blocks' | 'invalid_blocks_format' | 'invalid_attachments' | 'too_many_attachments';
  /** Slack's `response_metadata.messages` for block errors. */
  messages?: string[];
}

type Json = Record<string, unknown>;

const BLOCK_TYPES = new Set(['section', 'header', 'divider', 'context', 'actions', 'image', 'rich_text', 'markdown', 'file', 'video']);

/** The content of a chat.postMessage / chat.update; undefined when Slack would accept it. */
export function checkMessage(content: { text?: unknown; blocks?: unknown; attachments?: unknown }, requireContent = true): MessageFailure | undefined {
  const { text, blocks, attachments } = content;
  const hasText = typeof text === 'string' && text.length > 0;
  const hasBlocks = Array.isArray(blocks) && blocks.length > 0;
  const hasAttachments = Array.isArray(attachments) && attachments.length > 0;
  if (requireContent && !hasText && !hasBlocks && !hasAttachments) return { error: 'no_text' };
  if (typeof text === 'string' && text.length > MAX_TEXT_CHARS) return { error: 'msg_too_long' };
  if (blocks !== undefined) {
    if (!Array.isArray(blocks)) return { error: 'invalid_blocks_format' };
    const problems = checkBlocks(blocks, '/blocks');
    if (problems.length > 0) return { error: 'invalid_blocks', messages: problems };
  }
  if (attachments !== undefined) {
    if (!Array.isArray(attachments)) return { error: 'invalid_attachments' };
    if (attachments.length > MAX_ATTACHMENTS) return { error: 'too_many_attachments' };
    const problems: string[] = [];
    attachments.forEach((attachment, i) => {
      if (!isObject(attachment)) return problems.push(err('must be an object', `/attachments/${i}`));
      if (attachment.blocks !== undefined) {
        if (!Array.isArray(attachment.blocks)) return problems.push(err('must be an array', `/attachments/${i}/blocks`));
        problems.push(...checkBlocks(attachment.blocks, `/attachments/${i}/blocks`));
      }
      return undefined;
    });
    if (problems.length > 0) return { error: 'invalid_blocks', messages: problems };
  }
  return undefined;
}

/** Every limit a list of blocks breaks, as Slack words it. */
export function checkBlocks(blocks: unknown[], at: string): string[] {
  const problems: string[] = [];
  if (blocks.length > MAX_BLOCKS) problems.push(err(`no more than ${MAX_BLOCKS} items allowed`, at));
  const blockIds = new Set<string>();
  blocks.forEach((block, i) => {
    const here = `${at}/${i}`;
    if (!isObject(block) || typeof block.type !== 'string') return problems.push(err('must provide an object with a type', here));
    if (!BLOCK_TYPES.has(block.type)) return problems.push(err(`unsupported type: ${block.type}`, `${here}/type`));
    if (block.block_id !== undefined) {
      if (typeof block.block_id !== 'string' || block.block_id.length > MAX_ID)
        problems.push(err(`must be less than ${MAX_ID + 1} characters`, `${here}/block_id`));
      else if (blockIds.has(block.block_id)) problems.push(err('duplicate block_id', `${here}/block_id`));
      else blockIds.add(block.block_id);
    }
    problems.push(...checkBlock(block, here));
    return undefined;
  });
  return problems;
}

function checkBlock(block: Json, here: string): string[] {
  switch (block.type) {
    case 'section': {
      const problems: string[] = [];
      if (block.text === undefined && block.fields === undefined) problems.push(err('must provide either text or fields', here));
      if (block.text !== undefined) problems.push(...checkTextObject(block.text, `${here}/text`, MAX_SECTION_TEXT));
      if (block.fields !== undefined) {
        if (!Array.isArray(block.fields)) problems.push(err('must be an array', `${here}/fields`));
        else {
          if (block.fields.length > MAX_FIELDS) problems.push(err(`no more than ${MAX_FIELDS} items allowed`, `${here}/fields`));
          block.fields.forEach((field, i) => problems.push(...checkTextObject(field, `${here}/fields/${i}`, MAX_FIELD_TEXT)));
        }
      }
      if (block.accessory !== undefined) problems.push(...checkElement(block.accessory, `${here}/accessory`));
      return problems;
    }
    case 'header':
      return checkTextObject(block.text, `${here}/text`, MAX_HEADER_TEXT, 'plain_text');
    case 'markdown':
      return typeof block.text === 'string' && block.text.length > 0 && block.text.length <= MAX_MARKDOWN_BLOCK_TEXT
        ? []
        : [err(`must be 1 to ${MAX_MARKDOWN_BLOCK_TEXT} characters`, `${here}/text`)];
    case 'context': {
      if (!Array.isArray(block.elements) || block.elements.length === 0) return [err('must provide at least one element', `${here}/elements`)];
      const problems: string[] = [];
      if (block.elements.length > MAX_CONTEXT_ELEMENTS) problems.push(err(`no more than ${MAX_CONTEXT_ELEMENTS} items allowed`, `${here}/elements`));
      block.elements.forEach((element, i) => {
        if (isObject(element) && element.type === 'image') return;
        problems.push(...checkTextObject(element, `${here}/elements/${i}`, MAX_SECTION_TEXT));
      });
      return problems;
    }
    case 'actions': {
      if (!Array.isArray(block.elements) || block.elements.length === 0) return [err('must provide at least one element', `${here}/elements`)];
      const problems: string[] = [];
      if (block.elements.length > MAX_ACTION_ELEMENTS) problems.push(err(`no more than ${MAX_ACTION_ELEMENTS} items allowed`, `${here}/elements`));
      const actionIds = new Set<string>();
      block.elements.forEach((element, i) => {
        problems.push(...checkElement(element, `${here}/elements/${i}`));
        const id = isObject(element) ? element.action_id : undefined;
        if (typeof id === 'string') {
          if (actionIds.has(id)) problems.push(err('duplicate action_id', `${here}/elements/${i}/action_id`));
          actionIds.add(id);
        }
      });
      return problems;
    }
    default:
      return [];
  }
}

function checkElement(element: unknown, here: string): string[] {
  if (!isObject(element) || typeof element.type !== 'string') return [err('must provide an object with a type', here)];
  if (element.type !== 'button') return [];
  const problems = checkTextObject(element.text, `${here}/text`, MAX_BUTTON_TEXT, 'plain_text');
  if (element.action_id !== undefined && (typeof element.action_id !== 'string' || element.action_id.length > MAX_ID)) {
    problems.push(err(`must be less than ${MAX_ID + 1} characters`, `${here}/action_id`));
  }
  if (element.value !== undefined && (typeof element.value !== 'string' || element.value.length > MAX_BUTTON_VALUE)) {
    problems.push(err(`must be less than ${MAX_BUTTON_VALUE + 1} characters`, `${here}/value`));
  }
  if (element.style !== undefined && element.style !== 'primary' && element.style !== 'danger') {
    problems.push(err('must be one of primary, danger', `${here}/style`));
  }
  if (element.confirm !== undefined) {
    const confirm = isObject(element.confirm) ? element.confirm : {};
    problems.push(...checkTextObject(confirm.title, `${here}/confirm/title`, 100, 'plain_text'));
    problems.push(...checkTextObject(confirm.text, `${here}/confirm/text`, 300));
    problems.push(...checkTextObject(confirm.confirm, `${here}/confirm/confirm`, 30, 'plain_text'));
    problems.push(...checkTextObject(confirm.deny, `${here}/confirm/deny`, 30, 'plain_text'));
  }
  return problems;
}

function checkTextObject(value: unknown, here: string, max: number, only?: 'plain_text'): string[] {
  if (!isObject(value)) return [err('must provide an object', here)];
  if (value.type !== 'plain_text' && value.type !== 'mrkdwn') return [err('must be one of plain_text, mrkdwn', `${here}/type`)];
  if (only && value.type !== only) return [err(`must be ${only}`, `${here}/type`)];
  if (typeof value.text !== 'string' || value.text.length === 0) return [err('must be more than 0 characters', `${here}/text`)];
  if (value.text.length > max) return [err(`must be less than ${max + 1} characters`, `${here}/text`)];
  return [];
}

function err(what: string, pointer: string): string {
  return `[ERROR] ${what} [json-pointer:${pointer}]`;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
