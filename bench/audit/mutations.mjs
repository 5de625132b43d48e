// Mutation load for bench/audit: each connection binds and unbinds users on its own project, back to back,
// so every request is a real write (a Project update) and the OSS and Enterprise runs do exactly the same work.
import { Pool } from 'undici';
import { load, paced, quantileOf } from '../lib/load.mjs';

/** Binds (`bind`) or unbinds user `bench-<user>` to/from `role` of a project: the one mutation both loads make. */
const binding = (project, role, user, bind) => ({
  method: bind ? 'POST' : 'DELETE',
  path: `/api/v1/projects/${project}/roles/${role}/users/bench-${user}`,
  expectStatus: bind ? 201 : 204,
});

/** `users` offsets the users bound, so a run never starts on a binding an earlier run of the same role left behind. */
export const mutationLoad = ({ url, token, projectPrefix, role = 'developer', users = 0, connections = 8, durationMs = 5000, warmupMs = 1000 }) =>
  load({
    url,
    headers: { authorization: `Bearer ${token}` },
    connections,
    durationMs,
    warmupMs,
    requests: (w, k) => binding(`${projectPrefix}${w}`, role, users + (Math.floor(k / 2) % 50), k % 2 === 0),
  });

/**
 * The same bind+unbind mutations offered at a fixed rate (open loop) over `projects` projects: request k works on
 * project k mod projects, binding a user on one pass and unbinding it on the next. Requests on one project leave
 * in turn (`queue`): they are projects / rate seconds apart, but during a stall an unbind could otherwise overtake
 * its bind and answer 404. A request held so still counts its latency from when it was due.
 */
export const pacedMutations = ({ url, token, projectPrefix, projects, rate, role = 'developer', durationMs = 5000, warmupMs = 1000 }) =>
  paced({
    url,
    headers: { authorization: `Bearer ${token}` },
    rate,
    durationMs,
    warmupMs,
    connections: projects,
    requests: (k) => {
      const pass = Math.floor(k / projects);
      return { ...binding(`${projectPrefix}${k % projects}`, role, Math.floor(pass / 2) % 50, pass % 2 === 0), queue: k % projects };
    },
  });

/** Sequential GETs (one in flight, like a person paging a UI); latency percentiles. */
export async function sequentialGets({ url, token, paths, count = 300, warmup = 30 }) {
  const pool = new Pool(new URL(url).origin, { connections: 1 });
  const headers = { authorization: `Bearer ${token}` };
  const latencies = [];
  let unexpected = 0;
  for (let i = 0; i < warmup + count; i++) {
    const t0 = performance.now();
    const res = await pool.request({ method: 'GET', path: paths[i % paths.length], headers });
    await res.body.dump();
    if (res.statusCode !== 200) unexpected++;
    if (i >= warmup) latencies.push(performance.now() - t0);
  }
  await pool.close();
  latencies.sort((a, b) => a - b);
  return { p50: quantileOf(latencies, 0.5), p99: quantileOf(latencies, 0.99), unexpected };
}

/** Reads one streamed response to the end, counting bytes and lines; the body is discarded as it arrives. */
export async function drain({ url, token, path }) {
  const pool = new Pool(new URL(url).origin, { connections: 1 });
  const t0 = performance.now();
  const res = await pool.request({ method: 'GET', path, headers: { authorization: `Bearer ${token}` } });
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body) {
    bytes += chunk.length;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  }
  const seconds = (performance.now() - t0) / 1000;
  await pool.close();
  return { status: res.statusCode, disposition: res.headers['content-disposition'], bytes, lines, seconds };
}
