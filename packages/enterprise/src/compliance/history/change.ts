import type { ViolationChange, ViolationChangeSource } from '../violation-changes.js';

export type { ViolationChange } from '../violation-changes.js';

/** A violation in force now (the index's current state): an `add` without the action. */
export type CurrentViolation = Omit<ViolationChange, 'action'>;

/** What the history needs of the Gatekeeper index: the violations in force, and every later change. */
export type ViolationSource = Pick<ViolationChangeSource, 'current' | 'onViolationChange'>;
