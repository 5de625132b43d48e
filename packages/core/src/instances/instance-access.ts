import type { Actor } from '../actor.js';
import type { PorticoConfig } from '../config.js';
import { forbidden, notFound, unprocessable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { KubeObject } from '../ports/cluster.js';
import type { Authorizer, InstanceKey } from '../types.js';
import { gitopsRepoSetting } from './create-checks.js';
import { createGitWriter, manifestPath, manifestYaml, type GitWriter } from './gitops.js';
import type { IndexedInstance, InstanceIndex } from './index-types.js';

export const shortName = (key: InstanceKey) => (key.namespace ? `${key.namespace}/${key.name}` : key.name);
export const describeKey = (key: InstanceKey) => (key.namespace ? `${key.namespace}/${key.kind}/${key.name}` : `${key.kind}/${key.name}`);
export const timestamp = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** What every instance operation asks first: may the caller see it, may they change it, and where Git is. */
export interface InstanceAccess {
  /** The instance if `actor` may get it; absent and invisible look the same (404, never 403). */
  getVisible(actor: Actor, key: InstanceKey): IndexedInstance;
  requireAllowed(actor: Actor, action: 'update' | 'delete', item: IndexedInstance): void;
  /** Commits the manifest (or its removal, when undefined) to the GitOps repository; resolves to the commit. */
  commitManifest(item: { project: string; key: InstanceKey }, manifest: KubeObject | undefined, message: string): Promise<string>;
  gitWriter(): GitWriter;
}

export function createInstanceAccess(deps: { index: InstanceIndex; authz: Authorizer; config: PorticoConfig; logger: Logger }): InstanceAccess {
  const { index, authz, config, logger } = deps;
  let git: GitWriter | undefined;
  const gitWriter = () => (git ??= createGitWriter(config.gitopsRepo!, logger));

  return {
    gitWriter,

    getVisible(actor, key) {
      const item = index.get(key);
      if (!item || !authz.can(actor, 'get', item.rbacObject)) throw notFound('instance', describeKey(key));
      return item;
    },

    requireAllowed(actor, action, item) {
      if (!authz.can(actor, action, item.rbacObject)) throw forbidden(`you may not ${action} instance "${item.instance.name}"`);
    },

    commitManifest(item, manifest, message) {
      // An instance committed by another installation (or before the setting was removed) cannot be changed here.
      if (!config.gitopsRepo) {
        return Promise.reject(unprocessable(`this instance is managed through Git: set ${gitopsRepoSetting}`, { setting: gitopsRepoSetting }));
      }
      return gitWriter().commit(manifestPath(item.project, item.key), manifest && manifestYaml(manifest), message);
    },
  };
}
