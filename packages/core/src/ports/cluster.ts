/**
 * The Cluster port: a small slice of the Kubernetes API, with its semantics (resourceVersion, merge patch,
 * watch from a version, 410 Gone), so the embedded and Kubernetes adapters are interchangeable.
 * Adapters throw PorticoError: NOT_FOUND (absent), CONFLICT (exists / stale resourceVersion),
 * SERVICE_UNAVAILABLE (API unreachable).
 */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  // Kubernetes objects are open-ended: spec/status/data vary by kind.
  spec?: any;
  status?: any;
  data?: Record<string, string>;
  type?: string;
  [key: string]: unknown;
}

export interface ResourceRef {
  group: string; // '' for the core group
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

export const apiVersionOf = (ref: ResourceRef) => (ref.group ? `${ref.group}/${ref.version}` : ref.version);
export const refKey = (ref: ResourceRef) => `${ref.plural}.${ref.group}/${ref.version}`;

/** The resources Portico itself uses; instance kinds come from RGDs at run time. */
export const resources = {
  rgd: { group: 'kro.run', version: 'v1alpha1', kind: 'ResourceGraphDefinition', plural: 'resourcegraphdefinitions', namespaced: false },
  project: { group: 'portico.dev', version: 'v1alpha1', kind: 'Project', plural: 'projects', namespaced: true },
  secret: { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true },
  /** Settings kept in the cluster (icon registries, sign-in providers), so GitOps can manage them too. */
  configMap: { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
  namespace: { group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false },
  /** core/v1 Events: what controllers (kro) report about objects; read by the instance `/events` route. */
  event: { group: '', version: 'v1', kind: 'Event', plural: 'events', namespaced: true },
} as const satisfies Record<string, ResourceRef>;

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject;
}

export interface WatchHandlers {
  onEvent(event: WatchEvent): void;
  /**
   * The watch ended and will not deliver more. `gone` means the resourceVersion is too old (HTTP 410):
   * the consumer must relist. Any other error: the consumer restarts with backoff from its last version.
   */
  onError(error: { gone: boolean; message: string }): void;
}

export interface Disposable {
  close(): void;
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string; // `key=value,key2=value2` equality selectors only
  /**
   * Kubernetes field selector, equality terms only (`involvedObject.name=web,involvedObject.kind=WebApp`, `!=`
   * too), ANDed: the way to ask for the Events of one object without reading a whole namespace.
   */
  fieldSelector?: string;
}

export interface ComponentHealth {
  ok: boolean;
  message?: string;
}

/** What a webhook is asked about, as an AdmissionReview's `operation` and `oldObject`. */
export interface AdmissionRequest {
  operation: 'CREATE' | 'UPDATE';
  /** UPDATE: the stored object the write replaces. */
  oldObject?: KubeObject;
}

/**
 * A validating admission webhook that Portico runs itself (the embedded cluster): runs before an object is created or updated and
 * refuses the write by throwing (a PorticoError reaches the client as is). It sees an UPDATE as the object the
 * patch would leave, before it is stored. Writes that change only `status` are not shown to it: in Kubernetes
 * they go through the status subresource, which a webhook on the resource itself does not see. Simulated
 * controllers (Gatekeeper) register here.
 */
export type AdmissionWebhook = (ref: ResourceRef, obj: KubeObject, request: AdmissionRequest) => Promise<void> | void;

export interface Cluster {
  list(ref: ResourceRef, opts?: ListOptions): Promise<{ items: KubeObject[]; resourceVersion: string }>;
  get(ref: ResourceRef, name: string, namespace?: string): Promise<KubeObject | undefined>;
  /**
   * CONFLICT if it exists. Sets uid, resourceVersion, generation, creationTimestamp. `dryRun` (Kubernetes'
   * `dryRun=All`): every check and admission webhook of a create runs, nothing is stored, and the object as it
   * would have been stored comes back.
   */
  create(ref: ResourceRef, obj: KubeObject, opts?: { dryRun?: boolean }): Promise<KubeObject>;
  /**
   * RFC 7386 merge patch of the whole object (metadata.labels/annotations, spec). With `resourceVersion`,
   * CONFLICT when the stored version differs. A spec change bumps metadata.generation.
   */
  patch(ref: ResourceRef, name: string, patch: Record<string, unknown>, opts?: { namespace?: string; resourceVersion?: string }): Promise<KubeObject>;
  /** NOT_FOUND if absent. An object with finalizers gets deletionTimestamp and stays until they are removed. */
  delete(ref: ResourceRef, name: string, namespace?: string): Promise<void>;
  /** Events after `resourceVersion` (from a list), all namespaces unless `namespace` is given. */
  watch(ref: ResourceRef, opts: { namespace?: string; resourceVersion: string }, handlers: WatchHandlers): Disposable;
  /** Plural and scope of a kind (Kubernetes discovery); undefined when the API does not serve it. */
  discover(group: string, version: string, kind: string): Promise<ResourceRef | undefined>;
  /**
   * Every kind the API serves, one entry per group, version and kind (Kubernetes discovery of every group;
   * subresources such as `pods/log` left out). A group whose discovery fails is left out, as kubectl does.
   */
  apiResources(): Promise<ResourceRef[]>;
  health(): ComponentHealth;
  close(): Promise<void>;
  /**
   * A capability of clusters whose admission Portico runs itself (the embedded cluster): adds a validating
   * webhook on creates and updates, like a ValidatingWebhookConfiguration; closing it removes it. A real
   * cluster has none: its own webhooks (Gatekeeper's) answer there.
   */
  addAdmissionWebhook?(webhook: AdmissionWebhook): Disposable;
}
