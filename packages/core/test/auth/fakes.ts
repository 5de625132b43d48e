import { Writable } from 'node:stream';
import type { Actor } from '../../src/actor.js';
import { conflict, notFound, unavailable } from '../../src/errors.js';
import { loadConfig, type PorticoConfig } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { refKey, type Cluster, type KubeObject, type ResourceRef } from '../../src/ports/cluster.js';
import type { KeyValue } from '../../src/ports/keyvalue.js';
import type { Authorizer } from '../../src/types.js';

/** A clock the test moves by hand. */
export const fakeClock = (start = Date.parse('2030-01-01T00:00:00.000Z')) => {
  let t = start;
  const now = () => t;
  now.advance = (ms: number) => {
    t += ms;
  };
  return now;
};

// Yield to other pending work between steps, so concurrent callers really interleave.
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

const mergePatch = (target: unknown, patch: unknown): unknown => {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
};

/** The Cluster port's get/create/patch/delete over a Map, with resourceVersion conflicts. */
export function fakeCluster(): Cluster & { objects: Map<string, KubeObject>; calls: { get: number } } {
  const objects = new Map<string, KubeObject>();
  let version = 0;
  const calls = { get: 0 };
  const key = (ref: ResourceRef, name: string, namespace?: string) => `${refKey(ref)}/${namespace ?? ''}/${name}`;
  const copy = <T>(v: T): T => structuredClone(v);
  return {
    objects,
    calls,
    async list(ref, opts) {
      await tick();
      const prefix = `${refKey(ref)}/`;
      const items = [...objects.entries()]
        .filter(([k, o]) => k.startsWith(prefix) && (!opts?.namespace || o.metadata.namespace === opts.namespace))
        .map(([, o]) => copy(o));
      return { items, resourceVersion: String(version) };
    },
    async get(ref, name, namespace) {
      calls.get++;
      await tick();
      const o = objects.get(key(ref, name, namespace));
      return o && copy(o);
    },
    async create(ref, obj) {
      await tick();
      const k = key(ref, obj.metadata.name, obj.metadata.namespace);
      if (objects.has(k)) throw conflict(`${ref.kind} ${obj.metadata.name} already exists`);
      const stored = copy({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(++version), uid: `uid-${version}` } });
      objects.set(k, stored);
      return copy(stored);
    },
    async patch(ref, name, patch, opts) {
      await tick();
      const k = key(ref, name, opts?.namespace);
      const current = objects.get(k);
      if (!current) throw notFound(ref.kind, name);
      if (opts?.resourceVersion && opts.resourceVersion !== current.metadata.resourceVersion) throw conflict('stale resourceVersion');
      const next = mergePatch(current, patch) as KubeObject;
      next.metadata.resourceVersion = String(++version);
      objects.set(k, next);
      return copy(next);
    },
    async delete(ref, name, namespace) {
      await tick();
      if (!objects.delete(key(ref, name, namespace))) throw notFound(ref.kind, name);
    },
    watch() {
      return { close() {} };
    },
    async discover() {
      return undefined;
    },
    // Serves no kinds of its own beyond what tests store: nothing to discover.
    async apiResources() {
      return [];
    },
    health: () => ({ ok: true }),
    async close() {},
  };
}

/** The KeyValue port over a Map; TTLs follow the given clock. `down` makes every call fail like an outage. */
export function fakeKeyValue(now: () => number = Date.now): KeyValue & { down: boolean; keys(): string[] } {
  const entries = new Map<string, { value: string; expiresAt: number }>();
  const state = { down: false };
  const live = (k: string) => {
    if (state.down) throw unavailable('key-value store');
    const e = entries.get(k);
    if (e && e.expiresAt <= now()) entries.delete(k);
    return entries.get(k);
  };
  const kv = {
    get down() {
      return state.down;
    },
    set down(v: boolean) {
      state.down = v;
    },
    keys: () => [...entries.keys()].filter((k) => live(k)),
    async get(k: string) {
      return live(k)?.value;
    },
    async set(k: string, value: string, opts?: { ttlMs?: number; ifAbsent?: boolean }) {
      if (opts?.ifAbsent && live(k)) return false;
      if (state.down) throw unavailable('key-value store');
      entries.set(k, { value, expiresAt: opts?.ttlMs ? now() + opts.ttlMs : Number.POSITIVE_INFINITY });
      return true;
    },
    async getdel(k: string) {
      const e = live(k);
      entries.delete(k);
      return e?.value;
    },
    async del(k: string) {
      live(k);
      entries.delete(k);
    },
    async compareAndSet() {
      throw new Error('not used by auth');
    },
    async incrWindow() {
      throw new Error('not used by auth');
    },
    async throttle() {
      throw new Error('not used by auth');
    },
    async publish() {},
    async subscribe() {
      return { close() {} };
    },
    async health() {
      return { ok: !state.down };
    },
    async close() {},
  };
  return kv as KeyValue & { down: boolean; keys(): string[] };
}

/** Server Admin = `user:admin` or anyone in `serverAdmins`; project roles from a fixed table. */
export function fakeAuthorizer(opts: { serverAdmins?: string[]; roles?: Record<string, Record<string, string[]>> } = {}): Authorizer {
  const admins = new Set(['user:admin', ...(opts.serverAdmins ?? [])]);
  const roles = opts.roles ?? {};
  const isServerAdmin = (a: Actor) => admins.has(a.subject) || a.groups.some((g) => admins.has(`group:${g}`));
  const rolesIn = (a: Actor, project: string) => roles[a.subject]?.[project] ?? [];
  return {
    can: (a) => isServerAdmin(a),
    isServerAdmin,
    globalRoles: (a) => (isServerAdmin(a) ? ['role:serveradmin'] : []),
    memberProjects: (a) => Object.keys(roles[a.subject] ?? {}).sort(),
    rolesIn,
    // Item-level: every instance is decided with `can`, which is always correct.
    instanceReach: () => 'some',
    ready: async () => {},
    onChange: () => ({ close() {} }),
  };
}

/** A pino logger whose JSON lines land in `lines`. */
export function captureLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger('debug', stream), lines };
}

export const testConfig = (env: Record<string, string> = {}): PorticoConfig =>
  loadConfig({ PORTICO_PROFILE: 'development', PORTICO_NAMESPACE: 'portico-test', ...env });
