import type * as api from '@portico/api';
import type { Actor } from './actor.js';
import type { InformerView } from './cluster/informer-types.js';
import type { Cluster, ComponentHealth, Disposable, KubeObject } from './ports/cluster.js';
import type { KeyValue } from './ports/keyvalue.js';
import type { PorticoConfig } from './config.js';
import type { Logger } from './logger.js';
import type { Limits } from './limits/index.js';
import type { CatalogEntry, JsonSchemaObject } from './catalog/types.js';
import type { InstanceAdmission } from './instances/admission.js';
import type { IndexChange, IndexedInstance } from './instances/index-types.js';
import type { InstanceKey } from './instances/instance-key.js';
import type { OperationRunner } from './operations/run.js';
import type { SsoProvidersService } from './auth/sso/sso-providers.js';
import type { RepositoriesService } from './repositories/index.js';

/** Per-request facts the domain needs from the transport (never the transport itself). */
export interface RequestContext {
  ip: string;
  requestId?: string;
}

/**
 * The authorization engine (rbac module). Every decision comes from Casbin policy lines (the all-allow line of
 * Server Admins is answered from an index of those lines, see rbac/enforcer.ts); these are synchronous reads of
 * an index that is rebuilt and swapped atomically on policy change.
 */
export interface Authorizer {
  /** `object` as in contract §5, e.g. `instances/alpha/dev/WebApp/shop`, `projects/alpha/members`, `rgds/alpha/db/postgres`. */
  can(actor: Actor, action: string, object: string): boolean;
  isServerAdmin(actor: Actor): boolean;
  /** Global Casbin roles the actor holds (e.g. `role:serveradmin`). */
  globalRoles(actor: Actor): string[];
  /** Projects in which the actor holds at least one role, sorted. */
  memberProjects(actor: Actor): readonly string[];
  /**
   * Which instances of `project` the actor may `get`: `all` lets a list page and count from the project's
   * maintained index, `some` means item-level rules (decide per instance with `can`), `none` nothing.
   */
  instanceReach(actor: Actor, project: string): 'all' | 'some' | 'none';
  /** Role names the actor holds in `project` (through user or group bindings), in the project's role order. */
  rolesIn(actor: Actor, project: string): string[];
  /** Resolves when the initial policy set is built. */
  ready(): Promise<void>;
  onChange(listener: () => void): Disposable;
}

export interface AuthService {
  localLogin(input: api.LocalLoginRequest, ctx: RequestContext): Promise<api.LoginResponse>;
  /** Verifies signature, alg, issuer, audience, expiry, revocation; throws UNAUTHORIZED. */
  verifyToken(token: string): Promise<Actor>;
  logout(actor: Actor): Promise<api.MessageResponse>;
  issueTicket(actor: Actor): Promise<api.WsTicket>;
  /** Single use; throws UNAUTHORIZED when unknown, used or expired. */
  redeemTicket(ticket: string): Promise<Actor>;
  tokenExchange(input: api.TokenExchangeRequest, ctx: RequestContext): Promise<api.LoginResponse>;
  ssoProviders(): api.SsoProviders;
  /** Form A of the sign-in options: one object per identity provider. */
  ssoProviderList(): api.SsoProviderList;
  /** The identity provider URL to redirect the browser to. */
  oidcLogin(query: api.OidcLoginQuery, ctx: RequestContext): Promise<string>;
  /** Where to send the browser back to (`redirect?code=` or `?error=`). */
  oidcCallback(query: api.OidcCallbackQuery, ctx: RequestContext): Promise<string>;
  /** The `user` object of login responses, from current policy. */
  describe(actor: Actor): api.User;
  /**
   * Called, on every replica, after a logout, password change or account deletion anywhere, with a test for
   * the sessions it cut off: open WebSockets of those sessions must be closed.
   */
  onSessionsRevoked(listener: (isRevoked: (actor: Actor) => boolean) => void): Disposable;
  /** False when the session was revoked or expired since it was verified (a socket re-checks after a gap). */
  sessionValid(actor: Actor): Promise<boolean>;
}

export interface AccountsService {
  list(actor: Actor): Promise<api.AccountList>;
  create(actor: Actor, input: api.CreateAccountRequest): Promise<api.Account>;
  delete(actor: Actor, username: string): Promise<void>;
  changePassword(actor: Actor, input: api.ChangePasswordRequest): Promise<api.MessageResponse>;
}

