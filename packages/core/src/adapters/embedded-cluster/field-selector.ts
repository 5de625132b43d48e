import { badRequest } from '../../errors.js';
import type { KubeObject } from '../../ports/cluster.js';

/** The value at a dotted path (`involvedObject.name`) as the API server compares it: a string, '' when absent. */
function fieldValue(obj: KubeObject, path: string): string {
  let value: unknown = obj;
  for (const part of path.split('.')) {
    if (!value || typeof value !== 'object') return '';
    value = (value as Record<string, unknown>)[part];
  }
  return value === undefined || value === null ? '' : String(value);
}

/**
 * Kubernetes field selectors: `path=value`, `path==value`, `path!=value`, comma-separated and ANDed. The API
 * server supports only a few paths per kind; here any dotted path works, which is a superset.
 */
export function parseFieldSelector(selector: string | undefined): (obj: KubeObject) => boolean {
  if (!selector || !selector.trim()) return () => true;
  const terms = selector.split(',').map((raw) => {
    const m = /^([A-Za-z0-9_.]+)\s*(==|=|!=)\s*(.*)$/.exec(raw.trim());
    if (!m) throw badRequest(`unsupported field selector term "${raw.trim()}"`, { fieldSelector: selector });
    return { path: m[1], negate: m[2] === '!=', value: m[3] };
  });
  return (obj) => terms.every((t) => (fieldValue(obj, t.path) === t.value) !== t.negate);
}
