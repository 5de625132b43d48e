import type { Actor } from '../actor.js';
import type { ProjectTokensService } from '../types.js';
import type { OperationRow } from './run.js';

type Table<S> = { readonly [K in keyof S]?: S[K] extends (...args: infer A) => infer R ? OperationRow<A, Awaited<R>> : never };

/**
 * §14: creating and revoking project tokens. The object is the role (`<role>`, and the token id on a revocation);
 * the input recorded is what was asked, never the token, which is only in the answer.
 */
export const tokenOperations: Table<ProjectTokensService> = {
  create: {
    id: 'tokens.create', actor: 0,
    subject: (_a: Actor, project: string, role: string) => ({ name: role, project }),
    input: (_a: Actor, _p: string, role: string, input: unknown) => ({ role, ...(input && typeof input === 'object' ? input : {}) }),
  },
  delete: {
    id: 'tokens.delete', actor: 0,
    subject: (_a: Actor, project: string, role: string, id: string) => ({ name: `${role}/${id}`, project }),
    input: (_a: Actor, _p: string, role: string, id: string) => ({ role, id }),
  },
};
