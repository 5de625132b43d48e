// How far a difference of two builds' p99 can be trusted, when each build's latencies come from a few turns.
// The stalls that make a p99 (a full garbage collection, a slow WAL flush) fall on whole turns, so latencies within
// a turn are not independent draws: the turns are resampled, not the requests (a block bootstrap). Each resample
// picks as many turns as each build ran, with replacement, pools them and takes the difference of the p99s;
// the interval is the middle 90% of those differences. With eight turns a build it is coarse, but it says what one
// figure cannot: whether the machine lets this measurement tell 2 ms apart at all.
import { quantileIndex } from './load.mjs';

/** A small seeded generator (mulberry32): the same latencies give the same interval in every run of the table. */
function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  };
}

/**
 * The q-quantile of pooled turns by the rule `summarize` uses (`quantileIndex`), read from
 * the turns' slowest requests only: each turn keeps its `keep` slowest, descending, which is enough for any pool
 * of these turns (see `tails`).
 */
function pooledQuantile(picked, q) {
  const n = picked.reduce((sum, t) => sum + t.count, 0);
  const fromTop = n - quantileIndex(n, q); // 1 = the slowest
  // Walks the turns' descending tails together (a merge, each pick of a turn on its own cursor) down to the
  // fromTop-th slowest, instead of joining and sorting them for every resample.
  const at = new Array(picked.length).fill(0);
  let value = NaN;
  for (let k = 0; k < fromTop; k++) {
    let next = -1;
    for (let i = 0; i < picked.length; i++) {
      if (at[i] < picked[i].slowest.length && (next < 0 || picked[i].slowest[at[i]] > picked[next].slowest[at[next]])) next = i;
    }
    value = picked[next].slowest[at[next]++];
  }
  return value;
}

/** Each turn's request count and its slowest requests, as many as a pool of `turns` copies of the largest could need. */
function tails(turns, q) {
  const most = Math.max(...turns.map((t) => t.latencies.length));
  const keep = Math.ceil((1 - q) * most * turns.length) + 2;
  return turns.map((t) => ({ count: t.latencies.length, slowest: [...t.latencies].sort((a, b) => b - a).slice(0, keep) }));
}

/**
 * The 90% interval of quantile(other) − quantile(base), resampling whole turns. `base` and `other` are lists of
 * turns, each `{ latencies }` in ms. Returns `{ low, high }` in ms.
 */
export function quantileDifferenceInterval(base, other, { q = 0.99, resamples = 2000, seed = 1 } = {}) {
  const random = seededRandom(seed);
  const [a, b] = [tails(base, q), tails(other, q)];
  const pick = (list) => Array.from(list, () => list[Math.floor(random() * list.length)]);
  const differences = Array.from({ length: resamples }, () => pooledQuantile(pick(b), q) - pooledQuantile(pick(a), q)).sort((x, y) => x - y);
  return { low: differences[Math.floor(0.05 * resamples)], high: differences[Math.ceil(0.95 * resamples) - 1] };
}
