import type * as api from '@portico/api';
import type { Actor } from '../actor.js';
import type { RepositoriesService } from '../repositories/index.js';
import type { OperationRow } from './run.js';

type Table<S> = { readonly [K in keyof S]?: S[K] extends (...args: infer A) => infer R ? OperationRow<A, Awaited<R>> : never };

/** A repository's credentials are secret as a whole, whatever their fields are called: the audit hook redacts them (§12.2). */
const credentials = ['httpsAuth', 'sshAuth'] as const;

/** §13: the repository operations; the id of a new repository comes from the answer. */
export const repositoryOperations: Table<RepositoriesService> = {
  create: {
    id: 'repositories.create', actor: 0, secretFields: credentials,
    subject: (_a: Actor, input: api.CreateRepositoryRequest) => ({ name: input.name, project: input.projectId }),
  },
  update: {
    id: 'repositories.update', actor: 0, secretFields: credentials,
    subject: (_a: Actor, id: string) => ({ name: id }),
    input: (_a: Actor, id: string, input: api.UpdateRepositoryRequest) => ({ ...input, id }),
    fromResult: (info: api.RepoInfo) => ({ project: info.projectId }),
  },
  delete: { id: 'repositories.delete', actor: 0, subject: (_a: Actor, id: string) => ({ name: id }), input: (_a: Actor, id: string) => ({ id }) },
};
