import type { HelmRelease, ValuesReference } from '../../../api/helmrelease.js';
import type { KubeReads } from '../ports/context.js';
import type { SopsDecrypt } from '../../sops/sops-decrypter.js';
import { decryptionKeys, sopsFormat, type SopsFormat } from '../../sops/sops-document.js';
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

/** What composing values reads through: the sources as the release's identity, and sops for SOPS documents. */
export interface ValuesPorts {
  kube: KubeReads;
  /** Decrypts SOPS documents (spec.decryption); none: such a document is reported, not used. */
  sops?: SopsDecrypt;
}

/**
 * valuesFrom in order, then spec.values on top; a reference with a targetPath puts its one value
 * at that path (Flux's order: spec.values are merged in before it and again at the end, so they
 * still win on the same path). Secret contents are never put in messages:
 * errors name the object and key only, and the Secret's values are returned for redaction.
 * A SOPS document (of a Secret or a ConfigMap) is decrypted in memory first, and its cleartext is
 * secret whichever kind held it.
 */
export async function composeValues(ports: ValuesPorts, release: HelmRelease): Promise<ComposedValues> {
  let values: Record<string, unknown> = {};
  const secrets = new SecretValues();
  const keys = new DecryptionKeyReader(ports.kube, release);
  for (const ref of release.spec.valuesFrom ?? []) {
    let text = await readValuesSource(ports.kube, release.metadata.namespace, ref);
    if (text === undefined) continue;
    // Collected before parsing, so even a Secret that fails to parse is redacted from what follows.
    if (ref.kind === 'Secret') secrets.add(text);
    const format = sopsFormat(text);
    if (format) {
      text = await decryptDocument(ports, keys, release, ref, text, format);
      secrets.add(text);
    }
    const secret = ref.kind === 'Secret' || format !== undefined;
    if (ref.targetPath) {
      values = setAtPath(mergeValues(values, release.spec.values ?? {}), targetPathOf(ref), targetPathValue(text, ref.literal === true));
      continue;
    }
    const parsed = parseValuesText(text, ref);
    if (secret) secrets.addSource(text, parsed);
    values = mergeValues(values, parsed);
  }
  return { values: mergeValues(values, release.spec.values ?? {}), secrets };
}

function describe(release: HelmRelease, ref: ValuesReference): string {
  return `${ref.kind} ${release.metadata.namespace}/${ref.name} key ${ref.valuesKey ?? DEFAULT_VALUES_KEY}`;
}

/**
 * The SOPS document of one valuesFrom entry, decrypted with spec.decryption's keys. Every message
 * names the document (kind, name, key) and the key Secret, never their contents.
 */
async function decryptDocument(
  ports: ValuesPorts,
  keys: DecryptionKeyReader,
  release: HelmRelease,
  ref: ValuesReference,
  text: string,
  format: SopsFormat,
): Promise<string> {
  const where = describe(release, ref);
  const decryption = release.spec.decryption;
  if (!decryption) {
    throw new ValuesError(
      `${where} is SOPS-encrypted and spec.decryption names no key (decryption: {provider: sops, secretRef: {name: <a Secret with a .agekey key>}})`,
    );
  }
  if (!ports.sops) throw new ValuesError(`${where} is SOPS-encrypted and this controller has no sops to decrypt it`);
  const ageKeys = await keys.read(where);
  const outcome = await ports.sops.decrypt(text, format, ageKeys);
  if (!outcome.ok)
    throw new ValuesError(
      `${where} could not be decrypted with the keys of Secret ${release.metadata.namespace}/${decryption.secretRef.name}: ${outcome.reason}`,
    );
  return outcome.cleartext;
}

/** The age keys of spec.decryption.secretRef, read (as the release's identity) once per composition and only when a SOPS document needs them. */
class DecryptionKeyReader {
  private keys?: Promise<string>;

  constructor(
    private readonly kube: KubeReads,
    private readonly release: HelmRelease,
  ) {}

  read(where: string): Promise<string> {
    this.keys ??= this.load();
    return this.keys.catch((error: unknown) => {
      if (error instanceof ValuesError) throw new ValuesError(`${where} cannot be decrypted: ${error.message}`);
      throw error;
    });
  }

  private async load(): Promise<string> {
    const namespace = this.release.metadata.namespace;
    const name = this.release.spec.decryption!.secretRef.name;
    let data: Record<string, string> | undefined;
    try {
      data = (await this.kube.core.readNamespacedSecret({ namespace, name })).data;
    } catch (error) {
      if (isNotFound(error)) throw new ValuesError(`the decryption Secret ${namespace}/${name} was not found`);
      if (isForbidden(error)) throw new ValuesError(`the decryption Secret ${namespace}/${name} may not be read: ${apiErrorMessage(error)}`);
      throw error;
    }
    const { ageKeys, pgpKeyNames } = decryptionKeys(data);
    if (ageKeys) return ageKeys;
    const pgp = pgpKeyNames.length ? ` (only PGP keys: ${pgpKeyNames.join(', ')}; helmcrew decrypts with age)` : '';
    throw new ValuesError(`the decryption Secret ${namespace}/${name} holds no age key (a key ending in .agekey)${pgp}`);
  }
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
