/**
 * RBAC objects of contract §5, built in one place so every module asks about the same strings.
 * A cluster-scoped instance has no namespace; its object uses `_` there, as the HTTP paths do.
 */
export const rbacObject = {
  allProjects: 'projects/*',
  project: (project: string) => `projects/${project}`,
  members: (project: string) => `projects/${project}/members`,
  roles: (project: string) => `projects/${project}/roles`,
  instances: (project: string) => `instances/${project}/*`,
  instance: (project: string, namespace: string, kind: string, name: string) =>
    `instances/${project}/${namespace || '_'}/${kind}/${name}`,
  secrets: (project: string) => `secrets/${project}/*`,
  secret: (project: string, namespace: string, name: string) => `secrets/${project}/${namespace}/${name}`,
  rgds: (project: string) => `rgds/${project}/*`,
  rgd: (project: string, category: string, name: string) => `rgds/${project}/${category || '_'}/${name}`,
};

const projectScoped = /^(?:projects|instances|secrets|rgds)\/([^/*]+)(?:\/|$)/;

/** The project an object belongs to, or undefined for global objects such as `projects/*`. */
export function projectOfObject(object: string): string | undefined {
  return projectScoped.exec(object)?.[1];
}

/** Casbin subject of a project role. */
export const roleSubject = (project: string, role: string) => `proj:${project}:${role}`;
