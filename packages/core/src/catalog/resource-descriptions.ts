import { expressionsIn, resourceGraph } from './dependencies.js';

/**
 * What the catalog knows about each entry of an RGD's `spec.resources[]`: the facts a resource graph view draws
 * (kind, template or external reference, conditional, collection, dependencies) and the name and namespace
 * templates the instance's child resources are named from.
 */
export interface ResourceDescription {
  id: string;
  /** The template's (or externalRef's) apiVersion and kind; '' when the RGD leaves them out. */
  apiVersion: string;
  kind: string;
  /** kro creates it from a template; false for an `externalRef` (read, never created). */
  isTemplate: boolean;
  /** Has `includeWhen` conditions: created only when they hold. */
  isConditional: boolean;
  /** Has `forEach`: one object per item of a list. */
  isCollection: boolean;
  /** Ids of the resources its `${…}` expressions read, in `spec.resources` order. */
  dependsOn: string[];
  readyWhen: string[];
  includeWhen: string[];
  /** `metadata.name` / `metadata.namespace` of the template, CEL expressions included. */
  nameTemplate?: string;
  namespaceTemplate?: string;
}

type Raw = Record<string, unknown>;
const isRecord = (v: unknown): v is Raw => !!v && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown) => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

export function describeResources(raw: unknown): ResourceDescription[] {
  if (!Array.isArray(raw)) return [];
  const dependsOn = new Map(resourceGraph(raw).map((r) => [r.id, r.dependsOn]));
  const seen = new Set<string>();
  const out: ResourceDescription[] = [];
  for (const r of raw) {
    if (!isRecord(r) || typeof r.id !== 'string' || seen.has(r.id)) continue;
    seen.add(r.id);
    const body = isRecord(r.template) ? r.template : isRecord(r.externalRef) ? r.externalRef : {};
    const meta = isRecord(body.metadata) ? body.metadata : {};
    const includeWhen = strings(r.includeWhen);
    out.push({
      id: r.id,
      apiVersion: text(body.apiVersion),
      kind: text(body.kind),
      isTemplate: isRecord(r.template),
      isConditional: includeWhen.length > 0,
      isCollection: r.forEach !== undefined && r.forEach !== null,
      dependsOn: [...(dependsOn.get(r.id) ?? [])],
      readyWhen: strings(r.readyWhen),
      includeWhen,
      ...(typeof meta.name === 'string' ? { nameTemplate: meta.name } : {}),
      ...(typeof meta.namespace === 'string' ? { namespaceTemplate: meta.namespace } : {}),
    });
  }
  return out;
}

/** What a `schema.…` path reads in an instance object (`schema.spec.name`, `schema.metadata.name`). */
function readPath(instance: Raw, path: string): unknown {
  let value: unknown = instance;
  for (const part of path.split('.')) {
    if (!isRecord(value)) return undefined;
    value = value[part];
  }
  return value;
}

/**
 * A name template with its `${schema.…}` expressions filled in from the instance, the common case of kro names
 * (`${schema.spec.name}-db`). Anything richer (functions, other resources' fields) is not evaluated here:
 * undefined, and the caller falls back to a name of its own.
 */
export function resolveSchemaTemplate(template: string, instance: Raw): string | undefined {
  let result = template;
  for (const expr of expressionsIn(template)) {
    const m = /^\s*schema\.((?:spec|metadata)(?:\.[A-Za-z_][A-Za-z0-9_-]*)+)\s*$/.exec(expr);
    const value = m ? readPath(instance, m[1]) : undefined;
    if (typeof value !== 'string' && typeof value !== 'number') return undefined;
    result = result.replace(`\${${expr}}`, String(value));
  }
  return result;
}

/** Where kro puts the object of one resource of an instance: its template's name and namespace, filled in. */
export function childIdentity(resource: ResourceDescription, instance: Raw): { name: string; namespace: string } {
  const meta = isRecord(instance.metadata) ? instance.metadata : {};
  const instanceName = text(meta.name);
  const name = (resource.nameTemplate && resolveSchemaTemplate(resource.nameTemplate, instance)) || `${instanceName}-${resource.id.toLowerCase()}`;
  const namespace = (resource.namespaceTemplate && resolveSchemaTemplate(resource.namespaceTemplate, instance)) || text(meta.namespace);
  return { name, namespace };
}
