import { expressionsIn, type KubeObject } from '@portico/core';

type Raw = Record<string, unknown>;
const isRecord = (v: unknown): v is Raw => !!v && typeof v === 'object' && !Array.isArray(v);

/** What `schema.spec.x.y` / `schema.metadata.name` reads in the instance; undefined for anything richer. */
function readSchemaPath(instance: KubeObject, expr: string): { value: unknown } | undefined {
  const m = /^\s*schema\.((?:spec|metadata)(?:\.[A-Za-z_][A-Za-z0-9_-]*)*)\s*$/.exec(expr);
  if (!m) return undefined;
  let value: unknown = instance;
  for (const part of m[1]!.split('.')) value = isRecord(value) ? value[part] : undefined;
  return { value };
}

/**
 * A template value with its `${schema.…}` expressions filled in from the instance: a string that is one
 * expression becomes the value itself (a number, a map of labels), one that embeds some becomes text. Expressions
 * Portico does not evaluate (other resources' fields, functions) are left as written; a policy that reads such a
 * field sees the text, which is as much as is known before kro runs.
 */
function renderValue(value: unknown, instance: KubeObject): unknown {
  if (typeof value === 'string') {
    const exprs = expressionsIn(value);
    if (exprs.length === 0) return value;
    if (exprs.length === 1 && value === `\${${exprs[0]}}`) {
      const read = readSchemaPath(instance, exprs[0]!);
      return read && read.value !== undefined ? read.value : value;
    }
    let text = value;
    for (const expr of exprs) {
      const read = readSchemaPath(instance, expr);
      if (read && (typeof read.value === 'string' || typeof read.value === 'number' || typeof read.value === 'boolean')) text = text.replace(`\${${expr}}`, String(read.value));
    }
    return text;
  }
  if (Array.isArray(value)) return value.map((v) => renderValue(v, instance));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderValue(v, instance)]));
  return value;
}

/** One object kro would create for an instance, with the id of its `spec.resources` entry. */
export interface RenderedResource {
  id: string;
  object: KubeObject;
}

/**
 * The objects kro would create for an instance: each `spec.resources[].template` of its RGD rendered with the
 * instance's values, named and placed as kro would (template name, else `<instance>-<id>`; template namespace,
 * else the instance's). `externalRef`s are read, not created, and `forEach` collections depend on values only
 * kro computes: both are left out; conditional resources (`includeWhen`) are included, since a policy should
 * hold whether or not the condition does.
 */
export function renderResources(rgd: KubeObject, instance: KubeObject): RenderedResource[] {
  const list: unknown[] = Array.isArray(rgd.spec?.resources) ? rgd.spec.resources : [];
  const out: RenderedResource[] = [];
  for (const entry of list) {
    if (!isRecord(entry) || typeof entry.id !== 'string' || !isRecord(entry.template) || entry.forEach !== undefined) continue;
    const rendered = renderValue(entry.template, instance) as Raw;
    const meta = isRecord(rendered.metadata) ? rendered.metadata : {};
    const name = typeof meta.name === 'string' && !meta.name.includes('${') ? meta.name : `${instance.metadata.name}-${entry.id.toLowerCase()}`;
    const namespace = typeof meta.namespace === 'string' && !meta.namespace.includes('${') ? meta.namespace : instance.metadata.namespace;
    const labels = isRecord(meta.labels) ? Object.fromEntries(Object.entries(meta.labels).map(([k, v]) => [k, String(v)])) : {};
    out.push({
      id: entry.id,
      object: {
        ...(rendered as object),
        apiVersion: typeof rendered.apiVersion === 'string' ? rendered.apiVersion : '',
        kind: typeof rendered.kind === 'string' ? rendered.kind : '',
        metadata: { ...meta, name, ...(namespace ? { namespace } : {}), labels },
      } as KubeObject,
    });
  }
  return out;
}
