import { isPorticoError, type KubeObject, type ResourceRef } from '@portico/core';
import { constraintCrdOf, constraintKindOf, constraintRefOf, crdRef, templateRef } from '../gatekeeper.js';
import type { SimulatorState } from './state.js';

/** How often, and how long apart, to look for a constraint kind's CRD to be served after creating it. */
const DISCOVER_TRIES = 50;
const DISCOVER_PAUSE_MS = 20;

/**
 * A ConstraintTemplate came, changed or went: as Gatekeeper does, generate the CRD of the constraint kind it
 * defines (once), watch that kind, and mark the template `created`; a deleted template's kind is no longer
 * watched. Either way the constraints in force are rebuilt.
 */
export async function onTemplate(state: SimulatorState, type: string, template: KubeObject, rebuild: () => void): Promise<void> {
  const kind = constraintKindOf(template);
  if (!kind) return;
  if (type === 'DELETED') {
    state.informers.drop(constraintRefOf(kind));
    state.constraintRefs.delete(kind);
    return rebuild();
  }
  try {
    const ref = await serveConstraintKind(state, template, kind);
    if (!ref || state.closed) return;
    state.constraintRefs.set(kind, ref);
    await state.informers.ensure(ref);
    if (template.status?.created !== true) await state.cluster.patch(templateRef, template.metadata.name, { status: { created: true } });
    rebuild();
  } catch (err) {
    state.fail(`could not serve the constraint kind ${kind}`)(err);
  }
}

/** Creates the constraint kind's CRD unless it exists (a replica may race us to it) and waits until it is served. */
async function serveConstraintKind(state: SimulatorState, template: KubeObject, kind: string): Promise<ResourceRef | undefined> {
  const { cluster } = state;
  const crd = constraintCrdOf(template);
  if (!(await cluster.get(crdRef, crd.metadata.name))) {
    await cluster.create(crdRef, crd).catch((err) => (isPorticoError(err) && err.code === 'CONFLICT' ? undefined : Promise.reject(err)));
  }
  const wanted = constraintRefOf(kind);
  for (let i = 0; i < DISCOVER_TRIES; i++) {
    const ref = await cluster.discover(wanted.group, wanted.version, kind);
    if (ref) return ref;
    await new Promise((r) => setTimeout(r, DISCOVER_PAUSE_MS));
  }
  return undefined;
}
