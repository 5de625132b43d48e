// The public face of core: what the server, the Enterprise edition, the benches, the examples and the tests
// import, named one by one so nothing internal leaks out by a wildcard and a rename inside core shows up here.
// A name another package needs is added to its line below.

// Errors (the PorticoError family), the caller, configuration and logs.
export {
  PorticoError, isPorticoError, badRequest, conflict, forbidden, licenseRequired, notFound, rateLimited, unauthorized, unavailable, validationFailed,
} from './errors.js';
export { systemActor, type Actor } from './actor.js';
export { loadConfig, type PorticoConfig } from './config.js';
export { createLogger, type Logger } from './logger.js';

// The ports and their adapters.
export {
  refKey, resources, type AdmissionRequest, type Cluster, type ComponentHealth, type Disposable, type KubeObject, type ResourceRef,
} from './ports/cluster.js';
export type { KeyValue } from './ports/keyvalue.js';
export type { Informer, InformerEvent, InformerView } from './cluster/informer-types.js';
export { createInformer } from './cluster/informer.js';
export { createEmbeddedCluster, createMemoryKeyValue, createRedisKeyValue, type EmbeddedCluster, type KroController } from './adapters/index.js';
export { createKubernetesCluster } from './adapters/kubernetes/index.js';
export { createKroController } from './adapters/embedded-cluster/kro/index.js';

// The Portico facade and its services.
export { createPortico } from './portico.js';
export type {
  Authorizer, CatalogService, CreateInstanceInput, DomainEvent, EventStream, EventsService, InstanceKey, Portico, ProjectsService, RequestContext,
} from './types.js';
export { resetAdminPassword } from './admin-tasks.js';

// Domain pieces the Enterprise edition builds on.
export { childIdentity, comparatorFor, expressionsIn, indexEntry, matcherFor, toRgd, validateValues, type CatalogEntry, type IndexedEntry } from './catalog/index.js';
export { createSecretStore, SIGNING_KEY_FIELD, SIGNING_KEY_SECRET } from './auth/index.js';
export { destinationAllows, isNamespacePattern } from './projects/index.js';
export { instanceManifest, type IndexChange, type IndexedInstance } from './instances/index.js';
export { createEventAudience, createPrincipals, publishAll, type EventAudience, type Principal } from './events/index.js';
export { rateLimitHeaders, type RateLimitState } from './limits/index.js';
export { parseInput, rememberParses } from './validation.js';
export { setBounded } from './bounded-map.js';
export { jsonBytes, jsonText } from './json-text.js';
export { createOperationRunner, withRequestFacts, type Operation, type OperationHook, type OperationRow, type RequestFacts } from './operations/index.js';
export type { PorticoPlugin } from './editions/index.js';
export { sanitizeSvg } from './icons/sanitize-svg.js';
export { isSecretKey, maskSecretKeys, normaliseKey, REDACTED } from './redaction/secret-keys.js';
