import { isPorticoError } from '../errors.js';
import { resources, type Cluster } from '../ports/cluster.js';
import { deleteProjectRepositories } from '../repositories/index.js';

/** The label the secrets service gives a project's Secrets (in any of its destinations). */
const projectLabel = 'portico.dev/project';

/**
 * Deletes the Secrets of a project being deleted, and its repositories (§13: their ConfigMaps and credential
 * Secrets): left behind, they would belong to the next project created under the same name, whose members would
 * see them. One already gone is not an error.
 */
export async function deleteProjectSecrets(cluster: Cluster, project: string, porticoNamespace: string): Promise<void> {
  const { items } = await cluster.list(resources.secret, { labelSelector: `${projectLabel}=${project}` });
  for (const secret of items) {
    await cluster.delete(resources.secret, secret.metadata.name, secret.metadata.namespace).catch((e: unknown) => {
      if (!isPorticoError(e) || e.code !== 'NOT_FOUND') throw e;
    });
  }
  await deleteProjectRepositories(cluster, project, porticoNamespace);
}
