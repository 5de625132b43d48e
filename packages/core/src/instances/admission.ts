import type { Actor } from '../actor.js';
import type { KubeObject } from '../ports/cluster.js';

/** An instance about to be created: Portico's own checks passed, nothing is written yet. */
export interface InstanceAdmissionReview {
  actor: Actor;
  project: string;
  rgdName: string;
  /** The custom resource exactly as it would be written (labels, annotations, spec with defaults). */
  manifest: KubeObject;
}

/** What a check says about a create it lets through: findings the caller should see on the 201. */
export interface InstanceAdmissionResult {
  warnings?: unknown[];
}

/**
 * A check an edition module (Enterprise compliance) runs on every instance create, after the contract's checks
 * and before anything is written (cluster or Git). It refuses by throwing a PorticoError (e.g. 403 with the
 * reasons in `details`), which reaches the caller as is; its warnings come back in the 201's
 * `details.warnings`.
 */
export type InstanceAdmission = (review: InstanceAdmissionReview) => Promise<InstanceAdmissionResult | void>;
