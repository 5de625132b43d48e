import { DeploymentMode } from '@portico/api';
import type { Actor } from '../actor.js';
import type { Catalog, CatalogEntry } from '../catalog/index.js';
import { validateValues } from '../catalog/index.js';
import type { Informer } from '../cluster/informer-types.js';
import type { PorticoConfig } from '../config.js';
import { PorticoError, badRequest, conflict, forbidden, notFound, validationFailed } from '../errors.js';
import type { KubeObject } from '../ports/cluster.js';
import { destinationAllows } from '../projects/destinations.js';
import { projectSpecOf } from '../projects/project-resource.js';
import type { Authorizer, CreateInstanceInput, InstanceKey } from '../types.js';
import { instanceObject } from './instance-resource.js';

/** Everything a creation needs once the checks passed. */
export interface CreationPlan {
  entry: CatalogEntry;
  key: InstanceKey;
  project: string;
  /** Validated values with the schema's defaults applied: the instance spec. */
  spec: Record<string, unknown>;
  mode: DeploymentMode;
  /** §13: the repository, branch and path a Git-mode create asked for. */
  git: { repositoryId?: string; gitBranch?: string; gitPath?: string };
}

interface CreateCheckDeps {
  catalog: Pick<Catalog, 'entry' | 'entryForKind' | 'schemaOf' | 'visibleTo'>;
  authz: Authorizer;
  projects: Informer;
  config: Pick<PorticoConfig, 'gitopsRepo' | 'kubernetes'>;
}

export const gitopsRepoSetting = 'PORTICO_GITOPS_REPO';

/** The Project resource by name (projects live in Portico's namespace; any namespace as a fallback). */
export function findProject(projects: Informer, config: Pick<PorticoConfig, 'kubernetes'>, name: string): KubeObject | undefined {
  return projects.get(name, config.kubernetes.namespace) ?? projects.list().find((p) => p.metadata.name === name);
}

/** The checks below as a preflight names them (contract §11.4), in the order they run. */
export type CreateCheckName = 'project' | 'permission' | 'destination' | 'rgd' | 'values' | 'deploymentMode';

/**
 * The creation checks of contract §6, in the documented order; each failure is the documented error. The first
 * check (body shape) is the server's zod schema; the last (name free) needs the index, see create-instance.ts.
 * `step` hears the name of each check as it starts, so a preflight tells which one failed: one sequence of
 * checks for both, never two copies that could drift apart.
 */
export function checkCreate(deps: CreateCheckDeps, actor: Actor, input: CreateInstanceInput, step: (check: CreateCheckName) => void = () => {}): CreationPlan {
  const { catalog, authz, config } = deps;
  const namespace = input.namespace ?? '';
  if (!input.name || !input.project) throw badRequest('name and project are required');

  // 2. The project exists. Only a Server Admin learns that it does not; anyone else gets the same 403 as for
  //    a project they are not in, so project names cannot be probed.
  step('project');
  const projectObject = findProject(deps.projects, config, input.project);
  if (!projectObject) {
    if (authz.isServerAdmin(actor)) throw notFound('project', input.project);
    throw forbidden(`you may not create instances in project "${input.project}"`);
  }

  // 3. Permission on the instance object. The kind is known from the path (Form A) or the RGD (Form B).
  step('permission');
  const named = input.rgdName !== undefined ? catalog.entry(input.rgdName) : undefined;
  const kind = input.kind ?? named?.kind ?? input.rgdName ?? '';
  const key: InstanceKey = { namespace, kind, name: input.name };
  if (!authz.can(actor, 'create', instanceObject(input.project, key))) {
    throw forbidden(`you may not create instances in project "${input.project}"`);
  }

  // 4. The namespace is one of the project's destinations (cluster-scoped instances have none to check).
  step('destination');
  const destinations = projectSpecOf(projectObject).destinations;
  if (namespace && !destinationAllows(destinations, namespace)) {
    throw forbidden(`namespace "${namespace}" is not a destination of project "${input.project}"`, {
      namespace,
      allowed: destinations.map((d) => d.namespace),
    });
  }

  // 5. The RGD exists in the catalog, the caller may see it, and kro has made it Active (5 to 7: the RGD check).
  step('rgd');
  const entry = input.rgdName !== undefined ? named : catalog.entryForKind(kind);
  if (!entry || !catalog.visibleTo(actor, entry)) throw notFound('rgd', input.rgdName ?? kind);
  if (entry.status !== 'Active') {
    throw conflict(`rgd "${entry.name}" is ${entry.status}, not Active: instances cannot be created yet`, { rgd: entry.name, status: entry.status });
  }

  // 6. A kind in the path must be the RGD's kind.
  if (input.kind !== undefined && input.kind !== entry.kind) {
    throw badRequest(`kind "${input.kind}" does not match rgd "${entry.name}" (kind "${entry.kind}")`, { kind: input.kind, expected: entry.kind });
  }
  key.kind = entry.kind;

  // 7. Scope: a namespaced kind needs a namespace, a cluster-scoped one must not have one.
  if (!entry.isClusterScoped && !namespace) {
    throw badRequest(`kind "${entry.kind}" is namespaced: a namespace is required`, { kind: entry.kind });
  }
  if (entry.isClusterScoped && namespace) {
    throw badRequest(`kind "${entry.kind}" is cluster-scoped: it takes no namespace`, { kind: entry.kind, namespace });
  }

  // 8. Values against the RGD's schema, defaults applied, every bad field listed.
  step('values');
  const result = validateValues(catalog.schemaOf(entry), input.values ?? {});
  if (!result.ok) throw validationFailed(result.fields, 'the values do not match the schema of rgd "' + entry.name + '"');

  // 9. Deployment mode: known, allowed by the RGD, and configured (a GitOps repository for the Git modes).
  step('deploymentMode');
  const requested = input.deploymentMode ?? 'direct';
  const parsedMode = DeploymentMode.safeParse(requested);
  if (!parsedMode.success) {
    throw badRequest(`deploymentMode must be one of: ${DeploymentMode.options.join(', ')}`, {
      deploymentMode: requested,
      allowed: DeploymentMode.options,
    });
  }
  const mode = parsedMode.data;
  if (!entry.allowedDeploymentModes.includes(mode)) {
    throw new PorticoError('DEPLOYMENT_MODE_NOT_ALLOWED', `rgd "${entry.name}" does not allow deployment mode "${mode}"`, {
      deploymentMode: mode,
      allowed: entry.allowedDeploymentModes,
      requestedMode: mode,
      allowedModes: entry.allowedDeploymentModes,
    });
  }
  // §13: a Git mode goes through a repository of the project (which one is checked when it is read, see create-instance).
  if (mode !== 'direct' && !input.repositoryId && !config.gitopsRepo) {
    throw badRequest(`deployment mode "${mode}" needs a GitOps repository: give repositoryId, a repository of project "${input.project}"`, {
      repositoryId: 'required',
      deploymentMode: mode,
      project: input.project,
    });
  }
  const git = { repositoryId: input.repositoryId, gitBranch: input.gitBranch, gitPath: input.gitPath };

  return { entry, key, project: input.project, spec: result.value, mode, git };
}
