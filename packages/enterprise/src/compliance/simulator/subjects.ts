import { refKey, type Cluster, type KubeObject, type ResourceRef } from '@portico/core';
import type { AuditSubject } from './audit.js';
import type { SimulatorState } from './state.js';

const instanceRefOfRgd = async (cluster: Cluster, rgd: KubeObject): Promise<ResourceRef | undefined> => {
  const schema = rgd.spec?.schema;
  if (typeof schema?.kind !== 'string' || typeof schema?.apiVersion !== 'string') return undefined;
  return cluster.discover(typeof schema.group === 'string' && schema.group ? schema.group : 'kro.run', schema.apiVersion, schema.kind);
};

/** An RGD came, changed or went: its instance kind is watched (its instances are audited with what kro renders for them). */
export async function onRgd(state: SimulatorState, type: string, rgd: KubeObject, schedule: () => void): Promise<void> {
  const kind = rgd.spec?.schema?.kind;
  if (typeof kind !== 'string') return;
  if (type === 'DELETED') {
    state.rgdByKind.delete(kind);
    return schedule();
  }
  state.rgdByKind.set(kind, rgd);
  const ref = await instanceRefOfRgd(state.cluster, rgd).catch(() => undefined);
  if (ref && !state.instanceRefs.has(refKey(ref)) && !state.closed) {
    state.instanceRefs.add(refKey(ref));
    await state.informers.ensure(ref).catch(state.fail(`could not watch ${kind}`));
  }
  schedule();
}

/** What an audit pass looks at, keyed for its memory: each instance with its RGD, and each object of a plain kind. */
export function auditSubjects(state: SimulatorState): Array<[string, AuditSubject]> {
  const out: Array<[string, AuditSubject]> = [];
  for (const informer of state.informers.all()) {
    const ref = informer.ref;
    const instances = state.instanceRefs.has(refKey(ref));
    if (!instances && !state.plainRefs.has(`${ref.group}/${ref.kind}`)) continue;
    const rgd = instances ? state.rgdByKind.get(ref.kind) : undefined;
    if (instances && !rgd) continue;
    for (const object of informer.list()) out.push([`${refKey(ref)}|${object.metadata.namespace ?? ''}/${object.metadata.name}`, { object, rgd }]);
  }
  return out;
}

/** The subject of an admission review: an instance of a watched kind with its RGD (its children are judged too), else the object alone. */
export function admissionSubject(state: SimulatorState, ref: ResourceRef, obj: KubeObject): AuditSubject {
  const rgd = state.rgdByKind.get(obj.kind);
  return rgd && state.instanceRefs.has(refKey(ref)) ? { object: obj, rgd } : { object: obj };
}
