import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { RequestAttributes } from './kube-rbac.js';

/**
 * A loopback stand-in for kube-apiserver: the REST API (discovery, list, get, create, merge patch, delete,
 * watch) for the resources Portico uses, with Kubernetes semantics — one global resourceVersion, Status error
 * bodies, 409 AlreadyExists / Conflict, finalizers, generation bumps, watch streams with bookmarks and 410
 * Expired — plus controls to break it the ways a real cluster breaks. It is generic: one store keyed by
 * group/version/plural; it knows nothing of Portico beyond which resources exist, and it registers instance
 * kinds when an RGD declares them (as kro does by creating a CRD).
 */

export interface FakeKubeApiOptions {
  /** Bearer token clients must send (default `fake-kube-token`); anything else gets 401. */
  token?: string;
  /** Watch events kept for resuming (default 1,000); older versions answer 410 Expired. */
  historyLimit?: number;
  /** Interval of BOOKMARK events on watches that allow them (default 1 s). */
  bookmarkIntervalMs?: number;
  /** Refuse namespaced creates in a namespace that does not exist, as a real cluster does (default false). */
  requireNamespaces?: boolean;
  /**
   * Serve RGDs and the instance kinds they declare with a /status subresource, as kro's CRDs are (default true).
   * `false` serves them like CRDs without one: an ordinary merge patch writes `status` too. The simulated kro
   * controller needs that, since it writes through the Cluster port, which has no status endpoint.
   */
  statusSubresource?: boolean;
  /** RBAC mode from the start (see `setRbac`). */
  rbac?: FakeRbac;
}

/**
 * RBAC mode: the requests of the clients it applies to are decided as the real API server decides them from the
 * account's bound rules (kube-rbac.ts), and refused with 403 Forbidden otherwise. Other clients (kubectl, kro)
 * are not restricted.
 */
export interface FakeRbac {
  /** Whether a client (its clientConfig name; undefined for the main kubeconfig) is the restricted account. */
  appliesTo(client: string | undefined): boolean;
  allows(request: RequestAttributes): boolean;
  /** The 403 message of a refused request. */
  message(request: RequestAttributes): string;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  query: Record<string, string>;
  /** Status of the answer; 0 while a request is still unanswered. */
  status: number;
  watch: boolean;
  contentType?: string;
  /** The parsed JSON body of POST/PATCH/DELETE. */
  body?: unknown;
  /** The client that sent it (its clientConfig name); absent for the main kubeconfig's token. */
  client?: string;
  /** RBAC mode: what the request asked, for a client the mode applies to (decided or refused). */
  rbac?: RequestAttributes & { allowed: boolean };
}

export interface FakeAdmissionWebhook {
  name: string;
  review(request: { operation: 'CREATE' | 'UPDATE'; resource: ServedResource; object: Record<string, any>; oldObject?: Record<string, any> }): string | undefined;
}

export interface ServedResource {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** Served with a /status subresource: a normal write ignores `status`. */
  statusSubresource: boolean;
}

export interface FakeKubeApi {
  url: string;
  port: number;
  token: string;
  /** Points at this server (plain HTTP, so TLS verification is marked skipped). */
  kubeConfig: KubeConfig;
  /** The same as a kubeconfig file's contents. */
  kubeconfigYaml: string;
  stop(): Promise<void>;
  /** Kills every open watch connection (the client sees a reset connection). */
  dropWatches(): void;
  /** Compacts the watch history: a watch from any version older than the current one gets 410 Expired. */
  expireHistory(): void;
  /**
   * `true` freezes the watch connections open right now: they stay open but send nothing, not even bookmarks
   * (events queue up). Watches opened later are not affected. `false` unfreezes those still open.
   */
  stallWatches(on: boolean): void;
  /** `true` closes the listener and every connection (clients get ECONNREFUSED); `false` listens again on the same port. */
  setDown(on: boolean): Promise<void>;
  /** The next `count` non-watch requests answer `code` (a Status body) instead of being served. */
  failNext(count: number, code?: number): void;
  /** While on, non-watch requests get no answer at all (client timeouts). */
  hangRequests(on: boolean): void;
  /**
   * A validating admission webhook (as OPA Gatekeeper registers one): asked about every create and every update
   * through the main endpoint (not /status), with the object as it would be stored; a returned text refuses the
   * write with 403 `admission webhook "<name>" denied the request: <text>`, the API server's words. `undefined`
   * removes it.
   */
  setAdmissionWebhook(webhook?: FakeAdmissionWebhook): void;
  /**
   * A kubeconfig for another client of this API server (its own token), e.g. Portico beside kubectl and kro, so
   * that `partition` can cut that client off alone.
   */
  clientConfig(name: string): KubeConfig;
  /**
   * `true` cuts the named client off as if the API server were unreachable for it alone: its open watches die
   * and every request it makes has its connection reset. Other clients carry on. `false` heals.
   */
  partition(name: string, on: boolean): void;
  readonly requests: RequestLogEntry[];
  clearRequests(): void;
  openWatchCount(): number;
  /** The current (latest) resourceVersion. */
  resourceVersion(): string;
  /** Turns RBAC mode on with these rules, or off with undefined. */
  setRbac(rbac?: FakeRbac): void;
  served(): ServedResource[];
}

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: Record<string, any> & { name: string; namespace?: string; resourceVersion?: string };
  [key: string]: any;
};

