import {
  childIdentity, destinationAllows, isNamespacePattern,
  type CatalogEntry, type Disposable, type IndexChange, type IndexedInstance, type InformerView, type KubeObject,
} from '@portico/core';
import { groupOf } from './match.js';
import type { ViolatingResource } from './violation-changes.js';

/** The project and RBAC object a violating resource belongs to (its instance's, when one owns it). */
export interface ResourceOwner {
  project?: string;
  /** The owning instance's RBAC object (`instances/<p>/<ns>/<kind>/<name>`): who may `get` it may see the violation. */
  object?: string;
}

/**
 * Which project a violation belongs to (§12.5): the project of the instance it was found on (its
 * `portico.dev/project` label), or, for a child resource, of the instance that owns it, never whichever project
 * lists the namespace. Only a resource no Portico instance owns (or one without a project label) falls back to
 * the namespace: the project that names it exactly, else the first by name whose pattern (`payments-*`, `*`)
 * covers it.
 */
export interface ProjectsByNamespace {
  projectOf(namespace: string): string | undefined;
  /** The owner of a violating resource: by its instance, else by its namespace (see above). */
  ownerOf(resource: ViolatingResource): ResourceOwner;
  /** Runs after a Project's destinations or an instance's project or children changed. */
  onChange(listener: () => void): Disposable;
  /** Stops listening; the Projects and instances themselves are Portico's to stop. */
  stop(): void;
}

/** Portico's instances (the instance index) and the catalog their children come from. */
export interface InstanceOwners {
  instances: {
    all(): Iterable<IndexedInstance>;
    onChange(listener: (change: IndexChange) => void): Disposable;
    /** A kind's first list comes in without per-instance changes (a kind that joined the catalog later). */
    onKindIndexed(listener: () => void): Disposable;
  };
  catalog: { entry(name: string): CatalogEntry | undefined };
}

const resourceKey = (group: string, kind: string, namespace: string, name: string) => `${group}/${kind}/${namespace}/${name}`;

/**
 * The resources each instance stands for, as violations name them: the instance itself and the objects kro
 * makes from its RGD's templates (their names and namespaces resolved from the instance, as kro resolves them).
 */
function keysOf(item: IndexedInstance, catalog: InstanceOwners['catalog']): string[] {
  const { object } = item;
  const namespace = object.metadata.namespace ?? '';
  const keys = [resourceKey(groupOf(object.apiVersion), object.kind, namespace, object.metadata.name)];
  const entry = catalog.entry(item.instance.rgdName);
  for (const resource of entry?.graph ?? []) {
    if (!resource.isTemplate || !resource.kind) continue;
    const child = childIdentity(resource, object);
    const group = groupOf(resource.apiVersion);
    keys.push(resourceKey(group, resource.kind, child.namespace, child.name));
    // A Namespace is cluster-scoped whatever the instance's namespace: violations name it without one.
    if (group === '' && resource.kind === 'Namespace') keys.push(resourceKey('', 'Namespace', '', child.name));
  }
  return keys;
}

/** Resource key → the instances that stand for it, kept up to date from the instance index's changes. */
function createOwnerIndex(owners: InstanceOwners, changed: () => void) {
  const byKey = new Map<string, Map<string, IndexedInstance>>();
  const keysById = new Map<string, string[]>();
  const add = (item: IndexedInstance) => {
    const keys = keysOf(item, owners.catalog);
    keysById.set(item.id, keys);
    for (const key of keys) {
      let holders = byKey.get(key);
      if (!holders) byKey.set(key, (holders = new Map()));
      holders.set(item.id, item);
    }
    return keys;
  };
  const remove = (id: string) => {
    for (const key of keysById.get(id) ?? []) {
      const holders = byKey.get(key);
      holders?.delete(id);
      if (holders?.size === 0) byKey.delete(key);
    }
    keysById.delete(id);
  };
  const addAll = () => {
    for (const item of owners.instances.all()) if (!keysById.has(item.id)) add(item);
  };
  addAll();
  const joined = owners.instances.onKindIndexed(() => {
    addAll();
    changed();
  });
  const subscription = owners.instances.onChange((change) => {
    const before = keysById.get(change.current.id) ?? [];
    remove(change.current.id);
    const after = change.action === 'delete' ? [] : add(change.current);
    // A status change moves nothing: only a new or gone instance, another project or other children do.
    const moved =
      change.action !== 'update' || change.previous?.project !== change.current.project || change.previous?.rbacObject !== change.current.rbacObject ||
      before.length !== after.length || before.some((k, i) => k !== after[i]);
    if (moved) changed();
  });
  return {
    /** The instance standing for a resource; undefined when none does, null when instances of different projects do. */
    ownerOf(r: ViolatingResource): IndexedInstance | null | undefined {
      const holders = byKey.get(resourceKey(r.apiGroup, r.kind, r.namespace, r.name));
      if (!holders || holders.size === 0) return undefined;
      const [first, ...rest] = holders.values();
      return rest.every((h) => h.project === first!.project) ? first : null;
    },
    stop() {
      subscription.close();
      joined.close();
    },
  };
}

