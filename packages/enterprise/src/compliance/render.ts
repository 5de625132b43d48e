import { expressionsIn, type KubeObject } from '@portico/core';

type Raw = Record<string, unknown>;
const isRecord = (v: unknown): v is Raw => !!v && typeof v === 'object' && !Array.isArray(v);

/** A template value compiled once per RGD revision: called per instance, it returns the rendered value. */
type Compiled = (instance: KubeObject) => unknown;

/** The path `schema.spec.x.y` / `schema.metadata.name` reads; undefined for anything richer. */
function schemaPath(expr: string): string[] | undefined {
  const m = /^\s*schema\.((?:spec|metadata)(?:\.[A-Za-z_][A-Za-z0-9_-]*)*)\s*$/.exec(expr);
  return m ? m[1]!.split('.') : undefined;
}

const read = (instance: KubeObject, path: readonly string[]): unknown => {
  let value: unknown = instance;
  for (const part of path) value = isRecord(value) ? value[part] : undefined;
  return value;
};

/**
 * A template value with its `${schema.…}` expressions filled in from the instance: a string that is one
 * expression becomes the value itself (a number, a map of labels), one that embeds some becomes text. Expressions
 * Portico does not evaluate (other resources' fields, functions) are left as written; a policy that reads such a
 * field sees the text, which is as much as is known before kro runs. Compiled once per RGD, since an audit renders
 * every instance of it.
 */
function compile(value: unknown): Compiled {
  if (typeof value === 'string') {
    const exprs = expressionsIn(value);
    if (exprs.length === 0) return () => value;
    if (exprs.length === 1 && value === `\${${exprs[0]}}`) {
      const path = schemaPath(exprs[0]!);
      if (!path) return () => value;
      return (instance) => read(instance, path) ?? value;
    }
    const parts = exprs.map((expr) => ({ text: `\${${expr}}`, path: schemaPath(expr) })).filter((p) => p.path);
    if (parts.length === 0) return () => value;
    return (instance) => {
      let text = value;
      for (const part of parts) {
        const v = read(instance, part.path!);
        if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') text = text.replace(part.text, String(v));
      }
      return text;
    };
  }
  if (Array.isArray(value)) {
    const items = value.map(compile);
    return (instance) => items.map((item) => item(instance));
  }
  if (isRecord(value)) {
    const entries = Object.entries(value).map(([k, v]) => [k, compile(v)] as const);
    return (instance) => {
      const out: Raw = {};
      for (const [k, item] of entries) out[k] = item(instance);
      return out;
    };
  }
  return () => value;
}

const compiledRgds = new WeakMap<KubeObject, Array<{ id: string; template: Compiled }>>();

/** The RGD's created resources (templates; not externalRefs, not forEach collections), compiled. */
function templatesOf(rgd: KubeObject) {
  let compiled = compiledRgds.get(rgd);
  if (!compiled) {
    const list: unknown[] = Array.isArray(rgd.spec?.resources) ? rgd.spec.resources : [];
    compiled = list
      .filter((e): e is Raw & { id: string; template: Raw } => isRecord(e) && typeof e.id === 'string' && isRecord(e.template) && e.forEach === undefined)
      .map((e) => ({ id: e.id, template: compile(e.template) }));
    compiledRgds.set(rgd, compiled);
  }
  return compiled;
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
  const out: RenderedResource[] = [];
  for (const entry of templatesOf(rgd)) {
    const rendered = entry.template(instance) as Raw;
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
