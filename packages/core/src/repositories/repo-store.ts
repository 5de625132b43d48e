import { randomBytes } from 'node:crypto';
import type * as api from '@portico/api';
import { retryOnConflict } from '../cluster/retry.js';
import { conflict, isPorticoError, notFound } from '../errors.js';
import { resources, type Cluster, type KubeObject } from '../ports/cluster.js';
import type { RepoCredentials } from './git-remote.js';
import {
  REPOSITORY_LABEL, REPOSITORY_PROJECT_LABEL, credentialData, credentialsOf, infoData, isRepositoryObject, objectNameOf, repoInfoOf, repositoryLabels,
} from './repo-objects.js';

/** The repositories in the cluster, read and written through the Cluster port (no cache: every replica reads the same). */
export interface RepoStore {
  list(project?: string): Promise<api.RepoInfo[]>;
  /** NOT_FOUND when absent. */
  get(id: string): Promise<api.RepoInfo>;
  credentials(id: string): Promise<RepoCredentials>;
  create(info: Omit<api.RepoInfo, 'id'>, secrets: { httpsAuth?: api.HttpsAuth; sshAuth?: api.SshAuth }): Promise<api.RepoInfo>;
  update(id: string, change: (current: api.RepoInfo) => Partial<api.RepoInfo>, secrets?: Parameters<typeof credentialData>[0]): Promise<api.RepoInfo>;
  delete(id: string): Promise<void>;
}

/** `repo-` and 12 lower-case base32 characters: a label value and a Kubernetes name part. */
export const newRepositoryId = () => `repo-${[...randomBytes(12)].map((b) => 'abcdefghijklmnopqrstuvwxyz234567'[b & 31]).join('')}`;

const ignoreMissing = (e: unknown) => {
  if (!(isPorticoError(e) && e.code === 'NOT_FOUND')) throw e;
};

const present = (data: Record<string, string | null | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(data).filter((e): e is [string, string] => typeof e[1] === 'string'));

export function createRepoStore(cluster: Cluster, namespace: string): RepoStore {
  const readConfigMap = async (id: string): Promise<KubeObject> => {
    const found = await cluster.get(resources.configMap, objectNameOf(id), namespace);
    if (!found || !isRepositoryObject(found)) throw notFound('repository', id);
    return found;
  };

  return {
    async list(project) {
      const selector = project ? `${REPOSITORY_LABEL}=true,${REPOSITORY_PROJECT_LABEL}=${project}` : `${REPOSITORY_LABEL}=true`;
      const { items } = await cluster.list(resources.configMap, { namespace, labelSelector: selector });
      return items.filter(isRepositoryObject).map(repoInfoOf).sort((a, b) => a.projectId.localeCompare(b.projectId) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    },

    get: async (id) => repoInfoOf(await readConfigMap(id)),

    async credentials(id) {
      return credentialsOf(await cluster.get(resources.secret, objectNameOf(id), namespace));
    },

    async create(info, secrets) {
      const id = newRepositoryId();
      const labels = repositoryLabels(info.projectId, id);
      const name = objectNameOf(id);
      // The Secret first: a ConfigMap (what makes the repository exist) never points at credentials not yet written.
      const data = present(credentialData({ ...secrets, authType: info.authType === 'ssh' ? 'ssh' : 'https', dropOther: false }));
      await cluster.create(resources.secret, { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name, namespace, labels }, data });
      try {
        const created = await cluster.create(resources.configMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data: present(infoData(info)) });
        return repoInfoOf(created);
      } catch (err) {
        await cluster.delete(resources.secret, name, namespace).catch(() => undefined);
        throw err;
      }
    },

    async update(id, change, secrets) {
      const updated = await retryOnConflict(async () => {
        const current = await readConfigMap(id);
        const data = infoData(change(repoInfoOf(current)));
        return cluster.patch(resources.configMap, current.metadata.name, { data }, { namespace, resourceVersion: current.metadata.resourceVersion });
      });
      if (secrets) {
        const data = credentialData(secrets);
        if (Object.keys(data).length > 0) {
          await retryOnConflict(async () => {
            const existing = await cluster.get(resources.secret, objectNameOf(id), namespace);
            if (!existing) {
              const labels = repositoryLabels(repoInfoOf(updated).projectId, id);
              return cluster.create(resources.secret, { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: objectNameOf(id), namespace, labels }, data: present(data) });
            }
            return cluster.patch(resources.secret, objectNameOf(id), { data }, { namespace, resourceVersion: existing.metadata.resourceVersion });
          });
        }
      }
      return repoInfoOf(updated);
    },

    async delete(id) {
      const current = await readConfigMap(id);
      // The ConfigMap first: without it the repository is gone at once, whatever becomes of its Secret.
      await cluster.delete(resources.configMap, current.metadata.name, namespace).catch((e: unknown) => {
        if (isPorticoError(e) && e.code === 'NOT_FOUND') throw notFound('repository', id);
        throw e;
      });
      await cluster.delete(resources.secret, objectNameOf(id), namespace).catch(ignoreMissing);
    },
  };
}

/**
 * A project being deleted takes its repositories (ConfigMaps and credential Secrets) with it. They live in
 * Portico's namespace only, so only that namespace is listed: Portico's RBAC reads ConfigMaps nowhere else.
 */
export async function deleteProjectRepositories(cluster: Cluster, project: string, namespace: string): Promise<void> {
  for (const ref of [resources.configMap, resources.secret]) {
    const { items } = await cluster.list(ref, { namespace, labelSelector: `${REPOSITORY_LABEL}=true,${REPOSITORY_PROJECT_LABEL}=${project}` });
    for (const item of items) await cluster.delete(ref, item.metadata.name, item.metadata.namespace).catch(ignoreMissing);
  }
}

export const repositoryConflict = (id: string, count: number) =>
  conflict(`repository "${id}" is still used by ${count} instance${count === 1 ? '' : 's'} of its project: delete or move them first`, { repositoryId: id, instances: count });
