import { parseFieldDeclaration, type Marker } from './markers.js';
import type { JsonSchemaObject } from './types.js';

/**
 * kro's simple-schema notation → JSON Schema, following kro's own transformer (pkg/simpleschema): a field is a
 * type string with optional `| key=value` markers, or a nested mapping of fields; custom types come from
 * `spec.schema.types`. Differences from kro, all stricter: unknown types and malformed markers name the field, and
 * defaults are checked against the type, enum, bounds and pattern, so a broken RGD is reported when it is indexed
 * rather than when a user submits a form.
 */

type Atomic = 'string' | 'integer' | 'boolean' | 'number';
const atomicTypes: Record<string, Atomic> = { string: 'string', integer: 'integer', boolean: 'boolean', number: 'number', float: 'number' };

const fieldName = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const typeName = /^[A-Za-z_][A-Za-z0-9_]*$/;
const forbiddenNames = new Set(['__proto__', 'constructor', 'prototype']);

const isMapping = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** An error about notation at `path` (e.g. `spec.ingress.host`). */
const notationError = (path: string, message: string) => new Error(`${path}: ${message}`);

interface Resolved {
  schema: JsonSchemaObject;
  /** A custom type declared with `required=true` makes every field of that type required (as in kro). */
  required: boolean;
}

interface Context {
  types: Record<string, unknown>;
  resolved: Map<string, Resolved>;
  resolving: string[];
}

export function compileSimpleSchema(spec: unknown, types?: Record<string, unknown>): JsonSchemaObject {
  if (types !== undefined && types !== null && !isMapping(types)) throw notationError('types', 'must be a mapping of type names');
  const ctx: Context = { types: types ?? {}, resolved: new Map(), resolving: [] };
  for (const name of Object.keys(ctx.types)) {
    if (!typeName.test(name) || name in atomicTypes || name === 'object') throw notationError(`types.${name}`, 'invalid type name');
  }
  if (spec === undefined || spec === null) return { type: 'object', properties: {}, additionalProperties: false };
  if (!isMapping(spec)) throw notationError('spec', 'must be a mapping of fields');
  // Resolve every custom type, used or not, so a broken one is reported with the RGD.
  for (const name of Object.keys(ctx.types)) resolveType(ctx, name, `types.${name}`);
  const root = compileObject(ctx, spec, 'spec');
  delete root.default; // values are always given as an object; `default: {}` only matters below the root
  return root;
}

/** A nested mapping: a structured object, closed to unknown fields, defaulted to `{}` when a child has a default. */
function compileObject(ctx: Context, fields: Record<string, unknown>, path: string): JsonSchemaObject {
  const properties: Record<string, JsonSchemaObject> = {};
  const required: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    const at = `${path}.${key}`;
    if (!fieldName.test(key) || forbiddenNames.has(key)) throw notationError(at, 'invalid field name');
    let field: Resolved;
    if (typeof value === 'string') field = compileField(ctx, value, at);
    else if (isMapping(value)) field = { schema: compileObject(ctx, value, at), required: false };
    else throw notationError(at, `expected a type string or a mapping of fields, got ${value === null ? 'nothing' : typeof value}`);
    properties[key] = field.schema;
    if (field.required) required.push(key);
  }
  const schema: JsonSchemaObject = { type: 'object', properties, additionalProperties: false };
  if (required.length > 0) schema.required = required;
  // kro gives such objects `default: {}` so the children's defaults apply when the object is omitted.
  if (Object.values(properties).some((p) => p.default !== undefined)) schema.default = {};
  return schema;
}

/** `type | markers` → schema, and whether the field is required. */
function compileField(ctx: Context, text: string, path: string): Resolved {
  let declaration;
  try {
    declaration = parseFieldDeclaration(text);
  } catch (e) {
    throw notationError(path, (e as Error).message);
  }
  const resolved = compileType(ctx, declaration.type, path);
  const required = applyMarkers(resolved.schema, declaration.markers, path);
  return { schema: resolved.schema, required: required ?? resolved.required };
}

/** A type expression: atomic, `object`, `[]T`, `map[string]T` or a custom type. Always a fresh schema object. */
function compileType(ctx: Context, type: string, path: string): Resolved {
  if (type in atomicTypes) return { schema: { type: atomicTypes[type] }, required: false };
  if (type === 'object') return { schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, required: false };
  if (type.startsWith('[]')) {
    const element = type.slice(2).trim();
    if (!element) throw notationError(path, `array type "${type}" has no element type`);
    return { schema: { type: 'array', items: compileType(ctx, element, path).schema }, required: false };
  }
  if (type.startsWith('map[')) {
    const m = /^map\[\s*([^\]]*?)\s*\](.*)$/.exec(type);
    if (!m || !m[2].trim()) throw notationError(path, `malformed map type "${type}" (expected map[string]<type>)`);
    if (m[1] !== 'string') throw notationError(path, `map keys must be string, got "${m[1]}"`);
    return { schema: { type: 'object', additionalProperties: compileType(ctx, m[2].trim(), path).schema }, required: false };
  }
  if (typeName.test(type) && Object.prototype.hasOwnProperty.call(ctx.types, type)) {
    const resolved = resolveType(ctx, type, path);
    return { schema: structuredClone(resolved.schema), required: resolved.required };
  }
  throw notationError(path, `unknown type "${type}"`);
}

