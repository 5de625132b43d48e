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
  };
}

export function toRgdDetail(entry: CatalogEntry, instances: number, schema: JsonSchemaObject): api.RgdDetail {
  return {
    ...toRgd(entry, instances),
    schema,
    resources: entry.resources.map((r) => ({ ...r, dependsOn: [...r.dependsOn] })),
  };
}
