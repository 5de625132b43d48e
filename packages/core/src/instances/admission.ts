import type { Actor } from '../actor.js';
import type { KubeObject } from '../ports/cluster.js';

/** An instance about to be created or updated: Portico's own checks passed, nothing is written yet. */
export interface InstanceAdmissionReview {
  /** `create` (POST) or `update` (PATCH, also of a Git-mode instance, before its commit). */
  operation: 'create' | 'update';
  actor: Actor;
  project: string;
  rgdName: string;
  /** The custom resource exactly as it would be written (labels, annotations, spec with defaults). */
  manifest: KubeObject;
  /** `update`: the object as it is now (the version the write is guarded by). */
  previous?: KubeObject;
}

/** What a check says about a write it lets through: findings the caller should see on the 2xx. */
export interface InstanceAdmissionResult {
  warnings?: unknown[];
}

/**
 * A check an edition module (Enterprise compliance) runs on every instance create and update, after the
 * contract's checks and before anything is written (cluster or Git). It refuses by throwing a PorticoError (e.g.
 * 403 with the reasons in `details`), which reaches the caller as is; its warnings come back in the 201's or
 * 200's `details.warnings`.
 */
export type InstanceAdmission = (review: InstanceAdmissionReview) => Promise<InstanceAdmissionResult | void>;
