import type * as api from '@portico/api';
import { resources, apiVersionOf, type KubeObject } from '../ports/cluster.js';
import { deepFreeze } from '../freeze.js';
import { withLazyJsonText } from '../json-text.js';

/**
 * The Project custom resource (`portico.dev/v1alpha1 Project`, namespaced) and its mapping to api.Project.
 * Bindings live in `spec.roles[].users/groups`, so `kubectl get project -o yaml` shows who has access and a
 * GitOps repository can manage them.
 */
export const projectAnnotations = {
  createdBy: 'portico.dev/created-by',
  updatedAt: 'portico.dev/updated-at',
} as const;

export type ProjectRoleSpec = api.Project['roles'][number];

export interface ProjectSpec {
  description: string;
  destinations: api.Destination[];
  roles: ProjectRoleSpec[];
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function roleOf(raw: Record<string, unknown>): ProjectRoleSpec {
  const role: ProjectRoleSpec = {
    name: typeof raw.name === 'string' ? raw.name : '',
    policies: strings(raw.policies),
    groups: strings(raw.groups),
    users: strings(raw.users),
  };
  if (typeof raw.description === 'string') role.description = raw.description;
  if (Array.isArray(raw.destinations)) role.destinations = strings(raw.destinations);
  return role;
}

/**
 * The spec of a stored Project, tolerant of what kubectl or GitOps may have written (missing or null
 * fields): arrays are never null.
 */
export function projectSpecOf(obj: KubeObject): ProjectSpec {
  const spec: Record<string, unknown> = isRecord(obj.spec) ? obj.spec : {};
  return {
    description: typeof spec.description === 'string' ? spec.description : '',
    destinations: (Array.isArray(spec.destinations) ? spec.destinations : [])
      .filter(isRecord)
      .filter((d) => typeof d.namespace === 'string')
      .map((d) => ({ namespace: d.namespace as string })),
    roles: (Array.isArray(spec.roles) ? spec.roles : []).filter(isRecord).map(roleOf),
  };
}

/** A Project as the authorizer's policy source: its name and roles (wired in createPortico). */
export const projectPolicySource = (obj: KubeObject) => ({ name: obj.metadata.name, roles: projectSpecOf(obj).roles });

const views = new WeakMap<KubeObject, api.Project>();


/**
 * `toProject` of a cached (informer) object, converted once per object version: project lists are read on
 * every page load and the informer hands out the same frozen object until the project changes.
 */
export function projectView(obj: KubeObject): api.Project {
  let view = views.get(obj);
  // Serialised once per version: a Server Admin's list sends every project's roles, users and policies.
  if (!view) views.set(obj, (view = deepFreeze(withLazyJsonText(toProject(obj)))));
  return view;
}

export function toProject(obj: KubeObject): api.Project {
  const spec = projectSpecOf(obj);
  const annotations = obj.metadata.annotations ?? {};
  const project: api.Project = {
    name: obj.metadata.name,
    description: spec.description,
    destinations: spec.destinations,
    roles: spec.roles,
    resourceVersion: obj.metadata.resourceVersion ?? '',
    createdAt: obj.metadata.creationTimestamp ?? new Date(0).toISOString(),
    createdBy: annotations[projectAnnotations.createdBy] ?? '',
  };
  const updatedAt = annotations[projectAnnotations.updatedAt];
  if (updatedAt) project.updatedAt = updatedAt;
  return project;
}

/** Only the fields the resource stores, in a stable order (no undefined description). */
export const roleSpec = (role: {
  name: string;
  description?: string;
  policies?: string[];
  destinations?: string[];
  groups?: string[];
  users?: string[];
}): ProjectRoleSpec => {
  const out: ProjectRoleSpec = { name: role.name, policies: [...(role.policies ?? [])], groups: [...(role.groups ?? [])], users: [...(role.users ?? [])] };
  if (role.description !== undefined) out.description = role.description;
  if (role.destinations !== undefined) out.destinations = [...role.destinations];
  return out;
};

export function projectResource(
  input: { name: string; description: string; destinations: api.Destination[]; roles: ProjectRoleSpec[] },
  opts: { namespace: string; createdBy: string },
): KubeObject {
  return {
    apiVersion: apiVersionOf(resources.project),
    kind: resources.project.kind,
    metadata: {
      name: input.name,
      namespace: opts.namespace,
      annotations: { [projectAnnotations.createdBy]: opts.createdBy },
    },
    spec: {
      description: input.description,
      destinations: input.destinations.map((d) => ({ namespace: d.namespace })),
      roles: input.roles.map(roleSpec),
    },
  };
}
