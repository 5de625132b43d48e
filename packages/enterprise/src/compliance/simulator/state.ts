import type { Cluster, KubeObject, Logger, ResourceRef } from '@portico/core';
import { createConstraintSet, type ConstraintSet } from '../constraint-set.js';
import type { InformerSet } from '../informer-set.js';

/** The constraints in force, compiled and indexed; `generation` moves on each rebuild (the audit's memory keys on it). */
export interface ConstraintsInForce {
  all: ConstraintSet;
  /** Those whose enforcement action is `deny`: what the admission webhook refuses by. */
  deny: ConstraintSet;
  generation: number;
}

/**
 * What the phases of the simulated Gatekeeper share (templates, constraints, instance kinds, audit, admission):
 * what it watches, what it knows of the cluster, and whether it is closing.
 */
export interface SimulatorState {
  cluster: Cluster;
  logger: Logger;
  informers: InformerSet;
  /** Instance kind → the RGD that defines it. */
  rgdByKind: Map<string, KubeObject>;
  /** Keys (refKey) of the instance kinds watched. */
  instanceRefs: Set<string>;
  /** `group/kind` of the plain kinds that constraints name (Namespaces, Services), watched as they are. */
  plainRefs: Set<string>;
  /** Constraint kind → its ref, once its CRD is served. */
  constraintRefs: Map<string, ResourceRef>;
  constraints: ConstraintsInForce;
  closed: boolean;
  /** Logs a failure as a warning, unless the simulator is closing (its watches and writes then fail by design). */
  fail(what: string): (err: unknown) => void;
}

export function createSimulatorState(cluster: Cluster, logger: Logger, informers: InformerSet): SimulatorState {
  const none = createConstraintSet([]);
  const state: SimulatorState = {
    cluster,
    logger,
    informers,
    rgdByKind: new Map(),
    instanceRefs: new Set(),
    plainRefs: new Set(),
    constraintRefs: new Map(),
    constraints: { all: none, deny: none, generation: 0 },
    closed: false,
    fail: (what) => (err) => {
      if (!state.closed) logger.warn({ err }, what);
    },
  };
  return state;
}
