import { parseHelmYaml } from '../helm/helm-yaml.js';
import { manifestDocuments, type ManifestDocument } from './manifest-objects.js';
import { readKey, readValue, type ValueRead } from './outline-scalars.js';

/**
 * Pure: what status.inventory and the Event's images read of the manifest helm just wrote, for a
 * fraction of a full parse (issue 50: the full parse was ~10 % of the controller's CPU in a burst).
 * Each document is outlined by a line scanner over helm's block-style YAML that keeps only
 * apiVersion, kind, metadata.name/namespace and the images of the pod specs deployedImages reads;
 * a document it cannot be sure of (anchors, tags, flow maps, escapes, a name YAML 1.1 reads as a
 * boolean or number, a line it does not know...) is read in full by parseHelmYaml instead, so the
 * result, an unreadable document included, is always the full parse's. Only this post-helm path
 * uses outlines; drift and everything else needing full values uses manifestDocuments' full parse.
 */
export function outlineDocuments(manifest: string): ManifestDocument[] {
  return manifestDocuments(manifest, (text) => {
    const outline = outlineDocument(text);
    return outline === UNSURE ? parseHelmYaml(text) : outline;
  });
}

/** The scanner's answer when it is not sure: the full parse decides. */
export const UNSURE = Symbol('unsure');

/** Which keys of a map are kept (and what is kept below them), or that a sequence's items are. */
type Shape = 'leaf' | { fields: Readonly<Record<string, Shape>> } | { item: Shape };

const CONTAINERS: Shape = { item: { fields: { image: 'leaf' } } };
const POD_SPEC = { containers: CONTAINERS, initContainers: CONTAINERS };
const TEMPLATE: Shape = { fields: { spec: { fields: POD_SPEC } } };
/** deployed-images.ts's pod spec paths (Pod, the workloads' template, CronJob's jobTemplate) under one spec. */
const ROOT: Shape = {
  fields: {
    apiVersion: 'leaf',
    kind: 'leaf',
    metadata: { fields: { name: 'leaf', namespace: 'leaf' } },
    spec: { fields: { ...POD_SPEC, template: TEMPLATE, jobTemplate: { fields: { spec: { fields: { template: TEMPLATE } } } } } },
  },
};

/** Characters whose reading the scanner does not know (controls, NEL/LS/PS line breaks, a BOM, a lone CR). */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const UNSURE_CHARACTERS = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F\x85\u2028\u2029\uFEFF\uFFFE\uFFFF]|\r(?!\n)/;

type Holder = Record<string, unknown> | unknown[];
/** Where a value goes: its shape (undefined: not kept) and its holder (undefined: not kept). */
interface Slot {
  shape: Shape | undefined;
  holder: Holder | undefined;
  key: string;
}
interface Frame {
  indent: number;
  seq: boolean;
  shape: Shape | undefined;
  target: Holder | undefined;
}

/** Thrown from deep in the scan when it is not sure; never leaves outlineDocument. */
class Unsure extends Error {}

/** The document's outline (null when it has no content), or UNSURE. */
export function outlineDocument(text: string): Record<string, unknown> | null | typeof UNSURE {
  if (UNSURE_CHARACTERS.test(text)) return UNSURE;
  try {
    return new Scanner().scan(text);
  } catch (error) {
    if (error instanceof Unsure) return UNSURE;
    throw error;
  }
}

function put(slot: Slot, value: unknown): void {
  if (!slot.holder) return;
  if (Array.isArray(slot.holder)) slot.holder.push(value);
  else slot.holder[slot.key] = value;
}

function childShape(shape: Shape | undefined, key: string): Shape | undefined {
  if (shape === undefined || shape === 'leaf' || !('fields' in shape)) return undefined;
  return Object.hasOwn(shape.fields, key) ? shape.fields[key] : undefined;
}

function isDash(line: string, at: number): boolean {
  return line[at] === '-' && (at + 1 === line.length || line[at + 1] === ' ');
}

class Scanner {
  private readonly root: Record<string, unknown> = {};
  private readonly frames: Frame[] = [];
  /** A `key:` or `-` with nothing after it: its value is the block below, or null. */
  private pending: { slot: Slot; indent: number; sameIndentSeq: boolean } | undefined;
  /** A block scalar being skipped: its parent's indentation and its own (-1 until its first line). */
  private block: { parent: number; indent: number; blankMax: number } | undefined;

