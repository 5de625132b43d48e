// The yardstick of a latency tail: a process that does nothing but wake up every 2 ms, and records how late each
// wake-up came. On a machine the benchmark shares with its database and load generator, a server's p99 can be no
// better than the scheduler lets any process be; this measures that in the same run. Child process (startChild):
// `{ cmd: 'start' }` forgets what it saw; `{ cmd: 'take' }` answers what it saw since (each wake-up's lateness in
// ms, and the time watched) and starts again, for stallSummary (bench/lib/stalls.mjs) to read.
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
  take() {
    const now = performance.now();
    const seen = { late, elapsedMs: now - since };
    late = [];
    since = now;
    return seen;
  },
};
process.on('message', (m) => {
  if (m === 'stop') process.exit(0);
  else if (m && handlers[m.cmd]) process.send({ id: m.id, result: handlers[m.cmd]() });
});
process.send({ ready: true });
