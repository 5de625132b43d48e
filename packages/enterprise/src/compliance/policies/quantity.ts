const suffixes: Record<string, number> = {
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]?)$/;
/** Quantities seen, parsed: a platform writes the same few (`500m`, `512Mi`) on every container an audit reads. */
const parsed = new Map<string, number | undefined>();
const PARSED_MAX = 10_000;

/** A Kubernetes resource quantity (`500m`, `1.5`, `512Mi`, `1e3`) as a number; undefined when it is not one. */
export function parseQuantity(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  if (parsed.has(value)) return parsed.get(value);
  const m = QUANTITY.exec(value.trim());
  const n = m ? Number(m[1]) * suffixes[m[2]!]! : undefined;
  if (parsed.size >= PARSED_MAX) parsed.clear();
  parsed.set(value, n);
  return n;
}
