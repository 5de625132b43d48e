import type * as api from '@portico/api';
import type { Actor } from '../actor.js';
import type { Identity, Tokens } from './tokens.js';

/** Issues the token of a successful sign-in (local or identity provider) and the response carrying it. */
export type StartSession = (identity: Identity, notBefore?: string) => Promise<api.LoginResponse>;

export const createStartSession =
  (tokens: Pick<Tokens, 'issue'>, describe: (actor: Actor) => api.User): StartSession =>
  async (identity, notBefore) => {
    const { token, actor } = await tokens.issue(identity, notBefore);
    return { token, expiresAt: actor.expiresAt.toISOString(), user: describe(actor) };
  };