export interface CatalogService {
  list(actor: Actor, query: api.RgdListQuery): api.RgdList;
  get(actor: Actor, name: string): api.RgdDetail;
  /** The deploy form of an RGD (its FormSchema, built once per revision). */
  formSchema(actor: Actor, name: string): api.RgdSchemaResponse;
  /** The RGD's resources and the references between them. */
  graph(actor: Actor, name: string): api.RgdGraph;
  /** The recorded revisions of the RGD's spec, newest first (§11.1). */
  revisions(actor: Actor, name: string): api.GraphRevisionList;
  /** One revision with its snapshot; NOT_FOUND when the RGD is not visible or the revision is not kept. */
  revision(actor: Actor, name: string, revisionNumber: number): Promise<api.GraphRevisionDetail>;
  /** What changed between two revisions, the lower number first whatever the order asked. */
  revisionDiff(actor: Actor, name: string, a: number, b: number): Promise<api.RevisionDiff>;
  count(actor: Actor): api.CountResponse;
  filters(actor: Actor): api.RgdFilters;
  /** Every catalog entry, sorted by name, without RBAC (for plugins that filter themselves, with `visibleTo`). */
  entries(): CatalogEntry[];
  /** A catalog entry by RGD name, without any RBAC check (decide with `visibleTo`). */
  entry(name: string): CatalogEntry | undefined;
  visibleTo(actor: Actor, entry: CatalogEntry): boolean;
  /** The entry's compiled JSON Schema (UNPROCESSABLE when its simple schema is invalid). */
  schemaOf(entry: CatalogEntry): JsonSchemaObject;
}

/** §11.1: a project's Kubernetes Secrets; values only through `reveal`. */
export interface SecretsService {
  list(actor: Actor, project: string): Promise<api.SecretList>;
  create(actor: Actor, project: string, input: api.CreateSecretRequest): Promise<api.SecretSummary>;
  get(actor: Actor, params: api.SecretParams, query: api.SecretQuery): Promise<api.SecretDetail>;
  update(actor: Actor, params: api.SecretParams, input: api.UpdateSecretRequest): Promise<api.SecretSummary>;
  delete(actor: Actor, params: api.SecretParams): Promise<void>;
  /** §11.3 family 2 (the field's paths): one page of the project's Secrets the caller may see. */
  page(actor: Actor, query: api.SecretPageQuery): Promise<api.SecretPage>;
  /** Resolves when the caller may see the Secret (HEAD); 404 otherwise, as `get`. */
  exists(actor: Actor, location: api.SecretParams): Promise<void>;
  /** The Secret with its values: `get` and `reveal`. */
  reveal(actor: Actor, location: api.SecretParams): Promise<api.SecretWithData>;
  /** Sets the keys sent and keeps the others (`update`; no resourceVersion: a merge of keys). */
  upsertKeys(actor: Actor, project: string, secret: string, input: api.UpsertSecretKeysRequest): Promise<api.SecretSummary>;
  /** Deletes it; the warnings name the project's instances (those the caller may see) whose values mention it. */
  remove(actor: Actor, location: api.SecretParams): Promise<api.SecretDeleted>;
}

export interface ProjectsService {
  list(actor: Actor): api.ProjectList;
  create(actor: Actor, input: api.CreateProjectRequest): Promise<api.Project>;
  get(actor: Actor, name: string): api.Project;
  update(actor: Actor, name: string, input: api.UpdateProjectRequest): Promise<api.Project>;
  /**
   * A project that still has instances is 409 CONFLICT with `details.instances`; with `cascade` its instances are
   * deleted first (each as its own instances.delete), then its Secrets and the project.
   */
  delete(actor: Actor, name: string, opts?: { cascade?: boolean }): Promise<void>;
  namespaces(actor: Actor, name: string): Promise<api.ProjectNamespaces>;
  bind(actor: Actor, name: string, role: string, type: api.BindingType, subject: string): Promise<api.Binding>;
  unbind(actor: Actor, name: string, role: string, type: api.BindingType, subject: string): Promise<void>;
  roleBindings(actor: Actor, name: string): api.RoleBindings;
}

export interface AccessService {
  canISummary(actor: Actor): api.CanISummary;
  canI(actor: Actor, params: api.CanIParams): api.CanIValue;
  accountInfo(actor: Actor): api.AccountInfo;
}

export type { InstanceKey };

