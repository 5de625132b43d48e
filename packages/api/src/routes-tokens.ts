import { CreatedProjectToken, CreateProjectTokenRequest, ProjectRoleParams, ProjectTokenList, ProjectTokenParams } from './project-tokens.js';
import { r } from './route-def.js';

/**
 * §14: a project role's tokens. Server Admins and roles allowed `members/*` of the project manage them; a project
 * token itself never does.
 */
export const projectTokenRoutes = [
  r({ id: 'createProjectToken', method: 'POST', path: '/api/v1/projects/{name}/roles/{role}/tokens', auth: 'user', tag: 'projects', summary: 'Issue a token acting as this role of this project (the token is shown once)', params: ProjectRoleParams, body: CreateProjectTokenRequest, status: 201, response: CreatedProjectToken, operation: 'tokens.create' }),
  r({ id: 'listProjectTokens', method: 'GET', path: '/api/v1/projects/{name}/roles/{role}/tokens', auth: 'user', tag: 'projects', summary: 'The role\'s tokens (never the tokens themselves)', params: ProjectRoleParams, status: 200, response: ProjectTokenList }),
  r({ id: 'deleteProjectToken', method: 'DELETE', path: '/api/v1/projects/{name}/roles/{role}/tokens/{id}', auth: 'user', tag: 'projects', summary: 'Revoke a token: refused at once on every replica', params: ProjectTokenParams, status: 204, operation: 'tokens.delete' }),
] as const;
