import { badRequest } from '../../errors.js';

type Term = { key: string; op: 'eq' | 'neq' | 'exists' | 'absent'; value?: string };

/**
 * Kubernetes label selectors, equality-based subset: `k=v`, `k==v`, `k!=v`, `k` (exists), `!k` (absent),
 * comma-separated and ANDed. Set-based terms (`in`, `notin`) are rejected rather than misread.
 */
export function parseLabelSelector(selector: string | undefined): (labels: Record<string, string> | undefined) => boolean {
  if (!selector || !selector.trim()) return () => true;
  const terms = selector.split(',').map((raw): Term => {
    const term = raw.trim();
    const m = /^([A-Za-z0-9./_-]+)\s*(==|=|!=)\s*([A-Za-z0-9._-]*)$/.exec(term);
    if (m) return { key: m[1], op: m[2] === '!=' ? 'neq' : 'eq', value: m[3] };
    const exists = /^(!?)([A-Za-z0-9./_-]+)$/.exec(term);
    if (exists) return { key: exists[2], op: exists[1] ? 'absent' : 'exists' };
    throw badRequest(`unsupported label selector term "${term}"`, { labelSelector: selector });
  });
  return (labels = {}) =>
    terms.every((t) => {
      const has = Object.prototype.hasOwnProperty.call(labels, t.key);
      switch (t.op) {
        case 'eq':
          return has && labels[t.key] === t.value;
        case 'neq':
          return !has || labels[t.key] !== t.value;
        case 'exists':
          return has;
        case 'absent':
          return !has;
      }
    });
}
