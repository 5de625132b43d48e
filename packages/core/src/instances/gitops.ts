import path from 'node:path';
import { stringify } from 'yaml';
import type { KubeObject } from '../ports/cluster.js';
import type { InstanceKey } from '../types.js';

/** Where a manifest lives by default (§13): `<project>/<namespace or _cluster>/<Kind>/<name>.yaml`. */
export const manifestPath = (project: string, key: InstanceKey): string =>
  path.posix.join(project, key.namespace || '_cluster', key.kind, `${key.name}.yaml`);

/** The YAML Portico commits for an instance: what `kubectl apply` (or Argo CD / Flux) would apply. */
export const manifestYaml = (manifest: KubeObject): string => stringify(manifest, { lineWidth: 0 });
