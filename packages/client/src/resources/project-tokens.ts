import type { CreatedProjectToken, ProjectTokenList, RouteBodyInput } from '@portico/api';
import type { CallOptions } from '../options.js';
import type { Transport } from '../transport.js';

/** `{description?, expiresIn?: "30d"}`; without `expiresIn` the token does not expire. */
export type CreateProjectTokenInput = RouteBodyInput<'createProjectToken'>;

/**
 * §14 project tokens: each acts as one role of one project, for CI pipelines (hand it to a client as `token`, or
 * set `PORTICO_TOKEN`). Server Admins and roles allowed `members/*` of the project manage them.
 */
export interface ProjectTokensApi {
  /** The answer holds the token: it is shown this once and never again. */
  create(project: string, role: string, input?: CreateProjectTokenInput, opts?: CallOptions): Promise<CreatedProjectToken>;
  /** What is known of the role's tokens (never the tokens). */
  list(project: string, role: string, opts?: CallOptions): Promise<ProjectTokenList>;
  /** Revokes a token: refused at once on every replica. */
  delete(project: string, role: string, id: string, opts?: CallOptions): Promise<void>;
}

export const projectTokensApi = (call: Transport): ProjectTokensApi => ({
  create: (name, role, input, opts) => call('createProjectToken', { params: { name, role }, body: input ?? {} }, opts),
  list: (name, role, opts) => call('listProjectTokens', { params: { name, role } }, opts),
  delete: async (name, role, id, opts) => void (await call('deleteProjectToken', { params: { name, role, id } }, opts)),
});
