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

export const toStatusViolation = (f: Finding): StatusViolation => {
  const [group, version] = f.object.apiVersion.includes('/') ? [groupOf(f.object.apiVersion), f.object.apiVersion.slice(f.object.apiVersion.lastIndexOf('/') + 1)] : ['', f.object.apiVersion];
  return {
    enforcementAction: f.constraint.enforcementAction,
    group,
    version,
    kind: f.object.kind,
    ...(f.object.metadata.namespace ? { namespace: f.object.metadata.namespace } : {}),
    name: f.object.metadata.name,
    message: f.message,
  };
};

/**
 * The audit's memory: each subject's findings, kept while the subject, its RGD and the constraints are
 * unchanged, so a periodic pass over 20,000 unchanged instances costs map look-ups, not evaluation.
 */
export function createAuditCache() {
  const cache = new Map<string, { stamp: string; findings: Finding[] }>();
  let misses = 0;
  return {
    findings(set: ConstraintSet, generation: number, key: string, subject: AuditSubject): Finding[] {
      const stamp = `${generation}|${subject.object.metadata.resourceVersion ?? ''}|${subject.rgd?.metadata.resourceVersion ?? ''}`;
      const hit = cache.get(key);
      if (hit && hit.stamp === stamp) return hit.findings;
      misses++;
      const findings = judgeSubject(set, subject);
      cache.set(key, { stamp, findings });
      return findings;
    },
    /**
     * Forgets subjects not seen in the pass that ends; true when the pass found anything new (a subject judged
     * again, or one gone), i.e. when the statuses may differ from the last pass's.
     */
    endPass(seen: ReadonlySet<string>): boolean {
      let changed = misses > 0;
      misses = 0;
      for (const key of cache.keys()) {
        if (seen.has(key)) continue;
        cache.delete(key);
        changed = true;
      }
      return changed;
    },
  };
}
