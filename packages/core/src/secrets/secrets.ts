import * as api from '@portico/api';
import type { Actor } from '../actor.js';
import type { Informer } from '../cluster/informer-types.js';
import type { PorticoConfig } from '../config.js';
import { conflict, forbidden, isPorticoError, notFound } from '../errors.js';
import { resources, type Cluster, type KubeObject } from '../ports/cluster.js';
import { destinationAllows } from '../projects/destinations.js';
import { projectSpecOf } from '../projects/project-resource.js';
import type { IndexedInstance } from '../instances/index-types.js';
import type { Authorizer, SecretsService } from '../types.js';
import { parseInput } from '../validation.js';
import { secretMentions } from './secret-mentions.js';
import { continueAfter, continuePoint } from './secret-pages.js';

interface SecretsDeps {
  cluster: Cluster;
  /** The Project informer: which projects exist and where they may deploy. */
  projects: Informer;
  authz: Authorizer;
  config: Pick<PorticoConfig, 'kubernetes'>;
  /** A project's instances (the instance index), for the warnings of a delete; none when absent. */
  instancesInProject?: (project: string) => Iterable<IndexedInstance>;
}

const secretLabels = { project: 'portico.dev/project' } as const;
const secretAnnotations = { createdBy: 'portico.dev/created-by', updatedAt: 'portico.dev/updated-at' } as const;

const encode = (data: Record<string, string>) => Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]));
const decode = (data: Record<string, string>) => Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
const dataOf = (obj: KubeObject) => ((obj as { data?: Record<string, string> }).data ?? {});

function summaryOf(obj: KubeObject): api.SecretSummary {
  const annotations = obj.metadata.annotations ?? {};
  const createdAt = obj.metadata.creationTimestamp ?? new Date(0).toISOString();
  return {
    name: obj.metadata.name,
    namespace: obj.metadata.namespace ?? '',
    type: (obj as { type?: string }).type ?? 'Opaque',
    keys: Object.keys(dataOf(obj)).sort(),
    createdAt,
    createdBy: annotations[secretAnnotations.createdBy] ?? '',
    updatedAt: annotations[secretAnnotations.updatedAt] ?? createdAt,
    labels: { ...obj.metadata.labels },
    resourceVersion: obj.metadata.resourceVersion ?? '',
  };
}

/**
 * A project's Kubernetes Secrets (contract §11.1), labelled `portico.dev/project`, decided per Secret on
 * `secrets/<project>/<namespace>/<name>`. Values are read from the cluster on demand and never cached,
 * logged or put into an error: a caller without `get` learns nothing (404), `get` shows the key names, and
 * only the separate `reveal` action returns the values.
 */