  scan(text: string): Record<string, unknown> | null {
    for (const raw of text.split('\n')) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      let spaces = 0;
      while (line.charCodeAt(spaces) === 32) spaces++;
      if (this.block && this.inBlock(line, spaces)) continue;
      if (spaces === line.length || line[spaces] === '#') continue;
      if (line.includes('\t')) throw new Unsure();
      this.line(line, spaces);
    }
    if (this.block && this.block.indent < 0 && this.block.blankMax > this.block.parent) throw new Unsure();
    if (this.pending) put(this.pending.slot, null);
    return this.frames.length ? this.root : null;
  }

  /** Whether the line is still the block scalar's text (its lines are not read). */
  private inBlock(line: string, spaces: number): boolean {
    const block = this.block!;
    if (spaces === line.length) {
      if (block.indent < 0) block.blankMax = Math.max(block.blankMax, spaces);
      return true;
    }
    if (block.indent < 0 && spaces > block.parent) {
      // Leading blank lines may not be more indented than the first line of text.
      if (block.blankMax > spaces) throw new Unsure();
      block.indent = spaces;
      return true;
    }
    if (block.indent >= 0 && spaces >= block.indent) return true;
    if (block.indent < 0 && block.blankMax > block.parent) throw new Unsure();
    this.block = undefined;
    return false;
  }

  private line(line: string, spaces: number): void {
    const dash = isDash(line, spaces);
    if (!this.frames.length) {
      if (spaces !== 0 || dash) throw new Unsure(); // only a top-level map at column 0 is a Kubernetes object here
      this.frames.push({ indent: 0, seq: false, shape: ROOT, target: this.root });
    }
    if (this.pending) {
      const { slot, indent, sameIndentSeq } = this.pending;
      this.pending = undefined;
      if (spaces > indent || (spaces === indent && sameIndentSeq && dash)) this.open(slot, spaces, dash);
      else put(slot, null);
    }
    let top = this.frames[this.frames.length - 1]!;
    while (spaces < top.indent || (spaces === top.indent && top.seq && !dash)) {
      this.frames.pop();
      top = this.frames[this.frames.length - 1]!;
    }
    if (spaces > top.indent || dash !== top.seq) throw new Unsure();
    if (top.seq) this.item(line, spaces, top);
    else this.entry(line, spaces, top);
  }

  /** A map's entry `key: value` at `at`. */
  private entry(line: string, at: number, map: Frame): void {
    const read = readKey(line, at);
    if (!read) throw new Unsure();
    let from = read.next;
    while (line.charCodeAt(from) === 32) from++;
    const slot: Slot = { shape: map.target && childShape(map.shape, read.key), holder: map.target, key: read.key };
    if (!map.target || slot.shape === undefined) slot.holder = undefined;
    this.value(slot, readValue(line, from), map.indent, true);
  }

  /** A sequence's item `- ...` at `at`: a scalar, a nested block below, or a compact map on the same line. */
  private item(line: string, at: number, seq: Frame): void {
    const itemShape = seq.target && seq.shape !== undefined && seq.shape !== 'leaf' && 'item' in seq.shape ? seq.shape.item : undefined;
    const slot: Slot = { shape: itemShape, holder: itemShape === undefined ? undefined : seq.target, key: '' };
    let from = at + 1;
    while (line.charCodeAt(from) === 32) from++;
    if (isDash(line, from)) throw new Unsure(); // `- - a`
    if (from < line.length && line[from] !== '#' && readKey(line, from)) {
      const map = this.open(slot, from, false);
      this.entry(line, from, map);
      return;
    }
    this.value(slot, readValue(line, from), seq.indent, false);
  }

  /** Puts a single-line value in its slot, or waits for the block below it. */
  private value(slot: Slot, read: ValueRead | undefined, indent: number, sameIndentSeq: boolean): void {
    if (!read) throw new Unsure();
    if (read.kind === 'none') {
      this.pending = { slot, indent, sameIndentSeq };
      return;
    }
    if (read.kind === 'block') this.block = { parent: indent, indent: -1, blankMax: 0 };
    if (slot.shape === undefined) return;
    if (slot.shape === 'leaf') {
      // The fields read (apiVersion, kind, names, images) are kept only when their value is sure.
      if (read.kind === 'text') put(slot, read.text);
      else if (read.kind === 'null') put(slot, null);
      else throw new Unsure();
      return;
    }
    if (read.kind === 'flow') throw new Unsure();
    const isMap = 'fields' in slot.shape;
    if (read.kind === 'emptyMap') put(slot, isMap ? {} : null);
    else if (read.kind === 'emptySeq') put(slot, isMap ? null : []);
    // A scalar where a map or a list is read is, for the readers, nothing.
    else put(slot, null);
  }

  /** A block map or sequence starting at `indent` as the slot's value. */
  private open(slot: Slot, indent: number, seq: boolean): Frame {
    const frame: Frame = { indent, seq, shape: undefined, target: undefined };
    if (slot.shape === 'leaf') throw new Unsure();
    if (slot.shape !== undefined && slot.holder) {
      const fits = seq ? 'item' in slot.shape : 'fields' in slot.shape;
      if (fits) {
        frame.shape = slot.shape;
        frame.target = seq ? [] : {};
      }
      put(slot, fits ? frame.target : null);
    }
    this.frames.push(frame);
    return frame;
  }
}
