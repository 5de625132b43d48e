import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a benchmark module in plain JavaScript, without declarations
import { quantileOf } from '../bench/lib/load.mjs';
// @ts-expect-error -- a benchmark module in plain JavaScript, without declarations
import { quantileDifferenceInterval } from '../bench/lib/turn-bootstrap.mjs';

/**
 * bench:audit prints a 90% interval beside each p99 a build adds, from resampling whole turns. A reader decides
 * from it whether the machine can tell 2 ms apart: it must be exact where nothing varies, find a real shift, and
 * widen when a stall falls on one turn.
 */

type Turn = { latencies: number[] };
const interval = (base: Turn[], other: Turn[]): { low: number; high: number } => quantileDifferenceInterval(base, other);

/** Deterministic latencies: 0.5 ms plus exponential noise of mean 0.4 ms, from a fixed seed. */
function turns(count: number, size: number, seed: number, shapes: (turn: number, u: number) => number = () => 0): Turn[] {
  let state = seed;
  const random = () => {
    state = (state * 16807) % 2147483647;
    return state / 2147483647;
  };
  return Array.from({ length: count }, (_, t) => ({ latencies: Array.from({ length: size }, () => 0.5 - Math.log(random()) * 0.4 + shapes(t, random())) }));
}

const p99 = (list: Turn[]) => quantileOf(list.flatMap((t) => t.latencies).sort((a, b) => a - b), 0.99);

describe('the added-p99 interval of bench:audit', () => {
  it('is the exact difference of the p99s when each side has one turn, whatever their sizes', () => {
    const [base] = turns(1, 5000, 7);
    const [other] = turns(1, 137, 11, () => 2);
    const { low, high } = interval([base!], [other!]);
    expect(low).toBe(high);
    expect(low).toBeCloseTo(p99([other!]) - p99([base!]), 12);
  });

  it('holds a shift both sides share in every turn, and not zero', () => {
    const base = turns(8, 4000, 3);
    const shifted = base.map((t) => ({ latencies: t.latencies.map((l) => l + 3) }));
    const { low, high } = interval(base, shifted);
    expect(low).toBeGreaterThan(2);
    expect(low).toBeLessThan(3);
    expect(high).toBeGreaterThan(3);
    expect(high).toBeLessThan(4);
  });

  it('widens when a stall falls on one turn, though the pooled p99s barely differ', () => {
    const quiet = turns(8, 4000, 5);
    // One turn in eight where 3% of the requests waited 20–40 ms more: a stall of the machine during that turn.
    const stalled = turns(8, 4000, 9, (t, u) => (t === 3 && u < 0.03 ? 20 + 20 * u * 33 : 0));
    expect(Math.abs(p99(stalled) - p99(quiet))).toBeLessThan(0.5);
    const calm = interval(quiet, turns(8, 4000, 9));
    const stormy = interval(quiet, stalled);
    expect(calm.high - calm.low).toBeLessThan(0.5);
    expect(stormy.high - stormy.low).toBeGreaterThan(10);
    expect(stormy.low).toBeLessThanOrEqual(0.5);
  });
});
