import type * as api from '@portico/api';
import { retryOnConflict } from '../cluster/retry.js';
import { badRequest, isPorticoError, notFound } from '../errors.js';
import type { Informer } from '../cluster/informer-types.js';
import type { Logger } from '../logger.js';
import { resources, type Cluster, type KubeObject } from '../ports/cluster.js';
import { projectAnnotations, projectSpecOf, type ProjectSpec } from './project-resource.js';
import { createSerially } from './serial.js';
import { waitForInformer, type InformerTarget } from './wait-for-informer.js';

/** Attempts of a binding change that races another writer (optimistic concurrency on resourceVersion). */
const bindingAttempts = 5;

/**
 * Writes to Project resources: each goes to the cluster with the resourceVersion it was decided on, and returns
 * only after the informer (and with it the authorizer) shows it.
 */
interface ProjectWrites {
  /** The project as the informer has it (in Portico's namespace). */
  cached(name: string): KubeObject | undefined;
  /** Waits for the informer to show a write; logs (does not fail) when it does not in time. */
  settle(name: string, target: InformerTarget): Promise<void>;
  /** For a write's rejection: NOT_FOUND becomes the project's 404; anything else is passed on. */
  projectNotFound(name: string): (e: unknown) => never;
  /** `annotations`: more annotation changes made in the same write (null removes one). */
  writeSpec(name: string, resourceVersion: string, spec: Partial<ProjectSpec>, annotations?: Record<string, string | null>): Promise<KubeObject>;
  /**
   * Applies a change to one role's users or groups, retrying when another writer got there first. The first
   * attempt decides on the cached project; retries re-read it from the cluster, since the cache may lag.
   */
  changeBinding(name: string, role: string, type: api.BindingType, change: (subjects: string[]) => string[] | 'unchanged'): Promise<void>;
}

interface ProjectWritesDeps {
  cluster: Cluster;
  /** The informer over Project resources. */
  projects: Informer;
  /** Portico's namespace, where projects live. */
  namespace: string;
  logger?: Logger;
  /** How long a write waits for the informer to show it (default 5 s). */
  settleTimeoutMs?: number;
}

export function createProjectWrites(deps: ProjectWritesDeps): ProjectWrites {
  const { cluster, namespace } = deps;
  const cached = (name: string) => deps.projects.get(name, namespace);

  async function settle(name: string, target: InformerTarget) {
    const ok = await waitForInformer(deps.projects, name, namespace, target, deps.settleTimeoutMs);
    if (!ok) deps.logger?.warn({ project: name, target }, 'project write not yet visible in the informer cache');
  }

  const projectNotFound = (name: string) => (e: unknown): never => {
    if (isPorticoError(e) && e.code === 'NOT_FOUND') throw notFound('project', name);
    throw e;
  };

  async function writeSpec(name: string, resourceVersion: string, spec: Partial<ProjectSpec>, annotations: Record<string, string | null> = {}): Promise<KubeObject> {
    const patch = { metadata: { annotations: { ...annotations, [projectAnnotations.updatedAt]: new Date().toISOString() } }, spec };
    const updated = await cluster
      .patch(resources.project, name, patch, { namespace, resourceVersion })
      .catch(projectNotFound(name));
    await settle(name, { resourceVersion: updated.metadata.resourceVersion ?? '' });
    return updated;
  }

  /**
   * Binding changes of one project on this replica run one at a time. They never conflict in meaning (each
   * adds or removes one subject), but run together they would all patch the same resourceVersion and all but
   * one would lose; with enough of them (a script binding 20 users at once) some would exhaust their retries
   * and answer 409. Queued, each starts from the previous one's settled write, so only writers on other
   * replicas (or kubectl) can make it conflict, and the retries below absorb those.
   */
  const serially = createSerially();

  async function writeBinding(
    name: string,
    role: string,
    type: api.BindingType,
    change: (subjects: string[]) => string[] | 'unchanged',
  ): Promise<void> {
    let attempt = 0;
    await retryOnConflict(async () => {
      attempt += 1;
      const obj = attempt === 1 ? cached(name) : await cluster.get(resources.project, name, namespace);
      if (!obj) throw notFound('project', name);
      const spec = projectSpecOf(obj);
      const target = spec.roles.find((r) => r.name === role);
      if (!target) throw badRequest(`role "${role}" is not defined in project "${name}"`, { role });
      const subjects = type === 'user' ? target.users : target.groups;
      const next = change([...subjects]);
      if (next === 'unchanged') return;
      const roles = spec.roles.map((r) => (r === target ? { ...r, [type === 'user' ? 'users' : 'groups']: next } : r));
      await writeSpec(name, obj.metadata.resourceVersion ?? '', { roles });
    }, { attempts: bindingAttempts });
  }

  return {
    cached,
    settle,
    projectNotFound,
    writeSpec,
    changeBinding: (name, role, type, change) => serially(name, () => writeBinding(name, role, type, change)),
  };
}
