import type { Instance, InstanceList } from '@portico/api';
import { actorKey, type Actor } from '../actor.js';
import { validateValues, type Catalog } from '../catalog/index.js';
import type { Informer } from '../cluster/informer-types.js';
import { retryOnConflict } from '../cluster/retry.js';
import type { PorticoConfig } from '../config.js';
import { isPorticoError, conflict, forbidden, notFound, unprocessable, validationFailed } from '../errors.js';
import { publishCatalogChanges } from '../events/catalog-events.js';
import { publishAll } from '../events/publish.js';
import type { Logger } from '../logger.js';
import type { Cluster, Disposable, KubeObject } from '../ports/cluster.js';
import type { Authorizer, EventsService, InstanceKey, InstancesService } from '../types.js';
import type { InstanceAdmission } from './admission.js';
import { checkCreate, gitopsRepoSetting } from './create-checks.js';
import { createGitWriter, manifestPath, manifestYaml, type GitWriter } from './gitops.js';
import { claimOf, eventsForChange } from './instance-events.js';
import { createInstanceIndex, type CreateInformer, type IndexedInstance, type InstanceIndex } from './instance-index.js';
import { instanceAnnotations, instanceManifest, manifestFieldsOf, toInstance } from './instance-resource.js';
import { createInstanceHistory } from './instance-history.js';
import { listPage, visibleCount, visibleRgdCounts } from './list-query.js';
import { applyMergePatch, mergePatchBetween } from './merge-patch.js';
import { recordStatusChanges } from './timeline-recorder.js';
import { readTimeline, timelineAnnotation, withEntry } from './timeline.js';
import { setBounded } from '../bounded-map.js';
import { createPageMemo } from '../page-memo.js';

export interface InstancesDeps {
  cluster: Cluster;
  catalog: Catalog;
  authz: Authorizer;
  /** Informer over Project resources (destinations, existence). */
  projects: Informer;
  events: EventsService;
  config: PorticoConfig;
  logger: Logger;
  createInformer: CreateInformer;
}

export interface Instances extends InstancesService {
  /** Instances per RGD name that `actor` may see: the catalog's `instances` field (only `names`, when given). */
  instanceCounts(actor: Actor, names?: readonly string[]): ReadonlyMap<string, number>;
  /** Starts the instance index (one informer per catalog kind) and event publishing; resolves when synced. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The index, for modules that read instances without a caller (tests, the events bridge). */
  readonly index: InstanceIndex;
  /** Adds a check every create passes before anything is written (see admission.ts); in registration order. */
  addAdmission(check: InstanceAdmission): Disposable;
}

/** Attempts of a PATCH without a client resourceVersion racing other writers (30 concurrent PATCHes all land). */
const patchAttempts = 50;

/** Members' instance counts kept at once (per set of subjects and page of RGDs); the oldest goes first. */
const maxMemberCounts = 1_000;

const shortName = (key: InstanceKey) => (key.namespace ? `${key.namespace}/${key.name}` : key.name);
const describeKey = (key: InstanceKey) => (key.namespace ? `${key.namespace}/${key.kind}/${key.name}` : `${key.kind}/${key.name}`);
const timestamp = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Instances of catalog RGDs: creation with the contract's checks in order, deployment modes (direct, GitOps,
 * hybrid), and reads served from the instance index, filtered per caller by the policy engine.
 */
