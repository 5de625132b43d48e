/**
 * The dependency graph of an RGD's `spec.resources`, as kro builds it: resource B depends on A when one of
 * B's CEL expressions (`${...}` in template, externalRef, readyWhen, includeWhen, forEach) reads `A.…`.
 */
export interface GraphResource {
  id: string;
  dependsOn: string[];
}

export type GraphResult = { ok: true; order: string[]; resources: GraphResource[] } | { ok: false; message: string };

const expressionsIn = (value: unknown, out: string[] = []): string[] => {
  if (typeof value === 'string') {
    for (const m of value.matchAll(/\$\{([^}]*)\}/g)) out.push(m[1]);
  } else if (Array.isArray(value)) {
    for (const v of value) expressionsIn(v, out);
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) expressionsIn(v, out);
  }
  return out;
};

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function analyseResources(raw: unknown): GraphResult {
  const list = Array.isArray(raw) ? raw : [];
  const ids: string[] = [];
  for (const [i, r] of list.entries()) {
    const id = (r as { id?: unknown })?.id;
    if (typeof id !== 'string' || !/^[A-Za-z][A-Za-z0-9_]*$/.test(id)) return { ok: false, message: `resource #${i} has no valid id` };
    if (ids.includes(id)) return { ok: false, message: `duplicate resource id "${id}"` };
    ids.push(id);
  }
  const resources: GraphResource[] = list.map((r: Record<string, unknown>) => {
    const exprs = expressionsIn([r.template, r.externalRef, r.readyWhen, r.includeWhen, r.forEach]).join('\n');
    const dependsOn = ids.filter((other) => other !== r.id && new RegExp(`(?<![\\w.])${escape(other)}\\.`).test(exprs));
    return { id: r.id as string, dependsOn };
  });
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