export interface CreateInstanceInput {
  name: string;
  /** '' for a cluster-scoped kind. */
  namespace: string;
  project: string;
  /** From the path (Form A) or derived from rgdName (Form B). */
  kind?: string;
  rgdName?: string;
  values: Record<string, unknown>;
  deploymentMode?: string;
  /** §13, Git modes: a repository of the project, and where in it (defaults: its default branch, the standard path). */
  repositoryId?: string;
  gitBranch?: string;
  gitPath?: string;
}

/** §11.4: a preflight as the paths give it: the kind, the namespace on the namespaced path, and the body as sent. */
export interface PreflightInput {
  kind: string;
  /** Set on `/namespaces/{namespace}/…`; absent on the cluster-scoped paths, where a Form B body may name one. */
  namespace?: string;
  body: unknown;
}

export interface InstancesService {
  create(actor: Actor, input: CreateInstanceInput): Promise<api.Instance>;
  /** §11.4: every check of `create`, in its order, writing nothing; what would fail a create is `valid: false`. */
  preflight(actor: Actor, input: PreflightInput): Promise<api.PreflightResponse>;
  list(actor: Actor, query: api.InstanceListQuery): api.InstanceList;
  count(actor: Actor): api.CountResponse;
  get(actor: Actor, key: InstanceKey): api.Instance;
  patch(actor: Actor, key: InstanceKey, input: api.PatchInstanceRequest): Promise<api.Instance>;
  delete(actor: Actor, key: InstanceKey): Promise<api.Instance>;
  /** Kubernetes Events of the instance and its child resources, newest first. */
  events(actor: Actor, key: InstanceKey): Promise<api.InstanceEventList>;
  /** The timeline (§11.2), oldest first: what was recorded, or with `source: 'kubernetes'` the Kubernetes Events. */
  timeline(actor: Actor, key: InstanceKey, source?: 'deployment' | 'kubernetes'): Promise<api.InstanceTimeline>;
  /** The resources kro manages for the instance, grouped by `spec.resources` id, with health. */
  children(actor: Actor, key: InstanceKey): Promise<api.InstanceChildren>;
  /** The deployment history; readable by the same path for 90 days after the instance is deleted. */
  history(actor: Actor, key: InstanceKey): Promise<api.InstanceHistory>;
  /** The history as a download (`<name>-deployment-history.json|csv`). */
  historyExport(actor: Actor, key: InstanceKey, format: 'json' | 'csv'): Promise<{ filename: string; contentType: string; text: string }>;
  /** Instances per RGD name that `actor` may see (only `names`, when given). */
  instanceCounts(actor: Actor, names?: readonly string[]): ReadonlyMap<string, number>;
  /** Adds a check every create and update passes before anything is written (see instances/admission.ts). */
  addAdmission(check: InstanceAdmission): Disposable;
  /** Every indexed instance, unfiltered, for modules that follow instances without a caller (read-only). */
  readonly indexed: IndexedInstances;
}

/** The read-only face of the instance index: what a module may follow, never write. */
export interface IndexedInstances {
  all(): Iterable<IndexedInstance>;
  onChange(listener: (change: IndexChange) => void): Disposable;
  /** A kind's first list comes in without per-instance changes (a kind that joined the catalog later). */
  onKindIndexed(listener: () => void): Disposable;
}

/** A domain event before per-subscriber filtering; `object` is the RBAC object a receiver must be able to `get`. */
export interface DomainEvent {
  /** `session_revoked` travels between replicas only (auth/revocations.ts); it is never sent to clients as is. */
  // Edition modules add their own types (an EventStream registers them with the live stream).
  type: 'instance_update' | 'deploy_progress' | 'rgd_update' | 'counts_changed' | 'session_revoked' | 'resync' | (string & {});
  /** RBAC object for instance events; for rgd events the catalog decides visibility. */
  object?: string;
  project?: string;
  namespace?: string;
  name?: string;
  /**
   * The changed object's identity and version: receivers deliver the changes of one object in version order,
   * each once (events/ordering.ts). Absent for events about no single object.
   */
  uid?: string;
  resourceVersion?: string;
  data: unknown;
}

/**
 * A kind of event an edition module adds to the live stream (Enterprise compliance: `violations`): the
 * subscription `resourceType` that selects it (`all` covers it too), the event types that belong to it, and
 * who may receive one, decided per recipient at send time like the built-in types. Its events are considered
 * for every connection (not only the members of `event.project`), since a stream may be visible to holders of
 * global policies; `visibleTo` has the final say.
 */