export function createInstances(deps: InstancesDeps): Instances {
  const { cluster, catalog, authz, config } = deps;
  const logger = deps.logger.child({ module: 'instances' });
  const index = createInstanceIndex({ cluster, catalog, createInformer: deps.createInformer, logger: deps.logger });
  let git: GitWriter | undefined;
  const gitWriter = () => (git ??= createGitWriter(config.gitopsRepo!, logger));
  const subscriptions: Disposable[] = [];
  const history = createInstanceHistory({ cluster, catalog });
  const admissions = new Set<InstanceAdmission>();

  const totalResources = (item: IndexedInstance) => catalog.entry(item.instance.rgdName)?.resources.length ?? 0;

  /**
   * A member's instance counts for a page of RGDs, kept per set of subjects and page until an instance comes,
   * goes or moves, or the policy changes: every RGD list page asks for them, and between such changes they are
   * the same. Counted for the page's RGDs only, so a miss costs what the page asks for. A Server Admin's are the
   * index's own, maintained on every change.
   */
  const memberCounts = new Map<string, ReadonlyMap<string, number>>();
  // A member's total, kept the same way: the instance count under the navigation is asked on every page.
  const memberTotals = new Map<string, { count: number }>();
  let memberCountsRevision = -1;
  const forgetMemberCounts = () => {
    memberCounts.clear();
    memberTotals.clear();
  };
  subscriptions.push(authz.onChange(forgetMemberCounts));
  const followCountsRevision = () => {
    if (memberCountsRevision === index.countsRevision()) return;
    forgetMemberCounts();
    memberCountsRevision = index.countsRevision();
  };
  const countsFor = (actor: Actor, names?: readonly string[]): ReadonlyMap<string, number> => {
    if (authz.isServerAdmin(actor)) return index.rgdCounts();
    followCountsRevision();
    const key = names === undefined ? actorKey(actor) : `${actorKey(actor)}\u0000${names.join('\u0000')}`;
    let counts = memberCounts.get(key);
    if (!counts) {
      counts = setBounded(memberCounts, maxMemberCounts, key, visibleRgdCounts(index, authz, actor, names));
    }
    return counts;
  };

  /** Pages read by position from a sorted view, until the view changes (see listPage). */
  const answeredPages = createPageMemo<InstanceList>();

  /** The instance if `actor` may get it; absent and invisible look the same (404, never 403). */
  const getVisible = (actor: Actor, key: InstanceKey): IndexedInstance => {
    const item = index.get(key);
    if (!item || !authz.can(actor, 'get', item.rbacObject)) throw notFound('instance', describeKey(key));
    return item;
  };

  const requireAllowed = (actor: Actor, action: 'update' | 'delete', item: IndexedInstance) => {
    if (!authz.can(actor, action, item.rbacObject)) throw forbidden(`you may not ${action} instance "${item.instance.name}"`);
  };

  const commitManifest = (item: { project: string; key: InstanceKey }, manifest: KubeObject | undefined, message: string) => {
    // An instance committed by another installation (or before the setting was removed) cannot be changed here.
    if (!config.gitopsRepo) {
      return Promise.reject(unprocessable(`this instance is managed through Git: set ${gitopsRepoSetting}`, { setting: gitopsRepoSetting }));
    }
    return gitWriter().commit(manifestPath(item.project, item.key), manifest && manifestYaml(manifest), message);
  };

  /** Best effort: a deletion is not refused because its history entry could not be written. */
  const recordDeletion = async (actor: Actor, item: IndexedInstance) => {
    const entry = { timestamp: timestamp(), type: 'deleted' as const, actor: actor.id, message: 'deletion requested' };
    try {
      const { name, namespace } = item.object.metadata;
      const current = (await cluster.get(item.ref, name, namespace)) ?? item.object;
      const entries = readTimeline(current);
      const resourceVersion = current.metadata.resourceVersion;
      await cluster.patch(item.ref, name, { metadata: { annotations: { [timelineAnnotation]: withEntry(entries, entry) } } }, { namespace, resourceVersion });
    } catch (err) {
      logger.warn({ err, instance: item.id }, 'could not record the deletion in the instance timeline');
    }
  };

  const service: Instances = {
    index,

    addAdmission(check) {
      admissions.add(check);
      return { close: () => void admissions.delete(check) };
    },

    events(actor, key) {
      return history.events(getVisible(actor, key));
    },

    timeline(actor, key) {
      return history.timeline(getVisible(actor, key));
    },

    children(actor, key) {
      return history.children(getVisible(actor, key));
    },

    async create(actor, input) {
      const plan = checkCreate({ catalog, authz, projects: deps.projects, config }, actor, input);
      const { entry, key, project, spec, mode } = plan;

      // 10. The name is free: in the cluster (the index) and, for Git modes, in the repository.
      if (index.get(key) || (mode !== 'direct' && (await gitWriter().exists(manifestPath(project, key))))) {
        throw conflict(`instance "${describeKey(key)}" already exists`, { kind: key.kind, namespace: key.namespace, name: key.name });
      }

      const manifest = instanceManifest({
        apiVersion: entry.apiVersion,
        kind: entry.kind,
        name: key.name,
        namespace: key.namespace,
        project,
        rgdName: entry.name,
        deploymentMode: mode,
        createdBy: actor.id,
        createdAt: timestamp(),
        spec,
      });
      manifest.metadata.annotations![timelineAnnotation] = withEntry([], {
        timestamp: manifest.metadata.annotations![instanceAnnotations.createdAt],
        type: 'created',
        actor: actor.id,
        message: `created ${entry.kind} ${shortName(key)} from rgd ${entry.name} (${mode})`,
      });
      const context = { isClusterScoped: entry.isClusterScoped, rgdName: entry.name };
      const warnings: unknown[] = [];
      for (const admit of admissions) warnings.push(...((await admit({ actor, project, rgdName: entry.name, manifest }))?.warnings ?? []));
      const withWarnings = (instance: Instance): Instance => (warnings.length > 0 ? { ...instance, details: { warnings } } : instance);

      if (mode !== 'direct') {
        const sha = await commitManifest(plan, manifest, `Create ${entry.kind} ${shortName(key)} in project ${project}\n\nRequested by ${actor.subject} through Portico.`);
        manifest.metadata.annotations![instanceAnnotations.gitCommit] = sha;
        logger.info({ project, instance: describeKey(key), commit: sha, mode }, 'instance committed to the GitOps repository');
        // GitOps: a controller (Argo CD, Flux) applies the commit; nothing is created here.
        if (mode === 'gitops') return withWarnings(toInstance(manifest, context));
      }

      const ref = index.refOf(entry) ?? (await cluster.discover(entry.group, entry.version, entry.kind));
      if (!ref) throw conflict(`rgd "${entry.name}" is not serving its kind yet, retry shortly`, { rgd: entry.name });
      let created: KubeObject;
      try {
        created = await cluster.create(ref, manifest);
      } catch (err) {
        if (isPorticoError(err) && err.code === 'CONFLICT') throw conflict(`instance "${describeKey(key)}" already exists`, { kind: key.kind, namespace: key.namespace, name: key.name });
        throw err;
      }
      logger.info({ project, instance: describeKey(key), mode, by: actor.id }, 'instance created');
      await index.waitFor(key, { resourceVersion: created.metadata.resourceVersion ?? '' });
      return withWarnings(toInstance(created, context));
    },

    list(actor, query) {
      return listPage(index, authz, actor, query, answeredPages);
    },

    count(actor) {
      if (authz.isServerAdmin(actor)) return { count: index.size() };
      followCountsRevision();
      const key = actorKey(actor);
      return memberTotals.get(key) ?? setBounded(memberTotals, maxMemberCounts, key, Object.freeze({ count: visibleCount(index, authz, actor) }));
    },

    instanceCounts(actor, names) {
      return countsFor(actor, names);
    },

    get(actor, key) {
      return getVisible(actor, key).instance;
    },

    async patch(actor, key, input) {
      const item = getVisible(actor, key);
      requireAllowed(actor, 'update', item);
      const entry = catalog.entry(item.instance.rgdName) ?? catalog.entryForKind(key.kind);
      if (!entry) throw conflict(`rgd "${item.instance.rgdName}" is no longer in the catalog`, { rgd: item.instance.rgdName });
      const schema = catalog.schemaOf(entry);
      const namespace = key.namespace || undefined;

      const attempt = async (): Promise<Instance> => {
        // The current object, not the index's copy: the merge base must be the version we send a precondition for.
        const current = await cluster.get(item.ref, key.name, namespace);
        if (!current) throw notFound('instance', describeKey(key));
        const version = current.metadata.resourceVersion ?? '';
        if (input.resourceVersion !== undefined && input.resourceVersion !== version) {
          throw conflict(`instance "${describeKey(key)}" was changed since resourceVersion ${input.resourceVersion}`, { resourceVersion: version });
        }
        const merged = applyMergePatch(current.spec ?? {}, input.spec);
        const result = validateValues(schema, merged);
        if (!result.ok) throw validationFailed(result.fields, `the values do not match the schema of rgd "${entry.name}"`);
        const updatedAt = timestamp();
        const annotations: Record<string, string> = {
          [instanceAnnotations.updatedBy]: actor.id,
          [instanceAnnotations.updatedAt]: updatedAt,
          // In the same guarded write as the change itself, so the history never records a change that lost a race.
          [timelineAnnotation]: withEntry(readTimeline(current), {
            timestamp: updatedAt,
            type: 'updated',
            actor: actor.id,
            message: `spec changed: ${Object.keys(input.spec).join(', ') || 'nothing'}`,
          }),
        };
        const mode = item.instance.deploymentMode;
        if (mode !== 'direct') {
          const manifest = instanceManifest({ ...manifestFieldsOf(current), spec: result.value });
          const sha = await commitManifest(
            { project: item.project, key },
            manifest,
            `Update ${key.kind} ${shortName(key)} in project ${item.project}\n\nRequested by ${actor.subject} through Portico.`,
          );
          // GitOps: Git is the source of truth; the controller applies the commit (a direct patch would be reverted).
          if (mode === 'gitops') return { ...item.instance, spec: result.value, gitCommit: sha };
          annotations[instanceAnnotations.gitCommit] = sha;
        }
        const patched = await cluster.patch(
          item.ref,
          key.name,
          { metadata: { annotations }, spec: mergePatchBetween(current.spec ?? {}, result.value) as Record<string, unknown> },
          { namespace, resourceVersion: version },
        );
        await index.waitFor(key, { resourceVersion: patched.metadata.resourceVersion ?? '' });
        return toInstance(patched, { isClusterScoped: !item.ref.namespaced, rgdName: entry.name });
      };
      // A merge patch that names no version applies to whatever is current: a concurrent writer (another
      // client, kro's status) only means re-reading and merging again. A named version is the client's own
      // precondition: its conflict is the client's to resolve (409).
      return input.resourceVersion === undefined ? retryOnConflict(attempt, { attempts: patchAttempts }) : attempt();
    },

    async delete(actor, key) {
      const item = getVisible(actor, key);
      requireAllowed(actor, 'delete', item);
      const namespace = key.namespace || undefined;
      const mode = item.instance.deploymentMode;
      if (mode !== 'direct') {
        const sha = await commitManifest({ project: item.project, key }, undefined, `Delete ${key.kind} ${shortName(key)} in project ${item.project}\n\nRequested by ${actor.subject} through Portico.`);
        // GitOps: removing the file is the deletion; the controller prunes the resource.
        if (mode === 'gitops') return { ...item.instance, status: { ...item.instance.status, state: 'DELETING' }, health: 'Progressing', gitCommit: sha };
      }
      await recordDeletion(actor, item);
      try {
        await cluster.delete(item.ref, key.name, namespace);
      } catch (err) {
        if (isPorticoError(err) && err.code === 'NOT_FOUND') throw notFound('instance', describeKey(key));
        throw err;
      }
      logger.info({ project: item.project, instance: describeKey(key), by: actor.id }, 'instance deletion requested');
      await index.waitFor(key, { deleted: true });
      // kro keeps its finalizer until the managed resources are gone; the answer is the instance on its way out.
      const after = (await cluster.get(item.ref, key.name, namespace)) ?? item.object;
      const instance = toInstance(after, { isClusterScoped: !item.ref.namespaced, rgdName: item.instance.rgdName });
      return { ...instance, status: { ...instance.status, state: 'DELETING' }, health: 'Progressing' };
    },

    async start() {
      subscriptions.push(
        index.onChange((change) => {
          const events = eventsForChange(change, totalResources);
          publishAll(deps.events, events, { claim: claimOf(change) }).catch((err) =>
            logger.warn({ err, instance: change.current.id }, 'could not publish instance events'),
          );
        }),
        // Instances that were there before their RGD joined the catalog come in without per-instance events,
        // but they change what callers count.
        index.onKindIndexed((joined) => {
          const claim = `instances-indexed:${joined.ref.group}/${joined.ref.version}/${joined.ref.kind}:${joined.resourceVersion}`;
          publishAll(deps.events, [{ type: 'counts_changed', data: {} }], { claim }).catch((err) =>
            logger.warn({ err, kind: joined.ref.kind }, 'could not publish instance counts'),
          );
        }),
        publishCatalogChanges(catalog, deps.events, logger),
        recordStatusChanges({ cluster, index, logger }),
      );
      await index.start();
    },

    async stop() {
      for (const s of subscriptions.splice(0)) s.close();
      index.stop();
    },
  };
  return service;
}
