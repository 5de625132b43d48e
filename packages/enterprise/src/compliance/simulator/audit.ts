import type { KubeObject } from '@portico/core';
import type { ConstraintSet, Finding } from '../constraint-set.js';
import type { StatusViolation } from '../gatekeeper.js';
import { groupOf } from '../match.js';
import { renderResources } from '../render.js';

/** An instance with the RGD it comes from, or a plain object (a Namespace) judged on its own. */
export interface AuditSubject {
  object: KubeObject;
  rgd?: KubeObject;
}

/** What an object and the objects kro would create for it break: the instance and each rendered child. */
export function judgeSubject(set: ConstraintSet, subject: AuditSubject): Finding[] {
  const findings = set.judge(subject.object);
  if (subject.rgd) for (const child of renderResources(subject.rgd, subject.object)) findings.push(...set.judge(child.object));
  return findings;
}

/** A finding as Gatekeeper lists it in a constraint's status; made once per finding (periodic passes reuse it). */
export const toStatusViolation = (f: Finding): StatusViolation => {
  if (f.status) return f.status;
  const { apiVersion } = f.object;
  const slash = apiVersion.lastIndexOf('/');
  const status: StatusViolation = {
    enforcementAction: f.constraint.enforcementAction,
    group: slash < 0 ? '' : groupOf(apiVersion),
    version: apiVersion.slice(slash + 1),
    kind: f.object.kind,
    ...(f.object.metadata.namespace ? { namespace: f.object.metadata.namespace } : {}),
    name: f.object.metadata.name,
    message: f.message,
  };
  f.status = status;
  return status;
};

/** Whether a constraint's status already says `count` and `listed` (field by field: no JSON of a thousand entries). */
export function sameStatus(count: number, listed: readonly StatusViolation[], heldCount: unknown, held: unknown): boolean {
  if (heldCount !== count || !Array.isArray(held) || held.length !== listed.length) return false;
  for (let i = 0; i < listed.length; i++) {
    const a = listed[i]!;
    const b = held[i] as Partial<StatusViolation> | undefined;
    if (
      !b || a.name !== b.name || a.kind !== b.kind || a.message !== b.message || (a.namespace ?? '') !== (b.namespace ?? '') ||
      a.group !== b.group || a.version !== b.version || a.enforcementAction !== b.enforcementAction
    ) return false;
  }
  return true;
}

/**
 * The audit's memory: each subject's findings, kept while the subject, its RGD and the constraints are
 * unchanged, so a periodic pass over 20,000 unchanged instances costs map look-ups, not evaluation.
 */
export function createAuditCache() {
  const cache = new Map<string, { stamp: string; findings: Finding[] }>();
  let judged = 0; // since the cache was made
  let judgedBeforePass = 0;
  return {
    findings(set: ConstraintSet, generation: number, key: string, subject: AuditSubject): Finding[] {
      const stamp = `${generation}|${subject.object.metadata.resourceVersion ?? ''}|${subject.rgd?.metadata.resourceVersion ?? ''}`;
      const hit = cache.get(key);
      if (hit && hit.stamp === stamp) return hit.findings;
      const findings = judgeSubject(set, subject);
      judged++;
      cache.set(key, { stamp, findings });
      return findings;
    },
    /** Subjects judged (not answered from memory) since the cache was made: a pass reports its share. */
    judged: () => judged,
    /**
     * Forgets subjects not seen in the pass that ends; true when the pass found anything new (a subject judged
     * again, or one gone), i.e. when the statuses may differ from the last pass's.
     */
    endPass(seen: ReadonlySet<string>): boolean {
      let changed = judged > judgedBeforePass;
      judgedBeforePass = judged;
      for (const key of cache.keys()) {
        if (seen.has(key)) continue;
        cache.delete(key);
        changed = true;
      }
      return changed;
    },
  };
}
