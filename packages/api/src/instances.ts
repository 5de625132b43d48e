import { z } from 'zod';
import { Condition, DeploymentMode, DnsLabel, DnsSubdomain, KindName, Labels, PageQuery, Timestamp, listOf } from './common.js';
import { LabelSelector } from './label-selector.js';
import { BranchName, GitPath, RepositoryId } from './repositories.js';

export const Health = z.enum(['Healthy', 'Progressing', 'Degraded', 'Unhealthy', 'Unknown']);
export type Health = z.infer<typeof Health>;

export const InstanceState = z.enum(['IN_PROGRESS', 'ACTIVE', 'DELETING', 'ERROR', '']);

/** §13: where a Git-mode instance lives and the commit that last changed it. */
export const GitInfo = z.object({
  repositoryId: z.string(),
  repositoryUrl: z.string(),
  branch: z.string(),
  path: z.string(),
  commitSha: z.string(),
  commitUrl: z.string().optional(),
  pushStatus: z.enum(['success', 'failed']),
});
export type GitInfo = z.infer<typeof GitInfo>;

export const Instance = z.object({
  name: z.string(),
  namespace: z.string(),
  isClusterScoped: z.boolean(),
  project: z.string(),
  rgdName: z.string(),
  apiVersion: z.string(),
  kind: z.string(),
  spec: z.record(z.string(), z.unknown()),
  status: z.object({ state: z.string(), conditions: z.array(Condition) }),
  health: Health,
  conditions: z.array(Condition),
  deploymentMode: DeploymentMode,
  labels: Labels,
  createdAt: Timestamp,
  createdBy: z.string(),
  updatedAt: Timestamp,
  resourceVersion: z.string(),
  uid: z.string(),
  gitCommit: z.string().optional(),
  /** §13, Git modes: the repository, branch, path and last commit. */
  gitInfo: GitInfo.optional(),
  /** §13, Git modes: whether the live spec differs from the spec in Git; when it does, that spec and since when. */
  gitopsDrift: z.boolean().optional(),
  desiredSpec: z.record(z.string(), z.unknown()).optional(),
  driftedAt: Timestamp.optional(),
  /** On a create's 201 only, when an edition's checks let it through with findings (Enterprise: `warn` policies). */
  details: z.object({ warnings: z.array(z.unknown()) }).optional(),
});
export type Instance = z.infer<typeof Instance>;

const Values = z.record(z.string(), z.unknown());

/** §13: the repository of the instance's project a Git-mode create goes through, and where in it (both optional). */
const gitFields = {
  repositoryId: RepositoryId.optional(),
  gitBranch: BranchName.optional(),
  gitPath: GitPath.optional(),
};

/** Create by kind (kind, and namespace unless cluster-scoped, in the path): `{name, project, values}`; `projectId` and `spec` are accepted aliases. (FormA is the contract's internal name.) */
export const CreateInstanceFormA = z
  .object({
    name: DnsSubdomain,
    project: DnsLabel.optional(),
    projectId: DnsLabel.optional(),
    values: Values.optional(),
    spec: Values.optional(),
    deploymentMode: z.string().optional(),
    ...gitFields,
  })
  .refine((b) => b.project !== undefined || b.projectId !== undefined, { message: 'project is required', path: ['project'] });
export type CreateInstanceFormA = z.infer<typeof CreateInstanceFormA>;

/** Create by RGD name: one flat body. (FormB is the contract's internal name.) */
export const CreateInstanceFormB = z
  .object({
    name: DnsSubdomain,
    namespace: DnsLabel.optional(),
    rgdName: DnsSubdomain,
    projectId: DnsLabel.optional(),
    project: DnsLabel.optional(),
    spec: Values.optional(),
    values: Values.optional(),
    deploymentMode: z.string().optional(),
    ...gitFields,
  })
  .refine((b) => b.project !== undefined || b.projectId !== undefined, { message: 'projectId is required', path: ['projectId'] });
export type CreateInstanceFormB = z.infer<typeof CreateInstanceFormB>;

export const PatchInstanceRequest = z.object({ spec: Values, resourceVersion: z.string().optional() });
export type PatchInstanceRequest = z.infer<typeof PatchInstanceRequest>;

export const InstanceSortBy = z.enum(['name', 'namespace', 'kind', 'project', 'health', 'createdAt', 'updatedAt']);

export const InstanceListQuery = z.object({
  project: z.string().max(63).optional(),
  namespace: z.string().max(63).optional(),
  rgdName: z.string().max(253).optional(),
  kind: z.string().max(63).optional(),
  health: Health.optional(),
  search: z.string().max(256).optional(),
  labelSelector: LabelSelector.optional(),
  ...PageQuery,
  sortBy: InstanceSortBy.default('name'),
});
export type InstanceListQuery = z.infer<typeof InstanceListQuery>;

export const InstanceList = listOf(Instance);
export type InstanceList = z.infer<typeof InstanceList>;

export const NamespacedKindParams = z.object({ namespace: DnsLabel, kind: KindName });
export const NamespacedInstanceParams = z.object({ namespace: DnsLabel, kind: KindName, name: DnsSubdomain });
export const ClusterKindParams = z.object({ kind: KindName });
export const ClusterInstanceParams = z.object({ kind: KindName, name: DnsSubdomain });