export interface EventStream {
  resourceType: string;
  eventTypes: readonly string[];
  visibleTo(actor: Actor, event: DomainEvent): boolean;
}

/** §11.5 `GET /settings`, for any signed-in user. */
export interface SettingsService {
  get(): api.Settings;
}

/** §11.5: each user's own favourite and recent RGDs, in the KeyValue store. */
export interface PreferencesService {
  /** The caller's own lists; both `[]` when nothing is stored (or it expired). */
  get(actor: Actor): Promise<api.UserPreferences>;
  /** Stores the lists sent (a list left out keeps the stored one), tidied, for 90 days; answers what was stored. */
  update(actor: Actor, input: api.UpdatePreferencesRequest): Promise<api.UserPreferences>;
}

/** §11.5: the icons consoles show, public. */
export interface IconsService {
  /** The sanitised SVG for a slug; NOT_FOUND when neither a registry nor the generic set has it. */
  get(slug: string): string;
  /** Starts following the registry ConfigMaps; icons appear as their first list arrives. */
  start(): void;
  stop(): void;
}

/**
 * §14: a project role's tokens, for CI pipelines. Declared here with the other services (not beside its
 * implementation, which needs auth, and auth needs this file): no import runs in a circle.
 */
export interface ProjectTokensService {
  /** The answer is the only time the token is shown. */
  create(actor: Actor, project: string, role: string, input: unknown): Promise<api.CreatedProjectToken>;
  list(actor: Actor, project: string, role: string): Promise<api.ProjectTokenList>;
  /** Refused at once on every replica. */
  delete(actor: Actor, project: string, role: string, id: string): Promise<void>;
}

/** §11.7: what the cluster serves. */
export interface ClusterDiscoveryService {
  /** The kinds the cluster serves, one per group and kind; core first, then by group and kind. */
  apiResources(actor: Actor, query?: api.ApiResourcesQuery): Promise<api.ApiResourceList>;
}

export interface EventsService {
  /** Every event from every replica, exactly once per process. */
  onEvent(listener: (event: DomainEvent) => void): Disposable;
  publish(event: DomainEvent): Promise<void>;
}

export interface Portico {
  config: PorticoConfig;
  logger: Logger;
  cluster: Cluster;
  kv: KeyValue;
  authz: Authorizer;
  auth: AuthService;
  accounts: AccountsService;
  catalog: CatalogService;
  projects: ProjectsService;
  secrets: SecretsService;
  access: AccessService;
  instances: InstancesService;
  /** §13: the projects' Git repositories (credentials go in, never out). */
  repositories: RepositoriesService;
  /** §14: tokens acting as one role of one project (for CI pipelines). */
  projectTokens: ProjectTokensService;
  /** §11.5: the installation's settings, each user's preferences, and the icons consoles show. */
  settings: SettingsService;
  preferences: PreferencesService;
  icons: IconsService;
  /** §11.7: the kinds the cluster serves. */
  clusterDiscovery: ClusterDiscoveryService;
  /** §11.6: sign-in providers managed at run time (Server Admin). */
  ssoProviders: SsoProvidersService;
  events: EventsService;
  /**
   * The Project objects Portico reads (its own namespace), as its one Project informer holds them: plugins that
   * need them read and listen here instead of watching Projects again, so they see exactly the Projects the rest
   * of Portico sees.
   */
  projectObjects: InformerView;
  /** Rate limits of contract §9 and the failed-login lockout, counted in the KeyValue store. */
  limits: Limits;
  /** This Portico's RBAC vocabulary: the OSS rows and its plugins' rows, immutable. */
  vocabulary: api.RbacVocabulary;
  /** The operation seam: a plugin wraps its own mutating methods here, so the same hooks record them. */
  operations: OperationRunner;
  /**
   * Event streams an edition adds to the live stream (subscribable types and who may see their events); the
   * WebSocket layer reads them here, so a stream is registered once.
   */
  eventStreams: { add(stream: EventStream): Disposable; list(): readonly EventStream[] };
  readiness(): Promise<api.Readyz>;
  /** Stops informers, controllers, connections. */
  stop(): Promise<void>;
}

export type { Actor, Cluster, KeyValue, ComponentHealth, KubeObject, Disposable };
