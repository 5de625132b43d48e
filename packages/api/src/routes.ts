import { z } from 'zod';
import {
  Account, AccountList, ChangePasswordRequest, CreateAccountRequest, LocalLoginRequest, LoginResponse, OidcCallbackQuery,
  OidcLoginQuery, SsoProviderList, SsoProviders, TokenExchangeRequest, Username, WsTicket,
} from './auth.js';
import { CountResponse, MessageResponse } from './common.js';
import { ErrorEnvelope } from './errors.js';
import { r, type RouteDef } from './route-def.js';
import { repositoryRoutes } from './routes-repositories.js';
import { projectTokenRoutes } from './routes-tokens.js';
import { preflightRoutes } from './routes-preflight.js';
import { settingsRoutes } from './routes-settings.js';
import { Healthz, Readyz, ServerVersion } from './health.js';
import {
  ClusterInstanceParams, ClusterKindParams, CreateInstanceFormA, CreateInstanceFormB, Instance, InstanceList,
  InstanceListQuery, NamespacedInstanceParams, NamespacedKindParams, PatchInstanceRequest,
} from './instances.js';
import {
  Binding, CreateProjectRequest, DeleteProjectQuery, GroupBindingParams, Project, ProjectList, ProjectNamespaces, ProjectParams,
  RoleBindings, UpdateProjectRequest, UserBindingParams,
} from './projects.js';
import { AccountInfo, CanIParams, CanISummary, CanIValue } from './rbac.js';
import { catalogViewRoutes, instanceHistoryRoutes } from './routes-history.js';
import { ssoProviderRoutes } from './routes-sso.js';
import { RgdDetail, RgdFilters, RgdList, RgdListQuery } from './rgds.js';
import { CreateSecretRequest, SecretDetail, SecretList, SecretParams, SecretQuery, SecretSummary, UpdateSecretRequest } from './secrets.js';
import { secretFieldRoutes } from './routes-secrets.js';

const AccountParams = z.object({ username: Username });
const RgdParams = z.object({ name: z.string().min(1).max(253) });

