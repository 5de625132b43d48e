export { createEmbeddedCluster, type AdmissionRequest, type AdmissionWebhook, type EmbeddedCluster, type EmbeddedClusterOptions } from './embedded-cluster.js';
export { KRO_FINALIZER, SIMULATE_FAILURE_ANNOTATION, type KroController } from './kro/index.js';
export { LAST_APPLIED_HASH_ANNOTATION } from './manifests.js';
export { pluralOf } from './discovery.js';
