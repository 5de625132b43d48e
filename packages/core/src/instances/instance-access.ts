import type { Actor } from '../actor.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import type { KubeObject } from '../ports/cluster.js';
import type { GitDeployResult, GitDeployments, GitPlacement } from '../repositories/index.js';
import type { Authorizer, InstanceKey } from '../types.js';
import { placementOf } from './git-fields.js';
import { manifestPath, manifestYaml } from './gitops.js';
import type { IndexedInstance, InstanceIndex } from './index-types.js';

export const shortName = (key: InstanceKey) => (key.namespace ? `${key.namespace}/${key.name}` : key.name);
export const describeKey = (key: InstanceKey) => (key.namespace ? `${key.namespace}/${key.kind}/${key.name}` : `${key.kind}/${key.name}`);
export const timestamp = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** What a Git-mode create asks for (§13): all optional. */
export interface GitAsk {
  repositoryId?: string;
  gitBranch?: string;
  gitPath?: string;
}

/** What every instance operation asks first: may the caller see it, may they change it, and where in Git it lives. */
export interface InstanceAccess {
  /** The instance if `actor` may get it; absent and invisible look the same (404, never 403). */
  getVisible(actor: Actor, key: InstanceKey): IndexedInstance;
  requireAllowed(actor: Actor, action: 'update' | 'delete', item: IndexedInstance): void;
  /** Where a new Git-mode instance goes: a repository of its project (400 naming `repositoryId` otherwise). */
  place(project: string, key: InstanceKey, ask: GitAsk): Promise<GitPlacement>;
  /** Where an existing Git-mode instance lives: its labels, or the development default for one committed before repositories. */
  placementOf(object: KubeObject, project: string, key: InstanceKey): GitPlacement;
  /** Whether the manifest file is on the placement's branch. */
  manifestExists(project: string, placement: GitPlacement): Promise<boolean>;
  /** Commits the manifest (or its removal, when undefined) and pushes it; `absent`: 409 when the file is there. */
  commitManifest(project: string, placement: GitPlacement, manifest: KubeObject | undefined, message: string, expect?: 'absent' | 'any'): Promise<GitDeployResult>;
}

/** The commit message of §13: `Create|Update|Delete <Kind> <namespace>/<name> in project <project>`, the user in the body. */
export const commitMessage = (verb: 'Create' | 'Update' | 'Delete', key: InstanceKey, project: string, actor: Actor) =>
  `${verb} ${key.kind} ${shortName(key)} in project ${project}\n\nRequested by ${actor.subject} through Portico.`;

export function createInstanceAccess(deps: { index: InstanceIndex; authz: Authorizer; git?: GitDeployments }): InstanceAccess {
  const { index, authz } = deps;
  const git = () => {
    if (!deps.git) throw badRequest('Git-mode deployments are not available: this Portico has no repositories', { repositoryId: 'required' });
    return deps.git;
  };

  return {
    getVisible(actor, key) {
      const item = index.get(key);
      if (!item || !authz.can(actor, 'get', item.rbacObject)) throw notFound('instance', describeKey(key));
      return item;
    },

    requireAllowed(actor, action, item) {
      if (!authz.can(actor, action, item.rbacObject)) throw forbidden(`you may not ${action} instance "${item.instance.name}"`);
    },

    place: (project, key, ask) => git().place(project, ask, manifestPath(project, key)),

    placementOf(object, project, key) {
      const placed = placementOf(object);
      if (placed) return placed;
      const fallback = deps.git?.fallback;
      // An instance committed by another installation (or before the setting was removed) cannot be changed here.
      if (!fallback) throw badRequest(`instance "${describeKey(key)}" is managed through Git, but says nothing of its repository and no development repository is set`, { repositoryId: 'unknown' });
      return { ...fallback, path: manifestPath(project, key) };
    },

    async manifestExists(project, placement) {
      return (await git().read(project, placement)).content !== undefined;
    },

    commitManifest(project, placement, manifest, message, expect = 'any') {
      return git().write(project, placement, { content: manifest && manifestYaml(manifest), expect, message });
    },
  };
}
