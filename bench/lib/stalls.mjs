// What a bystander's late wake-ups (bench/lib/bystander.mjs) say about the machine: the p99 of how long work
// arriving at a random moment would have waited for a core (time-weighted: a stall of L ms delays what arrives
// during it by L down to 0, so it weighs by its length) and the longest stall. Several spells of watching are
// joined by passing all their wake-ups and their summed time.
export function stallSummary(late, elapsedMs) {
  const max = late.reduce((a, b) => Math.max(a, b), 0);
  // x with Σ max(0, L − x) = 1% of the time elapsed: the time in which arriving work waits longer than x.
  const waitingLongerThan = (x) => late.reduce((n, l) => n + Math.max(0, l - x), 0);
  let lo = 0;
  let hi = max;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (waitingLongerThan(mid) > 0.01 * elapsedMs) lo = mid;
    else hi = mid;
  }
  return { p99: hi, max, wakeUps: late.length };
}
