import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { JsonSchemaObject } from './types.js';

export type ValuesResult = { ok: true; value: Record<string, unknown> } | { ok: false; fields: Record<string, string> };

// strict off: compiled schemas carry Kubernetes `x-` keywords ajv does not know.
const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: false, strict: false });
const validators = new WeakMap<object, ValidateFunction>();

const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype']);
/** Deeper than any real spec; stops a hostile body from exhausting the stack. */
const maxDepth = 64;

function validatorFor(schema: JsonSchemaObject): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    // ajv keeps every compiled schema in its own cache; the WeakMap is our cache, so let ajv's go.
    ajv.removeSchema(schema);
    validators.set(schema, validate);
  }
  return validate;
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;
const childPath = (path: string, key: string) => (identifier.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);

/**
 * A deep copy of plain JSON data (so defaults never write into the caller's object) that leaves out
 * prototype-pollution keys and over-deep nesting, recording each as a field error.
 */
function sanitizedCopy(value: unknown, path: string, depth: number, errors: Record<string, string>): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > maxDepth) {
    errors[path] = 'is nested too deeply';
    return undefined;
  }
  if (Array.isArray(value)) return value.map((v, i) => sanitizedCopy(v, `${path}[${i}]`, depth + 1, errors));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (forbiddenKeys.has(key)) {
      errors[childPath(path, key)] = 'is not an allowed field name';
      continue;
    }
    out[key] = sanitizedCopy(v, childPath(path, key), depth + 1, errors);
  }
  return out;
}

/** `/ports/1` → `spec.ports[1]`, walking the data so a map key "1" stays a key and an index stays an index. */
function jsonPath(root: unknown, instancePath: string): { path: string; node: unknown } {
  let path = 'spec';
  let node = root;
  if (!instancePath) return { path, node };
  for (const raw of instancePath.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      path += `[${segment}]`;
      node = node[Number(segment)];
    } else {
      path = childPath(path, segment);
      node = node && typeof node === 'object' ? (node as Record<string, unknown>)[segment] : undefined;
    }
  }
  return { path, node };
}

function describe(error: ErrorObject, root: unknown): [string, string] {
  const { path } = jsonPath(root, error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return [childPath(path, String(params.missingProperty)), 'is required'];
    case 'additionalProperties':
      return [childPath(path, String(params.additionalProperty)), 'unknown field'];
    case 'type':
      return [path, `must be ${String(params.type)}`];
    case 'enum':
      return [path, `must be one of: ${(params.allowedValues as unknown[]).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}`];
    default:
      return [path, error.message ?? 'is invalid'];
  }
}

/**
 * Validates instance values against a compiled RGD schema and applies its defaults (deep: objects whose fields
 * have defaults default to `{}`). Every bad field is listed, keyed by JSON path under `spec`. The caller's object
 * is never modified.
 */
export function validateValues(schema: JsonSchemaObject, values: unknown): ValuesResult {
  const fields: Record<string, string> = {};
  if (values === null || typeof values !== 'object' || Array.isArray(values)) return { ok: false, fields: { spec: 'must be object' } };
  const copy = sanitizedCopy(values, 'spec', 0, fields) as Record<string, unknown>;
  const validate = validatorFor(schema);
  if (!validate(copy)) {
    for (const error of validate.errors ?? []) {
      const [path, message] = describe(error, copy);
      // allErrors may report several keywords for one field; the first is the most basic (type before enum).
      if (!(path in fields)) fields[path] = message;
    }
  }
  return Object.keys(fields).length > 0 ? { ok: false, fields } : { ok: true, value: copy };
}
