import type * as api from '@portico/api';

/**
 * The conventional roles of contract §5, given to a project created without roles. They are data: an
 * operator may edit them per project like any other role, and no code looks for these names.
 */
export const roleTemplates: readonly api.ProjectRole[] = [
  {
    name: 'platform-admin',
    description: 'Manages everything in the project, including who is a member',
    policies: ['instances/*, *, allow', 'secrets/*, *, allow', 'rgds/*, *, allow', 'members/*, *, allow'],
    groups: [],
    users: [],
  },
  {
    name: 'developer',
    description: 'Deploys and manages instances',
    policies: ['instances/*, *, allow', 'rgds/*, get, allow'],
    groups: [],
    users: [],
  },
  {
    name: 'viewer',
    description: 'Reads instances and the catalog',
    policies: ['instances/*, get, allow', 'rgds/*, get, allow'],
    groups: [],
    users: [],
  },
];

/** Fresh copies, so a caller that edits the result never changes the templates. */
export const defaultRoles = (): api.ProjectRole[] => structuredClone(roleTemplates) as api.ProjectRole[];
