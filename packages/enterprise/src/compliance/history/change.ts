import type { Disposable } from '@portico/core';

/**
 * A violation change as the Gatekeeper index emits it (its stream of violation changes). `add` means "in force
 * now" and also comes again, with the new `enforcementAction`, when its constraint's enforcement changes;
 * `delete` means it is gone. `observedAt` is when the emitting replica saw it.
 */
export interface ViolationChange {
  action: 'add' | 'delete';
  key: string;
  constraintKind: string;
  constraintName: string;
  resource: { kind: string; namespace: string; name: string; apiGroup: string };
  message: string;
  enforcementAction: string;
  project?: string;
  observedAt: string;
}

/** A violation in force now (the index's current state): an `add`. */
export type CurrentViolation = Omit<ViolationChange, 'action'>;

/** What the history needs of the index: the violations in force, and every later change. */
export interface ViolationSource {
  current(): readonly CurrentViolation[];
  onViolationChange(listener: (change: ViolationChange) => void): Disposable;
  /**
   * Resolves once `current()` reflects the cluster (the index has synced). A reconcile before that would take
   * an empty index for "every violation was fixed".
   */
  synced(): Promise<void>;
}
