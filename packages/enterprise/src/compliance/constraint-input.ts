import type * as api from '@portico/api/enterprise';
import { validateValues, validationFailed, type KubeObject } from '@portico/core';
import { parametersSchemaOf } from './gatekeeper.js';
import { matchedKindKeys, namespaceMatches } from './match.js';

/** Namespaces a constraint may not be confined to or match through a pattern: the cluster's own and Gatekeeper's. */
export const systemNamespaces = ['kube-system', 'kube-public', 'kube-node-lease', 'gatekeeper-system'];

/** Portico's own namespace when the module is not told it (PORTICO_NAMESPACE's default). */
const DEFAULT_PORTICO_NAMESPACE = 'portico';

/** A constraint's parameters, as JSON: at most this many bytes (§12.5). */
export const MAX_PARAMETERS_BYTES = 64 * 1024;

/**
 * A `match.namespaces` entry as Gatekeeper reads one: a DNS-1123 label, `prefix*` or `*suffix` (the part beside the
 * `*` being what a label can start or end with). Checked as sent: nothing is trimmed or lower-cased first.
 */
const NAMESPACE_ENTRY = /^(?:[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?|[a-z0-9][-a-z0-9]{0,61}\*|\*[-a-z0-9]{0,61}[a-z0-9]|\*)$/;

export interface ConstraintInputOptions {
  /** Portico's own namespace (PORTICO_NAMESPACE), refused like the system ones. */
  porticoNamespace?: string;
}

/**
 * The template's schema as the API server applies a structural schema: an object that lists its properties keeps
 * only those (Kubernetes prunes the rest), so an unknown field is refused here rather than silently dropped there.
 * An object that says `additionalProperties` or `x-kubernetes-preserve-unknown-fields` keeps its own rule.
 */
function closedSchema(schema: unknown, depth = 0): unknown {
  if (depth > 32 || !schema || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const s = schema as Record<string, unknown>;
  const out: Record<string, unknown> = { ...s };
  if (s.properties && typeof s.properties === 'object') {
    out.properties = Object.fromEntries(Object.entries(s.properties as Record<string, unknown>).map(([k, v]) => [k, closedSchema(v, depth + 1)]));
    if (s.additionalProperties === undefined && s['x-kubernetes-preserve-unknown-fields'] !== true) out.additionalProperties = false;
  }
  if (s.items) out.items = Array.isArray(s.items) ? s.items.map((i) => closedSchema(i, depth + 1)) : closedSchema(s.items, depth + 1);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') out.additionalProperties = closedSchema(s.additionalProperties, depth + 1);
  return out;
}

/** What is wrong with one `match.namespaces` / `excludedNamespaces` entry, if anything. */
function namespaceEntryError(entry: string, refused: readonly string[] | undefined): string | undefined {
  if (!NAMESPACE_ENTRY.test(entry)) {
    return 'must be a namespace name (a DNS-1123 label: lower-case letters, digits and "-") or a pattern "prefix*" or "*suffix"';
  }
  if (!refused) return undefined;
  const hit = refused.find((ns) => namespaceMatches(entry, ns));
  if (hit === undefined) return undefined;
  return entry === hit
    ? `must not be a system namespace (${refused.join(', ')})`
    : `must not be a pattern that matches a system namespace ("${entry}" matches "${hit}")`;
}

/**
 * Every reason a new constraint is refused, keyed by JSON path: a match on every kind (no kinds, or a `*` kind),
 * a namespace entry that is not a label or pattern or that could match a system namespace (Portico's own
 * included), parameters that break the template's schema (unknown fields too) or exceed 64 KiB.
 */
export function constraintFieldErrors(body: api.CreateConstraintRequest, template: KubeObject, opts: ConstraintInputOptions = {}): Record<string, string> {
  const fields: Record<string, string> = {};
  const match = body.match;
  if (!match || matchedKindKeys(match).length === 0) fields['match.kinds'] = 'must name the kinds the constraint applies to (a match on all kinds is not allowed)';
  else {
    match.kinds.forEach((k, i) => {
      if (k.kinds.length === 0 || k.kinds.includes('*')) fields[`match.kinds.${i}.kinds`] = 'must name kinds, not all kinds ("*")';
    });
  }
  const refused = [...systemNamespaces, opts.porticoNamespace ?? DEFAULT_PORTICO_NAMESPACE];
  match?.namespaces?.forEach((ns, i) => {
    const error = namespaceEntryError(ns, refused);
    if (error) fields[`match.namespaces.${i}`] = error;
  });
  match?.excludedNamespaces.forEach((ns, i) => {
    // Excluding a system namespace is harmless; only the form is checked.
    const error = namespaceEntryError(ns, undefined);
    if (error) fields[`match.excludedNamespaces.${i}`] = error;
  });

  const parameters = body.parameters ?? {};
  if (Buffer.byteLength(JSON.stringify(parameters), 'utf8') > MAX_PARAMETERS_BYTES) {
    fields.parameters = `must be at most ${MAX_PARAMETERS_BYTES / 1024} KiB of JSON`;
    return fields;
  }
  const schema = parametersSchemaOf(template);
  if (Object.keys(schema).length === 0) {
    // A template without a parameters schema takes none: anything given would be an unknown field.
    for (const key of Object.keys(parameters)) fields[`parameters.${key}`] = 'unknown field (the template takes no parameters)';
    return fields;
  }
  let result: ReturnType<typeof validateValues>;
  try {
    result = validateValues(closedSchema({ type: 'object', ...schema }) as never, parameters);
  } catch {
    result = { ok: true, value: {} } as never; // a schema Portico cannot compile is Gatekeeper's to enforce
  }
  if (!result.ok) for (const [path, message] of Object.entries(result.fields)) fields[path.replace(/^spec/, 'parameters')] = message;
  return fields;
}

export function assertConstraintInput(body: api.CreateConstraintRequest, template: KubeObject, opts: ConstraintInputOptions = {}): void {
  const fields = constraintFieldErrors(body, template, opts);
  const keys = Object.keys(fields);
  if (keys.length > 0) throw validationFailed(fields, `invalid constraint: ${keys.map((k) => `"${k}"`).join(', ')}`);
}
