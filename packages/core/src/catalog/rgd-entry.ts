import type { DeploymentMode, RevisionCondition } from '@portico/api';
import type { KubeObject } from '../ports/cluster.js';
import { commaList, prefixedValue } from './annotations.js';
import { resourceGraph } from './dependencies.js';
import { contentHash } from './revision-content.js';
import { describeResources } from './resource-descriptions.js';
import type { CatalogEntry } from './types.js';

const allDeploymentModes: DeploymentMode[] = ['direct', 'gitops', 'hybrid'];

/** Whether an RGD object is in the catalog: annotated `<prefix>/catalog: "true"` (portico.dev wins over knodex.io). */
export function isCatalogRgd(rgd: KubeObject): boolean {
  return prefixedValue(rgd.metadata?.annotations, 'catalog')?.trim().toLowerCase() === 'true';
}

/** Milliseconds since the epoch of an RFC 3339 timestamp, undefined when absent or unparseable. */
function epochMs(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** RFC 3339 UTC the way Kubernetes writes it: no fraction unless there is one. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

function parseDeploymentModes(value: string | undefined): DeploymentMode[] {
  if (value === undefined) return [...allDeploymentModes];
  const wanted = new Set(commaList(value).map((m) => m.toLowerCase()));
  const modes = allDeploymentModes.filter((m) => wanted.has(m));
  // Only unknown values: treat as unset rather than making the RGD undeployable.
  return modes.length > 0 ? modes : [...allDeploymentModes];
}

/** `status.conditions` as a revision carries them: a type and a True/False/Unknown status, reason and message when set. */
function revisionConditions(raw: unknown[]): RevisionCondition[] {
  const out: RevisionCondition[] = [];
  for (const c of raw) {
    const { type, status, reason, message } = (c ?? {}) as Record<string, unknown>;
    if (typeof type !== 'string' || (status !== 'True' && status !== 'False' && status !== 'Unknown')) continue;
    out.push({ type, status, ...(typeof reason === 'string' && reason ? { reason } : {}), ...(typeof message === 'string' && message ? { message } : {}) });
  }
  return out;
}

/** `<prefix>/property-order`: a JSON list of field names or a comma list; anything else is ignored. */
function parsePropertyOrder(value: string | undefined): string[] | undefined {
  if (value === undefined || !value.trim()) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    if (Array.isArray(parsed)) return [...new Set(parsed.filter((f): f is string => typeof f === 'string' && f !== ''))];
  } catch {
    // not JSON: a comma list
  }
  const fields = commaList(value);
  return fields.length > 0 ? fields : undefined;
}

const nonEmpty = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
};

/**
 * Builds the catalog's view of a kro ResourceGraphDefinition. Pure and total: a malformed RGD yields an entry with
 * defaults rather than an exception, so one bad object never takes the catalog down.
 */
export function buildCatalogEntry(rgd: KubeObject): CatalogEntry {
  const meta = rgd.metadata ?? { name: '' };
  const annotations = meta.annotations ?? {};
  const labels = { ...(meta.labels ?? {}) };
  const schema = (rgd.spec?.schema ?? {}) as Record<string, unknown>;
  const group = typeof schema.group === 'string' && schema.group ? schema.group : 'kro.run';
  const version = typeof schema.apiVersion === 'string' ? schema.apiVersion : '';
  const kind = typeof schema.kind === 'string' ? schema.kind : '';

  const createdMs = epochMs(meta.creationTimestamp) ?? 0;
  const conditions: unknown[] = Array.isArray(rgd.status?.conditions) ? rgd.status.conditions : [];
  const transitions = conditions.map((c) => epochMs((c as { lastTransitionTime?: unknown })?.lastTransitionTime) ?? 0);
  const updatedMs = epochMs(prefixedValue(annotations, 'updated-at')) ?? Math.max(createdMs, ...transitions);

  const icon = nonEmpty(prefixedValue(annotations, 'icon'));
  const docsUrl = nonEmpty(prefixedValue(annotations, 'docs-url'));
  const project = nonEmpty(prefixedValue(labels, 'project'));
  const state = rgd.status?.state;
  const types = schema.types;
  const order: unknown = rgd.status?.topologicalOrder;
  const updatedBy = nonEmpty(prefixedValue(annotations, 'updated-by'));
  const propertyOrder = parsePropertyOrder(prefixedValue(annotations, 'property-order'));
  const spec = rgd.spec && typeof rgd.spec === 'object' && !Array.isArray(rgd.spec) ? (rgd.spec as Record<string, unknown>) : {};

  return {
    name: meta.name,
    inCatalog: isCatalogRgd(rgd),
    title: nonEmpty(prefixedValue(annotations, 'title')) ?? meta.name,
    description: prefixedValue(annotations, 'description')?.trim() ?? '',
    category: nonEmpty(prefixedValue(annotations, 'category')) ?? 'uncategorized',
    tags: commaList(prefixedValue(annotations, 'tags')),
    ...(icon ? { icon } : {}),
    ...(docsUrl ? { docsUrl } : {}),
    labels,
    ...(project ? { project } : {}),
    group,
    version,
    apiVersion: version ? `${group}/${version}` : group,
    kind,
    extendsKinds: commaList(prefixedValue(annotations, 'extends-kind')),
    allowedDeploymentModes: parseDeploymentModes(prefixedValue(annotations, 'deployment-modes')),
    isClusterScoped: schema.scope === 'Cluster',
    status: typeof state === 'string' && state ? state : 'Inactive',
    createdAt: rfc3339(createdMs),
    updatedAt: rfc3339(updatedMs),
    revision: meta.resourceVersion ?? (meta.generation !== undefined ? `g${meta.generation}` : ''),
    resources: resourceGraph(rgd.spec?.resources),
    graph: describeResources(rgd.spec?.resources),
    topologicalOrder: Array.isArray(order) ? order.filter((id): id is string => typeof id === 'string') : [],
    ...(updatedBy ? { updatedBy } : {}),
    schemaSpec: schema.spec,
    ...(types && typeof types === 'object' && !Array.isArray(types) ? { schemaTypes: types as Record<string, unknown> } : {}),
    ...(propertyOrder ? { propertyOrder } : {}),
    ...(meta.uid ? { uid: meta.uid } : {}),
    ...(typeof meta.generation === 'number' ? { generation: meta.generation } : {}),
    spec,
    specHash: contentHash(spec),
    conditions: revisionConditions(conditions),
    lastIssuedRevision: 0,
  };
}
