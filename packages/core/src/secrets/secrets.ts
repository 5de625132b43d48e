import * as api from '@portico/api';
import type { Actor } from '../actor.js';
import type { Informer } from '../cluster/informer-types.js';
import type { PorticoConfig } from '../config.js';
import { conflict, forbidden, isPorticoError, notFound } from '../errors.js';
import { resources, type Cluster, type KubeObject } from '../ports/cluster.js';
import { destinationAllows } from '../projects/destinations.js';
import { projectSpecOf } from '../projects/project-resource.js';
import type { Authorizer, SecretsService } from '../types.js';
import { parseInput } from '../validation.js';

interface SecretsDeps {
  cluster: Cluster;
  /** The Project informer: which projects exist and where they may deploy. */
  projects: Informer;
  authz: Authorizer;
  config: Pick<PorticoConfig, 'kubernetes'>;
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

  return {
    async list(actor, project) {
      projectFor(actor, project);
      const { items } = await cluster.list(resources.secret, { labelSelector: `${secretLabels.project}=${project}` });
      const visible = items
        .filter((o) => authz.can(actor, 'get', api.rbacObject.secret(project, o.metadata.namespace ?? '', o.metadata.name)))
        .map(summaryOf)
        .sort((a, b) => (a.namespace + '/' + a.name).localeCompare(b.namespace + '/' + b.name));
      return { items: visible, totalCount: visible.length };
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
        if (isPorticoError(e) && e.code === 'CONFLICT') throw conflict(`secret "${describe(body.namespace, body.name)}" already exists`);
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
      await cluster.delete(resources.secret, params.secret, params.namespace).catch((e: unknown) => {
        if (isPorticoError(e) && e.code === 'NOT_FOUND') throw notFound('secret', describe(params.namespace, params.secret));
        throw e;
      });
    },
  };
}
