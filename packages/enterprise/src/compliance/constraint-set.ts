import type * as api from '@portico/api/enterprise';
import type { KubeObject } from '@portico/core';
import { enforcementOf, matchOf, parametersOf, type StatusViolation } from './gatekeeper.js';
import { matches, matchedKindKeys } from './match.js';
import { policyLibrary, type PolicyCheck } from './policies/library.js';

/** A constraint ready to judge objects: its match, parameters and the native check of its kind. */
export interface CompiledConstraint {
  kind: string;
  name: string;
  enforcementAction: api.EnforcementAction;
  match: api.ConstraintMatch;
  parameters: Record<string, any>;
  /** The native check compiled with this constraint's parameters. */
  check: ReturnType<PolicyCheck>;
}

/** One finding: a constraint an object breaks, and why. */
export interface Finding {
  constraint: CompiledConstraint;
  object: KubeObject;
  message: string;
  /** The audit's status entry for it, made once (a periodic pass lists the same findings again). */
  status?: StatusViolation;
}

/** A constraint of a kind Portico implements natively; undefined for any other kind (Gatekeeper's rego only). */
export function compileConstraint(obj: KubeObject): CompiledConstraint | undefined {
  const policy = policyLibrary[obj.kind];
  if (!policy) return undefined;
  const parameters = parametersOf(obj);
  return { kind: obj.kind, name: obj.metadata.name, enforcementAction: enforcementOf(obj), match: matchOf(obj), parameters, check: policy(parameters) };
}

export interface ConstraintSet {
  readonly size: number;
  /** Every finding for one object, from the constraints whose match selects it (indexed by kind, not scanned). */
  judge(obj: KubeObject): Finding[];
}

/** The constraints filed under one kind: those confined to named namespaces by namespace, the others apart. */
interface Bucket {
  byNamespace: Map<string, CompiledConstraint[]>;
  anyNamespace: CompiledConstraint[];
}

const exactNamespaces = (c: CompiledConstraint) => c.match.namespaces.length > 0 && c.match.namespaces.every((ns) => !ns.endsWith('*'));

/**
 * Constraints indexed by the kinds their match names and, within a kind, by the namespaces they are confined to,
 * so judging an object costs the constraints that could select it, not all of them: an audit of N objects under
 * M constraints stays far below N×M when constraints name kinds and namespaces, as they usually do. `matches`
 * still has the final say on each candidate.
 */
export function createConstraintSet(constraints: readonly CompiledConstraint[]): ConstraintSet {
  const buckets = new Map<string, Bucket>();
  const file = (kind: string, c: CompiledConstraint) => {
    let bucket = buckets.get(kind);
    if (!bucket) buckets.set(kind, (bucket = { byNamespace: new Map(), anyNamespace: [] }));
    if (!exactNamespaces(c)) {
      if (!bucket.anyNamespace.includes(c)) bucket.anyNamespace.push(c);
      return;
    }
    for (const ns of c.match.namespaces) {
      let list = bucket.byNamespace.get(ns);
      if (!list) bucket.byNamespace.set(ns, (list = []));
      if (!list.includes(c)) list.push(c);
    }
  };
  for (const c of constraints) {
    const keys = matchedKindKeys(c.match);
    if (keys.length === 0) file('*', c);
    for (const key of keys) file(key.slice(key.indexOf('/') + 1), c);
  }
  const none: CompiledConstraint[] = [];
  const candidatesIn = (bucket: Bucket | undefined, namespace: string): CompiledConstraint[] => {
    if (!bucket) return none;
    const named = namespace ? (bucket.byNamespace.get(namespace) ?? none) : none;
    return named.length === 0 ? bucket.anyNamespace : bucket.anyNamespace.length === 0 ? named : [...named, ...bucket.anyNamespace];
  };
  return {
    size: constraints.length,
    judge(obj) {
      const namespace = obj.metadata.namespace ?? '';
      const own = candidatesIn(buckets.get(obj.kind), namespace);
      const wildcard = candidatesIn(buckets.get('*'), namespace);
      // A constraint filed under both (a `*` kind beside named ones) is judged once.
      const candidates = wildcard.length === 0 ? own : own.length === 0 ? wildcard : [...new Set([...own, ...wildcard])];
      const findings: Finding[] = [];
      for (const constraint of candidates) {
        if (!matches(constraint.match, obj)) continue;
        for (const message of constraint.check(obj)) findings.push({ constraint, object: obj, message });
      }
      return findings;
    },
  };
}