interface HistoryEntry {
  rv: number;
  typeKey: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: Obj;
  /** The object before a MODIFIED, to tell selector-based watchers it entered or left their selection. */
  previous?: Obj;
}

interface Watcher {
  resource: ServedResource;
  namespace?: string;
  selects: (labels?: Record<string, string>) => boolean;
  res: http.ServerResponse;
  /** The bearer token of the client that opened it. */
  token: string;
  stalled: boolean;
  queue: string[];
  timers: NodeJS.Timeout[];
}

class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

const FIRST_RESOURCE_VERSION = 1000;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const BUILTIN: ServedResource[] = [
  { group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false, statusSubresource: true },
  { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true, statusSubresource: false },
  { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, statusSubresource: false },
  { group: '', version: 'v1', kind: 'Event', plural: 'events', namespaced: true, statusSubresource: false },
  { group: 'kro.run', version: 'v1alpha1', kind: 'ResourceGraphDefinition', plural: 'resourcegraphdefinitions', namespaced: false, statusSubresource: true },
  { group: 'portico.dev', version: 'v1alpha1', kind: 'Project', plural: 'projects', namespaced: true, statusSubresource: false },
  { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false, statusSubresource: true },
];

const gvKey = (group: string, version: string) => `${group}/${version}`;
const typeKeyOf = (r: Pick<ServedResource, 'group' | 'version' | 'plural'>) => `${r.group}/${r.version}/${r.plural}`;
const apiVersionOf = (r: Pick<ServedResource, 'group' | 'version'>) => (r.group ? `${r.group}/${r.version}` : r.version);
const objKey = (name: string, namespace?: string) => (namespace ? `${namespace}/${name}` : name);
const qualified = (r: ServedResource) => (r.group ? `${r.plural}.${r.group}` : r.plural);
const clone = <T>(v: T): T => structuredClone(v);
const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
const timestamp = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The plural kro gives a generated CRD: lower-cased kind with English-ish suffix rules. */
export function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  return `${lower}s`;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

/** RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** Label selectors as the API server takes them: `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`. */
function parseSelector(selector: string | null): (labels?: Record<string, string>) => boolean {
  if (!selector?.trim()) return () => true;
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of selector) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      terms.push(current);
      current = '';
    } else current += ch;
  }
  terms.push(current);
  const tests = terms.map((raw) => {
    const term = raw.trim();
    let m = /^([A-Za-z0-9./_-]+)\s*(==|=|!=)\s*([A-Za-z0-9._-]*)$/.exec(term);
    if (m) {
      const [, key, op, value] = m;
      return (l: Record<string, string>) => (op === '!=' ? l[key] !== value : key in l && l[key] === value);
    }
    m = /^([A-Za-z0-9./_-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
    if (m) {
      const [, key, op, list] = m;
      const values = list.split(',').map((v) => v.trim());
      return (l: Record<string, string>) => (op === 'in' ? key in l && values.includes(l[key]) : !(key in l) || !values.includes(l[key]));
    }
    m = /^(!?)([A-Za-z0-9./_-]+)$/.exec(term);
    if (m) {
      const [, not, key] = m;
      return (l: Record<string, string>) => (not ? !(key in l) : key in l);
    }
    throw new ApiError(400, 'BadRequest', `unable to parse requirement: invalid label selector term "${term}"`);
  });
  return (labels = {}) => tests.every((t) => t(labels));
}

/** Field selectors: `a.b=v`, `a.b==v`, `a.b!=v`, ANDed; an absent field compares as ''. */
function parseFieldSelector(selector: string | null): (o: Obj) => boolean {
  if (!selector?.trim()) return () => true;
  const terms = selector.split(',').map((raw) => {
    const m = /^([A-Za-z0-9_.]+)\s*(==|=|!=)\s*(.*)$/.exec(raw.trim());
    if (!m) throw new ApiError(400, 'BadRequest', `unable to parse field selector term "${raw.trim()}"`);
    return { path: m[1].split('.'), negate: m[2] === '!=', value: m[3] };
  });
  const valueAt = (o: Obj, path: string[]) => {
    let v: unknown = o;
    for (const part of path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
    return v === undefined || v === null ? '' : String(v);
  };
  return (o) => terms.every((t) => (valueAt(o, t.path) === t.value) !== t.negate);
}

/** A request in RBAC's words: the verb from the method, the resource from the path (kube-apiserver's RequestInfo). */
function requestAttributes(
  target: { to: string; resource?: ServedResource; namespace?: string; name?: string; subresource?: string },
  method: string,
  watch: boolean,
  path: string,
): RequestAttributes {
  if (target.to !== 'resource' || !target.resource) return { verb: method.toLowerCase(), path };
  const { resource, namespace, name, subresource } = target;
  const verbs: Record<string, string> = { GET: name === undefined ? (watch ? 'watch' : 'list') : 'get', POST: 'create', PATCH: 'patch', PUT: 'update', DELETE: name === undefined ? 'deletecollection' : 'delete' };
  return {
    verb: verbs[method] ?? method.toLowerCase(),
    group: resource.group,
    resource: subresource ? `${resource.plural}/${subresource}` : resource.plural,
    ...(namespace !== undefined && { namespace }),
    ...(name !== undefined && { name }),
  };
}

function statusBody(code: number, reason: string, message: string, details?: Record<string, unknown>) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

export async function startFakeKubeApi(opts: FakeKubeApiOptions = {}): Promise<FakeKubeApi> {
  const token = opts.token ?? 'fake-kube-token';
  const historyLimit = opts.historyLimit ?? 1000;
  const bookmarkIntervalMs = opts.bookmarkIntervalMs ?? 1000;

  // ---- state -------------------------------------------------------------------------------------------
  const served = new Map<string, Map<string, ServedResource>>(); // group/version -> plural -> resource
  const store = new Map<string, Map<string, Obj>>(); // group/version/plural -> namespace/name -> object
  let rv = FIRST_RESOURCE_VERSION;
  let history: HistoryEntry[] = [];
  /** Watches from a version below this answer 410: the events after it are no longer all kept. */
  let compactedRv = FIRST_RESOURCE_VERSION;
  const watchers = new Set<Watcher>();
  const continueTokens = new Map<string, { items: Obj[]; rv: number }>();
  const requests: RequestLogEntry[] = [];
  let failures: { count: number; code: number } = { count: 0, code: 500 };
  let hanging = false;
  let admissionWebhook: FakeAdmissionWebhook | undefined;
  let rbac = opts.rbac;
  const admit = (operation: 'CREATE' | 'UPDATE', resource: ServedResource, object: Obj, oldObject?: Obj) => {
    const denied = admissionWebhook?.review({ operation, resource, object: clone(object), ...(oldObject ? { oldObject: clone(oldObject) } : {}) });
    if (denied !== undefined) throw new ApiError(403, 'Forbidden', `admission webhook "${admissionWebhook!.name}" denied the request: ${denied}`);
  };
  /** Tokens of the clients made with clientConfig, by name. */
  const clientTokens = new Map<string, string>();
  const partitioned = new Set<string>();

  const kroStatusSubresource = opts.statusSubresource ?? true;
  const serve = (r: ServedResource) => {
    let byPlural = served.get(gvKey(r.group, r.version));
    if (!byPlural) served.set(gvKey(r.group, r.version), (byPlural = new Map()));
    if (!byPlural.has(r.plural)) byPlural.set(r.plural, r);
  };
  BUILTIN.map((r) => (r.group === 'kro.run' ? { ...r, statusSubresource: kroStatusSubresource } : r)).forEach(serve);

  const objectsOf = (r: ServedResource) => {
    let objects = store.get(typeKeyOf(r));
    if (!objects) store.set(typeKeyOf(r), (objects = new Map()));
    return objects;
  };

  /** kro creates a CRD for the kind an RGD declares; here the kind is simply served from then on. */
  const registerInstanceKind = (rgd: Obj) => {
    const schema = rgd.spec?.schema;
    if (!isObject(schema) || typeof schema.kind !== 'string' || typeof schema.apiVersion !== 'string') return;
    serve({
      group: typeof schema.group === 'string' && schema.group ? schema.group : 'kro.run',
      version: schema.apiVersion,
      kind: schema.kind,
      plural: pluralOf(schema.kind),
      namespaced: schema.scope !== 'Cluster',
      statusSubresource: kroStatusSubresource,
    });
  };

  /** A CustomResourceDefinition makes its kind served, in every version it declares, as the real API server does. */
  const registerCustomResource = (crd: Obj) => {
    const spec = crd.spec;
    if (!isObject(spec) || !isObject(spec.names) || !Array.isArray(spec.versions)) return;
    for (const version of spec.versions) {
      if (!isObject(version) || typeof version.name !== 'string' || version.served === false) continue;
      serve({
        group: String(spec.group),
        version: version.name,
        kind: String(spec.names.kind),
        plural: String(spec.names.plural),
        namespaced: spec.scope !== 'Cluster',
        statusSubresource: isObject(version.subresources) && 'status' in version.subresources,
      });
    }
  };

  // ---- watch fan-out -----------------------------------------------------------------------------------
  const send = (w: Watcher, event: unknown) => {
    const line = `${JSON.stringify(event)}\n`;
    if (w.stalled) w.queue.push(line);
    else w.res.write(line);
  };

  /** What a watcher sees of a change: label selectors turn entering/leaving the selection into ADDED/DELETED. */
  const eventFor = (w: Watcher, e: HistoryEntry): { type: string; object: Obj } | undefined => {
    if (e.typeKey !== typeKeyOf(w.resource)) return undefined;
    if (w.namespace && e.object.metadata.namespace !== w.namespace) return undefined;
    const now = w.selects(e.object.metadata.labels);
    if (e.type !== 'MODIFIED') return now ? { type: e.type, object: e.object } : undefined;
    const before = e.previous ? w.selects(e.previous.metadata.labels) : false;
    if (now) return { type: before ? 'MODIFIED' : 'ADDED', object: e.object };
    return before ? { type: 'DELETED', object: e.object } : undefined;
  };

  const commit = (r: ServedResource, next: Obj, type: HistoryEntry['type'], previous?: Obj): Obj => {
    rv += 1;
    next.metadata.resourceVersion = String(rv);
    const objects = objectsOf(r);
    const key = objKey(next.metadata.name, next.metadata.namespace);
    if (type === 'DELETED') objects.delete(key);
    else objects.set(key, next);
    const entry: HistoryEntry = { rv, typeKey: typeKeyOf(r), type, object: clone(next), previous: previous && clone(previous) };
    history.push(entry);
    while (history.length > historyLimit) compactedRv = history.shift()!.rv;
    for (const w of watchers) {
      const event = eventFor(w, entry);
      if (event) send(w, event);
    }
    if (r.plural === 'resourcegraphdefinitions' && r.group === 'kro.run' && type !== 'DELETED') registerInstanceKind(next);
    if (r.plural === 'customresourcedefinitions' && r.group === 'apiextensions.k8s.io' && type !== 'DELETED') registerCustomResource(next);
    return clone(next);
  };

  // ---- routing -----------------------------------------------------------------------------------------
  type Route =
    | { to: 'apiVersions' }
    | { to: 'groupList' }
    | { to: 'group'; group: string }
    | { to: 'resourceList'; group: string; version: string }
    | { to: 'resource'; resource: ServedResource; namespace?: string; name?: string; subresource?: string };

  const notFoundPath = () => new ApiError(404, 'NotFound', 'the server could not find the requested resource');

  const route = (pathname: string): Route => {
    const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (parts[0] === 'api') {
      if (parts.length === 1) return { to: 'apiVersions' };
      return routeIn('', parts[1], parts.slice(2));
    }
    if (parts[0] === 'apis') {
      if (parts.length === 1) return { to: 'groupList' };
      if (parts.length === 2) {
        if (![...served.keys()].some((k) => k.startsWith(`${parts[1]}/`))) throw notFoundPath();
        return { to: 'group', group: parts[1] };
      }
      return routeIn(parts[1], parts[2], parts.slice(3));
    }
    throw notFoundPath();
  };

  const routeIn = (group: string, version: string, rest: string[]): Route => {
    const byPlural = served.get(gvKey(group, version));
    if (!byPlural) throw notFoundPath();
    if (rest.length === 0) return { to: 'resourceList', group, version };
    // /namespaces/<ns>/<plural>[/<name>[/<sub>]] unless it is the Namespace object itself (/namespaces/<name>[/status]).
    const nsScoped = rest[0] === 'namespaces' && rest.length >= 3 && byPlural.get(rest[2])?.namespaced;
    const [namespace, plural, name, subresource, extra] = nsScoped ? rest.slice(1) : [undefined, ...rest];
    const resource = plural ? byPlural.get(plural) : undefined;
    if (!resource || extra !== undefined) throw notFoundPath();
    if (subresource !== undefined && (subresource !== 'status' || !resource.statusSubresource)) throw notFoundPath();
    // A namespaced object can only be addressed inside its namespace.
    if (resource.namespaced && name !== undefined && namespace === undefined) throw notFoundPath();
    if (!resource.namespaced && namespace !== undefined) throw notFoundPath();
    return { to: 'resource', resource, namespace, name, subresource };
  };

  // ---- discovery documents -----------------------------------------------------------------------------
  const groups = () => {
    const byGroup = new Map<string, string[]>();
    for (const key of served.keys()) {
      const [group, version] = key.split('/');
      if (!group) continue;
      byGroup.set(group, [...(byGroup.get(group) ?? []), version]);
    }
    return [...byGroup].map(([name, versions]) => ({
      name,
      versions: versions.map((version) => ({ groupVersion: `${name}/${version}`, version })),
      preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] },
    }));
  };

  const resourceList = (group: string, version: string) => ({
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionOf({ group, version }),
    resources: [...served.get(gvKey(group, version))!.values()].flatMap((r) => [
      {
        name: r.plural,
        singularName: r.kind.toLowerCase(),
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      },
      ...(r.statusSubresource ? [{ name: `${r.plural}/status`, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: ['get', 'patch', 'update'] }] : []),
    ]),
  });

  // ---- verbs -------------------------------------------------------------------------------------------
  const find = (r: ServedResource, name: string, namespace?: string) => {
    const found = objectsOf(r).get(objKey(name, namespace));
    if (!found) throw new ApiError(404, 'NotFound', `${qualified(r)} "${name}" not found`, { name, group: r.group, kind: r.plural });
    return found;
  };

  /** Lists leave out apiVersion/kind of built-in items, as the real API server does. */
  const listItem = (r: ServedResource, o: Obj) => {
    if (r.group) return clone(o);
    const { apiVersion: _a, kind: _k, ...rest } = clone(o);
    return rest;
  };

  const list = (r: ServedResource, namespace: string | undefined, query: URLSearchParams) => {
    let items: Obj[];
    let listRv = rv;
    const cont = query.get('continue');
    if (cont) {
      const saved = continueTokens.get(cont);
      continueTokens.delete(cont);
      if (!saved) throw new ApiError(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result.');
      items = saved.items;
      listRv = saved.rv;
    } else {
      const selects = parseSelector(query.get('labelSelector'));
      const fields = parseFieldSelector(query.get('fieldSelector'));
      items = [...objectsOf(r).values()]
        .filter((o) => (!namespace || o.metadata.namespace === namespace) && selects(o.metadata.labels) && fields(o))
        .sort((a, b) => objKey(a.metadata.name, a.metadata.namespace).localeCompare(objKey(b.metadata.name, b.metadata.namespace)))
        .map(clone);
    }
    const limit = Number(query.get('limit') ?? 0);
    const metadata: Record<string, unknown> = { resourceVersion: String(listRv) };
    if (limit > 0 && items.length > limit) {
      const tokenId = randomUUID();
      continueTokens.set(tokenId, { items: items.slice(limit), rv: listRv });
      metadata.continue = tokenId;
      metadata.remainingItemCount = items.length - limit;
      items = items.slice(0, limit);
    }
    return { kind: `${r.kind}List`, apiVersion: apiVersionOf(r), metadata, items: items.map((o) => listItem(r, o)) };
  };

  /** Secrets: `stringData` is a write-only convenience folded into base64 `data`. */
  const foldStringData = (r: ServedResource, o: Obj) => {
    if (r.group || r.plural !== 'secrets') return;
    if (isObject(o.stringData)) {
      o.data = { ...(o.data ?? {}) };
      for (const [k, v] of Object.entries(o.stringData)) o.data[k] = Buffer.from(String(v)).toString('base64');
    }
    delete o.stringData;
    o.type ??= 'Opaque';
  };

  const invalid = (r: ServedResource, name: string, field: string, message: string) =>
    new ApiError(422, 'Invalid', `${r.kind} "${name}" is invalid: ${field}: Invalid value: ${message}`, {
      name,
      group: r.group,
      kind: r.kind,
      causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: ${message}`, field }],
    });

  /** `dryRun` (`?dryRun=All`): every check and the admission webhook, nothing stored, the would-be object back. */
  const create = (r: ServedResource, namespace: string | undefined, body: unknown, dryRun = false): Obj => {
    if (r.namespaced && !namespace) throw notFoundPath();
    if (!isObject(body) || !isObject(body.metadata)) throw new ApiError(400, 'BadRequest', 'the body must be an object with metadata');
    if ((body.apiVersion && body.apiVersion !== apiVersionOf(r)) || (body.kind && body.kind !== r.kind)) {
      throw new ApiError(400, 'BadRequest', `the API version in the data (${body.apiVersion}) does not match the expected API version (${apiVersionOf(r)})`);
    }
    const metadata = body.metadata as Record<string, any>;
    const name = metadata.name || (metadata.generateName ? `${metadata.generateName}${randomUUID().slice(0, 5)}` : '');
    if (!name) throw invalid(r, '', 'metadata.name', 'name or generateName is required');
    const nameRule = r.plural === 'namespaces' ? DNS_LABEL : DNS_SUBDOMAIN;
    if (typeof name !== 'string' || !nameRule.test(name) || name.length > (r.plural === 'namespaces' ? 63 : 253)) {
      throw invalid(r, String(name), 'metadata.name', `"${name}": a lowercase RFC 1123 name must consist of lower case alphanumeric characters, '-' or '.'`);
    }
    if (r.namespaced && metadata.namespace && metadata.namespace !== namespace) {
      throw new ApiError(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
    }
    if (r.namespaced && opts.requireNamespaces && !objectsOf(BUILTIN[0]).has(namespace!)) {
      throw new ApiError(404, 'NotFound', `namespaces "${namespace}" not found`, { name: namespace, kind: 'namespaces' });
    }
    if (objectsOf(r).has(objKey(name, namespace))) {
      throw new ApiError(409, 'AlreadyExists', `${qualified(r)} "${name}" already exists`, { name, group: r.group, kind: r.plural });
    }
    const { resourceVersion: _rv, uid: _uid, creationTimestamp: _ct, deletionTimestamp: _dt, generation: _g, generateName: _gn, namespace: _ns, ...meta } = metadata;
    const obj: Obj = {
      ...clone(body),
      apiVersion: apiVersionOf(r),
      kind: r.kind,
      metadata: { ...clone(meta), name, ...(namespace ? { namespace } : {}), uid: randomUUID(), generation: 1, creationTimestamp: timestamp() },
    };
    if (Array.isArray(obj.metadata.finalizers) && obj.metadata.finalizers.length === 0) delete obj.metadata.finalizers;
    // With a status subresource the main endpoint ignores status; the server initialises some itself.
    if (r.statusSubresource) delete obj.status;
    if (r.plural === 'namespaces' && !r.group) obj.status = { phase: 'Active' };
    foldStringData(r, obj);
    admit('CREATE', r, obj);
    if (dryRun) return obj;
    return commit(r, obj, 'ADDED');
  };

  const SERVER_META = ['name', 'namespace', 'uid', 'creationTimestamp', 'generation', 'deletionTimestamp', 'deletionGracePeriodSeconds'];

  const patch = (r: ServedResource, namespace: string | undefined, name: string, body: unknown, subresource?: string): Obj => {
    if (!isObject(body)) throw new ApiError(400, 'BadRequest', 'a merge patch must be a JSON object');
    const current = find(r, name, namespace);
    const wanted = isObject(body.metadata) ? body.metadata.resourceVersion : undefined;
    if (wanted !== undefined && wanted !== current.metadata.resourceVersion) {
      throw new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${qualified(r)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        { name, group: r.group, kind: r.plural },
      );
    }
    const patched = mergePatch(current, body) as Obj;
    let next: Obj;
    if (subresource === 'status') {
      next = { ...clone(current), status: patched.status };
      if (next.status === undefined) delete next.status;
    } else {
      next = { ...patched, apiVersion: current.apiVersion, kind: current.kind };
      next.metadata = isObject(next.metadata) ? next.metadata : { name };
      for (const field of SERVER_META) {
        if (current.metadata[field] === undefined) delete next.metadata[field];
        else next.metadata[field] = current.metadata[field];
      }
      if (r.statusSubresource) {
        if (current.status === undefined) delete next.status;
        else next.status = clone(current.status);
      }
      if (Array.isArray(next.metadata.finalizers) && next.metadata.finalizers.length === 0) delete next.metadata.finalizers;
      foldStringData(r, next);
      if (!deepEqual(current.spec, next.spec)) next.metadata.generation = (current.metadata.generation ?? 1) + 1;
    }
    next.metadata.resourceVersion = current.metadata.resourceVersion;
    if (deepEqual(current, next)) return clone(current); // a no-op write: no new version, no event
    if (subresource !== 'status') admit('UPDATE', r, next, current);
    if (next.metadata.deletionTimestamp && !next.metadata.finalizers?.length) return commit(r, next, 'DELETED', current);
    return commit(r, next, 'MODIFIED', current);
  };

  const remove = (r: ServedResource, namespace: string | undefined, name: string): Obj => {
    const current = find(r, name, namespace);
    if (current.metadata.deletionTimestamp) return clone(current);
    if (current.metadata.finalizers?.length) {
      const next = clone(current);
      next.metadata.deletionTimestamp = timestamp();
      next.metadata.deletionGracePeriodSeconds = 0;
      return commit(r, next, 'MODIFIED', current);
    }
    return commit(r, clone(current), 'DELETED', current);
  };

  // ---- watch -------------------------------------------------------------------------------------------
  const watch = (r: ServedResource, namespace: string | undefined, query: URLSearchParams, res: http.ServerResponse, entry: RequestLogEntry, clientToken: string) => {
    const selects = parseSelector(query.get('labelSelector'));
    const from = query.get('resourceVersion') ?? '';
    const fromRv = from === '' || from === '0' ? undefined : Number(from);
    if (fromRv !== undefined && !Number.isInteger(fromRv)) throw new ApiError(400, 'BadRequest', `invalid resource version: ${from}`);

    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
    entry.status = 200;
    const w: Watcher = { resource: r, namespace, selects, res, token: clientToken, stalled: false, queue: [], timers: [] };

    if (fromRv !== undefined && fromRv < compactedRv) {
      send(w, { type: 'ERROR', object: statusBody(410, 'Expired', `too old resource version: ${fromRv} (${compactedRv})`) });
      res.end();
      return;
    }
    if (fromRv === undefined) {
      // No version: the current state as synthetic ADDED events, then changes.
      for (const o of objectsOf(r).values()) {
        if ((!namespace || o.metadata.namespace === namespace) && selects(o.metadata.labels)) send(w, { type: 'ADDED', object: clone(o) });
      }
    } else {
      for (const e of history) {
        if (e.rv <= fromRv) continue;
        const event = eventFor(w, e);
        if (event) send(w, event);
      }
    }
    watchers.add(w);
    if (query.get('allowWatchBookmarks') === 'true' || query.get('allowWatchBookmarks') === '1') {
      const timer = setInterval(() => {
        if (!w.stalled) send(w, { type: 'BOOKMARK', object: { kind: r.kind, apiVersion: apiVersionOf(r), metadata: { resourceVersion: String(rv) } } });
      }, bookmarkIntervalMs);
      w.timers.push(timer);
    }
    const timeoutSeconds = Number(query.get('timeoutSeconds') ?? 0);
    if (timeoutSeconds > 0) w.timers.push(setTimeout(() => res.end(), timeoutSeconds * 1000));
    res.on('close', () => {
      watchers.delete(w);
      w.timers.forEach(clearTimeout);
    });
  };

  // ---- HTTP --------------------------------------------------------------------------------------------
  const readJson = (req: http.IncomingMessage, entry: RequestLogEntry): Promise<unknown> =>
    new Promise<unknown>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('error', reject);
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (!text) return resolve(undefined);
        try {
          resolve(JSON.parse(text));
        } catch {
          reject(new ApiError(400, 'BadRequest', 'the request body is not valid JSON'));
        }
      });
    }).then((body) => (entry.body = body));

  const reply = (res: http.ServerResponse, entry: RequestLogEntry, code: number, body: unknown) => {
    entry.status = code;
    res.writeHead(code, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const isWatch = url.searchParams.get('watch') === '1' || url.searchParams.get('watch') === 'true';
    const entry: RequestLogEntry = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status: 0,
      watch: isWatch,
      contentType: req.headers['content-type'],
    };
    requests.push(entry);
    try {
      const authorization = req.headers.authorization ?? '';
      const clientToken = authorization.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : '';
      if (clientToken !== token && ![...clientTokens.values()].includes(clientToken)) throw new ApiError(401, 'Unauthorized', 'Unauthorized');
      const client = [...clientTokens].find(([, t]) => t === clientToken)?.[0];
      if (client) entry.client = client;
      if (partitioned.has(clientToken)) {
        req.socket.destroy(); // what a client behind a broken network sees
        return;
      }
      if (!isWatch && hanging) return; // never answered: the client's timeout must act
      if (!isWatch && failures.count > 0) {
        failures.count -= 1;
        throw new ApiError(failures.code, failures.code === 503 ? 'ServiceUnavailable' : 'InternalError', `injected failure (${failures.code})`);
      }
      const target = route(url.pathname);
      const method = req.method ?? 'GET';
      if (rbac?.appliesTo(client)) {
        const asked = requestAttributes(target, method, isWatch, url.pathname);
        const allowed = rbac.allows(asked);
        entry.rbac = { ...asked, allowed };
        if (!allowed) throw new ApiError(403, 'Forbidden', rbac.message(asked));
      }
      if (target.to !== 'resource') {
        if (method !== 'GET') throw new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`);
        if (target.to === 'apiVersions') return reply(res, entry, 200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
        if (target.to === 'groupList') return reply(res, entry, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups: groups() });
        if (target.to === 'group') return reply(res, entry, 200, { kind: 'APIGroup', apiVersion: 'v1', ...groups().find((g) => g.name === target.group)! });
        return reply(res, entry, 200, resourceList(target.group, target.version));
      }
      const { resource: r, namespace, name, subresource } = target;
      if (name === undefined) {
        if (method === 'GET' && isWatch) return watch(r, namespace, url.searchParams, res, entry, clientToken);
        if (method === 'GET') return reply(res, entry, 200, list(r, namespace, url.searchParams));
        if (method === 'POST') return reply(res, entry, 201, create(r, namespace, await readJson(req, entry), url.searchParams.get('dryRun') === 'All'));
        throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
      }
      if (method === 'GET') return reply(res, entry, 200, clone(find(r, name, namespace)));
      if (method === 'PATCH') {
        const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim();
        if (contentType !== 'application/merge-patch+json') {
          throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/merge-patch+json`);
        }
        return reply(res, entry, 200, patch(r, namespace, name, await readJson(req, entry), subresource));
      }
      if (method === 'DELETE' && !subresource) {
        await readJson(req, entry); // DeleteOptions: accepted, propagation does not matter without owners here
        return reply(res, entry, 200, remove(r, namespace, name));
      }
      throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    } catch (err) {
      if (res.headersSent) return res.destroy();
      const e = err instanceof ApiError ? err : new ApiError(500, 'InternalError', `internal error: ${(err as Error).message}`);
      reply(res, entry, e.code, statusBody(e.code, e.reason, e.message, e.details));
    }
  };

  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => void handle(req, res));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  let down = false;

  const dropWatches = (only?: (w: Watcher) => boolean) => {
    for (const w of [...watchers]) {
      if (only && !only(w)) continue;
      watchers.delete(w);
      w.timers.forEach(clearTimeout);
      w.res.socket?.destroy();
    }
  };

  const closeListener = async () => {
    dropWatches();
    const closing = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closing;
  };

  const kubeconfigFor = (bearer: string) => [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: fake',
    '  cluster:',
    `    server: ${url}`,
    '    insecure-skip-tls-verify: true',
    'users:',
    '- name: fake',
    '  user:',
    `    token: ${bearer}`,
    'contexts:',
    '- name: fake',
    '  context:',
    '    cluster: fake',
    '    user: fake',
    'current-context: fake',
    '',
  ].join('\n');
  const kubeconfigYaml = kubeconfigFor(token);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kubeconfigYaml);

  return {
    url,
    port,
    token,
    kubeConfig,
    kubeconfigYaml,
    async stop() {
      if (!down) await closeListener();
      down = true;
    },
    dropWatches: () => dropWatches(),
    expireHistory() {
      history = [];
      compactedRv = rv;
      continueTokens.clear();
    },
    stallWatches(on) {
      for (const w of watchers) {
        if (on) w.stalled = true;
        else if (w.stalled) {
          w.stalled = false;
          for (const line of w.queue.splice(0)) w.res.write(line);
        }
      }
    },
    async setDown(on) {
      if (on && !down) {
        down = true;
        await closeListener();
      } else if (!on && down) {
        await listen(port);
        down = false;
      }
    },
    failNext(count, code = 500) {
      failures = { count, code };
    },
    hangRequests(on) {
      hanging = on;
    },
    setAdmissionWebhook(webhook) {
      admissionWebhook = webhook;
    },
    clientConfig(name) {
      if (!clientTokens.has(name)) clientTokens.set(name, `${token}-${name}-${randomUUID().slice(0, 8)}`);
      const config = new KubeConfig();
      config.loadFromString(kubeconfigFor(clientTokens.get(name)!));
      return config;
    },
    partition(name, on) {
      const clientToken = clientTokens.get(name);
      if (!clientToken) throw new Error(`no client "${name}": make its kubeconfig with clientConfig first`);
      if (!on) return void partitioned.delete(clientToken);
      partitioned.add(clientToken);
      dropWatches((w) => w.token === clientToken);
    },
    requests,
    clearRequests() {
      requests.length = 0;
    },
    openWatchCount: () => watchers.size,
    resourceVersion: () => String(rv),
    setRbac(next) {
      rbac = next;
    },
    served: () => [...served.values()].flatMap((m) => [...m.values()].map((r) => ({ ...r }))),
  };
}
