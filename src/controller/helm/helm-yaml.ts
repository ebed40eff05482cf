import { parseDocument, type ScalarTag, type Tags } from 'yaml';
import { isPlainObject, setOwn } from '../../core/release/values.js';

/**
 * YAML read the way helm reads a values file (go-yaml v2 through sigs.k8s.io/yaml, then JSON):
 * YAML 1.1 core types (on/yes/y/off/no/n are booleans, 012 is octal, 0b11 binary, 1_000 an
 * int), merge keys `<<`, and keys turned into their text ("n: 1" is the key "false"). Where the
 * `yaml` package's 1.1 schema goes further than helm, helm wins (each checked against helm 4.2.4):
 * dates and sexagesimal numbers (2001-12-14, 190:20:30) stay strings, 0o17 is octal, !!binary
 * becomes its decoded text, a repeated key keeps its last value, and .inf/.nan or a null key
 * are refused as helm refuses them.
 */

export class HelmYamlError extends Error {
  override name = 'HelmYamlError';
}

const INT = 'tag:yaml.org,2002:int';

/** go-yaml v2 also reads the YAML 1.2 spelling 0o17 as octal. */
const octalWithO: ScalarTag = {
  tag: INT,
  format: 'OCT',
  default: true,
  test: /^[-+]?0o[0-7_]+$/,
  resolve: (str) => {
    const n = parseInt(str.replace(/^[-+]?0o/, '').replace(/_/g, ''), 8);
    return str.startsWith('-') ? -n : n;
  },
};

const binaryAsText: ScalarTag = {
  tag: 'tag:yaml.org,2002:binary',
  default: false,
  resolve: (str) => Buffer.from(str.replace(/\s/g, ''), 'base64').toString('utf8'),
};

function helmTags(tags: Tags): Tags {
  const kept = tags.filter((t) => {
    const tag = typeof t === 'string' ? t : t.tag;
    const format = typeof t === 'string' ? undefined : (t as ScalarTag).format;
    return tag !== 'tag:yaml.org,2002:timestamp' && tag !== 'tag:yaml.org,2002:binary' && format !== 'TIME';
  });
  return [octalWithO, binaryAsText, ...kept];
}

/** Parses one values document as helm would; null for an empty document. */
export function parseHelmYaml(text: string): unknown {
  const doc = parseDocument(text, { version: '1.1', merge: true, customTags: helmTags, uniqueKeys: false });
  const [error] = doc.errors;
  if (error) throw error;
  return toHelmValue(doc.toJS({ mapAsMap: true, maxAliasCount: 100 }), '');
}

/** Map keys become text as helm makes them; numbers that JSON cannot carry are refused. */
function toHelmValue(value: unknown, path: string): unknown {
  // !!set is a map whose values are all null, for helm as for YAML.
  if (value instanceof Set) value = new Map([...value].map((key) => [key, null]));
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of value) {
      if (key === null || key === undefined || typeof key === 'object')
        throw new HelmYamlError(`a map key at ${path || 'the top'} is not a string, number or boolean`);
      const name = String(key);
      setOwn(out, name, toHelmValue(inner, `${path}.${name}`));
    }
    return out;
  }
  if (Array.isArray(value)) return value.map((inner, i) => toHelmValue(inner, `${path}[${i}]`));
  if (typeof value === 'number' && !Number.isFinite(value))
    throw new HelmYamlError(`${path.slice(1) || 'the value'} is ${value}, which helm cannot pass on (values become JSON)`);
  if (isPlainObject(value)) throw new HelmYamlError(`${path.slice(1) || 'the value'} uses a YAML type helmcrew does not pass on (!!omap or !!pairs)`);
  return value;
}
