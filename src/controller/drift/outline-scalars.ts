/**
 * Pure: the single-line pieces of helm's block-style YAML that the manifest outline reads (keys and
 * the values after `key: ` or `- `), each classified only as far as is certain under helm's YAML 1.1
 * rules (helm-yaml.ts). Whatever could be read another way, or could make the full parse fail or
 * refuse, is answered `undefined` ("not sure"), and the caller reads the document in full instead.
 */

/** A value as far as the outline can be sure of it. */
export type ValueRead =
  | { kind: 'none' } // nothing after the indicator (or only a comment): a nested block or null
  | { kind: 'text'; text: string } // certainly this string
  | { kind: 'null' } // certainly null
  | { kind: 'scalar' } // a valid scalar, string or not, whose exact value is not needed
  | { kind: 'emptyMap' }
  | { kind: 'emptySeq' }
  | { kind: 'flow' } // a valid non-empty flow sequence of simple items
  | { kind: 'block' }; // a block scalar's header: the lines below are its text

const NONE: ValueRead = { kind: 'none' };
const NULL: ValueRead = { kind: 'null' };
const SCALAR: ValueRead = { kind: 'scalar' };
const EMPTY_MAP: ValueRead = { kind: 'emptyMap' };
const EMPTY_SEQ: ValueRead = { kind: 'emptySeq' };
const FLOW: ValueRead = { kind: 'flow' };
const BLOCK: ValueRead = { kind: 'block' };

/** A plain or simply quoted key followed by `:` and a space or the line's end (helm writes keys so). */
const KEY = /([A-Za-z0-9_][A-Za-z0-9_./-]*|"[^"\\]*"|'[^']*'):(?= |$)/y;
/** YAML 1.1 nulls: a plain key spelled so is null, which helm refuses. */
const NULL_WORD = /^(?:~|null|Null|NULL)$/;
/** YAML 1.1 booleans: y, yes, on... are not strings. */
const BOOL_WORD = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
/** Characters a plain scalar may not start with (indicators, or a number, .inf or .nan's start, or `<<`/`=`). */
const UNSURE_PLAIN_START = /^(?:[&*!|>'"%@`,[\]{}#?:<=]|-(?: |$))/;
/** What YAML 1.1 may read as a number (or .inf/.nan): never sure to be a string. */
const NUMBER_START = /^[-+]?(?:[0-9]|\.[0-9]|\.(?:inf|nan)$)/i;
/** Numbers that could be Infinity or NaN, which helm refuses: .inf/.nan, an exponent, hex, or very long. */
const MAYBE_NOT_FINITE = /^[-+]?\.(?:inf|nan)$|^[-+]?[0-9._]*e[-+]?[0-9_]*$|^[-+]?0x|^.{100}/i;
const BLOCK_HEADER = /^[|>][+-]?(?:[ ]+#.*)?[ ]*$/;
const FLOW_ITEM = String.raw`(?:"[^"\\]*"|'[^']*'|[A-Za-z_][A-Za-z0-9_./-]*|[0-9]{1,15})`;
const FLOW_SEQ = new RegExp(String.raw`^\[ *${FLOW_ITEM}(?: *, *${FLOW_ITEM})* *\](?: +#.*)? *$`);
const EMPTY_FLOW = /^(\[ *\]|\{ *\})(?: +#.*)? *$/;
const AFTER_QUOTE = /^ *(?: #.*)?$/;
const SIMPLE_ESCAPE = new Set(['0', 'a', 'b', 't', 'n', 'v', 'f', 'r', 'e', ' ', '"', '/', '\\', 'N', '_', 'L', 'P']);
const MAX_KEY = 1000;

/** A map entry's key at `from`: its text and where its value starts, or undefined when the line is not a sure key. */
export function readKey(line: string, from: number): { key: string; next: number } | undefined {
  KEY.lastIndex = from;
  const match = KEY.exec(line);
  if (!match) return undefined;
  const raw = match[1]!;
  if (raw.length > MAX_KEY) return undefined;
  const quoted = raw[0] === '"' || raw[0] === "'";
  if (!quoted && NULL_WORD.test(raw)) return undefined;
  return { key: quoted ? raw.slice(1, -1) : raw, next: KEY.lastIndex };
}

/** The value that starts at `from` (after `key: ` or `- `, spaces skipped), or undefined when not sure. */
export function readValue(line: string, from: number): ValueRead | undefined {
  if (from >= line.length) return NONE;
  const first = line[from];
  if (first === '#') return NONE;
  if (first === '"') return readDoubleQuoted(line, from);
  if (first === "'") return readSingleQuoted(line, from);
  const rest = from === 0 ? line : line.slice(from);
  if (first === '[' || first === '{') return EMPTY_FLOW.test(rest) ? (rest[0] === '[' ? EMPTY_SEQ : EMPTY_MAP) : FLOW_SEQ.test(rest) ? FLOW : undefined;
  if (first === '|' || first === '>') return BLOCK_HEADER.test(rest) ? BLOCK : undefined;
  return readPlain(rest);
}

function readPlain(rest: string): ValueRead | undefined {
  if (UNSURE_PLAIN_START.test(rest)) return undefined;
  const comment = rest.indexOf(' #');
  // Only spaces end a plain scalar (trimEnd would also take a no-break space, which YAML keeps).
  const text = (comment < 0 ? rest : rest.slice(0, comment)).replace(/ +$/, '');
  // `a: b: c` is an error; `a: b:` too.
  if (text.includes(': ') || text.endsWith(':')) return undefined;
  if (NULL_WORD.test(text)) return NULL;
  if (BOOL_WORD.test(text)) return SCALAR;
  if (NUMBER_START.test(text)) {
    if (MAYBE_NOT_FINITE.test(text)) return undefined;
    return SCALAR;
  }
  return { kind: 'text', text };
}

function readDoubleQuoted(line: string, from: number): ValueRead | undefined {
  let escaped = false;
  for (let i = from + 1; i < line.length; i++) {
    const c = line[i];
    if (c === '\\') {
      if (!SIMPLE_ESCAPE.has(line[i + 1] ?? '')) return undefined;
      escaped = true;
      i++;
    } else if (c === '"') {
      if (!AFTER_QUOTE.test(line.slice(i + 1))) return undefined;
      return escaped ? SCALAR : { kind: 'text', text: line.slice(from + 1, i) };
    }
  }
  return undefined; // continues on the next line
}

function readSingleQuoted(line: string, from: number): ValueRead | undefined {
  for (let i = from + 1; i < line.length; i++) {
    if (line[i] !== "'") continue;
    if (line[i + 1] === "'") {
      i++;
      continue;
    }
    if (!AFTER_QUOTE.test(line.slice(i + 1))) return undefined;
    return { kind: 'text', text: line.slice(from + 1, i).replaceAll("''", "'") };
  }
  return undefined;
}
