import type * as api from '@portico/api';
import type { CatalogEntry } from './types.js';

/** The resource graph of contract §11: `spec.resources` and an edge for every `${…}` reference between them. */
export function graphOf(entry: CatalogEntry): api.RgdGraph {
  const resources = entry.graph.map((r) => ({
    id: r.id,
    apiVersion: r.apiVersion,
    kind: r.kind,
    isTemplate: r.isTemplate,
    isConditional: r.isConditional,
    isCollection: r.isCollection,
    dependsOn: [...r.dependsOn],
    readyWhen: [...r.readyWhen],
    includeWhen: [...r.includeWhen],
  }));
  const edges = entry.graph.flatMap((r) => r.dependsOn.map((from) => ({ from, to: r.id, type: 'reference' as const })));
  return { rgdName: entry.name, rgdNamespace: '', resources, edges };
}
