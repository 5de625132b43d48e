import type { IndexedInstance } from '../instances/index-types.js';

/** Where in a spec a string value equals `name`: `spec.db.secretName`, `spec.env[2].value`; at most a few. */
function mentionsIn(value: unknown, name: string, path: string, found: string[]): void {
  if (found.length >= 3) return;
  if (value === name) found.push(path);
  else if (Array.isArray(value)) value.forEach((v, i) => mentionsIn(v, name, `${path}[${i}]`, found));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) mentionsIn(v, name, `${path}.${k}`, found);
}

/**
 * The warnings of deleting a Secret (§11.3 family 2): one per instance of its project, in its namespace (or
 * cluster-scoped), that the caller may see and whose values name the Secret, so the caller learns what may
 * break. Only the instance and the field are named, never a value.
 */
export function secretMentions(instances: Iterable<IndexedInstance>, namespace: string, name: string, visible: (item: IndexedInstance) => boolean): string[] {
  const warnings: string[] = [];
  for (const item of instances) {
    const { instance } = item;
    if (instance.namespace !== namespace && instance.namespace !== '') continue;
    const found: string[] = [];
    mentionsIn(instance.spec, name, 'spec', found);
    if (found.length === 0 || !visible(item)) continue;
    const where = instance.namespace ? `${instance.namespace}/${instance.kind}/${instance.name}` : `${instance.kind}/${instance.name}`;
    warnings.push(`instance ${where} mentions secret "${name}" in ${found.join(', ')}`);
  }
  return warnings.sort();
}
