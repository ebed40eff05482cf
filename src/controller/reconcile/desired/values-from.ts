import type { HelmRelease, ValuesReference } from '../../../api/helmrelease.js';
import type { KubeReads } from '../ports/context.js';
import { apiErrorMessage, isForbidden, isNotFound } from '../../../core/kube/errors.js';
import { HelmYamlError, parseHelmYaml } from '../../helm/helm-yaml.js';
import { SecretValues } from '../../../core/release/secret-values.js';
import { isPlainObject, mergeValues } from '../../../core/release/values.js';
import { parseTargetPath, setAtPath, TargetPathError, targetPathValue } from './target-path.js';

/** Values that cannot be assembled: a missing source, a missing key, or YAML that is not a map. */
export class ValuesError extends Error {
  override name = 'ValuesError';
}

const DEFAULT_VALUES_KEY = 'values.yaml';

export interface ComposedValues {
  values: Record<string, unknown>;
  /** Everything that came from a Secret, to be redacted from helm's output. */
  secrets: SecretValues;
}

/**
 * valuesFrom in order, then spec.values on top; a reference with a targetPath puts its one value
 * at that path (Flux's order: spec.values are merged in before it and again at the end, so they
 * still win on the same path). Secret contents are never put in messages:
 * errors name the object and key only, and the Secret's values are returned for redaction.
 */
export async function composeValues(kube: KubeReads, release: HelmRelease): Promise<ComposedValues> {
  let values: Record<string, unknown> = {};
  const secrets = new SecretValues();
  for (const ref of release.spec.valuesFrom ?? []) {
    const text = await readValuesSource(kube, release.metadata.namespace, ref);
    if (text === undefined) continue;
    // Collected before parsing, so even a Secret that fails to parse is redacted from what follows.
    if (ref.kind === 'Secret') secrets.add(text);
    if (ref.targetPath) {
      values = setAtPath(mergeValues(values, release.spec.values ?? {}), targetPathOf(ref), targetPathValue(text, ref.literal === true));
      continue;
    }
    const parsed = parseValuesText(text, ref);
    if (ref.kind === 'Secret') secrets.addSource(text, parsed);
    values = mergeValues(values, parsed);
  }
  return { values: mergeValues(values, release.spec.values ?? {}), secrets };
}

function targetPathOf(ref: ValuesReference): ReturnType<typeof parseTargetPath> {
  try {
    return parseTargetPath(ref.targetPath!);
  } catch (error) {
    if (error instanceof TargetPathError) throw new ValuesError(`${ref.kind}/${ref.name}: ${error.message}`);
    throw error;
  }
}

/** Parses a valuesFrom document as helm parses a values file (YAML 1.1, merge keys). */
export function parseValuesText(text: string, ref: ValuesReference): Record<string, unknown> {
  return parseValuesDocument(text, `${ref.kind}/${ref.name} key ${ref.valuesKey ?? DEFAULT_VALUES_KEY}`);
}

/**
 * Parses a values document (a valuesFrom key, a chart's values file) as helm does (YAML 1.1);
 * empty is no values, anything but a map is refused; `where` names it in the message.
 */
export function parseValuesDocument(text: string, where: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = parseHelmYaml(text);
  } catch (error) {
    if (error instanceof HelmYamlError) throw new ValuesError(`${where}: ${error.message}`);
    const line = (error as { linePos?: Array<{ line: number }> }).linePos?.[0]?.line;
    throw new ValuesError(`${where} is not valid YAML${line ? ` (line ${line})` : ''}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isPlainObject(parsed)) throw new ValuesError(`${where} must hold a YAML map of values`);
  return parsed;
}

async function readValuesSource(kube: KubeReads, namespace: string, ref: ValuesReference): Promise<string | undefined> {
  const key = ref.valuesKey ?? DEFAULT_VALUES_KEY;
  const missing = (what: string) => {
    if (ref.optional) return undefined;
    throw new ValuesError(`${what} (set optional: true to allow this)`);
  };
  try {
    if (ref.kind === 'ConfigMap') {
      const cm = await kube.core.readNamespacedConfigMap({ namespace, name: ref.name });
      const text = cm.data?.[key];
      return text ?? missing(`ConfigMap ${namespace}/${ref.name} has no key ${key}`);
    }
    const secret = await kube.core.readNamespacedSecret({ namespace, name: ref.name });
    const encoded = secret.data?.[key];
    return encoded !== undefined ? Buffer.from(encoded, 'base64').toString('utf8') : missing(`Secret ${namespace}/${ref.name} has no key ${key}`);
  } catch (error) {
    if (isNotFound(error)) return missing(`${ref.kind} ${namespace}/${ref.name} not found`);
    // Read as the HelmRelease's ServiceAccount when it has one; the API server's message names
    // the user and the object, never its contents.
    if (isForbidden(error)) throw new ValuesError(`${ref.kind} ${namespace}/${ref.name} may not be read: ${apiErrorMessage(error)}`);
    throw error;
  }
}
