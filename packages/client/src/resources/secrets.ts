import type { RouteBodyInput, SecretDetail, SecretList, SecretSummary } from '@portico/api';
import type { CallOptions } from '../options.js';
import type { Transport } from '../transport.js';

/** `{name, namespace, type?, data: {key: value}}`: values as plain strings (the server base64-encodes them). */
export type CreateSecretInput = RouteBodyInput<'createSecret'>;
/** Replaces the data; `resourceVersion` is the version read last (a stale one gives 409 CONFLICT). */
export type UpdateSecretInput = RouteBodyInput<'updateSecret'>;

/** §11.1 a project's Secrets. */
export interface SecretsApi {
  list(project: string, opts?: CallOptions): Promise<SecretList>;
  create(project: string, input: CreateSecretInput, opts?: CallOptions): Promise<SecretSummary>;
  /** Metadata and keys; `{reveal: true}` adds `data` (needs the `reveal` action). */
  get(project: string, namespace: string, secret: string, query?: { reveal?: boolean }, opts?: CallOptions): Promise<SecretDetail>;
  update(project: string, namespace: string, secret: string, input: UpdateSecretInput, opts?: CallOptions): Promise<SecretSummary>;
  delete(project: string, namespace: string, secret: string, opts?: CallOptions): Promise<void>;
}

export const secretsApi = (call: Transport): SecretsApi => ({
  list: (name, opts) => call('listSecrets', { params: { name } }, opts),
  create: (name, input, opts) => call('createSecret', { params: { name }, body: input }, opts),
  get: (name, namespace, secret, query, opts) =>
    call('getSecret', { params: { name, namespace, secret }, query: query?.reveal ? { reveal: 'true' } : {} }, opts),
  update: (name, namespace, secret, input, opts) => call('updateSecret', { params: { name, namespace, secret }, body: input }, opts),
  delete: (name, namespace, secret, opts) => call('deleteSecret', { params: { name, namespace, secret } }, opts),
});