export function createSecrets(deps: SecretsDeps): SecretsService {
  const { authz, cluster } = deps;
  const portico = deps.config.kubernetes.namespace;

  /** The project, if the caller may see it; 404 otherwise (existence does not leak to non-members). */
  function projectFor(actor: Actor, project: string): KubeObject {
    const obj = deps.projects.get(project, portico);
    if (!obj || !authz.can(actor, 'get', api.rbacObject.project(project))) throw notFound('project', project);
    return obj;
  }

  const describe = (namespace: string, name: string) => `${namespace}/${name}`;

  /** The project's Secret the caller may `get`; 404 for absent, foreign and invisible ones alike. */
  async function visibleSecret(actor: Actor, { name: project, namespace, secret }: api.SecretParams): Promise<KubeObject> {
    projectFor(actor, project);
    const obj = await cluster.get(resources.secret, secret, namespace);
    if (!obj || obj.metadata.labels?.[secretLabels.project] !== project || !authz.can(actor, 'get', api.rbacObject.secret(project, namespace, secret))) {
      throw notFound('secret', describe(namespace, secret));
    }
    return obj;
  }

  function authorize(actor: Actor, action: string, project: string, namespace: string, name: string) {
    if (!authz.can(actor, action, api.rbacObject.secret(project, namespace, name))) {
      throw forbidden(`you may not ${action} secret "${describe(namespace, name)}"`, { action });
    }
  }

  /** The project's Secrets the caller may `get`, as summaries in `<namespace>/<name>` order. */
  async function visibleSummaries(actor: Actor, project: string): Promise<api.SecretSummary[]> {
    projectFor(actor, project);
    const { items } = await cluster.list(resources.secret, { labelSelector: `${secretLabels.project}=${project}` });
    return items
      .filter((o) => authz.can(actor, 'get', api.rbacObject.secret(project, o.metadata.namespace ?? '', o.metadata.name)))
      .map(summaryOf)
      .sort((a, b) => compareKeys(keyOf(a), keyOf(b)));
  }

  return {
    async list(actor, project) {
      const visible = await visibleSummaries(actor, project);
      return { items: visible, totalCount: visible.length };
    },

    async page(actor, input) {
      const query = parseInput(api.SecretPageQuery, input, 'query');
      const after = query.continue === undefined ? undefined : continuePoint(query.continue);
      const visible = await visibleSummaries(actor, query.project);
      const start = after === undefined ? 0 : visible.findIndex((s) => compareKeys(keyOf(s), after) > 0);
      const rest = start < 0 ? [] : visible.slice(start);
      const items = rest.slice(0, query.limit ?? api.secretPageLimit);
      const last = items.at(-1);
      const hasMore = rest.length > items.length;
      return { items, pageCount: items.length, hasMore, ...(hasMore && last ? { continue: continueAfter(last.namespace, last.name) } : {}) };
    },

    async create(actor, project, input) {
      const obj = projectFor(actor, project);
      const body = parseInput(api.CreateSecretRequest, input);
      authorize(actor, 'create', project, body.namespace, body.name);
      const destinations = projectSpecOf(obj).destinations;
      if (!destinationAllows(destinations, body.namespace)) {
        throw forbidden(`namespace "${body.namespace}" is not a destination of project "${project}"`, {
          allowed: destinations.map((d) => d.namespace),
        });
      }
      const now = new Date().toISOString();
      const secret = {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: body.name,
          namespace: body.namespace,
          labels: { [secretLabels.project]: project },
          annotations: { [secretAnnotations.createdBy]: actor.id, [secretAnnotations.updatedAt]: now },
        },
        type: body.type,
        data: encode(body.data),
      } as KubeObject;
      const created = await cluster.create(resources.secret, secret).catch((e: unknown) => {
        if (isPorticoError(e) && e.code === 'CONFLICT') throw conflict(`secret already exists: ${body.name}`, { namespace: body.namespace, name: body.name });
        throw e;
      });
      return summaryOf(created);
    },

    async get(actor, params, query) {
      const obj = await visibleSecret(actor, params);
      const summary: api.SecretDetail = summaryOf(obj);
      if (query.reveal !== 'true') return summary;
      authorize(actor, 'reveal', params.name, params.namespace, params.secret);
      return { ...summary, data: decode(dataOf(obj)) };
    },

    async update(actor, params, input) {
      const obj = await visibleSecret(actor, params);
      const body = parseInput(api.UpdateSecretRequest, input);
      authorize(actor, 'update', params.name, params.namespace, params.secret);
      if (body.resourceVersion !== obj.metadata.resourceVersion) {
        throw conflict(`secret "${describe(params.namespace, params.secret)}" has been modified since resourceVersion ${body.resourceVersion}; reload it and retry`, {
          resourceVersion: obj.metadata.resourceVersion,
        });
      }
      // Replace: keys no longer present are removed (null in a merge patch).
      const removed = Object.fromEntries(Object.keys(dataOf(obj)).filter((k) => !(k in body.data)).map((k) => [k, null]));
      const patch = {
        metadata: { annotations: { [secretAnnotations.updatedAt]: new Date().toISOString() } },
        data: { ...removed, ...encode(body.data) },
      };
      const updated = await cluster
        .patch(resources.secret, params.secret, patch, { namespace: params.namespace, resourceVersion: body.resourceVersion })
        .catch((e: unknown) => {
          if (isPorticoError(e) && e.code === 'CONFLICT') throw conflict(`secret "${describe(params.namespace, params.secret)}" has been modified; reload it and retry`);
          throw e;
        });
      return summaryOf(updated);
    },

    async delete(actor, params) {
      await visibleSecret(actor, params);
      authorize(actor, 'delete', params.name, params.namespace, params.secret);
      await deleteSecret(params);
    },

    async exists(actor, location) {
      await visibleSecret(actor, parseInput(api.SecretParams, location));
    },

    async reveal(actor, location) {
      const params = parseInput(api.SecretParams, location);
      const obj = await visibleSecret(actor, params);
      authorize(actor, 'reveal', params.name, params.namespace, params.secret);
      return { ...summaryOf(obj), data: decode(dataOf(obj)) };
    },

    async upsertKeys(actor, project, secret, input) {
      const body = parseInput(api.UpsertSecretKeysRequest, input);
      const params = parseInput(api.SecretParams, { name: project, namespace: body.namespace, secret });
      await visibleSecret(actor, params);
      authorize(actor, 'update', project, body.namespace, secret);
      // A merge patch of the keys sent: the others stay, whoever wrote them meanwhile.
      const patch = { metadata: { annotations: { [secretAnnotations.updatedAt]: new Date().toISOString() } }, data: encode(body.data) };
      const updated = await cluster.patch(resources.secret, secret, patch, { namespace: body.namespace }).catch(missingSecret(params));
      return summaryOf(updated);
    },

    async remove(actor, location) {
      const params = parseInput(api.SecretParams, location);
      await visibleSecret(actor, params);
      authorize(actor, 'delete', params.name, params.namespace, params.secret);
      await deleteSecret(params);
      const instances = deps.instancesInProject?.(params.name) ?? [];
      const warnings = secretMentions(instances, params.namespace, params.secret, (item) => authz.can(actor, 'get', item.rbacObject));
      return { deleted: true as const, warnings };
    },
  };

  function missingSecret(params: api.SecretParams) {
    return (e: unknown): never => {
      if (isPorticoError(e) && e.code === 'NOT_FOUND') throw notFound('secret', describe(params.namespace, params.secret));
      throw e;
    };
  }

  async function deleteSecret(params: api.SecretParams) {
    await cluster.delete(resources.secret, params.secret, params.namespace).catch(missingSecret(params));
  }
}

const keyOf = (s: Pick<api.SecretSummary, 'namespace' | 'name'>) => `${s.namespace}/${s.name}`;
/** Plain code-unit order: the same on every replica, whatever the locale. */
const compareKeys = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
