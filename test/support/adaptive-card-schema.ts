import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { REPO_ROOT } from '../../src/dev/paths.js';

const require = createRequire(import.meta.url);
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const validators = new Map<string, ValidateFunction>();

/**
 * A validator for the Adaptive Card schema of `version`, from the official file vendored under
 * test/support/schemas (see its README). The file is draft-06 but names itself with draft-04's
 * `id`, which ajv 8 refuses as a keyword: it is read as `$id` here, the file left as published.
 */
export function adaptiveCardValidator(version: string): ValidateFunction {
  const hit = validators.get(version);
  if (hit) return hit;
  const file = join(REPO_ROOT, 'test/support/schemas', `adaptive-card-${version}.json`);
  const { id, ...schema } = JSON.parse(readFileSync(file, 'utf8')) as { id: string } & Record<string, unknown>;
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json') as Record<string, unknown>);
  addFormats(ajv);
  const validate = ajv.compile({ $id: id, ...schema });
  validators.set(version, validate);
  return validate;
}