function resolveType(ctx: Context, name: string, path: string): Resolved {
  const done = ctx.resolved.get(name);
  if (done) return done;
  if (ctx.resolving.includes(name)) {
    throw notationError(path, `circular type reference ${[...ctx.resolving.slice(ctx.resolving.indexOf(name)), name].join(' -> ')}`);
  }
  ctx.resolving.push(name);
  const definition = ctx.types[name];
  const at = `types.${name}`;
  let resolved: Resolved;
  if (typeof definition === 'string') resolved = compileField(ctx, definition, at);
  else if (isMapping(definition)) resolved = { schema: compileObject(ctx, definition, at), required: false };
  else throw notationError(at, 'must be a type string or a mapping of fields');
  ctx.resolving.pop();
  ctx.resolved.set(name, resolved);
  return resolved;
}

const parseBoolean = (marker: Marker, path: string): boolean => {
  if (marker.value === 'true') return true;
  if (marker.value === 'false') return false;
  throw notationError(path, `${marker.key} must be true or false, got "${marker.value}"`);
};

const parseNumber = (marker: Marker, path: string, integer: boolean): number => {
  const text = marker.value.trim();
  const n = Number(text);
  if (text === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    throw notationError(path, `${marker.key} must be ${integer ? 'an integer' : 'a number'}, got "${marker.value}"`);
  }
  return n;
};

const parseCount = (marker: Marker, path: string): number => {
  const n = parseNumber(marker, path, true);
  if (n < 0) throw notationError(path, `${marker.key} must not be negative`);
  return n;
};

const requireType = (schema: JsonSchemaObject, marker: Marker, path: string, ...types: string[]) => {
  if (!types.includes(schema.type ?? '')) throw notationError(path, `${marker.key} does not apply to type ${schema.type}`);
};

/** A default in the field's own type: `default=3` on integer → 3, `default="x"` → "x", objects and arrays as JSON. */
function typedDefault(schema: JsonSchemaObject, marker: Marker, path: string): unknown {
  switch (schema.type) {
    case 'string':
      return marker.value;
    case 'integer':
      return parseNumber(marker, path, true);
    case 'number':
      return parseNumber(marker, path, false);
    case 'boolean':
      return parseBoolean(marker, path);
    default: {
      let value: unknown;
      try {
        value = JSON.parse(marker.value);
      } catch {
        throw notationError(path, `default must be JSON for type ${schema.type}, got ${JSON.stringify(marker.value)}`);
      }
      const fits = schema.type === 'array' ? Array.isArray(value) : isMapping(value);
      if (!fits) throw notationError(path, `default ${marker.value} is not of type ${schema.type}`);
      return value;
    }
  }
}

function enumValues(schema: JsonSchemaObject, marker: Marker, path: string): unknown[] {
  requireType(schema, marker, path, 'string', 'integer', 'number');
  const items = marker.value.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) throw notationError(path, 'enum values must not be empty');
  if (schema.type === 'string') return items;
  return items.map((value) => parseNumber({ ...marker, value }, path, schema.type === 'integer'));
}

/** Applies markers in place; returns the field's `required` marker (undefined when absent). */
function applyMarkers(schema: JsonSchemaObject, markers: Marker[], path: string): boolean | undefined {
  let required: boolean | undefined;
  for (const marker of markers) {
    switch (marker.key) {
      case 'required':
        required = parseBoolean(marker, path);
        break;
      case 'default':
        schema.default = typedDefault(schema, marker, path);
        break;
      case 'description':
        schema.description = marker.value;
        break;
      case 'enum':
        schema.enum = enumValues(schema, marker, path);
        break;
      case 'minimum':
      case 'maximum':
        requireType(schema, marker, path, 'integer', 'number');
        schema[marker.key] = parseNumber(marker, path, false);
        break;
      case 'minLength':
      case 'maxLength':
        requireType(schema, marker, path, 'string');
        schema[marker.key] = parseCount(marker, path);
        break;
      case 'pattern':
        requireType(schema, marker, path, 'string');
        try {
          new RegExp(marker.value, 'u');
        } catch {
          throw notationError(path, `invalid pattern ${JSON.stringify(marker.value)}`);
        }
        if (marker.value === '') throw notationError(path, 'pattern must not be empty');
        schema.pattern = marker.value;
        break;
      case 'minItems':
      case 'maxItems':
        requireType(schema, marker, path, 'array');
        schema[marker.key] = parseCount(marker, path);
        break;
      case 'uniqueItems':
        requireType(schema, marker, path, 'array');
        if (parseBoolean(marker, path)) schema.uniqueItems = true;
        break;
      case 'immutable':
        if (parseBoolean(marker, path)) schema['x-kubernetes-immutable'] = true;
        break;
      case 'validation':
        // A CEL rule the API server enforces; recorded for forms, not evaluated here.
        if (!marker.value.trim()) throw notationError(path, 'validation must not be empty');
        schema['x-kubernetes-validations'] = [{ rule: marker.value, message: 'validation failed' }];
        break;
      default:
        throw notationError(path, `unknown marker "${marker.key}"`);
    }
  }
  checkDefault(schema, path);
  return required;
}

/** A default that its own field would reject is a notation error (Kubernetes refuses such a CRD too). */
function checkDefault(schema: JsonSchemaObject, path: string): void {
  const value = schema.default;
  if (value === undefined) return;
  const shown = JSON.stringify(value);
  if (schema.enum && !schema.enum.includes(value)) throw notationError(path, `default ${shown} is not one of the enum values`);
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) throw notationError(path, `default ${shown} is below minimum ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) throw notationError(path, `default ${shown} is above maximum ${schema.maximum}`);
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) throw notationError(path, `default ${shown} is shorter than minLength`);
    if (schema.maxLength !== undefined && length > schema.maxLength) throw notationError(path, `default ${shown} is longer than maxLength`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) throw notationError(path, `default ${shown} does not match pattern`);
  }
}