const destinationsOf = (project: KubeObject) => (Array.isArray(project.spec?.destinations) ? project.spec.destinations : []);
/** The namespace names or patterns a Project's destinations give, ignoring malformed entries. */
const namespacesOf = (project: KubeObject): string[] =>
  destinationsOf(project).flatMap((d: { namespace?: unknown }) => (typeof d?.namespace === 'string' ? [d.namespace] : []));
const destinationsKey = (project: KubeObject) => JSON.stringify(destinationsOf(project));

/**
 * Over the Projects Portico itself reads (`portico.projectObjects`, its own namespace): a Project object anywhere
 * else is none of Portico's and claims nothing, and no second watch on Projects is opened.
 */
export function createProjectsByNamespace(projects: InformerView, owners?: InstanceOwners): ProjectsByNamespace {
  let memo = new Map<string, string | undefined>();
  // Worked out once per change of destinations, not per namespace asked: after a change every violation's namespace
  // is asked again, and sorting every Project for each of them blocked the event loop for 0.2 s at 1,000 projects.
  let ordered: { exact: Map<string, string>; patterned: KubeObject[] } | undefined;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  const instanceOwners = owners && createOwnerIndex(owners, notify);
  // Only destinations decide which project a namespace belongs to: a change of roles or bindings (the common
  // write to a Project) leaves every answer as it was, and re-deriving every violation's project for it would
  // cost each member change a walk over all violations in force.
  const subscription = projects.on((event) => {
    if (event.type === 'MODIFIED' && event.previous && destinationsKey(event.previous) === destinationsKey(event.object)) return;
    memo = new Map();
    ordered = undefined;
    notify();
  });
  const order = () => {
    const byName = projects.list().sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    const exact = new Map<string, string>();
    for (const p of byName) {
      for (const ns of namespacesOf(p)) if (!isNamespacePattern(ns) && !exact.has(ns)) exact.set(ns, p.metadata.name);
    }
    // Exact names are all in the map: only Projects with a pattern can still cover a namespace it misses.
    const patterned = byName.filter((p) => namespacesOf(p).some(isNamespacePattern));
    return { exact, patterned };
  };
  const lookup = (namespace: string): string | undefined => {
    ordered ??= order();
    return ordered.exact.get(namespace) ?? ordered.patterned.find((p) => destinationAllows(destinationsOf(p), namespace))?.metadata.name;
  };
  const projectOf = (namespace: string): string | undefined => {
    if (!namespace) return undefined;
    if (!memo.has(namespace)) memo.set(namespace, lookup(namespace));
    return memo.get(namespace);
  };
  return {
    projectOf,
    ownerOf(resource) {
      const owner = instanceOwners?.ownerOf(resource);
      if (owner?.project) return { project: owner.project, object: owner.rbacObject };
      // Instances of two projects render the same object: it is neither's to see alone.
      if (owner === null) return {};
      // No instance of a project stands for it: the namespace's project, if any (a Namespace counts as its own).
      const project = projectOf(resource.namespace || (resource.kind === 'Namespace' && resource.apiGroup === '' ? resource.name : ''));
      return project ? { project } : {};
    },
    onChange(listener) {
      listeners.add(listener);
      return { close: () => void listeners.delete(listener) };
    },
    stop() {
      subscription.close();
      instanceOwners?.stop();
    },
  };
}
