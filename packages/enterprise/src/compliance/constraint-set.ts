import type * as api from '@portico/api/enterprise';
import type { KubeObject } from '@portico/core';
import { enforcementOf, matchOf, parametersOf } from './gatekeeper.js';
import { matches, matchedKindKeys } from './match.js';
import { policyLibrary, type PolicyCheck } from './policies/library.js';

/** A constraint ready to judge objects: its match, parameters and the native check of its kind. */
export interface CompiledConstraint {
  kind: string;
  name: string;
  enforcementAction: api.EnforcementAction;
  match: api.ConstraintMatch;
  parameters: Record<string, any>;
  check: PolicyCheck;
}

/** One finding: a constraint an object breaks, and why. */
export interface Finding {
  constraint: CompiledConstraint;
  object: KubeObject;
  message: string;
}

/** A constraint of a kind Portico implements natively; undefined for any other kind (Gatekeeper's rego only). */
export function compileConstraint(obj: KubeObject): CompiledConstraint | undefined {
  const check = policyLibrary[obj.kind];
  if (!check) return undefined;
  return { kind: obj.kind, name: obj.metadata.name, enforcementAction: enforcementOf(obj), match: matchOf(obj), parameters: parametersOf(obj), check };
}

export interface ConstraintSet {
  readonly size: number;
  /** Every finding for one object, from the constraints whose match selects it (indexed by kind, not scanned). */
  judge(obj: KubeObject): Finding[];
}

/**
 * Constraints indexed by the kinds their match names, so judging an object costs the constraints that could
 * select it (its kind's and the wildcard ones), not all of them: an audit of N objects under M constraints is
 * far below N×M when constraints name kinds, as they usually do.
 */
export function createConstraintSet(constraints: readonly CompiledConstraint[]): ConstraintSet {
  const byKind = new Map<string, CompiledConstraint[]>();
  const add = (key: string, c: CompiledConstraint) => {
    let list = byKind.get(key);
    if (!list) byKind.set(key, (list = []));
    if (!list.includes(c)) list.push(c);
  };
  for (const c of constraints) {
    const keys = matchedKindKeys(c.match);
    if (keys.length === 0) add('*', c);
    for (const key of keys) add(key.slice(key.indexOf('/') + 1), c);
  }
  const none: CompiledConstraint[] = [];
  return {
    size: constraints.length,
    judge(obj) {
      const own = byKind.get(obj.kind) ?? none;
      const wildcard = byKind.get('*') ?? none;
      // A constraint listed under both (a `*` kind beside named ones) is judged once.
      const candidates = wildcard.length === 0 ? own : own.length === 0 ? wildcard : [...new Set([...own, ...wildcard])];
      const findings: Finding[] = [];
      for (const constraint of candidates) {
        if (!matches(constraint.match, obj)) continue;
        for (const message of constraint.check(constraint.parameters, obj)) findings.push({ constraint, object: obj, message });
      }
      return findings;
    },
  };
}
