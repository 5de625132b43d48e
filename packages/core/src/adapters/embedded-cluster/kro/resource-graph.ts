import { resourceGraph } from '../../../catalog/dependencies.js';

/**
 * The dependency graph of an RGD's `spec.resources`, as kro builds it: resource B depends on A when one of
 * B's CEL expressions (`${...}` in template, externalRef, readyWhen, includeWhen, forEach) reads `A.…`.
 */
interface GraphResource {
  id: string;
  dependsOn: string[];
}

type GraphResult = { ok: true; order: string[]; resources: GraphResource[] } | { ok: false; message: string };

export function analyseResources(raw: unknown): GraphResult {
  const list = Array.isArray(raw) ? raw : [];
  const ids: string[] = [];
  for (const [i, r] of list.entries()) {
    const id = (r as { id?: unknown })?.id;
    if (typeof id !== 'string' || !/^[A-Za-z][A-Za-z0-9_]*$/.test(id)) return { ok: false, message: `resource #${i} has no valid id` };
    if (ids.includes(id)) return { ok: false, message: `duplicate resource id "${id}"` };
    ids.push(id);
  }
  // The catalog reads dependencies exactly as kro does; one CEL reader serves both.
  const resources: GraphResource[] = resourceGraph(list).map(({ id, dependsOn }) => ({ id, dependsOn }));
  const order = topologicalOrder(resources);
  if (!order.ok) return order;
  return { ok: true, order: order.order, resources };
}

/** Kahn's algorithm; ties keep the declared order so the walk is predictable. */
function topologicalOrder(resources: GraphResource[]): { ok: true; order: string[] } | { ok: false; message: string } {
  const pending = new Map(resources.map((r) => [r.id, new Set(r.dependsOn)]));
  const order: string[] = [];
  while (pending.size > 0) {
    const next = [...pending.entries()].find(([, deps]) => deps.size === 0)?.[0];
    if (next === undefined) {
      return { ok: false, message: `cycle detected between resources: ${[...pending.keys()].join(', ')}` };
    }
    order.push(next);
    pending.delete(next);
    for (const deps of pending.values()) deps.delete(next);
  }
  return { ok: true, order };
}
