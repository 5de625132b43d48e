import { createHash } from 'node:crypto';
import type { Disposable } from '@portico/core';

export type EnforcementAction = 'deny' | 'warn' | 'dryrun';

/** The object a violation is about, as Gatekeeper's audit names it. `namespace` is '' when cluster-scoped. */
export interface ViolatingResource {
  kind: string;
  namespace: string;
  name: string;
  /** '' for the core group. */
  apiGroup: string;
}

/**
 * One change of the set of violations this replica's index holds. Every replica's index sees every change
 * (each watches the constraints' status), so a consumer that must act once per change cluster-wide (the
 * history in PostgreSQL) needs its own deduplication: an idempotent write keyed by `key` and `observedAt`'s
 * order, or one writer elected as the WebSocket fan-out does.
 *
 * - `add`: the violation is in force now. Sent when it appears, when this replica's index first syncs (every
 *   current violation: replicas restart), and again with the new `enforcementAction` when its constraint's
 *   enforcement changes. So `add` is an upsert: an `add` of a key already active updates its
 *   `enforcementAction` and is otherwise a no-op.
 * - `delete`: it was in force and is gone: the resource was fixed or deleted, or the constraint was deleted or
 *   changed so that it no longer reports it.
 */
export interface ViolationChange {
  action: 'add' | 'delete';
  /** Stable identity of one violation; see {@link violationKey}. */
  key: string;
  constraintKind: string;
  constraintName: string;
  resource: ViolatingResource;
  message: string;
  enforcementAction: EnforcementAction;
  /**
   * The Portico project the resource belongs to: its instance's (the instance's own, or the one whose child it
   * is), else the project whose namespace holds it; absent when none does.
   */
  project?: string;
  /** The RBAC object of the instance it belongs to: a member sees the violation only if they may `get` that. */
  object?: string;
  /** RFC 3339 UTC: when this replica saw the change. */
  observedAt: string;
}

export type ViolationChangeListener = (change: ViolationChange) => void;

/** What the violation index exposes to consumers of its changes (the history in PostgreSQL). */
export interface ViolationChangeSource {
  /**
   * Calls `listener` for every later change, synchronously from the index's update (keep it cheap and never
   * throw; a throw is logged and swallowed). Violations present before the call are not replayed: use
   * `current()` for them.
   */
  onViolationChange(listener: ViolationChangeListener): Disposable;
  /** The violations in force now, each as an `add` with this replica's `observedAt` for it. */
  current(): ViolationChange[];
}

/**
 * The stable key of a violation: `constraintKind/constraintName/resourceKind/namespace/name#h` where `h` is
 * the first 16 hex digits of the SHA-256 of the message. The same violation seen by any replica, at any time,
 * gets the same key; the message is part of it because one constraint can report one resource more than once
 * (two containers missing limits), and a changed message is a different finding.
 */
export function violationKey(v: Pick<ViolationChange, 'constraintKind' | 'constraintName' | 'resource' | 'message'>): string {
  const h = createHash('sha256').update(v.message).digest('hex').slice(0, 16);
  return `${v.constraintKind}/${v.constraintName}/${v.resource.kind}/${v.resource.namespace}/${v.resource.name}#${h}`;
}
