import type { KubeObject } from '@portico/core';
import { compileConstraint, createConstraintSet, type CompiledConstraint } from '../constraint-set.js';
import { matchedKindKeys } from '../match.js';
import type { SimulatorState } from './state.js';

/** Kinds a constraint names that the cluster serves in `v1` (Namespaces, Services…): audited as plain objects. */
const plainVersions = ['v1'];

/** The constraints in force: rebuilt from the watched constraint kinds whenever one of them really changes. */
export function createConstraints(state: SimulatorState, schedule: () => void) {
  /** Compiles and indexes every constraint of every served kind; the plain kinds they name get watched. */
  function rebuild() {
    const compiled: CompiledConstraint[] = [];
    for (const ref of state.constraintRefs.values()) {
      for (const obj of state.informers.get(ref)?.list() ?? []) {
        const c = compileConstraint(obj);
        if (c) compiled.push(c);
      }
    }
    state.constraints = {
      all: createConstraintSet(compiled),
      deny: createConstraintSet(compiled.filter((c) => c.enforcementAction === 'deny')),
      generation: state.constraints.generation + 1,
    };
    for (const c of compiled) for (const key of matchedKindKeys(c.match)) void watchPlainKind(key);
    schedule();
  }

  /** A constraint's event: the audit's own status writes come back too, and only a spec change (or a new/removed one) re-judges. */
  function onConstraint(previous: KubeObject | undefined, next: KubeObject) {
    if (previous && JSON.stringify(previous.spec) === JSON.stringify(next.spec) && previous.metadata.deletionTimestamp === next.metadata.deletionTimestamp) return;
    rebuild();
  }

  /** Watches a plain kind a constraint names (`group/kind`), unless it is a wildcard, an instance kind or watched already. */
  async function watchPlainKind(key: string) {
    const slash = key.indexOf('/');
    const [group, kind] = [key.slice(0, slash), key.slice(slash + 1)];
    if (group === '*' || kind === '*' || state.rgdByKind.has(kind) || state.plainRefs.has(key)) return;
    state.plainRefs.add(key);
    for (const version of plainVersions) {
      const ref = await state.cluster.discover(group, version, kind).catch(() => undefined);
      if (ref && !state.closed) {
        await state.informers.ensure(ref).catch(state.fail(`could not watch ${kind}`));
        return schedule();
      }
    }
  }

  return { rebuild, onConstraint };
}
