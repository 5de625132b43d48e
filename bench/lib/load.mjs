// HTTP load generator for the benchmarks: keep-alive connections, a fixed number of requests in flight, for a
// fixed duration; reports req/s and latency percentiles. Bounded in time and count by construction.
import { Pool } from 'undici';

/**
 * `requests(worker, k)`, when given, names the k-th request of a worker (`{method, path, body?, expectStatus}`),
 * e.g. a write followed by its undo; otherwise every request is a GET of the next of `path`.
 */
export async function load({ url, path, headers = {}, connections = 32, pipelining = 1, durationMs = 5000, warmupMs = 500, expectStatus = 200, requests }) {
  const origin = new URL(url).origin;
  const pool = new Pool(origin, { connections, pipelining, keepAliveTimeout: 10_000 });
  const paths = Array.isArray(path) ? path : [path];
  const latencies = [];
  let done = 0;
  let errors = 0;
  const unexpected = {};
  let measuring = false;
  let stop = false;
  let i = 0;

  async function worker(w) {
    for (let k = 0; !stop; k++) {
      const next = requests ? requests(w, k) : { path: paths[i++ % paths.length] };
      const t0 = performance.now();
      try {
        const res = await pool.request({ method: next.method ?? 'GET', path: next.path, headers, body: next.body });
        await res.body.dump();
        if (res.statusCode !== (next.expectStatus ?? expectStatus)) unexpected[res.statusCode] = (unexpected[res.statusCode] ?? 0) + 1;
      } catch {
        errors++;
      }
      if (measuring) {
        done++;
        latencies.push(performance.now() - t0);
      }
    }
  }

  const workers = Array.from({ length: connections * pipelining }, (_, w) => worker(w));
  await new Promise((r) => setTimeout(r, warmupMs));
  measuring = true;
  const start = performance.now();
  await new Promise((r) => setTimeout(r, durationMs));
  measuring = false;
  const elapsed = (performance.now() - start) / 1000;
  stop = true;
  await Promise.all(workers);
  await pool.close();
  return summarize([{ latencies, elapsed, errors, unexpectedAnswers: unexpected }]);
}

/** The unexpected answers of several measurements, counted by what they were (a status code). */
function unexpectedAnswersOf(parts) {
  const all = {};
  for (const p of parts) for (const [answer, n] of Object.entries(p.unexpectedAnswers)) all[answer] = (all[answer] ?? 0) + n;
  return all;
}

/** The q-quantile of ascending samples; NaN when there are none. */
export const quantileOf = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN);

/** Several measurements of one thing as one: requests over their summed time, percentiles over every latency. */
export function summarize(parts) {
  const latencies = parts.flatMap((p) => p.latencies).sort((a, b) => a - b);
  const elapsed = parts.reduce((sum, p) => sum + p.elapsed, 0);
  const pct = (q) => quantileOf(latencies, q);
  const unexpectedAnswers = unexpectedAnswersOf(parts);
  return {
    rps: latencies.length / elapsed, p50: pct(0.5), p99: pct(0.99), requests: latencies.length, latencies, elapsed,
    errors: parts.reduce((total, p) => total + p.errors, 0),
    unexpected: Object.values(unexpectedAnswers).reduce((a, b) => a + b, 0),
    unexpectedAnswers,
  };
}

/**
 * Open-loop load: request k is due at k / rate seconds, whether or not earlier ones have answered, and its latency
 * counts from that moment (a slow answer delays nobody's clock, so queueing is measured, not hidden). This is what
 * "what does X add to a request" needs: both builds get the very same offered load, unlike a closed loop, where a
 * slower build is also offered less. `requests(k)` names the k-th request; at most `connections` are in flight on
 * the wire (undici queues the rest, which counts as waiting). Requests that name the same `queue` leave one after
 * another, each once the one before it has answered (e.g. an undo after its write).
 */
export async function paced({ url, headers = {}, rate, durationMs = 5000, warmupMs = 1000, connections = 64, requests }) {
  const pool = new Pool(new URL(url).origin, { connections, keepAliveTimeout: 10_000 });
  const lastOfQueue = new Map();
  const send = async (next, before) => {
    await before;
    const res = await pool.request({ method: next.method ?? 'GET', path: next.path, headers, body: next.body });
    await res.body.dump();
    return res.statusCode === (next.expectStatus ?? 200) || res.statusCode;
  };
  try {
    return await pacedCalls({
      rate,
      durationMs,
      warmupMs,
      call: (k) => {
        const next = requests(k);
        if (next.queue === undefined) return send(next);
        const answered = send(next, lastOfQueue.get(next.queue));
        lastOfQueue.set(next.queue, answered.catch(() => undefined));
        return answered;
      },
    });
  } finally {
    await pool.close();
  }
}

/**
 * The open-loop schedule of `paced` around any call: `call(k)` starts the k-th operation at its due time and
 * resolves to `true` when its answer was the expected one, else to what it was (a status code; a rejection counts
 * as an error).
 */
async function pacedCalls({ rate, durationMs = 5000, warmupMs = 1000, call }) {
  const total = Math.round((rate * (warmupMs + durationMs)) / 1000);
  const warmup = Math.round((rate * warmupMs) / 1000);
  const latencies = [];
  let errors = 0;
  const unexpected = {};
  const inFlight = new Set();
  const start = performance.now();
  const one = async (k, due) => {
    // From when it was due, or from when it left if the timer let it leave early: never less than its own time.
    const from = Math.min(due, performance.now());
    try {
      const answer = await call(k);
      if (answer !== true) unexpected[answer] = (unexpected[answer] ?? 0) + 1;
    } catch {
      errors++;
    }
    if (k >= warmup) latencies.push(performance.now() - from);
  };
  for (let k = 0; k < total; k++) {
    const due = start + (k * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const p = one(k, due);
    inFlight.add(p);
    p.finally(() => inFlight.delete(p));
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - start) / 1000;
  return { ...summarize([{ latencies, elapsed, errors, unexpectedAnswers: unexpected }]), offered: rate };
}
