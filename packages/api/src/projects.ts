import { z } from 'zod';
import { DnsLabel, NamespacePattern, SubjectName, Timestamp } from './common.js';

export const Destination = z.object({ namespace: NamespacePattern });
export type Destination = z.infer<typeof Destination>;

/**
 * A policy: the triple `<object>, <action>, <effect>` (object relative to the project), or the Casbin line
 * `p, proj:<project>:<role>, <resource>, <action>, <object>, <effect>` for the role it sits in (contract §11.8); stored and returned as written.
 */
export const PolicyString = z.string().min(1).max(512);

export const ProjectRole = z.object({
  name: DnsLabel,
  description: z.string().max(1024).optional(),
  policies: z.array(PolicyString).max(200).default([]),
  /** Namespace patterns the role's permissions are confined to; absent, they hold in every namespace. */
  destinations: z.array(NamespacePattern).max(100).optional(),
  groups: z.array(SubjectName).max(1000).default([]),
  users: z.array(SubjectName).max(10000).default([]),
});
export type ProjectRole = z.infer<typeof ProjectRole>;

export const Project = z.object({
  name: z.string(),
  description: z.string(),
  destinations: z.array(z.object({ namespace: z.string() })),
  roles: z.array(
    z.object({
      name: z.string(),
      description: z.string().optional(),
      policies: z.array(z.string()),
      destinations: z.array(z.string()).optional(),
      groups: z.array(z.string()),
      users: z.array(z.string()),
    }),
  ),
  resourceVersion: z.string(),
  createdAt: Timestamp,
  createdBy: z.string(),
  updatedAt: Timestamp.optional(),
});
export type Project = z.infer<typeof Project>;

export const ProjectList = z.object({ items: z.array(Project), totalCount: z.number().int() });
export type ProjectList = z.infer<typeof ProjectList>;

export const CreateProjectRequest = z.object({
  name: DnsLabel,
  description: z.string().max(4096).default(''),
  destinations: z.array(Destination).max(100).default([]),
  roles: z.array(ProjectRole).max(50).optional(),
});
export type CreateProjectRequest = z.infer<typeof CreateProjectRequest>;

export const UpdateProjectRequest = z.object({
  description: z.string().max(4096).optional(),
  destinations: z.array(Destination).max(100).optional(),
  roles: z.array(ProjectRole).max(50).optional(),
  resourceVersion: z.string().min(1, 'the current resourceVersion is required'),
});
export type UpdateProjectRequest = z.infer<typeof UpdateProjectRequest>;

export const ProjectNamespaces = z.object({ namespaces: z.array(z.string()), count: z.number().int() });
export type ProjectNamespaces = z.infer<typeof ProjectNamespaces>;

export const BindingType = z.enum(['user', 'group']);
export type BindingType = z.infer<typeof BindingType>;

export const Binding = z.object({ project: z.string(), role: z.string(), type: BindingType, subject: z.string() });
export type Binding = z.infer<typeof Binding>;

export const RoleBindings = z.object({
  project: z.string(),
  bindings: z.array(z.object({ role: z.string(), type: BindingType, subject: z.string() })),
});
export type RoleBindings = z.infer<typeof RoleBindings>;

export const ProjectParams = z.object({ name: DnsLabel });
/** `DELETE /projects/{name}`: a project that still has instances is 409 unless `cascade=true` (contract §14). */
export const DeleteProjectQuery = z.object({
  cascade: z
    .enum(['true', 'false'])
    .optional()
    .meta({ description: "true: delete the project's instances first (progress as deploy_progress over /ws), then the project; otherwise a project with instances is 409 with details.instances" }),
});
export type DeleteProjectQuery = z.infer<typeof DeleteProjectQuery>;
export const UserBindingParams = z.object({ name: DnsLabel, role: DnsLabel, user: SubjectName });
export const GroupBindingParams = z.object({ name: DnsLabel, role: DnsLabel, group: SubjectName });
