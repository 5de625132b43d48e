import type { Project } from '@portico/api';
import { PorticoApiError, type PorticoClient, type UpdateProjectInput } from '@portico/client';

/** Attempts of a read-change-write before a concurrent writer's 409 is passed on. */
const attempts = 3;

/**
 * Reads the project, applies `change` and writes it with the resourceVersion read, so a concurrent edit is
 * never overwritten: on 409 CONFLICT the change is applied again to the newer project.
 */
export async function changeProject(
  client: PorticoClient,
  name: string,
  change: (project: Project) => Omit<UpdateProjectInput, 'resourceVersion'>,
): Promise<Project> {
  for (let attempt = 1; ; attempt++) {
    const current = await client.projects.get(name);
    const update = change(current);
    try {
      return await client.projects.update(name, { ...update, resourceVersion: current.resourceVersion });
    } catch (e) {
      if (!(e instanceof PorticoApiError && e.code === 'CONFLICT') || attempt >= attempts) throw e;
    }
  }
}

/** `a,b ,  c` → `a, b, c`, so a policy matches however it was spaced. */
export const normalizePolicy = (policy: string) =>
  policy
    .split(',')
    .map((p) => p.trim())
    .join(', ');
