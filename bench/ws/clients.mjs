// Benchmark child: a share of the WebSocket clients, in its own process so the clients do not compete with each
// other (or with the runner) for one event loop. Kept as cheap per message as an honest client can be: a real
// `ws` client (no UTF-8 validation, no deflate), event frames recognised by one byte, the event timestamp read
// from the bytes after `"timestamp":"` instead of a JSON.parse of every message; latency goes into a histogram,
// and so does each event's arrival time since the round was armed (a burst's "delivered within", which does not
// depend on how early the producer managed to publish).
// IPC: open (urls), subscribe, arm (expected count), await (→ stats once reached or timed out), stop.
import { WebSocket } from 'ws';
import { createHistogram } from '../lib/histogram.mjs';

const OPEN_CONCURRENCY = 100;
const TIMESTAMP = Buffer.from('"timestamp":"');
// Frames are JSON {type, timestamp, data}, so byte 9 is the type's first letter: `{"type":"instance_update"…`.
const TYPE_AT = 9;
const INSTANCE_UPDATE = 'i'.charCodeAt(0);
const DEPLOY_PROGRESS = 'd'.charCodeAt(0);
const SUBSCRIBED = 's'.charCodeAt(0);

const sockets = [];
const latency = createHistogram();
const sinceArmed = createHistogram();
let armedAt = 0;
let delivered = 0;
let firstAt = 0;
let lastAt = 0;
let subscribed = 0;
/** The round in progress: resolves once `expected` events arrived. */
let round;

const digits = (buf, at, n) => {
  let v = 0;
  for (let i = 0; i < n; i++) v = v * 10 + (buf[at + i] - 48);
  return v;
};

/** Epoch ms of the RFC 3339 UTC timestamp (`2026-01-02T03:04:05.678Z`) that starts at `at`, without a string. */
const epochMsAt = (buf, at) =>
  Date.UTC(digits(buf, at, 4), digits(buf, at + 5, 2) - 1, digits(buf, at + 8, 2), digits(buf, at + 11, 2), digits(buf, at + 14, 2), digits(buf, at + 17, 2), digits(buf, at + 20, 3));

function onMessage(data) {
  const type = data[TYPE_AT];
  if (type === INSTANCE_UPDATE || type === DEPLOY_PROGRESS) {
    const received = Date.now();
    const at = data.indexOf(TIMESTAMP, TYPE_AT);
    latency.record(received - epochMsAt(data, at + TIMESTAMP.length));
    sinceArmed.record(received - armedAt);
    if (delivered++ === 0) firstAt = received;
    lastAt = received;
    if (round && delivered >= round.expected) round.done();
  } else if (type === SUBSCRIBED) {
    subscribed++;
  }
}

/** CPU time this process used so far (user + system), µs. */
const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

function open(url) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { perMessageDeflate: false, skipUTF8Validation: true });
    socket.on('message', onMessage);
    socket.once('open', () => resolve(socket));
    socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    socket.once('error', reject);
  });
}

async function openAll(urls) {
  for (let i = 0; i < urls.length; i += OPEN_CONCURRENCY) sockets.push(...(await Promise.all(urls.slice(i, i + OPEN_CONCURRENCY).map(open))));
  return { opened: sockets.length };
}

async function subscribeAll() {
  for (const s of sockets) s.send('{"type":"subscribe","data":{"resourceType":"instances"}}');
  while (subscribed < sockets.length) await new Promise((r) => setTimeout(r, 10));
  return { subscribed };
}

/** Starts counting from zero for a round of `expected` events (answers at once, before any change is made). */
function arm(expected) {
  latency.reset();
  sinceArmed.reset();
  armedAt = Date.now();
  delivered = 0;
  firstAt = lastAt = 0;
  let done;
  const finished = new Promise((resolve) => (done = resolve));
  round = { expected, finished, done: () => done() };
  if (expected === 0) round.done();
  return { armed: expected, cpuUs: cpuUs() };
}

/** Waits for the armed round to complete (or `timeoutMs`), then reports it. */
async function awaitRound(timeoutMs) {
  let timer;
  await Promise.race([round?.finished, new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
  clearTimeout(timer);
  round = undefined;
  return { delivered, firstAt, lastAt, armedAt, latency: latency.toPairs(), sinceArmed: sinceArmed.toPairs(), cpuUs: cpuUs() };
}

process.on('disconnect', () => process.exit(0));
process.on('message', async (m) => {
  if (m === 'stop') {
    for (const s of sockets) s.terminate();
    process.exit(0);
  }
  let result;
  try {
    if (m.cmd === 'open') result = await openAll(m.urls);
    else if (m.cmd === 'subscribe') result = await subscribeAll();
    else if (m.cmd === 'arm') result = arm(m.expected);
    else if (m.cmd === 'await') result = await awaitRound(m.timeoutMs);
    else if (m.cmd === 'rss') result = { rss: process.memoryUsage().rss };
  } catch (error) {
    result = { error: error.message };
  }
  process.send({ id: m.id, result });
});
process.send({ ready: true });
