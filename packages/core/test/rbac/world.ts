import type { RbacVocabulary } from '@portico/api';
import { createEmbeddedCluster, type EmbeddedCluster } from '../../src/adapters/embedded-cluster/index.js';
import { createInformer } from '../../src/cluster/informer.js';
import { systemActor, type Actor } from '../../src/actor.js';
import type { Informer } from '../../src/cluster/informer-types.js';
import type { Logger } from '../../src/logger.js';
import { resources, type KubeObject } from '../../src/ports/cluster.js';
import type { Authorizer } from '../../src/types.js';
import { createAuthorizer } from '../../src/rbac/index.js';
import { projectPolicySource, projectResource, waitForInformer, type ProjectRoleSpec } from '../../src/projects/index.js';

export const namespace = 'portico';

/** A role with defaults, for brevity in tests. */
export const role = (name: string, policies: string[], bind: { users?: string[]; groups?: string[] } = {}): ProjectRoleSpec => ({
  name,
  policies,
  users: bind.users ?? [],
  groups: bind.groups ?? [],
});

/** A user as the token layer would produce it. */
export const user = (id: string, groups: string[] = []): Actor => systemActor(id, groups);

export interface World {
  cluster: EmbeddedCluster;
  informer: Informer;
  authz: Authorizer;
  /** Writes a project straight to the cluster (like kubectl) and waits until the informer has it. */
  put(name: string, roles: ProjectRoleSpec[], destinations?: string[]): Promise<KubeObject>;
  remove(name: string): Promise<void>;
  close(): Promise<void>;
}

/** An embedded cluster, a project informer over it and an authorizer following the informer. */
export async function startWorld(opts: { serverAdmins?: string[]; logger?: Logger; vocabulary?: RbacVocabulary } = {}): Promise<World> {
  const cluster = await createEmbeddedCluster({ kroStepMs: 0 });
  const informer = createInformer(cluster, resources.project, { namespace });
  const authz = createAuthorizer({ projects: informer, policyOf: projectPolicySource, serverAdmins: opts.serverAdmins ?? [], logger: opts.logger, vocabulary: opts.vocabulary });
  await informer.start();
  await authz.ready();

  return {
    cluster,
    informer,
    authz,
    async put(name, roles, destinations = []) {
      const current = await cluster.get(resources.project, name, namespace);
      const spec = { description: '', destinations: destinations.map((ns) => ({ namespace: ns })), roles };
      const written = current
        ? await cluster.patch(resources.project, name, { spec }, { namespace })
        : await cluster.create(resources.project, projectResource({ name, ...spec }, { namespace, createdBy: 'test' }));
      const ok = await waitForInformer(informer, name, namespace, { resourceVersion: written.metadata.resourceVersion! });
      if (!ok) throw new Error(`informer did not see project ${name}`);
      return written;
    },
    async remove(name) {
      await cluster.delete(resources.project, name, namespace);
      await waitForInformer(informer, name, namespace, { deleted: true });
    },
    async close() {
      informer.stop();
      await cluster.close();
    },
  };
}
