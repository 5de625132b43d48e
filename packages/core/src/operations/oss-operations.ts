import type * as api from '@portico/api';
import type { Actor } from '../actor.js';
import type {
  AccountsService, AuthService, CreateInstanceInput, InstanceKey, InstancesService, ProjectsService, SecretsService,
} from '../types.js';
import type { OperationRow } from './run.js';

/**
 * Where each OSS operation's object, project and namespace come from, method by method (the action and
 * resource are the operation's row in `@portico/api`'s `operations`). Core wraps these methods with the
 * hooks given to `createPortico`, so an embedding program and the HTTP server record the same operations.
 */
type Table<S> = { readonly [K in keyof S]?: S[K] extends (...args: infer A) => infer R ? OperationRow<A, Awaited<R>> : never };

export const authOperations: Table<AuthService> = {
  localLogin: { id: 'auth.login', subject: (input: api.LocalLoginRequest) => ({ name: input.username }), input: (input: api.LocalLoginRequest) => input },
  tokenExchange: { id: 'auth.tokenExchange', subject: () => ({ name: '' }), input: (input: api.TokenExchangeRequest) => input },
  logout: { id: 'auth.logout', actor: 0, subject: (actor: Actor) => ({ name: actor.id }), input: () => ({}) },
  issueTicket: { id: 'auth.wsTicket', actor: 0, subject: (actor: Actor) => ({ name: actor.id }), input: () => ({}) },
};

export const accountOperations: Table<AccountsService> = {
  create: { id: 'accounts.create', actor: 0, subject: (_a: Actor, input: api.CreateAccountRequest) => ({ name: input.username }) },
  delete: { id: 'accounts.delete', actor: 0, subject: (_a: Actor, username: string) => ({ name: username }), input: (_a: Actor, username: string) => ({ username }) },
  changePassword: { id: 'accounts.changePassword', actor: 0, subject: (actor: Actor) => ({ name: actor.id }) },
};

const binding = (_a: Actor, project: string, role: string, type: api.BindingType, subject: string) => ({ role, type, subject, project });

export const projectOperations: Table<ProjectsService> = {
  create: { id: 'projects.create', actor: 0, subject: (_a: Actor, input: api.CreateProjectRequest) => ({ name: input.name, project: input.name }) },
  update: { id: 'projects.update', actor: 0, subject: (_a: Actor, name: string) => ({ name, project: name }) },
  delete: {
    id: 'projects.delete', actor: 0, subject: (_a: Actor, name: string) => ({ name, project: name }),
    input: (_a: Actor, name: string, opts?: { cascade?: boolean }) => (opts?.cascade ? { name, cascade: true } : { name }),
  },
  bind: { id: 'projects.bind', actor: 0, subject: (_a: Actor, project: string, _r: string, _t: api.BindingType, subject: string) => ({ name: subject, project }), input: binding },
  unbind: { id: 'projects.unbind', actor: 0, subject: (_a: Actor, project: string, _r: string, _t: api.BindingType, subject: string) => ({ name: subject, project }), input: binding },
};

/** A Secret's values are secret whatever their keys are called. */
const secretData = ['data'] as const;

export const secretOperations: Table<SecretsService> = {
  create: {
    id: 'secrets.create', actor: 0, secretFields: secretData,
    subject: (_a: Actor, project: string, input: api.CreateSecretRequest) => ({ name: input.name, project, namespace: input.namespace }),
  },
  update: {
    id: 'secrets.update', actor: 0, secretFields: secretData,
    subject: (_a: Actor, params: api.SecretParams) => ({ name: params.secret, project: params.name, namespace: params.namespace }),
  },
  delete: {
    id: 'secrets.delete', actor: 0,
    subject: (_a: Actor, params: api.SecretParams) => ({ name: params.secret, project: params.name, namespace: params.namespace }),
    input: (_a: Actor, params: api.SecretParams) => params,
  },
  // §11.3 family 2: the same operations as the project family, the Secret named the same way.
  upsertKeys: {
    id: 'secrets.update', actor: 0, secretFields: secretData,
    subject: (_a: Actor, project: string, secret: string, input: api.UpsertSecretKeysRequest) => ({ name: secret, project, namespace: input.namespace }),
  },
  remove: {
    id: 'secrets.delete', actor: 0,
    subject: (_a: Actor, params: api.SecretParams) => ({ name: params.secret, project: params.name, namespace: params.namespace }),
  },
};

const instanceSubject = (_a: Actor, key: InstanceKey) => ({ name: key.name, namespace: key.namespace });
const projectOfInstance = (instance: api.Instance) => ({ project: instance.project });

export const instanceOperations: Table<InstancesService> = {
  create: {
    id: 'instances.create', actor: 0,
    subject: (_a: Actor, input: CreateInstanceInput) => ({ name: input.name, project: input.project, namespace: input.namespace }),
  },
  patch: { id: 'instances.update', actor: 0, subject: instanceSubject, fromResult: projectOfInstance, input: (_a: Actor, key: InstanceKey, input: api.PatchInstanceRequest) => ({ ...key, ...input }) },
  delete: { id: 'instances.delete', actor: 0, subject: instanceSubject, fromResult: projectOfInstance, input: (_a: Actor, key: InstanceKey) => key },
};
