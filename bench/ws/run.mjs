// bench/ws: live status over WebSocket at scale. 2,000 connected clients across 50 projects (40 developers per
// project, one socket each, subscribed to instances), 1,000 instance status changes; events delivered per second,
// delivery latency (event timestamp → client receive), server RSS. Then the same with 2 server processes on one
// Redis (clients split between them, changes made on the first). Prints a table with a plain node:http
// hello-world measured in the same run as the yardstick. Needs the built packages (`npm run build`) and, for the
// second scenario, Redis at BENCH_REDIS_ADDRESS (127.0.0.1:6379). Bounded: exits after 170 s whatever happens.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { WebSocket } from 'ws';
import { startChild } from '../lib/child.mjs';
import { load } from '../lib/load.mjs';
import { fmt, printTable } from '../lib/table.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const CHANGES = Number(process.env.BENCH_CHANGES ?? 1000);
const CONNECT_BATCH = 200;
/** Changes per second of the paced runs: the latency of a steady flow rather than of a backlog. */
const PACED = Number(process.env.BENCH_PACED ?? 250);
const DRAIN_TIMEOUT_MS = 60_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const watchdog = setTimeout(() => {
  console.error('bench/ws: time limit reached, giving up');
  process.exit(1);
}, 170_000);
watchdog.unref();

/** One client socket; counts instance frames and records their delivery latency. */
function openClient(url, stats) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    socket.on('message', (data) => {
      const received = Date.now();
      const text = data.toString();
      if (text.startsWith('{"type":"subscribed"')) {
        stats.subscribed++;
        return;
      }
      if (!text.startsWith('{"type":"instance_update"') && !text.startsWith('{"type":"deploy_progress"')) return;
      const at = text.indexOf('"timestamp":"');
      const sent = Date.parse(text.slice(at + 13, at + 13 + 24));
      stats.latencies.push(received - sent);
      stats.delivered++;
      stats.lastAt = received;
    });
    socket.once('open', () => resolve(socket));
    socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    socket.once('error', reject);
  });
}

/** Removes what a run left in Redis (event claims), so runs leave no trace. */
async function dropKeys(prefix) {
  const redis = new Redis(process.env.BENCH_REDIS_ADDRESS ?? '127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

async function scenario(replicas, perSecond) {
  const prefix = `portico-bench:${process.pid}:${randomUUID()}:`;
  const env = replicas > 1 ? { BENCH_KV: 'redis', BENCH_REDIS_PREFIX: prefix } : { BENCH_KV: 'memory' };
  const servers = [];
  for (let r = 0; r < replicas; r++) servers.push(startChild(here('./server.mjs'), [], env));
  const infos = await Promise.all(servers.map((s) => s.ready));
  const users = infos[0].users;

  const stats = { delivered: 0, subscribed: 0, latencies: [], lastAt: 0 };
  const sockets = [];
  const t0 = performance.now();
  for (let from = 0; from < users.length; from += CONNECT_BATCH) {
    const batch = users.slice(from, from + CONNECT_BATCH);
    // client i talks to server i % replicas; the ticket comes from that server (any would do: they share the store)
    const byServer = servers.map((_, r) => batch.filter((_, i) => (from + i) % replicas === r));
    const tickets = await Promise.all(servers.map((s, r) => s.request({ cmd: 'tickets', users: byServer[r] })));
    const opened = await Promise.all(
      servers.flatMap((_, r) => tickets[r].map((t) => openClient(`ws://127.0.0.1:${infos[r].port}/ws?ticket=${t}`, stats))),
    );
    sockets.push(...opened);
  }
  const connectMs = performance.now() - t0;
  for (const s of sockets) s.send('{"type":"subscribe","data":{"resourceType":"instances"}}');
  while (stats.subscribed < sockets.length) await sleep(20);
  await sleep(200);
  const idle = await Promise.all(servers.map((s) => s.request({ cmd: 'resetPeak' })));

  const expected = CHANGES * 2 * (users.length / infos[0].projects);
  const start = Date.now();
  const made = await servers[0].request({ cmd: 'changes', count: CHANGES, perSecond });
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  while (stats.delivered < expected && Date.now() < deadline) await sleep(20);
  const elapsedS = (stats.lastAt - start) / 1000;
  const rss = await Promise.all(servers.map((s) => s.request({ cmd: 'rss' })));

  for (const s of sockets) s.terminate();
  await Promise.all(servers.map((s) => s.stop()));
  if (replicas > 1) await dropKeys(prefix);
  stats.latencies.sort((a, b) => a - b);
  const pct = (q) => stats.latencies[Math.min(stats.latencies.length - 1, Math.floor(q * stats.latencies.length))];
  return {
    replicas,
    perSecond,
    clients: sockets.length,
    connectMs,
    changeMs: made.ms,
    expected,
    delivered: stats.delivered,
    perSec: stats.delivered / elapsedS,
    p50: pct(0.5),
    p99: pct(0.99),
    max: stats.latencies.at(-1),
    idleRss: idle.map((r) => r.rss),
    peakRss: rss.map((r) => r.peakRss),
  };
}

const baseline = startChild(here('../lib/baseline.mjs'));
const { port: basePort } = await baseline.ready;
const hello = await load({ url: `http://127.0.0.1:${basePort}`, path: '/', durationMs: 3000, connections: 32 });
await baseline.stop();

console.log(`bench/ws: 2,000 clients across 50 projects, ${fmt(CHANGES)} instance status changes (burst, then paced), 1 then 2 server processes …`);
const results = [await scenario(1), await scenario(1, PACED)];
try {
  results.push(await scenario(2), await scenario(2, PACED));
} catch (error) {
  console.log(`2-replica scenarios skipped: ${error.message} (is Redis running at 127.0.0.1:6379?)`);
}

const mib = (b) => `${fmt(b / 2 ** 20)} MiB`;
printTable(
  `bench/ws — node:http hello-world baseline: ${fmt(hello.rps)} req/s (p50 ${fmt(hello.p50, 2)} ms) in the same run`,
  ['servers', 'changes', 'clients', 'connect all', 'events delivered', 'delivered/s', 'latency p50', 'p99', 'max', 'server RSS idle → peak'],
  results.map((r) => [
    r.replicas === 1 ? '1 (in-memory bus)' : `${r.replicas} (Redis pub/sub)`,
    r.perSecond ? `paced ${fmt(r.perSecond)}/s` : `burst (${fmt(r.changeMs)} ms)`,
    fmt(r.clients),
    `${fmt(r.connectMs)} ms`,
    `${fmt(r.delivered)} / ${fmt(r.expected)}`,
    fmt(r.perSec),
    `${fmt(r.p50)} ms`,
    `${fmt(r.p99)} ms`,
    `${fmt(r.max)} ms`,
    r.idleRss.map((b, i) => `${mib(b)} → ${mib(r.peakRss[i])}`).join(', '),
  ]),
);
console.log(
  'Each status change is one instance_update and one deploy_progress, sent to the 40 sockets of its project and\n' +
    'checked per socket against current policy; latency = client receive time − the event timestamp set where the\n' +
    'event was published (same host clock). A burst writes the changes as fast as the embedded cluster takes\n' +
    'them (its latency is mostly queueing: the backlog drains at the delivered/s rate); a paced run writes them at\n' +
    'a steady rate. delivered/s = events received by all clients / time from the first change to the last event.',
);
if (results.some((r) => r.delivered !== r.expected)) console.log('warning: not every expected event was delivered');
process.exit(0);
