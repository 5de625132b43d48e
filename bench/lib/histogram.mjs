// Latency histogram in whole milliseconds: recording is one array increment (no allocation, nothing to sort), and a
// histogram crosses IPC as a short list of [ms, count] pairs. Values past the last bucket are clamped into it.

export function createHistogram(maxMs = 120_000) {
  const buckets = new Uint32Array(maxMs + 1);
  let count = 0;
  return {
    record(ms) {
      buckets[ms < 0 ? 0 : ms > maxMs ? maxMs : Math.round(ms)]++;
      count++;
    },
    get count() {
      return count;
    },
    reset() {
      buckets.fill(0);
      count = 0;
    },
    /** [[ms, count], …] for the non-empty buckets, ascending. */
    toPairs() {
      const pairs = [];
      for (let ms = 0; ms <= maxMs; ms++) if (buckets[ms]) pairs.push([ms, buckets[ms]]);
      return pairs;
    },
  };
}

/** Merges [[ms, count], …] lists (from several processes) into one, ascending. */
export function mergePairs(lists) {
  const merged = new Map();
  for (const pairs of lists) for (const [ms, n] of pairs) merged.set(ms, (merged.get(ms) ?? 0) + n);
  return [...merged].sort((a, b) => a[0] - b[0]);
}

/** The q-quantile (0 < q ≤ 1) of a pair list, in ms; NaN when it is empty. */
export function quantile(pairs, q) {
  const total = pairs.reduce((n, [, c]) => n + c, 0);
  if (total === 0) return NaN;
  const rank = Math.min(total, Math.max(1, Math.ceil(q * total)));
  let seen = 0;
  for (const [ms, n] of pairs) {
    seen += n;
    if (seen >= rank) return ms;
  }
  return pairs.at(-1)[0];
}
