export { createKroController, KRO_FINALIZER, SIMULATE_FAILURE_ANNOTATION, type KroController, type KroControllerOptions } from './kro-controller.js';
export { instanceRefOf, pluralOf } from './instance-kind.js';
