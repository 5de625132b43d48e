import type { KubeObject } from '../../../ports/cluster.js';

/** kro's finalizer on the instances it reconciles: removed once their resources are deleted. */
export const KRO_FINALIZER = 'kro.run/finalizer';
/** Makes the simulated walk of an instance fail at the named resource id. */
export const SIMULATE_FAILURE_ANNOTATION = 'portico.dev/simulate-failure';

/** Being deleted and still holding our finalizer: ours to release. */
export const releasable = (obj: KubeObject) => obj.metadata.deletionTimestamp && obj.metadata.finalizers?.includes(KRO_FINALIZER);
