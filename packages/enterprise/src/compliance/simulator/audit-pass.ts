import { compileConstraint, type CompiledConstraint } from '../constraint-set.js';
import type { StatusViolation } from '../gatekeeper.js';
import { createAuditCache, sameStatus, toStatusViolation } from './audit.js';
import type { SimulatorState } from './state.js';
import { auditSubjects } from './subjects.js';

export interface AuditReport {
  subjects: number;
  /**
   * Subjects evaluated in this pass; the others' findings came from the audit's memory (unchanged object, RGD
   * and constraints). Equal to `subjects` after a constraint change, 0 for a periodic pass over a quiet cluster.
   */
  judged: number;
  constraints: number;
  violations: number;
  /** Constraints whose status was written (changed). */
  written: number;
  ms: number;
}

/** A constraint's status as the audit settles it: how many violations, and the first `limit` of them listed. */
interface Tally {
  count: number;
  listed: StatusViolation[];
}

/**
 * One full audit pass, as Gatekeeper's audit runs: judge every subject against the constraints in force (from
 * memory where nothing changed), then write each constraint's `status.totalViolations` and `status.violations[]`
 * where they differ from what it holds.
 */
export function createAuditPass(state: SimulatorState, opts: { limit: number; now: () => Date }) {
  const cache = createAuditCache();
  /**
   * The status each constraint was last settled to (written, or found already so): a pass does not rewrite
   * what its watch has not delivered yet, and a pass that judged nothing anew skips the comparison.
   */
  const settled = new Map<string, Tally>();

  /** Per constraint (`kind/name`): its findings over every subject, the first `limit` listed, the rest only counted. */
  function tally(): { subjects: number; judged: number; changed: boolean; found: Map<string, Tally> } {
    const { all, generation } = state.constraints;
    const byConstraint = new Map<CompiledConstraint, Tally>();
    const seen = new Set<string>();
    const judgedBefore = cache.judged();
    const list = auditSubjects(state);
    for (const [key, subject] of list) {
      seen.add(key);
      for (const f of cache.findings(all, generation, key, subject)) {
        let found = byConstraint.get(f.constraint);
        if (!found) byConstraint.set(f.constraint, (found = { count: 0, listed: [] }));
        if (found.count++ < opts.limit) found.listed.push(toStatusViolation(f));
      }
    }
    const found = new Map([...byConstraint].map(([c, t]) => [`${c.kind}/${c.name}`, t]));
    const changed = cache.endPass(seen);
    return { subjects: list.length, judged: cache.judged() - judgedBefore, changed, found };
  }

  /** Writes the statuses that differ; a constraint whose status is settled and nothing was judged anew is skipped. */
  async function writeStatuses(found: Map<string, Tally>, changed: boolean) {
    let written = 0;
    let violations = 0;
    let constraints = 0;
    const auditTimestamp = opts.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const current = new Set<string>();
    for (const [kind, ref] of state.constraintRefs) {
      for (const obj of state.informers.get(ref)?.list() ?? []) {
        if (!compileConstraint(obj)) continue;
        constraints++;
        const status = found.get(`${kind}/${obj.metadata.name}`) ?? { count: 0, listed: [] };
        violations += status.count;
        const id = `${kind}/${obj.metadata.name}/${obj.metadata.uid ?? ''}`;
        current.add(id);
        if (!changed && settled.has(id)) continue;
        // What this audit wrote a moment ago (its watch event may not be here yet), or what the cluster holds.
        const last = settled.get(id);
        if (last && sameStatus(status.count, status.listed, last.count, last.listed)) continue;
        if (sameStatus(status.count, status.listed, obj.status?.totalViolations, obj.status?.violations)) {
          settled.set(id, status);
          continue;
        }
        await state.cluster
          .patch(ref, obj.metadata.name, { status: { totalViolations: status.count, violations: status.listed, auditTimestamp } })
          .then(() => {
            settled.set(id, status);
            written++;
          }, state.fail(`could not write the status of ${kind} ${obj.metadata.name}`));
      }
    }
    for (const id of settled.keys()) if (!current.has(id)) settled.delete(id);
    return { constraints, violations, written };
  }

  return async function pass(): Promise<AuditReport> {
    const started = performance.now();
    const { subjects, judged, changed, found } = tally();
    const { constraints, violations, written } = await writeStatuses(found, changed);
    return { subjects, judged, constraints, violations, written, ms: performance.now() - started };
  };
}
