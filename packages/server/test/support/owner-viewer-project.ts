import { apiAs, createUser, uniqueName, type TestUser } from './api-as.js';
import type { TestPortico } from './portico.js';

/** The policies of the two roles, worked out from the project's name (a Casbin line names its project). */
export type OwnerViewerPolicies = (project: string) => { owner: string[]; viewer: string[] };

/**
 * Creates, as the admin, a project deploying to dev whose `owner` and `viewer` roles each bind one new account,
 * with the policies given.
 */
export async function ownerViewerProject(tp: TestPortico, prefix: string, policies: OwnerViewerPolicies): Promise<{ name: string; owner: TestUser; viewer: TestUser }> {
  const owner = await createUser(tp, 'owner');
  const viewer = await createUser(tp, 'viewer');
  const name = uniqueName(prefix);
  const granted = policies(name);
  const res = await apiAs(tp.url, tp.adminToken).post('/api/v1/projects', {
    name,
    destinations: [{ namespace: 'dev' }],
    roles: [
      { name: 'owner', policies: granted.owner, users: [owner.username] },
      { name: 'viewer', policies: granted.viewer, users: [viewer.username] },
    ],
  });
  if (res.status !== 201) throw new Error(`creating project ${name} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { name, owner, viewer };
}
