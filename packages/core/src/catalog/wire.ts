import type * as api from '@portico/api';
import type { CatalogEntry, JsonSchemaObject } from './types.js';

/** The RGD JSON of contract §3: exactly the wire fields, nothing internal. */
export function toRgd(entry: CatalogEntry, instances: number): api.Rgd {
  return {
    name: entry.name,
    title: entry.title,
    description: entry.description,
    category: entry.category,
    tags: [...entry.tags],
    ...(entry.icon !== undefined ? { icon: entry.icon } : {}),
    ...(entry.docsUrl !== undefined ? { docsUrl: entry.docsUrl } : {}),
    labels: { ...entry.labels },
    apiVersion: entry.apiVersion,
    kind: entry.kind,
    extendsKinds: [...entry.extendsKinds],
    allowedDeploymentModes: [...entry.allowedDeploymentModes],
    isClusterScoped: entry.isClusterScoped,
    status: entry.status,
    instances,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
    lastIssuedRevision: entry.lastIssuedRevision,
  };
}

export function toRgdDetail(entry: CatalogEntry, instances: number, schema: JsonSchemaObject): api.RgdDetail {
  return {
    ...toRgd(entry, instances),
    schema,
    resources: entry.resources.map((r) => ({ ...r, dependsOn: [...r.dependsOn] })),
  };
}

/**
 * The RGD's JSON around its `instances` value, so a list splices in each caller's count without serialising the
 * rest again: `${before}${count}${after}` is exactly JSON.stringify(toRgd(entry, count)).
 */
export function rgdJsonParts(entry: CatalogEntry): [string, string] {
  const text = JSON.stringify(toRgd(entry, 0));
  // Top-level keys are in toRgd's order and string values escape their quotes, so this occurs exactly once.
  const marker = ',"instances":0,"createdAt":';
  const at = text.lastIndexOf(marker);
  return [text.slice(0, at + ',"instances":'.length), text.slice(at + ',"instances":0'.length)];
}
