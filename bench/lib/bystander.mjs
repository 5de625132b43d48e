// The yardstick of a latency tail: a process that does nothing but wake up every 2 ms, and records how late each
// wake-up came. On a machine the benchmark shares with its database and load generator, a server's p99 can be no
// better than the scheduler lets any process be; this measures that in the same run. Child process (startChild):
// `{ cmd: 'start' }` forgets what it saw, `{ cmd: 'read' }` answers, in ms since then, the p99 of how long work
// arriving at a random moment would have waited for a core (time-weighted: a stall of L ms delays what arrives
// during it by L down to 0, so it weighs by its length) and the longest stall.
const periodMs = 2;
let late = [];
let last = performance.now();
let since = last;
setInterval(() => {
  const now = performance.now();
  late.push(Math.max(0, now - last - periodMs));
  last = now;
}, periodMs);

const handlers = {
  start() {
    late = [];
    since = performance.now();
    return true;
  },
  read() {
    const elapsed = performance.now() - since;
    const max = late.reduce((a, b) => Math.max(a, b), 0);
    // x with Σ max(0, L − x) = 1% of the time elapsed: the time in which arriving work waits longer than x.
    const waitingLongerThan = (x) => late.reduce((n, l) => n + Math.max(0, l - x), 0);
    let lo = 0;
    let hi = max;
    for (let i = 0; i < 40; i++) {
      const mid = (lo + hi) / 2;
      if (waitingLongerThan(mid) > 0.01 * elapsed) lo = mid;
      else hi = mid;
    }
    return { p99: hi, max, wakeUps: late.length };
  },
};
process.on('message', (m) => {
  if (m === 'stop') process.exit(0);
  else if (m && handlers[m.cmd]) process.send({ id: m.id, result: handlers[m.cmd]() });
});
process.send({ ready: true });