export const routes = [
  // §2 authentication
  r({ id: 'localLogin', method: 'POST', path: '/api/v1/auth/local/login', auth: 'none', tag: 'auth', summary: 'Sign in with a local account', body: LocalLoginRequest, status: 200, response: LoginResponse, rateLimit: 'login' , operation: 'auth.login' }),
  r({ id: 'oidcLogin', method: 'GET', path: '/api/v1/auth/oidc/login', auth: 'none', tag: 'auth', summary: 'Start an OIDC sign-in (302 to the identity provider)', query: OidcLoginQuery, status: 302, rateLimit: 'oidcLogin' }),
  r({ id: 'oidcCallback', method: 'GET', path: '/api/v1/auth/oidc/callback', auth: 'none', tag: 'auth', summary: 'OIDC redirect target (302 to redirect?code=)', query: OidcCallbackQuery, status: 302, rateLimit: 'oidcCallback' }),
  r({ id: 'tokenExchange', method: 'POST', path: '/api/v1/auth/token-exchange', auth: 'none', tag: 'auth', summary: 'Exchange a one-time code for a session token', body: TokenExchangeRequest, status: 200, response: LoginResponse, rateLimit: 'login' , operation: 'auth.tokenExchange' }),
  r({ id: 'logout', method: 'POST', path: '/api/v1/auth/logout', auth: 'user', tag: 'auth', summary: 'Revoke the current token and clear the cookie', status: 200, response: MessageResponse , operation: 'auth.logout' }),
  r({ id: 'ssoProviders', method: 'GET', path: '/api/v1/settings/sso/providers', auth: 'none', tag: 'auth', summary: 'Identity providers, one object each', status: 200, response: SsoProviderList, rateLimit: 'ssoProviders' }),
  r({ id: 'oidcProviders', method: 'GET', path: '/api/v1/auth/oidc/providers', auth: 'none', tag: 'auth', summary: 'Sign-in options (local login and OIDC at a glance)', status: 200, response: SsoProviders, rateLimit: 'ssoProviders' }),
  ...ssoProviderRoutes,
  r({ id: 'wsTicket', method: 'POST', path: '/api/v1/ws/ticket', auth: 'user', tag: 'auth', summary: 'Issue a single-use WebSocket ticket (30 s)', status: 200, response: WsTicket , operation: 'auth.wsTicket' }),
  // §2.1 local accounts
  r({ id: 'listAccounts', method: 'GET', path: '/api/v1/accounts', auth: 'user', tag: 'accounts', summary: 'List local accounts (Server Admin)', status: 200, response: AccountList }),
  r({ id: 'createAccount', method: 'POST', path: '/api/v1/accounts', auth: 'user', tag: 'accounts', summary: 'Create a local account (Server Admin)', body: CreateAccountRequest, status: 201, response: Account , operation: 'accounts.create' }),
  r({ id: 'deleteAccount', method: 'DELETE', path: '/api/v1/accounts/{username}', auth: 'user', tag: 'accounts', summary: 'Delete a local account (Server Admin); its tokens stop working', params: AccountParams, status: 204 , operation: 'accounts.delete' }),
  r({ id: 'changePassword', method: 'PUT', path: '/api/v1/account/password', auth: 'user', tag: 'accounts', summary: 'Change the caller\'s local password; earlier tokens stop working', body: ChangePasswordRequest, status: 200, response: MessageResponse , operation: 'accounts.changePassword' }),
  // §5 account and can-i
  r({ id: 'getAccount', method: 'GET', path: '/api/v1/account', auth: 'user', tag: 'account', summary: 'The caller', status: 200, response: AccountInfo }),
  r({ id: 'getAccountInfo', method: 'GET', path: '/api/v1/account/info', auth: 'user', tag: 'account', summary: 'The caller (the same answer under /account/info)', status: 200, response: AccountInfo }),
  r({ id: 'canISummary', method: 'GET', path: '/api/v1/account/can-i', auth: 'user', tag: 'account', summary: 'The caller\'s permissions, project by project', status: 200, response: CanISummary }),
  r({ id: 'canI', method: 'GET', path: '/api/v1/account/can-i/{resource}/{action}/{object}', auth: 'user', tag: 'account', summary: 'May the caller do this one thing? (a "no" is 200)', params: CanIParams, status: 200, response: CanIValue }),
  // §3 catalog
  r({ id: 'listRgds', method: 'GET', path: '/api/v1/rgds', auth: 'user', tag: 'rgds', summary: 'List catalog RGDs the caller may see', query: RgdListQuery, status: 200, response: RgdList }),
  r({ id: 'countRgds', method: 'GET', path: '/api/v1/rgds/count', auth: 'user', tag: 'rgds', summary: 'Count catalog RGDs the caller may see', status: 200, response: CountResponse }),
  r({ id: 'rgdFilters', method: 'GET', path: '/api/v1/rgds/filters', auth: 'user', tag: 'rgds', summary: 'Filter values over what the caller may see', status: 200, response: RgdFilters }),
  r({ id: 'getRgd', method: 'GET', path: '/api/v1/rgds/{name}', auth: 'user', tag: 'rgds', summary: 'One RGD with its values schema', params: RgdParams, status: 200, response: RgdDetail }),
  // §11 deploy forms and resource graphs
  ...catalogViewRoutes,
  // §4 projects
  r({ id: 'listProjects', method: 'GET', path: '/api/v1/projects', auth: 'user', tag: 'projects', summary: 'Projects the caller may see', status: 200, response: ProjectList }),
  r({ id: 'createProject', method: 'POST', path: '/api/v1/projects', auth: 'user', tag: 'projects', summary: 'Create a project', body: CreateProjectRequest, status: 201, response: Project , operation: 'projects.create' }),
  r({ id: 'getProject', method: 'GET', path: '/api/v1/projects/{name}', auth: 'user', tag: 'projects', summary: 'One project', params: ProjectParams, status: 200, response: Project }),
  r({ id: 'updateProject', method: 'PUT', path: '/api/v1/projects/{name}', auth: 'user', tag: 'projects', summary: 'Update a project (needs the current resourceVersion)', params: ProjectParams, body: UpdateProjectRequest, status: 200, response: Project , operation: 'projects.update' }),
  r({ id: 'deleteProject', method: 'DELETE', path: '/api/v1/projects/{name}', auth: 'user', tag: 'projects', summary: 'Delete a project with its Secrets; one that still has instances is 409 unless cascade=true deletes them first', params: ProjectParams, query: DeleteProjectQuery, status: 204 , operation: 'projects.delete' }),
  r({ id: 'projectNamespaces', method: 'GET', path: '/api/v1/projects/{name}/namespaces', auth: 'user', tag: 'projects', summary: 'Real namespaces matching the project\'s destinations', params: ProjectParams, status: 200, response: ProjectNamespaces, rateLimit: 'namespaces' }),
  r({ id: 'bindUser', method: 'POST', path: '/api/v1/projects/{name}/roles/{role}/users/{user}', auth: 'user', tag: 'projects', summary: 'Bind a user to a role', params: UserBindingParams, status: 201, response: Binding , operation: 'projects.bind' }),
  r({ id: 'unbindUser', method: 'DELETE', path: '/api/v1/projects/{name}/roles/{role}/users/{user}', auth: 'user', tag: 'projects', summary: 'Unbind a user from a role', params: UserBindingParams, status: 204 , operation: 'projects.unbind' }),
  r({ id: 'bindGroup', method: 'POST', path: '/api/v1/projects/{name}/roles/{role}/groups/{group}', auth: 'user', tag: 'projects', summary: 'Bind a group to a role', params: GroupBindingParams, status: 201, response: Binding , operation: 'projects.bind' }),
  r({ id: 'unbindGroup', method: 'DELETE', path: '/api/v1/projects/{name}/roles/{role}/groups/{group}', auth: 'user', tag: 'projects', summary: 'Unbind a group from a role', params: GroupBindingParams, status: 204 , operation: 'projects.unbind' }),
  r({ id: 'roleBindings', method: 'GET', path: '/api/v1/projects/{name}/role-bindings', auth: 'user', tag: 'projects', summary: 'Every binding of the project', params: ProjectParams, status: 200, response: RoleBindings }),
  ...projectTokenRoutes,
  // §11.1 secrets
  r({ id: 'listSecrets', method: 'GET', path: '/api/v1/projects/{name}/secrets', auth: 'user', tag: 'secrets', summary: 'The project\'s Secrets the caller may see (names and keys, never values)', params: ProjectParams, status: 200, response: SecretList }),
  r({ id: 'createSecret', method: 'POST', path: '/api/v1/projects/{name}/secrets', auth: 'user', tag: 'secrets', summary: 'Create a Secret in one of the project\'s destinations', params: ProjectParams, body: CreateSecretRequest, status: 201, response: SecretSummary , operation: 'secrets.create' }),
  r({ id: 'getSecret', method: 'GET', path: '/api/v1/projects/{name}/secrets/{namespace}/{secret}', auth: 'user', tag: 'secrets', summary: 'One Secret; reveal=true adds its values (needs the reveal action)', params: SecretParams, query: SecretQuery, status: 200, response: SecretDetail }),
  r({ id: 'updateSecret', method: 'PUT', path: '/api/v1/projects/{name}/secrets/{namespace}/{secret}', auth: 'user', tag: 'secrets', summary: 'Replace a Secret\'s data (needs the current resourceVersion)', params: SecretParams, body: UpdateSecretRequest, status: 200, response: SecretSummary , operation: 'secrets.update' }),
  r({ id: 'deleteSecret', method: 'DELETE', path: '/api/v1/projects/{name}/secrets/{namespace}/{secret}', auth: 'user', tag: 'secrets', summary: 'Delete a Secret', params: SecretParams, status: 204 , operation: 'secrets.delete' }),
  ...secretFieldRoutes,
  // §6 instances
  r({ id: 'listInstances', method: 'GET', path: '/api/v1/instances', auth: 'user', tag: 'instances', summary: 'Instances the caller may see', query: InstanceListQuery, status: 200, response: InstanceList }),
  r({ id: 'countInstances', method: 'GET', path: '/api/v1/instances/count', auth: 'user', tag: 'instances', summary: 'Count instances the caller may see', status: 200, response: CountResponse }),
  r({ id: 'createInstance', method: 'POST', path: '/api/v1/instances', auth: 'user', tag: 'instances', summary: 'Create an instance by RGD name (flat body: rgdName, projectId, namespace, spec)', body: CreateInstanceFormB, status: 201, response: Instance , operation: 'instances.create' }),
  r({ id: 'createNamespacedInstance', method: 'POST', path: '/api/v1/namespaces/{namespace}/instances/{kind}', auth: 'user', tag: 'instances', summary: 'Create an instance of a namespaced kind (kind and namespace in the path)', params: NamespacedKindParams, body: CreateInstanceFormA, status: 201, response: Instance , operation: 'instances.create' }),
  r({ id: 'createClusterInstance', method: 'POST', path: '/api/v1/instances/_/{kind}', auth: 'user', tag: 'instances', summary: 'Create an instance of a cluster-scoped kind (kind in the path)', params: ClusterKindParams, body: CreateInstanceFormA, status: 201, response: Instance , operation: 'instances.create' }),
  r({ id: 'getNamespacedInstance', method: 'GET', path: '/api/v1/namespaces/{namespace}/instances/{kind}/{name}', auth: 'user', tag: 'instances', summary: 'One instance', params: NamespacedInstanceParams, status: 200, response: Instance }),
  r({ id: 'patchNamespacedInstance', method: 'PATCH', path: '/api/v1/namespaces/{namespace}/instances/{kind}/{name}', auth: 'user', tag: 'instances', summary: 'Merge-patch an instance spec', params: NamespacedInstanceParams, body: PatchInstanceRequest, status: 200, response: Instance , operation: 'instances.update' }),
  r({ id: 'deleteNamespacedInstance', method: 'DELETE', path: '/api/v1/namespaces/{namespace}/instances/{kind}/{name}', auth: 'user', tag: 'instances', summary: 'Delete an instance', params: NamespacedInstanceParams, status: 200, response: Instance , operation: 'instances.delete' }),
  r({ id: 'getClusterInstance', method: 'GET', path: '/api/v1/instances/_/{kind}/{name}', auth: 'user', tag: 'instances', summary: 'One cluster-scoped instance', params: ClusterInstanceParams, status: 200, response: Instance }),
  r({ id: 'patchClusterInstance', method: 'PATCH', path: '/api/v1/instances/_/{kind}/{name}', auth: 'user', tag: 'instances', summary: 'Merge-patch a cluster-scoped instance spec', params: ClusterInstanceParams, body: PatchInstanceRequest, status: 200, response: Instance , operation: 'instances.update' }),
  r({ id: 'deleteClusterInstance', method: 'DELETE', path: '/api/v1/instances/_/{kind}/{name}', auth: 'user', tag: 'instances', summary: 'Delete a cluster-scoped instance', params: ClusterInstanceParams, status: 200, response: Instance , operation: 'instances.delete' }),
  // §11 instance history, on both path families
  ...instanceHistoryRoutes,
  // §11 aliases of the `_` paths: a kind starts upper-case, so `/instances/count` is never one
  r({ id: 'createClusterInstanceAlias', method: 'POST', path: '/api/v1/instances/{kind}', auth: 'user', tag: 'instances', summary: 'Create an instance of a cluster-scoped kind (alias of /instances/_/{kind})', params: ClusterKindParams, body: CreateInstanceFormA, status: 201, response: Instance , operation: 'instances.create' }),
  r({ id: 'getClusterInstanceAlias', method: 'GET', path: '/api/v1/instances/{kind}/{name}', auth: 'user', tag: 'instances', summary: 'One cluster-scoped instance (alias of /instances/_/{kind}/{name})', params: ClusterInstanceParams, status: 200, response: Instance }),
  r({ id: 'patchClusterInstanceAlias', method: 'PATCH', path: '/api/v1/instances/{kind}/{name}', auth: 'user', tag: 'instances', summary: 'Merge-patch a cluster-scoped instance spec (alias)', params: ClusterInstanceParams, body: PatchInstanceRequest, status: 200, response: Instance , operation: 'instances.update' }),
  r({ id: 'deleteClusterInstanceAlias', method: 'DELETE', path: '/api/v1/instances/{kind}/{name}', auth: 'user', tag: 'instances', summary: 'Delete a cluster-scoped instance (alias)', params: ClusterInstanceParams, status: 200, response: Instance , operation: 'instances.delete' }),
  // §10 operations
  ...repositoryRoutes,
  r({ id: 'healthz', method: 'GET', path: '/healthz', auth: 'none', tag: 'operations', summary: 'Liveness', status: 200, response: Healthz }),
  r({ id: 'serverVersion', method: 'GET', path: '/api/v1/version', auth: 'user', tag: 'operations', summary: 'The server release (any signed-in user; not public, so it does not help fingerprinting)', status: 200, response: ServerVersion }),
  r({ id: 'readyz', method: 'GET', path: '/readyz', auth: 'none', tag: 'operations', summary: 'Readiness: Redis, the cluster (and PostgreSQL in Enterprise)', status: 200, response: Readyz }),
  ...preflightRoutes,
  ...settingsRoutes,
] as const satisfies readonly RouteDef[];

