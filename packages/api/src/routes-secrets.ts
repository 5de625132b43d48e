import { r } from './route-def.js';
import { CreateSecretRequest, SecretSummary } from './secrets.js';
import {
  SecretDeleted, SecretLocationQuery, SecretNameParams, SecretPage, SecretPageQuery, SecretsProjectQuery, SecretWithData, UpsertSecretKeysRequest,
} from './secrets-field.js';

/**
 * §11.3 family 2, the secrets paths consoles in the field call: the project's Secrets by query string. The same
 * service, checks and operations as the project family (`/projects/{name}/secrets`). HEAD comes before GET on the
 * same path, so the router answers it from its own row: it needs `get`, not the `reveal` the GET needs.
 */
export const secretFieldRoutes = [
  r({ id: 'listSecretsOfProject', method: 'GET', path: '/api/v1/secrets', auth: 'user', tag: 'secrets', summary: 'A page of the project\'s Secrets the caller may see (names and keys, never values)', query: SecretPageQuery, status: 200, response: SecretPage }),
  r({ id: 'createSecretInProject', method: 'POST', path: '/api/v1/secrets', auth: 'user', tag: 'secrets', summary: 'Create a Secret in one of the project\'s destinations', query: SecretsProjectQuery, body: CreateSecretRequest, status: 201, response: SecretSummary, operation: 'secrets.create' }),
  r({ id: 'secretExists', method: 'HEAD', path: '/api/v1/secrets/{secret}', auth: 'user', tag: 'secrets', summary: 'Whether the Secret exists for the caller: 200 or 404, no body', params: SecretNameParams, query: SecretLocationQuery, status: 200 }),
  r({ id: 'getSecretWithData', method: 'GET', path: '/api/v1/secrets/{secret}', auth: 'user', tag: 'secrets', summary: 'One Secret with its values (needs the reveal action)', params: SecretNameParams, query: SecretLocationQuery, status: 200, response: SecretWithData }),
  r({ id: 'upsertSecretKeys', method: 'PUT', path: '/api/v1/secrets/{secret}', auth: 'user', tag: 'secrets', summary: 'Set the keys sent, keep the others', params: SecretNameParams, query: SecretsProjectQuery, body: UpsertSecretKeysRequest, status: 200, response: SecretSummary, operation: 'secrets.update' }),
  r({ id: 'deleteSecretOfProject', method: 'DELETE', path: '/api/v1/secrets/{secret}', auth: 'user', tag: 'secrets', summary: 'Delete a Secret; warnings name the project\'s instances whose values mention it', params: SecretNameParams, query: SecretLocationQuery, status: 200, response: SecretDeleted, operation: 'secrets.delete' }),
] as const;