export type RouteId = (typeof routes)[number]['id'];
export const routeById = Object.fromEntries(routes.map((rt) => [rt.id, rt])) as { [K in RouteId]: Extract<(typeof routes)[number], { id: K }> };

type RouteOf<K extends RouteId> = (typeof routeById)[K];
type SchemaAt<R, Key extends 'params' | 'query' | 'body' | 'response'> = R extends { [P in Key]: infer S extends z.ZodType } ? S : undefined;
type Input<S> = S extends z.ZodType ? z.input<S> : undefined;
type Output<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a client sends for a route (`z.input` of its schemas) and what the server hands its handler (`z.output`). */
export type RouteParamsInput<K extends RouteId> = Input<SchemaAt<RouteOf<K>, 'params'>>;
export type RouteQueryInput<K extends RouteId> = Input<SchemaAt<RouteOf<K>, 'query'>>;
export type RouteBodyInput<K extends RouteId> = Input<SchemaAt<RouteOf<K>, 'body'>>;
export type RouteParams<K extends RouteId> = Output<SchemaAt<RouteOf<K>, 'params'>>;
export type RouteQuery<K extends RouteId> = Output<SchemaAt<RouteOf<K>, 'query'>>;
export type RouteBody<K extends RouteId> = Output<SchemaAt<RouteOf<K>, 'body'>>;
/** The parsed success body of a route (void for 204 and 302). */
export type RouteResponse<K extends RouteId> = SchemaAt<RouteOf<K>, 'response'> extends infer S extends z.ZodType ? z.output<S> : void;

export { ErrorEnvelope };
export { enterpriseFamilies, type EnterpriseFamily, type EnterpriseFamilyName, type HttpMethod, type RateLimitBucket, type RouteDef } from './route-def.js';
